"""A failure kept as a recording that `replay FILE --against CMD` reproduces.

The minimal failing chain is made again, call by call with the same host answers, through the
recording relay (`tee.py`) in front of the server under test, on the era of the failing call (the
server keeps no state, so every call carries all it needs). The file then says what a server
should have said at the failing call, so that replaying it shows the divergence frame by frame:

- a wrong cursor in an answer: the recorded result carries the oracle's cursor instead;
- a history that had to be refused but was answered: the host round trip of that call (legacy
  `sampling/createMessage` and its answer, or the 2026-07-28 `InputRequiredResult` and retry) is
  taken out, and the result becomes the refusal this project's server gives, with nothing sent.

Replayed against the server under test, that frame differs (exit status 1); against a server that
follows the contract, like this one, the recording matches. Other failures (a valid request
refused, a host asked twice, a refusal worded without the cursors) are kept as they happened: the
report says what was expected, and replay reproduces the exchange itself.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_as_model.commands.fuzz.checks import Logged
from agent_as_model.commands.fuzz.render import Unreadable, read_result
from agent_as_model.commands.fuzz.session import Sessions, Unreachable
from agent_as_model.commands.transcripts.fileformat import dump_record

TEE = [sys.executable, "-m", "agent_as_model.commands.fuzz.tee"]


# The result metadata a completion carries in `_meta` (spec section 9; states/commit.py).
RESULT_META = "agent-as-model/result"


def record_chain(
    command: Sequence[str], log: Sequence[Logged], path: Path, timeout: float, errlog: Path | None = None
) -> str:
    """Make the logged calls again through the recording relay; rewrite the failing call's frames
    to what the oracle expected. Returns a note on what was rewritten."""
    era = log[-1].era
    with Sessions([*TEE, str(path), "--", *command], [era], timeout, errlog) as sessions:
        for call in log:
            try:
                sessions.call(era, call.tool, call.arguments, call.answer)
            except Unreachable:
                break
    return expect_in_recording(path, log[-1])


@dataclass
class _CallFrames:
    """The record indexes of one tool call: its first request, the host round trips and retries,
    and its final result."""

    first: int
    ids: set[Any] = field(default_factory=set)
    host: list[int] = field(default_factory=list)
    sampling_ids: set[Any] = field(default_factory=set)
    final: int | None = None


def _calls(records: list[dict[str, Any]]) -> list[_CallFrames]:
    calls: list[_CallFrames] = []
    open_call: _CallFrames | None = None
    for index, record in enumerate(records):
        frame = record.get("frame")
        if record.get("kind") != "frame" or not isinstance(frame, dict):
            continue
        outbound = record["dir"] == "c2s"
        if outbound and frame.get("method") == "tools/call":
            if "inputResponses" in (frame.get("params") or {}) and open_call is not None:
                open_call.ids.add(frame.get("id"))
                open_call.host.append(index)
                continue
            open_call = _CallFrames(index, {frame.get("id")})
            calls.append(open_call)
            continue
        if open_call is None:
            continue
        if not outbound and frame.get("method") == "sampling/createMessage":
            open_call.sampling_ids.add(frame.get("id"))
            open_call.host.append(index)
        elif outbound and "method" not in frame and frame.get("id") in open_call.sampling_ids:
            open_call.host.append(index)
        elif not outbound and "method" not in frame and frame.get("id") in open_call.ids:
            result = frame.get("result")
            if isinstance(result, dict) and result.get("resultType") == "input_required":
                open_call.host.append(index)
            else:
                open_call.final = index
                open_call = None
    return calls


def _replace_text(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_replace_text(item, old, new) for item in value]
    if isinstance(value, dict):
        return {key: _replace_text(item, old, new) for key, item in value.items()}
    return value


def _records(path: Path) -> list[dict[str, Any]]:
    """The recording's records. One a line, split at "\n" only: the texts drawn may hold U+2028,
    U+0085 and the like, which the file keeps unescaped and str.splitlines() would break a record
    at. A last line cut short (the relay was stopped, as a server that stopped answering gets
    stopped, while it wrote the frame in flight) is left out."""
    lines = [line for line in path.read_text(encoding="utf-8").split("\n") if line]
    records = [json.loads(line) for line in lines[:-1]]
    with suppress(ValueError):
        records += [json.loads(line) for line in lines[-1:]]
    return records


def expect_in_recording(path: Path, failed: Logged) -> str:
    records = _records(path)
    calls = _calls(records)
    if not calls or calls[-1].final is None:
        return "the recording holds the exchange as it happened (the failing call got no result)"
    last = calls[-1]
    assert last.final is not None
    frame = records[last.final]["frame"]
    result = frame.get("result")
    expected = failed.expected
    note = "the recording holds the exchange as it happened"
    if not isinstance(result, dict):
        return note
    if expected.refused and result.get("isError") is not True:
        first_id = records[last.first]["frame"].get("id")
        result = {key: value for key, value in result.items() if key != "structuredContent"}
        result.update(content=[{"type": "text", "text": expected.refusal}], isError=True)
        # A refusal carries no result metadata of an answer (the model, why it stopped): nobody
        # answered. It still names the backend the call had, the one that answered here.
        given = result.get("_meta") or {}
        meta = {k: v for k, v in given.items() if k != RESULT_META}
        backend = (given.get(RESULT_META) or {}).get("backend")
        if backend is not None:
            meta[RESULT_META] = {"backend": backend}
        if meta:
            result["_meta"] = meta
        else:
            result.pop("_meta", None)
        records[last.final]["frame"] = {**frame, "id": first_id, "result": result}
        records = [record for index, record in enumerate(records) if index not in set(last.host)]
        note = "the failing call's frames say what was expected: a refusal, nothing sent to the host"
    elif not expected.refused and result.get("isError") is not True:
        text = "".join(b.get("text", "") for b in result.get("content", []) if isinstance(b, dict))
        try:
            _, cursor = read_result(failed.tool, text, result.get("structuredContent"))
        except Unreadable:
            return note
        if expected.cursor is not None and cursor != expected.cursor:
            records[last.final]["frame"] = {**frame, "result": _replace_text(result, cursor, expected.cursor)}
            note = (
                f"the failing call's result carries the expected cursor {expected.cursor} instead of {cursor}"
            )
    path.write_text("".join(dump_record(record) + "\n" for record in records), encoding="utf-8")
    return note
