"""Recordings in-process: replaying them, reporting divergences, refusing damaged files, and the
pure pieces (file format, redaction, normalisation, the tap, progress) on their own.

The recordings replayed here are the fixtures in tests/fixtures/transcripts/, made over real stdio
with `serve --record`; tests/test_transcripts_stdio.py records fresh ones.
"""

from __future__ import annotations

import io
import json
import os
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from agent_as_model.commands import cli
from agent_as_model.commands.progress import DELAY, Progress
from agent_as_model.commands.transcripts.command import DIVERGED, MATCHED, UNREPLAYABLE, replay_path
from agent_as_model.commands.transcripts.exchange import (
    CLIENT_TO_SERVER,
    SERVER_TO_CLIENT,
    Exchange,
    FrameContext,
)
from agent_as_model.commands.transcripts.fileformat import (
    FORMAT_VERSION,
    TranscriptError,
    TranscriptWriter,
    load,
    parse,
)
from agent_as_model.commands.transcripts.normalise import normalise, pair_tokens
from agent_as_model.commands.transcripts.recorder import ProtocolWatch, Recorder
from agent_as_model.commands.transcripts.redact import Redactor, map_text
from agent_as_model.commands.transcripts.replay import replay
from agent_as_model.commands.transcripts.targets import Target, in_process
from agent_as_model.transports.tap import LineSplitter, TapReader, TapWriter
from tests import divergent_server

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
ERAS = ("legacy", "modern")


def fixture(era: str, case: str) -> Path:
    return FIXTURES / f"{era}-{case}.jsonl"


