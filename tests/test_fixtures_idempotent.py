"""`make fixtures` is idempotent. Re-recording an exchange that did not change
leaves the file byte for byte (times, sealed tokens, random ids and `created_at` differ between any
two recordings); a change on the wire replaces it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.fixtures import make_transcripts
from tests.fixtures.make_transcripts import CASES, make, same_on_the_wire

FIXTURES = Path(make_transcripts.__file__).parent / "transcripts"


# What varies between two recordings of each (each run costs about 2.5 s: four server starts):
# responses_create a resp_ id, created_at, and on 2026-07-28 sealed requestState tokens; gemini
# random resp_ responseIds (inside JSON text too); redacted_gemini the per-recording keyed hashes
# of its placeholders and cursors; cursors a chain whose later calls carry the cursors minted.
VARYING = ["responses_create", "gemini", "redacted_gemini", "cursors"]


@pytest.mark.stdio
@pytest.mark.parametrize("name", VARYING)
def test_re_recording_an_unchanged_exchange_changes_no_file(tmp_path: Path, name: str) -> None:
    case = next(c for c in CASES if c.name == name)
    first = anyio.run(make, [case], tmp_path)
    assert [p.name for p in first] == [f"legacy-{name}.jsonl", f"modern-{name}.jsonl"]
    before = {p.name: p.read_bytes() for p in first}
    again = anyio.run(make, [case], tmp_path)
    assert again == []  # nothing changed on the wire: nothing replaced
    assert {p.name: p.read_bytes() for p in sorted(tmp_path.glob("*.jsonl"))} == before


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_change_on_the_wire_is_not_masked(tmp_path: Path) -> None:
    original = FIXTURES / "legacy-generate.jsonl"
    lines = _lines(original)
    at = next(
        i
        for i, line in enumerate(lines)
        if line.get("dir") == "s2c" and "content" in line["frame"].get("result", {})
    )  # the generate result
    changed = json.loads(json.dumps(lines))
    changed[at]["frame"]["result"]["content"][0]["text"] += "!"
    assert not same_on_the_wire(original, _write(tmp_path / "changed.jsonl", changed))
    retimed = json.loads(json.dumps(lines))
    retimed[0]["started"] = "2030-01-01T00:00:00.000Z"
    for line in retimed[1:]:
        line["t"] = line["t"] + 1.5
    assert same_on_the_wire(original, _write(tmp_path / "retimed.jsonl", retimed))
