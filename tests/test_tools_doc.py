"""docs/tools-and-structured-output.md shows real exchanges: run the examples again and compare."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.doc_examples import RANDOM_HEX, REGENERATE, Example, current_blocks, rendered, run_all

DOC = Path(__file__).parent.parent / "docs" / "tools-and-structured-output.md"


@pytest.fixture(scope="module")
def legacy() -> list[Example]:
    return anyio.run(run_all, "legacy")


def test_the_doc_shows_the_current_examples(legacy: list[Example]) -> None:
    fresh = rendered(legacy)
    held = current_blocks(DOC.read_text(encoding="utf-8"), list(fresh))
    for key, block in fresh.items():
        assert held[key] is not None, f"{DOC.name} lost its example:{key} markers"
        assert held[key] == block, f"{DOC.name} is stale (example {key!r} changed): run `{REGENERATE}`"


def _exchanges(example: Example) -> list[dict[str, Any]]:
    """What the host saw and answered and what the caller got, step by step (not the log)."""
    steps = [dataclasses.asdict(step) for step in example.steps]
    for step in steps:
        del step["warnings"]  # 2026-07-28 logs the dropped-tools warning on each round
    text = RANDOM_HEX.sub(r"\1_<hex>", json.dumps(steps))
    return json.loads(CREATED_AT_ANYWHERE.sub(r"\g<1>0", text))  # the second it was made differs


# A Responses object's `created_at` and a ChatCompletion's `created`, also as JSON
# text inside JSON (its quotes escaped): the second each was made differs between the two runs.
CREATED_AT_ANYWHERE = re.compile(r'(\\?"created(?:_at)?\\?": )\d+')


def test_2026_07_28_carries_the_same_requests_and_gives_the_same_results(legacy: list[Example]) -> None:
    """The doc says the examples read the same on 2026-07-28, inside InputRequiredResult rounds."""
    modern = anyio.run(run_all, "2026-07-28")
    assert [e.key for e in modern] == [e.key for e in legacy]
    for old, new in zip(legacy, modern, strict=True):
        assert _exchanges(new) == _exchanges(old), old.key


def test_each_example_does_what_its_section_says(legacy: list[Example]) -> None:
    by_key = {e.key: e for e in legacy}
    for key in ("chat-tool-loop", "messages-tool-loop", "responses-tool-loop"):
        first, second = by_key[key].steps
        assert len(first.samplings) == len(second.samplings) == 1 and not first.is_error
        assert first.samplings[0].answer["stopReason"] == "toolUse"
        assert second.samplings[0].params["messages"][-1]["content"]["type"] == "tool_result", key
    repair = by_key["repair"].steps[0]
    assert len(repair.samplings) == 2 and not repair.is_error
    assert repair.samplings[1].params["messages"][-1]["content"][0]["isError"] is True
    invalid = by_key["invalid-output"].steps[0]
    assert invalid.is_error and "JSON pointer '/born'" in invalid.text and "December" not in invalid.text
    assert by_key["tools-with-output-schema"].steps[0].samplings == []
    dropped = by_key["tools-dropped"].steps[0]
    assert "tools" not in dropped.samplings[0].params and dropped.warnings
    assert "tools" not in by_key["output-schema-prompt"].steps[0].samplings[0].params