async def replayed(path: Path, **options: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = await replay_path(path, out=out, err=err, **options)
    return status, out.getvalue(), err.getvalue()


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def write_lines(path: Path, lines: list[str], *, final_newline: bool = True) -> Path:
    path.write_text("\n".join(lines) + ("\n" if final_newline else ""), encoding="utf-8")
    return path


# --- replaying ----------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("era", ERAS)
async def test_a_recording_replays_to_a_match(era: str) -> None:
    status, out, err = await replayed(fixture(era, "responses_create"))
    assert status == MATCHED, out + err
    assert out.strip().endswith("all match")
    assert "against in-process agent-as-model" in out


@pytest.mark.anyio
@pytest.mark.parametrize("era", ERAS)
async def test_a_changed_server_is_a_divergence_with_a_readable_diff(era: str) -> None:
    status, out, _ = await replayed(fixture(era, "generate"), factory=lambda: divergent_server.build("shout"))
    assert status == DIVERGED
    result = next(
        e for e in load(fixture(era, "generate")).frames if e.frame.get("id") == 2 and "result" in e.frame
    )
    where = f"frame {result.number} (line {result.line})"
    assert f"{where} differs: server → host: result of tools/call generate (id 2)" in out
    assert "--- recorded\n+++ replayed\n" in out
    assert '-        "text": "Hi!",\n+        "text": "HI!",' in out
    # Only the changed frame is reported; the rest still matches.
    assert out.count(" differs: ") == 1
    assert out.strip().splitlines()[-1].endswith("1 differ, 0 missing, 0 unexpected")


@pytest.mark.anyio
async def test_a_frame_the_server_no_longer_sends_is_missing_not_a_hang() -> None:
    # The refusing server answers the call at once: the sampling request never comes, the host's
    # recorded answer to it is not sent, and the result differs. No waiting for a timeout.
    started = time.monotonic()
    status, out, _ = await replayed(
        fixture("legacy", "generate"), factory=lambda: divergent_server.build("refuse"), timeout=30
    )
    assert time.monotonic() - started < 10
    assert status == DIVERGED
    assert "missing: server → host: sampling/createMessage request (id 1)" in out
    assert "the replayed server went on to: server → host: result of tools/call generate (id 2)" in out
    assert "not sent: host → server: result of sampling/createMessage (id 1)" in out
    assert '+        "text": "refused",' in out
    assert "1 differ, 1 missing, 0 unexpected" in out


@pytest.mark.anyio
async def test_the_retry_carries_the_fresh_servers_request_state() -> None:
    path = fixture("modern", "generate")
    recorded = [entry.frame for entry in load(path).frames]
    recorded_state = recorded[1]["result"]["requestState"]
    sent: list[dict[str, Any]] = []
    received: list[dict[str, Any]] = []

    @asynccontextmanager
    async def spied() -> AsyncIterator[Target]:
        async with in_process() as target:
            yield _Spy(target, sent, received)

    async with spied() as target:
        outcome = await replay(load(path), target, out=io.StringIO())
    assert not outcome.diverged
    fresh_state = received[0]["result"]["requestState"]
    assert fresh_state != recorded_state  # another process, another key: the recorded one is refused
    retry = sent[1]["params"]
    assert retry["requestState"] == fresh_state
    assert retry["inputResponses"] == recorded[2]["params"]["inputResponses"]


class _Spy:
    def __init__(self, inner: Target, sent: list[Any], received: list[Any]) -> None:
        self._inner, self._sent, self._received = inner, sent, received
        self.description = inner.description
        self.startup_grace = inner.startup_grace

    async def send(self, line: str) -> bool:
        self._sent.append(json.loads(line))
        return await self._inner.send(line)

    async def receive(self) -> str | None:
        line = await self._inner.receive()
        if line is not None:
            self._received.append(json.loads(line))
        return line

    async def close_input(self) -> None:
        await self._inner.close_input()


class _ScriptedServer:
    """A stand-in server: answers each request line with the frames `script` returns for it."""

    description = "a scripted server"
    startup_grace = 0.0  # in-process: nothing to start

    def __init__(self, script: Any) -> None:
        self._script = script
        self._queue: list[str | None] = []
        self.sent: list[Any] = []

    async def send(self, line: str) -> bool:
        frame = json.loads(line)
        self.sent.append(frame)
        self._queue.extend(json.dumps(f) for f in self._script(frame))
        return True

    async def receive(self) -> str | None:
        import anyio

        while not self._queue:
            await anyio.sleep(0.01)
        return self._queue.pop(0)

    async def close_input(self) -> None:
        self._queue.append(None)


def _transcript(*frames: tuple[str, Any]) -> bytes:
    header = {"kind": "header", "format": "agent-as-model-transcript", "formatVersion": 1}
    lines = [json.dumps(header)]
    lines += [json.dumps({"kind": "frame", "t": 0.0, "dir": d, "frame": f}) for d, f in frames]
    return ("\n".join(lines) + "\n").encode()


PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
PONG = {"jsonrpc": "2.0", "id": 1, "result": {}}


@pytest.mark.anyio
async def test_an_extra_server_request_is_unexpected_and_refused() -> None:
    nudge = {"jsonrpc": "2.0", "id": 7, "method": "roots/list"}
    server = _ScriptedServer(lambda frame: [nudge, PONG] if frame.get("method") == "ping" else [])
    out = io.StringIO()
    outcome = await replay(parse(_transcript(("c2s", PING), ("s2c", PONG))), server, out=out, timeout=1)
    assert (outcome.matched, outcome.unexpected) == (1, 1)
    assert (
        "unexpected frame from the replayed server: server → host: roots/list request (id 7)"
        in out.getvalue()
    )
    assert server.sent[-1] == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {
            "code": -32603,
            "message": "agent-as-model replay: the recording holds no answer to this request",
        },
    }


@pytest.mark.anyio
async def test_silence_is_reported_after_the_timeout() -> None:
    server = _ScriptedServer(lambda frame: [])
    out = io.StringIO()
    outcome = await replay(parse(_transcript(("c2s", PING), ("s2c", PONG))), server, out=out, timeout=0.05)
    assert outcome.missing == 1
    assert "the replayed server sent nothing for 0.05 s" in out.getvalue()


@pytest.mark.anyio
async def test_frames_of_one_burst_may_come_in_another_order() -> None:
    second = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    server = _ScriptedServer(
        lambda frame: [{"jsonrpc": "2.0", "id": 2, "result": {}}, PONG] if frame["id"] == 2 else []
    )
    transcript = _transcript(
        ("c2s", PING), ("c2s", second), ("s2c", PONG), ("s2c", {"jsonrpc": "2.0", "id": 2, "result": {}})
    )
    outcome = await replay(parse(transcript), server, out=io.StringIO(), timeout=1)
    assert (outcome.matched, outcome.diverged) == (2, False)


