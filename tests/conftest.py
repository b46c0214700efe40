from collections.abc import Iterator
from typing import Any

import pytest

from agent_as_model import schemas
from agent_as_model.adapters.tools import definitions
from tests import sdk_truth
from tests.provider_harness import standin  # noqa: F401  (the stand-in provider, for every test file)
from tests.scripted_host import ERAS


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
def full_checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The paths of the schemas checked in full, from empty caches (the schema checks and the
    tool definitions read once, tests/test_schema_cache.py and tests/test_tools_read_once.py)."""
    seen: list[str] = []
    check = schemas._check_in_full

    def counted(value: dict[str, Any], path: str) -> None:
        seen.append(path)
        check(value, path)

    monkeypatch.setattr(schemas, "_check_in_full", counted)
    schemas._checked.clear()
    definitions.forget_read()
    yield seen
    schemas._checked.clear()
    definitions.forget_read()
