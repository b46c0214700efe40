"""Stdio hygiene, over REAL stdio with the installed command, on both eras.

Every bad line gets an error reply (never silence), is logged at WARNING with its first bytes,
and the connection stays usable: after each one, a real call on the era under test still works.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from tests.helpers import COMMAND, INITIALIZED, initialize_request
from tests.wire_capture import modern_meta

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]

WAIT = 60.0  # a guard against a hang, never a budget: every answer normally comes at once
INITIALIZE = initialize_request(request_id="init")


class Raw:
    """One spawned server, spoken to in raw bytes; its stderr is kept in a file."""

    def __init__(self, process: Process, stderr: Any) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self._stdout = BufferedByteReceiveStream(process.stdout)
        self._stderr = stderr
        self._next = 0

    async def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(data)

    async def send(self, frame: dict[str, Any]) -> None:
        await self.send_bytes(json.dumps(frame).encode() + b"\n")

    async def receive(self) -> dict[str, Any]:
        with anyio.fail_after(WAIT):
            line = await self._stdout.receive_until(b"\n", 1 << 24)
        return json.loads(line)

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next += 1
        await self.send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        frame = await self.receive()
        assert frame.get("id") == self._next, frame
        return frame

    def log(self) -> str:
        self._stderr.flush()
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")


@asynccontextmanager
async def spawn(*args: str) -> AsyncIterator[Raw]:
    with tempfile.TemporaryFile() as stderr:
        process = await anyio.open_process(
            [str(COMMAND), "serve", *args], stderr=stderr, env=dict(os.environ)
        )
        try:
            yield Raw(process, stderr)
        finally:
            if process.returncode is None:
                process.kill()
                with anyio.move_on_after(5):
                    await process.wait()


async def handshake(raw: Raw, era: str) -> None:
    if era == "legacy":
        await raw.send(INITIALIZE)
        assert "result" in await raw.receive()
        await raw.send(INITIALIZED)


async def still_serves(raw: Raw, era: str) -> None:
    """A real call on the era under test: the connection is still usable."""
    params: dict[str, Any] = {"name": "list_models", "arguments": {}}
    if era != "legacy":
        params["_meta"] = modern_meta()
    frame = await raw.request("tools/call", params)
    assert "agent-default" in frame["result"]["content"][0]["text"], frame


BAD_LINES = [
    (b"not json at all", None, -32700, "Parse error: the line is not JSON"),
    (b'{"jsonrpc": "2.0", "id": 5, "method": ', None, -32700, "Parse error: the line is not JSON"),
    (b"\xff\xfe{}", None, -32700, "Parse error: the line is not JSON"),
    (b"42", None, -32600, "Invalid Request: expected a JSON-RPC message object, got a number"),
    (b'"hello"', None, -32600, "Invalid Request: expected a JSON-RPC message object, got a string"),
    (
        b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]',
        None,
        -32600,
        "Invalid Request: a batch (a JSON array) is not supported: send one message a line",
    ),
    (
        b'{"id": 3, "method": "ping"}',
        3,
        -32600,
        'Invalid Request: a JSON-RPC message must have "jsonrpc": "2.0"',
    ),
    (
        b'{"jsonrpc": "2.0", "id": "x"}',
        "x",
        -32600,
        "Invalid Request: the message has no method (and is not a response)",
    ),
    (
        b'{"jsonrpc": "2.0", "id": 8, "method": 12}',
        8,
        -32600,
        "Invalid Request: the message has no method (and is not a response)",
    ),
    (
        b'{"jsonrpc": "2.0", "id": 9, "method": "tools/call", '
        + b'"params": {"name": "generate", "arguments": {"a": '
        + b"[" * 300
        + b"]" * 300
        + b"}}}",
        9,
        -32600,
        "Invalid Request: the message is nested deeper than the server's JSON parser takes",
    ),
    (b"[" * 100_000 + b"]" * 100_000, None, -32700, "Parse error: the JSON is nested too deeply to parse"),
]


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_every_bad_line_gets_an_error_reply_and_a_warning(era: str) -> None:
    # One server per era takes every bad line in turn: after each, a real call still works.
    async with spawn() as raw:
        await handshake(raw, era)
        for line, ident, code, message in BAD_LINES:
            await raw.send_bytes(line + b"\n")
            reply = await raw.receive()
            assert reply == {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}, (
                line[:40]
            )
            await still_serves(raw, era)
        log = raw.log()
    warnings = [row for row in log.splitlines() if " WARNING agent_as_model.stdio: " in row]
    assert len(warnings) == len(BAD_LINES), log
    for warning, (line, _, _, message) in zip(warnings, BAD_LINES, strict=True):
        assert message.split(": ", 1)[1] in warning
        assert repr(line[:20])[2:-1] in warning  # the line's first bytes


async def test_a_request_before_initialize_is_told_to_initialize_first() -> None:
    async with spawn() as raw:
        early = await raw.request("tools/call", {"name": "list_models", "arguments": {}})
        assert early["error"]["code"] == -32600
        assert "not initialized: send 'initialize'" in early["error"]["message"]
        assert "'tools/call'" in early["error"]["message"]
        ping = await raw.request("ping", {})  # ping is allowed before the handshake
        assert ping["result"] == {}
        await handshake(raw, "legacy")
        await still_serves(raw, "legacy")


async def test_a_modern_request_needs_no_handshake() -> None:
    async with spawn() as raw:
        await still_serves(raw, "2026-07-28")


async def test_a_pipelined_request_after_initialize_waits_for_the_handshake() -> None:
    # A client that does not wait for the initialize result is judged after it, not before.
    async with spawn() as raw:
        await raw.send_bytes(
            json.dumps(INITIALIZE).encode()
            + b'\n{"jsonrpc": "2.0", "method": "notifications/initialized"}\n'
            + b'{"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": "list_models"}}\n'
        )
        assert (await raw.receive())["id"] == "init"
        answer = await raw.receive()
        assert answer["id"] == 77 and "result" in answer, answer


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("newline", [True, False], ids=["then-newline", "streamed-past-the-limit"])
async def test_a_frame_over_max_frame_is_discarded_with_an_error(era: str, newline: bool) -> None:
    limit = 64 * 1024
    async with spawn("--max-frame", str(limit)) as raw:
        await handshake(raw, era)
        big = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "' + b"a" * (4 * limit)
        if newline:
            await raw.send_bytes(big + b'"}}\n')
        else:  # the rest of the frame keeps coming after the error: it is dropped up to its newline
            await raw.send_bytes(big)
        reply = await raw.receive()
        assert reply == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": f"Invalid Request: a frame longer than {limit} bytes (--max-frame) was discarded",
            },
        }
        if not newline:
            await raw.send_bytes(b"a" * (3 * limit) + b'"}}\n')
        await still_serves(raw, era)
        assert raw.log().count("WARNING") == 1


async def test_a_frame_under_max_frame_is_served() -> None:
    limit = 64 * 1024
    async with spawn("--max-frame", str(limit)) as raw:
        await handshake(raw, "legacy")
        prompt = "p" * (limit - 1024)
        frame = await raw.request("tools/call", {"name": "list_models", "arguments": {"x": prompt}})
        # list_models takes no arguments: the frame reached the tool, which names the parameter
        assert "x: unknown parameter 'x'" in frame["result"]["content"][0]["text"]


async def test_a_blank_line_is_ignored() -> None:
    async with spawn() as raw:
        await raw.send_bytes(b"\n  \r\n")
        await still_serves(raw, "2026-07-28")
        assert "WARNING" not in raw.log()


async def test_a_malformed_response_is_logged_and_not_answered() -> None:
    # JSON-RPC never answers a response; the log says what was wrong.
    async with spawn() as raw:
        await handshake(raw, "legacy")
        await raw.send_bytes(b'{"jsonrpc": "2.0", "id": 99, "result": 5}\n')
        await still_serves(raw, "legacy")  # the next frame is the answer to this, not an error
        assert "WARNING agent_as_model.stdio" in raw.log()


async def test_serve_record_answers_bad_lines_too(tmp_path: Path) -> None:
    record = tmp_path / "rec.jsonl"
    async with spawn("--record", str(record)) as raw:
        await raw.send_bytes(b"garbage\n")
        assert (await raw.receive())["error"]["code"] == -32700
        await still_serves(raw, "2026-07-28")
        await raw.process.stdin.aclose()  # type: ignore[union-attr]
        with anyio.fail_after(WAIT):
            await raw.process.wait()
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    raw_lines = [row.get("raw") for row in lines if row.get("raw")]
    assert "garbage" in raw_lines  # the bad line is in the recording, as it travelled
    errors = [row for row in lines if isinstance(row.get("frame"), dict) and "error" in row["frame"]]
    assert errors and errors[0]["frame"]["error"]["code"] == -32700