# --- damaged files: exit status 2, naming the line --------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("era", ERAS)
async def test_a_corrupt_line_is_named(era: str, tmp_path: Path) -> None:
    lines = lines_of(fixture(era, "generate"))
    lines[2] = lines[2].replace('"frame": {', '"frame": {,', 1)
    status, out, err = await replayed(write_lines(tmp_path / "corrupt.jsonl", lines))
    assert status == UNREPLAYABLE
    assert out == ""
    assert "corrupt.jsonl:3: not valid JSON: " in err


@pytest.mark.anyio
@pytest.mark.parametrize("era", ERAS)
async def test_a_file_cut_mid_line_is_truncated(era: str, tmp_path: Path) -> None:
    lines = lines_of(fixture(era, "generate"))
    lines[-1] = lines[-1][: len(lines[-1]) // 2]
    status, _, err = await replayed(write_lines(tmp_path / "cut.jsonl", lines, final_newline=False))
    assert status == UNREPLAYABLE
    assert f"cut.jsonl:{len(lines)}: truncated: the file ends in the middle of this line" in err


@pytest.mark.anyio
@pytest.mark.parametrize("era", ERAS)
async def test_a_request_without_its_response_is_truncated(era: str, tmp_path: Path) -> None:
    lines = lines_of(fixture(era, "generate"))
    # Cut right after the host's tools/call: its response (and everything after) is gone.
    call = next(n for n, line in enumerate(lines) if '"tools/call"' in line)
    status, _, err = await replayed(write_lines(tmp_path / "short.jsonl", lines[: call + 1]))
    assert status == UNREPLAYABLE
    expected = "truncated: the recording ends before the response to this tools/call request"
    assert f"short.jsonl:{call + 1}: {expected}" in err


@pytest.mark.parametrize(
    ("data", "line", "reason"),
    [
        (b"", 1, "empty file"),
        (b'{"kind": "frame"}\n', 1, "not a transcript"),
        (b"[1]\n", 1, "expected a JSON object, got list"),
        (
            b'{"kind": "header", "format": "agent-as-model-transcript", "formatVersion": 99}\n',
            1,
            f"format version 99 is newer than this agent-as-model reads ({FORMAT_VERSION})",
        ),
        (
            b'{"kind": "header", "format": "agent-as-model-transcript", "formatVersion": 1}\n\xff\n',
            2,
            "not UTF-8",
        ),
        (
            b'{"kind": "header", "format": "agent-as-model-transcript", "formatVersion": 1}\n{"kind": "x"}\n',
            2,
            "unknown record kind",
        ),
        (
            b'{"kind": "header", "format": "agent-as-model-transcript", "formatVersion": 1}\n'
            b'{"kind": "frame", "t": 0, "dir": "up", "frame": {}}\n',
            2,
            'dir "c2s" or "s2c"',
        ),
        (
            b'{"kind": "header", "format": "agent-as-model-transcript", "formatVersion": 1}\n'
            b'{"kind": "frame", "t": 0, "dir": "c2s"}\n',
            2,
            "needs a frame or a raw line",
        ),
    ],
)
def test_unreadable_files_name_the_line(data: bytes, line: int, reason: str) -> None:
    with pytest.raises(TranscriptError) as caught:
        parse(data, "x.jsonl")
    assert caught.value.line == line
    assert reason in str(caught.value)
    assert str(caught.value).startswith(f"x.jsonl:{line}: ")


def test_a_cancelled_request_is_owed_no_response() -> None:
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    transcript = parse(_transcript(("c2s", PING), ("c2s", cancel)))
    assert len(transcript.frames) == 2


# --- the command line -----------------------------------------------------------------------------


def test_replay_command_exit_statuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["replay", str(fixture("legacy", "list_models"))]) == MATCHED
    assert "all match" in capsys.readouterr().out
    assert cli.main(["replay", str(tmp_path / "nothing.jsonl")]) == UNREPLAYABLE
    assert "nothing.jsonl: cannot read the file" in capsys.readouterr().err
    missing_command = str(tmp_path / "no-such-server")
    assert (
        cli.main(["replay", str(fixture("legacy", "list_models")), "--against", missing_command])
        == UNREPLAYABLE
    )
    assert "cannot start" in capsys.readouterr().err


