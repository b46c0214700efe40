"""Regression fixtures: every recording in tests/fixtures/transcripts/ replays against the current
code with every server frame matching.

The recordings were made over real stdio with `serve --record` by tests/fixtures/make_transcripts.py.
A failure prints a diff per changed frame. If the change is deliberate, that diff is the review
of what changed on the wire: regenerate (`make fixtures`). Otherwise it is the regression.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from agent_as_model.commands.transcripts.command import MATCHED, replay_path
from agent_as_model.commands.transcripts.fileformat import load
from tests.fixtures.make_transcripts import CASES, ERAS, file_name
from tests.helpers import listed_tools

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
RECORDINGS = sorted(FIXTURES.glob("*.jsonl"))
REGENERATE = "make fixtures (or .venv/bin/python -m tests.fixtures.make_transcripts)"


@pytest.mark.anyio
@pytest.mark.parametrize("path", RECORDINGS, ids=[path.stem for path in RECORDINGS])
async def test_fixture_replays_to_a_match(path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    status = await replay_path(path, out=out, err=err)
    assert status == MATCHED, f"{out.getvalue()}{err.getvalue()}\nIf the change is intended: {REGENERATE}"


def test_every_case_is_recorded_on_both_eras() -> None:
    expected = {file_name(era, case) for case in CASES for era in ERAS}
    held = {path.name for path in RECORDINGS}
    assert expected == held, f"the fixtures do not match the cases: {REGENERATE}"


def test_fixtures_call_every_tool_on_both_eras() -> None:
    tools = set(listed_tools())
    for era in ERAS:
        called: set[str] = set()
        for path in FIXTURES.glob(f"{era}-*.jsonl"):
            transcript = load(path)
            assert transcript.era == era, path.name
            called |= {e.context.tool for e in transcript.frames if e.context.tool and e.direction == "c2s"}
        assert called >= tools, f"{era}: no recording calls {sorted(tools - called)}"


SECRETS = (
    "Secret system prompt.",
    "My account number is 12345.",
    "Noted: 12345.",
    "12345",
    "Secret",
    "Paris",
    "sunny",
    "Lovelace",
)
PLACEHOLDER = re.compile(r"#[0-9a-f]{0,16}\.*")


@pytest.mark.parametrize("era", ERAS)
def test_a_redacted_recording_hides_the_text_and_keeps_the_shape(era: str) -> None:
    path = FIXTURES / f"{era}-redacted.jsonl"
    text = path.read_text(encoding="utf-8")
    for secret in SECRETS:
        assert secret not in text
    transcript = load(path)
    assert transcript.header.redacted
    calls = [e.frame for e in transcript.frames if e.direction == "c2s" and e.context.method == "tools/call"]
    first = calls[0]["params"]["arguments"]["messages"]
    assert [m["role"] for m in first] == ["system", "user"]  # the structure stays
    system, user = (m["content"] for m in first)
    assert (len(system), len(user)) == (len(SECRETS[0]), len(SECRETS[1]))  # same length
    assert PLACEHOLDER.fullmatch(system) and PLACEHOLDER.fullmatch(user)
    # Stable: the same text is the same placeholder everywhere in the file.
    responses_input = next(c for c in calls if c["params"]["name"] == "responses_create")["params"][
        "arguments"
    ]
    assert responses_input["input"] == user
    assert text.count(user) >= 4  # two calls, and the host saw it twice
    # A cursor hashes the conversation: the one the same chain has unredacted must not appear.
    plain = (FIXTURES / f"{era}-cursors.jsonl").read_text(encoding="utf-8")
    first_cursor = re.search(r"cur_[0-9a-f]{64}", plain)
    assert first_cursor and first_cursor.group(0) not in text
    assert re.search(r"cur_[0-9a-f]{64}", text)  # the shape stays
    # The server's own diagnostics are kept (a caller error names the parameter).
    errors = [_text(e.frame) for e in transcript.frames if _is_error(e.frame)]
    assert "generate: prompt: expected a string, got number. Nothing was sent to the host." in errors


def _is_error(frame: Any) -> bool:
    return (
        isinstance(frame, dict)
        and isinstance(frame.get("result"), dict)
        and frame["result"].get("isError") is True
    )


def _text(frame: dict[str, Any]) -> str:
    return str(frame["result"]["content"][0]["text"])


def test_the_responses_fixture_shows_ids_sharing_their_hex() -> None:
    # Normalisation numbers hex by first appearance: the recording must really have had one hex.
    for era in ERAS:
        transcript = load(FIXTURES / f"{era}-responses_create.jsonl")
        for entry in transcript.frames:
            result = entry.frame.get("result") if isinstance(entry.frame, dict) else None
            if isinstance(result, dict) and isinstance(result.get("structuredContent"), dict):
                response = result["structuredContent"]
                assert response["id"][len("resp_") :] == response["output"][0]["id"][len("msg_") :]
                assert json.loads(result["content"][0]["text"]) == response
