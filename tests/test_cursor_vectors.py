"""agent_as_model.cursors agrees byte for byte with an independent implementation.

`tests/vectors/cursors.json` was produced by `tests/vectors/make_cursor_vectors.mjs`, a Node.js
re-implementation of the canonical form (Python's json.dumps semantics written out by hand) and of
the cursor, tool-call envelope and result texts. See tests/vectors/README.md.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_as_model import cursors
from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.common import text_result
from agent_as_model.adapters.dialects.parse import parse_request
from agent_as_model.neutral import Completion, ToolUse
from agent_as_model.states.commit import tool_result

VECTORS_DIR = Path(__file__).parent / "vectors"
RAW = (VECTORS_DIR / "cursors.json").read_text(encoding="ascii")
VECTORS: list[dict[str, Any]] = json.loads(RAW)


def by_name(vector: dict[str, Any]) -> str:
    return str(vector["name"])


def test_the_vectors_cover_the_ground() -> None:
    assert len({v["name"] for v in VECTORS}) == len(VECTORS), "vector names must be unique"
    assert {v["tool"] for v in VECTORS} == set(DIALECTS)
    roles = {e["role"] for v in VECTORS for e in v["transcript"]}
    assert roles == {"system", "developer", "user", "assistant", "tool"}
    assert any("envelopes" in v for v in VECTORS)
    assert any("history" in v for v in VECTORS)
    texts = "".join(e["content"] for v in VECTORS for e in v["transcript"])
    for needle in ("é", "中", "😀", "𝄞", "\x00", "\x7f", '"', "\\", "\u2028"):
        assert needle in texts, f"no vector holds {needle!r}"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_file_is_what_the_generator_writes() -> None:
    generator = VECTORS_DIR / "make_cursor_vectors.mjs"
    done = subprocess.run(
        ["node", str(generator)], capture_output=True, text=True, encoding="ascii", check=True
    )
    assert done.stdout == RAW, (
        "regenerate: node tests/vectors/make_cursor_vectors.mjs > tests/vectors/cursors.json"
    )


def test_the_file_is_what_python_would_write() -> None:
    # The file is the JS serializer's own output (indent 1, keys sorted, ASCII), so this compares
    # that serializer with Python's over everything the vectors hold, floats and big ints included.
    assert json.dumps(VECTORS, sort_keys=True, indent=1) + "\n" == RAW


@pytest.mark.parametrize("vector", VECTORS, ids=by_name)
def test_canonical_text_and_cursor(vector: dict[str, Any]) -> None:
    model, tool, transcript = vector["model"], vector["tool"], vector["transcript"]
    assert cursors.canonical({"model": model, "tool": tool, "transcript": transcript}) == vector["canonical"]
    assert cursors.mint(model, tool, transcript) == vector["cursor"]


def returned_text(completion: str, cursor: str) -> str:
    """The text a text tool returns with cursors on, made the way the server makes it."""
    rendered = text_result(Completion(text=completion), None, cursor)  # type: ignore[arg-type]
    return tool_result(rendered).content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("vector", [v for v in VECTORS if "result_text" in v], ids=by_name)
def test_result_cursor_and_text(vector: dict[str, Any]) -> None:
    *history, last = vector["transcript"]
    assert last["role"] == "assistant"
    cursor = cursors.result_cursor(vector["model"], vector["tool"], history, last["content"])
    assert cursor == vector["cursor"]
    assert returned_text(last["content"], cursor) == vector["result_text"]


@pytest.mark.parametrize("vector", [v for v in VECTORS if "envelopes" in v], ids=by_name)
def test_tool_call_envelopes(vector: dict[str, Any]) -> None:
    for envelope in vector["envelopes"]:
        calls = [ToolUse(c["id"], c["name"], c["input"]) for c in envelope["tool_calls"]]
        expected = vector["transcript"][envelope["entry"]]
        assert cursors.tool_calls_text(envelope["text"], calls) == expected["content"]
        assert cursors.assistant_entry(envelope["text"], calls) == expected


@pytest.mark.parametrize("vector", [v for v in VECTORS if "history" in v], ids=by_name)
def test_history_passed_back_verifies(vector: dict[str, Any]) -> None:
    model, tool, history = vector["model"], vector["tool"], vector["history"]
    assert cursors.history_cut(history) == vector["transcript"]
    previous = cursors.read_previous(vector["cursor"], tool)
    assert previous == cursors.Previous("continue", vector["cursor"])
    cursors.verify(previous, model, tool, history)


@pytest.mark.parametrize("vector", [v for v in VECTORS if "request" in v], ids=by_name)
def test_a_gemini_request_reads_into_the_transcript_and_verifies(vector: dict[str, Any]) -> None:
    """The JS made these transcripts from gemini request bodies by the rules of docs/cursors.md;
    the dialect must read the same body into the same entries, and the cursor must verify."""
    model, tool, cursor = vector["model"], vector["tool"], vector["cursor"]
    request = parse_request(
        DIALECTS[tool], {**vector["request"], "model": model, "previous_response_id": cursor}
    )
    assert request.chain is not None
    assert list(request.chain.history) == vector.get("history", vector["transcript"])
    if any(e["role"] == "assistant" for e in vector["transcript"]):
        cursors.verify(cursors.read_previous(cursor, tool), model, tool, request.chain.history)
    if "gemini_result" in vector:
        *history, last = vector["transcript"]
        completion = Completion(text=last["content"], model="host-model", stop_reason="endTurn")
        minted = cursors.result_cursor(model, tool, history, last["content"])
        rendered = DIALECTS[tool].render(completion, request, minted)
        assert isinstance(rendered, dict)
        # The usage is this server's estimate, not part of the cursor contract the
        # second implementation writes: the rest is compared byte for byte.
        usage = rendered.pop("usageMetadata")
        assert usage["totalTokenCount"] == usage["promptTokenCount"] + usage["candidatesTokenCount"] > 0
        assert tool_result(rendered).content[0].text == vector["gemini_result"]  # type: ignore[union-attr]