def test_redact_needs_record(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        cli.main(["serve", "--redact"])
    assert caught.value.code == 2
    assert "--redact needs --record FILE" in capsys.readouterr().err


def test_record_to_an_unwritable_path_fails_before_serving(tmp_path: Path) -> None:
    assert cli.main(["serve", "--record", str(tmp_path / "no" / "such" / "dir.jsonl")]) == UNREPLAYABLE


# --- redaction --------------------------------------------------------------------------------------


def test_placeholders_keep_the_length_and_are_stable() -> None:
    redactor = Redactor(key=b"k" * 16)
    for text in (
        "",
        "a",
        "Hi!",
        "Ünïcødé ✓",
        "x" * 17,
        "A much longer text than the mark itself.",
        "😀 emoji",
    ):
        assert len(redactor.placeholder(text)) == len(text)
        assert redactor.placeholder(text) == redactor.placeholder(text)
    assert redactor.placeholder("A much longer text than the mark itself.").startswith("#")
    assert redactor.placeholder("one") != redactor.placeholder("two")
    assert Redactor(key=b"j" * 16).placeholder("same text") != redactor.placeholder("same text")


def test_cursors_are_rekeyed_in_place() -> None:
    redactor = Redactor(key=b"k" * 16)
    cursor = "cur_" + "ab" * 32
    result = {
        "id": 3,
        "result": {
            "content": [{"type": "text", "text": json.dumps({"completion": "x", "response_id": cursor})}]
        },
    }
    out = redactor.frame(SERVER_TO_CLIENT, result, FrameContext("response", "tools/call", "chat_complete"))
    rekeyed = json.loads(out["result"]["content"][0]["text"])["response_id"]
    assert rekeyed != cursor and re.fullmatch(r"cur_[0-9a-f]{64}", rekeyed)
    echo = {
        "id": 4,
        "method": "tools/call",
        "params": {"name": "chat_complete", "arguments": {"previous_response_id": cursor}},
    }
    out = redactor.frame(CLIENT_TO_SERVER, echo, FrameContext("request", "tools/call", "chat_complete"))
    assert out["params"]["arguments"]["previous_response_id"] == rekeyed  # the same wherever it recurs


def _redact(direction: str, frame: dict[str, Any], context: FrameContext) -> Any:
    return map_text(direction, frame, context, lambda text: "*" * len(text), _redumped)


def _redumped(original: str, parsed: Any, mapped: Any) -> str:
    from agent_as_model.commands.transcripts.redact import dump_like

    return dump_like(original, parsed, mapped)


def test_redaction_keeps_structure_and_replaces_text() -> None:
    call: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": "chat_complete",
            "arguments": {
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": [{"type": "text", "text": "Secret"}]},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "lookup", "arguments": '{"who":"Ann","n":3}'},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "call_1", "content": "found"},
                ],
                "model": "gpt-4o",
                "output_schema": {"type": "object", "description": "kept"},
            },
        },
    }
    redacted = _redact(CLIENT_TO_SERVER, call, FrameContext("request", "tools/call", "chat_complete"))
    messages = redacted["params"]["arguments"]["messages"]
    assert messages[0] == {"role": "system", "content": "*********"}
    assert messages[1]["content"] == [{"type": "text", "text": "******"}]
    function = messages[2]["tool_calls"][0]["function"]
    assert function["name"] == "lookup"
    assert json.loads(function["arguments"]) == {"who": "***", "n": 3}  # still JSON, written alike
    assert function["arguments"] == '{"who":"***","n":3}'
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": "*****"}
    assert redacted["params"]["arguments"]["model"] == "gpt-4o"
    assert redacted["params"]["arguments"]["output_schema"] == {"type": "object", "description": "kept"}
    assert call["params"]["arguments"]["messages"][0]["content"] == "Be brief."  # the input is not touched


