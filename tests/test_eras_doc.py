"""docs/eras.md shows real exchanges: capture them again over stdio and compare."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.wire_capture import ERAS, REGENERATE, capture_all, current_blocks, rendered

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]

DOC = Path(__file__).parent.parent / "docs" / "eras.md"


@pytest.fixture(scope="module")
async def captures() -> AsyncIterator[dict[str, list[tuple[str, dict[str, Any]]]]]:
    yield await capture_all()


async def test_eras_doc_shows_the_current_exchanges(captures: dict[str, Any]) -> None:
    fresh = rendered(captures)
    held = current_blocks(DOC.read_text(encoding="utf-8"))
    for era in ERAS:
        assert held[era] is not None, f"docs/eras.md lost its capture:{era} markers"
        assert held[era] == fresh[era], f"docs/eras.md is stale ({era} exchange changed): run `{REGENERATE}`"


async def test_captures_have_the_expected_shape(captures: dict[str, Any]) -> None:
    legacy = [(d, f.get("method")) for d, f in captures["legacy"]]
    assert legacy == [
        ("client", "initialize"),
        ("server", None),
        ("client", "notifications/initialized"),
        ("client", "tools/call"),
        ("server", "sampling/createMessage"),
        ("client", None),
        ("server", None),
    ]
    modern = [f for _, f in captures["modern"]]
    assert [d for d, _ in captures["modern"]] == ["client", "server", "client", "server"]
    round_one, final = modern[1]["result"], modern[3]["result"]
    assert round_one["resultType"] == "input_required"
    assert list(round_one["inputRequests"]) == ["completion"]
    assert round_one["requestState"].startswith("v1.")
    # The embedded request carries exactly the params the legacy era sends.
    legacy_params = captures["legacy"][4][1]["params"]
    assert round_one["inputRequests"]["completion"] == {
        "method": "sampling/createMessage",
        "params": legacy_params,
    }
    assert final["resultType"] == "complete"
    assert final["content"] == captures["legacy"][6][1]["result"]["content"]
