from collections.abc import Callable, Iterator

import pytest

from agent_as_model import schemas
from agent_as_model.adapters.tools import definitions
from tests import sdk_truth
from tests.provider_harness import standin  # noqa: F401  (the stand-in provider, for every test file)
from tests.scripted_host import ERAS
from tests.telemetry_helpers import observed  # noqa: F401  (spans and metrics read in memory)


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    """Every behaviour runs on legacy sampling and on 2026-07-28 MRTR."""
    return request.param


# Module-scoped, as the anyio plugin's own: a module-scoped async fixture (one server process
# shared by a file's tests) needs a backend that lives at least as long.
@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True, scope="session")
def _responses_validated_by_the_sdk() -> Iterator[None]:
    """Every response object any test makes is validated as the official SDK's own type."""
    originals = sdk_truth.install()
    yield
    sdk_truth.uninstall(originals)


@pytest.fixture(autouse=True)
def _no_invalid_responses() -> Iterator[None]:
    sdk_truth.failures.clear()
    yield
    assert not sdk_truth.failures, sdk_truth.failures


@pytest.fixture
def checked_in_full() -> Iterator[Callable[[], int]]:
    """How many callers' schemas have been checked in full since the test began, from empty
    caches, as `schemas.stats` tells an operator (a schema found checked before is not checked
    again, and not counted)."""
    schemas.forget_checked()
    definitions.forget_read()
    before = schemas.stats()["checked_in_full"]
    yield lambda: schemas.stats()["checked_in_full"] - before
    schemas.forget_checked()
    definitions.forget_read()