def test_redaction_of_results_and_sampling() -> None:
    sampling: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Hello"}}],
            "systemPrompt": "Sys",
            "maxTokens": 5,
            "tools": [{"name": "t", "description": "kept", "inputSchema": {"type": "object"}}],
        },
    }
    out = _redact(SERVER_TO_CLIENT, sampling, FrameContext("request", "sampling/createMessage"))
    assert out["params"]["messages"] == [{"role": "user", "content": {"type": "text", "text": "*****"}}]
    assert (out["params"]["systemPrompt"], out["params"]["tools"]) == ("***", sampling["params"]["tools"])

    answer = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "role": "assistant",
            "model": "host",
            "content": [
                {"type": "text", "text": "Calling"},
                {"type": "tool_use", "id": "u1", "name": "weather", "input": {"city": "Paris", "type": "x"}},
            ],
        },
    }
    out = _redact(CLIENT_TO_SERVER, answer, FrameContext("response", "sampling/createMessage"))
    assert out["result"]["model"] == "host"
    assert out["result"]["content"][1] == {
        "type": "tool_use",
        "id": "u1",
        "name": "weather",
        "input": {"city": "*****", "type": "*"},  # the model's own shape: even "type" is text there
    }

    response = {
        "id": "resp_" + "a" * 32,
        "object": "response",
        "output": [
            {"type": "message", "content": [{"type": "output_text", "text": "Bonjour", "annotations": []}]}
        ],
    }
    result = {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {
            "content": [{"type": "text", "text": json.dumps(response, sort_keys=True)}],
            "structuredContent": response,
            "isError": False,
        },
    }
    out = _redact(SERVER_TO_CLIENT, result, FrameContext("response", "tools/call", "responses_create"))
    text = json.loads(out["result"]["content"][0]["text"])
    assert text["id"] == response["id"] and text["output"][0]["content"][0]["text"] == "*******"
    assert out["result"]["structuredContent"]["output"][0]["content"][0]["text"] == "*******"

    models = {
        "jsonrpc": "2.0",
        "id": 4,
        "result": {"content": [{"type": "text", "text": "[]"}], "isError": False},
    }
    assert _redact(SERVER_TO_CLIENT, models, FrameContext("response", "tools/call", "list_models")) == models
    error = {
        "jsonrpc": "2.0",
        "id": 5,
        "result": {"content": [{"type": "text", "text": "bad"}], "isError": True},
    }
    assert _redact(SERVER_TO_CLIENT, error, FrameContext("response", "tools/call", "generate")) == error


def test_a_host_answer_that_is_json_stays_json() -> None:
    def answered(text: str) -> Any:
        frame = {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"role": "assistant", "content": {"type": "text", "text": text}},
        }
        out = _redact(CLIENT_TO_SERVER, frame, FrameContext("response", "sampling/createMessage"))
        return out["result"]["content"]["text"]

    assert answered('{"name": "Ada", "age": 36}') == '{"name": "***", "age": 36}'
    assert answered('```json\n{"name":"Ada"}\n```') == '```json\n{"name":"***"}\n```'
    assert answered("Plain {text}") == "************"


def test_redacted_mrtr_rounds() -> None:
    round_one = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "resultType": "input_required",
            "requestState": "v1.abc",
            "inputRequests": {
                "completion": {
                    "method": "sampling/createMessage",
                    "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}]},
                }
            },
        },
    }
    out = _redact(SERVER_TO_CLIENT, round_one, FrameContext("response", "tools/call", "generate"))
    request = out["result"]["inputRequests"]["completion"]
    assert request["params"]["messages"][0]["content"]["text"] == "**"
    assert out["result"]["requestState"] == "v1.abc"
    retry = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": "generate",
            "arguments": {"prompt": "Hi"},
            "requestState": "v1.abc",
            "inputResponses": {
                "completion": {"role": "assistant", "content": {"type": "text", "text": "Yo"}}
            },
        },
    }
    out = _redact(CLIENT_TO_SERVER, retry, FrameContext("request", "tools/call", "generate"))
    assert out["params"]["arguments"] == {"prompt": "**"}
    assert out["params"]["inputResponses"]["completion"]["content"] == {"type": "text", "text": "**"}
    assert out["params"]["requestState"] == "v1.abc"


