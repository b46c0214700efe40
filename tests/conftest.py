import pytest

from tests.provider_harness import standin  # noqa: F401  (the stand-in provider, for every test file)
from tests.scripted_host import ERAS


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    """Every behaviour runs on legacy sampling and on 2026-07-28 MRTR."""
    return request.param


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