# --- normalisation ----------------------------------------------------------------------------------


def test_normalisation_replaces_only_what_varies() -> None:
    hex_a, hex_b = "0" * 32, "f" * 32
    frame = {
        "jsonrpc": "2.0",
        "id": 9,
        "result": {
            "requestState": "v1.sealed",
            "serverInfo": {"name": "agent-as-model", "version": "1.2.3"},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "agent-as-model", "version": "1.2.3"}},
            "text": f'{{"id": "resp_{hex_a}", "msg": "msg_{hex_a}", "other": "resp_{hex_b}"}}',
            "call": "fc_call_1",
            "created_at": 1700000000,
            "cursor": "cur_" + "1" * 64,
        },
    }
    normalised = normalise(frame, FrameContext("response", "tools/call", "responses_create"), redacted=False)
    result = normalised.value["result"]
    assert normalised.value["id"] == 9  # the host's own ids are replayed as recorded
    assert result["requestState"] == "<requestState>"
    assert result["serverInfo"]["version"] == "<version>"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["version"] == "<version>"
    assert result["text"] == '{"id": "resp_<hex 1>", "msg": "msg_<hex 1>", "other": "resp_<hex 2>"}'
    assert (result["call"], result["created_at"]) == ("fc_call_1", "<time>")
    assert result["cursor"] == "cur_" + "1" * 64  # deterministic: a changed cursor is a real divergence

    request = {"jsonrpc": "2.0", "id": 4, "method": "sampling/createMessage", "params": {}}
    assert normalise(request, FrameContext("request", "sampling/createMessage"), redacted=False).value[
        "id"
    ] == ("<server request id>")


def test_tokens_pair_recorded_with_replayed_values() -> None:
    context = FrameContext("response", "tools/call", "generate")
    old = normalise({"result": {"requestState": "v1.old", "id": "resp_" + "a" * 32}}, context, redacted=False)
    new = normalise({"result": {"requestState": "v1.new", "id": "resp_" + "b" * 32}}, context, redacted=False)
    assert pair_tokens(old, new) == {"v1.old": "v1.new", "resp_" + "a" * 32: "resp_" + "b" * 32}
    other_shape = normalise({"result": {"id": "resp_" + "b" * 32}}, context, redacted=False)
    assert pair_tokens(old, other_shape) == {}


def test_redacted_normalisation_compares_lengths() -> None:
    context = FrameContext("request", "sampling/createMessage")
    recorded = {
        "id": 1,
        "method": "sampling/createMessage",
        "params": {"systemPrompt": "#abc.....", "messages": []},
    }
    replayed = {
        "id": 1,
        "method": "sampling/createMessage",
        "params": {"systemPrompt": "#abc\n\n#cd", "messages": []},
    }
    shorter = {
        "id": 1,
        "method": "sampling/createMessage",
        "params": {"systemPrompt": "#ab\n#cd", "messages": []},
    }
    assert (
        normalise(recorded, context, redacted=True).value == normalise(replayed, context, redacted=True).value
    )
    assert (
        normalise(recorded, context, redacted=True).value != normalise(shorter, context, redacted=True).value
    )


# --- recording pieces ----------------------------------------------------------------------------


def test_line_splitter_keeps_partial_lines_until_complete() -> None:
    lines: list[bytes] = []
    splitter = LineSplitter(lines.append)
    for chunk in (b'{"a"', b":1}\n{", b'"b":2}\r\nlast'):
        splitter.feed(chunk)
    assert lines == [b'{"a":1}', b'{"b":2}\r']
    splitter.finish()
    assert lines[-1] == b"last"


def test_the_tap_records_a_server_line_before_it_is_on_the_wire() -> None:
    read_end, write_end = os.pipe()
    try:
        os.set_blocking(read_end, False)
        seen_on_wire: list[bytes] = []

        def sink(line: bytes) -> None:
            try:
                seen_on_wire.append(os.read(read_end, 100))
            except BlockingIOError:
                seen_on_wire.append(b"")

        writer = TapWriter(write_end, LineSplitter(sink))
        assert writer.write(b'{"jsonrpc":"2.0"}\n') == 18
        assert seen_on_wire == [b""]  # recorded first: the host could not have answered it yet
        assert os.read(read_end, 100) == b'{"jsonrpc":"2.0"}\n'
    finally:
        os.close(read_end)
        os.close(write_end)


def test_the_tap_shows_every_byte_read() -> None:
    read_end, write_end = os.pipe()
    lines: list[bytes] = []
    reader = io.TextIOWrapper(
        io.BufferedReader(TapReader(read_end, LineSplitter(lines.append))), encoding="utf-8"
    )
    os.write(write_end, '{"x": "é"}\r\n{}'.encode())
    os.close(write_end)
    assert reader.read() == '{"x": "é"}\n{}'
    assert lines == ['{"x": "é"}\r'.encode(), b"{}"]
    reader.close()
    os.close(read_end)


def test_recorder_keeps_raw_text_only_when_needed() -> None:
    stream = io.StringIO()
    stream.close = lambda: None  # type: ignore[method-assign]  # keep it readable after the writer closes
    recorder = Recorder(TranscriptWriter(stream))
    recorder.start(server_name="s", server_version="1")
    recorder.client_line(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
    recorder.server_line(b'{"jsonrpc": "2.0", "id": 1, "result": {}}')
    recorder.client_line(b"not json \xff")
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert records[0]["kind"] == "header" and records[0]["redacted"] is False
    assert "raw" not in records[1]
    assert records[2]["raw"] == '{"jsonrpc": "2.0", "id": 1, "result": {}}'
    assert records[3] == {"kind": "frame", "t": records[3]["t"], "dir": "c2s", "raw": "not json \udcff"}
    transcript = parse(stream.getvalue().encode(), "mem")
    assert [entry.wire_text() for entry in transcript.frames] == [
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
        '{"jsonrpc": "2.0", "id": 1, "result": {}}',
        "not json \udcff",
    ]


def test_protocol_watch_on_both_eras() -> None:
    exchange, watch = Exchange(), ProtocolWatch()

    def see(direction: str, frame: dict[str, Any]) -> str | None:
        return watch.see(direction, frame, exchange.see(direction, frame))

    assert (
        see(CLIENT_TO_SERVER, {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}})
        is None
    )
    assert see(SERVER_TO_CLIENT, {"id": 1, "result": {"protocolVersion": "2025-06-18"}}) == "2025-06-18"
    assert see(SERVER_TO_CLIENT, {"id": 1, "result": {"protocolVersion": "2025-06-18"}}) is None  # only once

    exchange, watch = Exchange(), ProtocolWatch()
    meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    assert see(CLIENT_TO_SERVER, {"id": 1, "method": "tools/list", "params": meta}) is None
    assert (
        see(SERVER_TO_CLIENT, {"id": 1, "error": {"code": -32022, "message": "no"}}) is None
    )  # not negotiated
    assert see(CLIENT_TO_SERVER, {"id": 2, "method": "tools/list", "params": meta}) is None
    assert see(SERVER_TO_CLIENT, {"id": 2, "result": {}}) == "2026-07-28"


# --- progress ----------------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_for_long_replays_only() -> None:
    now = [0.0]
    terminal = _Terminal()
    progress = Progress(200, terminal, clock=lambda: now[0])
    progress.update(1)
    assert terminal.getvalue() == ""  # a short replay finishes before it would be worth showing
    now[0] = DELAY + 0.01
    progress.update(50)
    assert terminal.getvalue() == "\rreplaying: frame 50/200 (25%)\x1b[K"
    progress.update(51)  # too soon to redraw
    assert terminal.getvalue().count("\r") == 1
    progress.clear()
    assert terminal.getvalue().endswith("\r\x1b[K")

    piped = io.StringIO()
    quiet = Progress(200, piped, clock=lambda: now[0] + 100)
    quiet.update(100)
    quiet.clear()
    assert piped.getvalue() == ""
