"""Recordings over REAL stdio: `serve --record` records exactly what travelled and changes nothing on
the wire, and its recordings replay to a match in-process and against a server command.

A raw peer drives the installed command with hand-written lines (odd spacing, escapes, a CRLF
ending, a line that is not JSON), so the bytes each side saw can be compared with the recording.
The sessions run concurrently, once per module: spawning a server costs more than everything else.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

import agent_as_model
from agent_as_model.commands.transcripts.command import DIVERGED, MATCHED, replay_path
from agent_as_model.commands.transcripts.fileformat import FORMAT, load
from tests.helpers import COMMAND, INITIALIZED, initialize_request
from tests.wire_capture import modern_meta

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]

ERAS = ("legacy", "modern")
# A guard against a hung server, not a budget: a frame is waited for until it comes (a start on a
# loaded machine takes many seconds of CPU, four servers start at once here), and only a server
# silent this long is taken for hung.
HANG_GUARD = 300.0
SEALED = re.compile(rb'"v1\.[A-Za-z0-9_-]+"')
RANDOM_HEX = re.compile(rb"\b(resp|msg)_[0-9a-f]{32}\b")
CREATED_AT = re.compile(rb'(\\?"created_at\\?":\s*)\d+')  # also inside JSON text (quotes escaped)


@dataclass
class RawPeer:
    """The host side, in bytes: every byte sent and received is kept."""

    process: Process
    sent: bytearray = field(default_factory=bytearray)
    received: bytearray = field(default_factory=bytearray)

    def __post_init__(self) -> None:
        assert self.process.stdout is not None
        self._stdout = BufferedByteReceiveStream(self.process.stdout)

    async def send(self, text: str, end: str = "\n") -> None:
        data = (text + end).encode()
        self.sent += data
        assert self.process.stdin is not None
        await self.process.stdin.send(data)

    async def send_frame(self, frame: dict[str, Any]) -> None:
        await self.send(json.dumps(frame, separators=(",", ":"), ensure_ascii=False))

    async def receive(self) -> dict[str, Any]:
        with anyio.fail_after(HANG_GUARD):
            line = await self._stdout.receive_until(b"\n", 1 << 20)
        self.received += line + b"\n"
        frame: dict[str, Any] = json.loads(line)
        return frame

    async def close(self) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.aclose()
        self.received += self._stdout.buffer
        with anyio.fail_after(HANG_GUARD):
            while True:
                try:
                    self.received += await self._stdout.receive()
                except (anyio.EndOfStream, anyio.ClosedResourceError):
                    break
            await self.process.wait()


def answer(request_id: Any, text: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {"role": "assistant", "content": {"type": "text", "text": text}, "model": "raw-host"},
    }


def call(request_id: int, tool: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments, **extra}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def legacy_session(peer: RawPeer) -> None:
    initialize = initialize_request({"sampling": {}}, client={"name": "räw-host", "version": "1"})
    await peer.send(json.dumps(initialize))  # spaces and \u escapes: not the compact form
    await peer.receive()
    await peer.send_frame(INITIALIZED)
    await peer.send(json.dumps(call(2, "generate", {"prompt": "Ünïcødé ✓"}), ensure_ascii=False), end="\r\n")
    sampling = await peer.receive()
    await peer.send_frame(answer(sampling["id"], "Grüße"))
    await peer.receive()
    await peer.send("this is not JSON")
    assert (await peer.receive())["error"]["code"] == -32700  # answered, never dropped
    await peer.send_frame(call(3, "responses_create", {"input": "Hi", "instructions": "Be kind."}))
    sampling = await peer.receive()
    await peer.send_frame(answer(sampling["id"], "Hello!"))
    await peer.receive()
    await peer.send_frame(call(4, "list_models", {}))
    await peer.receive()


async def modern_session(peer: RawPeer) -> None:
    meta = {"_meta": modern_meta()}
    next_id = 1
    for tool, arguments in (("generate", {"prompt": "Ünïcødé ✓"}), ("responses_create", {"input": "Hi"})):
        await peer.send_frame(call(next_id, tool, arguments, **meta))
        first = (await peer.receive())["result"]
        assert first["resultType"] == "input_required", first
        responses = {key: answer(0, "Grüße")["result"] for key in first["inputRequests"]}
        retry = call(
            next_id + 1, tool, arguments, inputResponses=responses, requestState=first["requestState"]
        )
        retry["params"].update(meta)
        await peer.send(json.dumps(retry))
        await peer.receive()
        next_id += 2
        if tool == "generate":
            await peer.send("this is not JSON")
            assert (await peer.receive())["error"]["code"] == -32700
    await peer.send_frame(call(next_id, "list_models", {}, **meta))
    await peer.receive()


SESSIONS: dict[str, Callable[[RawPeer], Awaitable[None]]] = {
    "legacy": legacy_session,
    "modern": modern_session,
}


async def run_session(era: str, args: list[str]) -> RawPeer:
    process = await anyio.open_process([str(COMMAND), *args])
    try:
        peer = RawPeer(process)
        await SESSIONS[era](peer)
        await peer.close()
        return peer
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@dataclass
class Sessions:
    recorded: dict[str, RawPeer]
    plain: dict[str, RawPeer]
    files: dict[str, Path]


@pytest.fixture(scope="module")
async def sessions(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Sessions]:
    directory = tmp_path_factory.mktemp("recorded")
    found = Sessions({}, {}, {era: directory / f"{era}.jsonl" for era in ERAS})

    async def one(era: str, recorded: bool) -> None:
        args = ["serve", "--record", str(found.files[era])] if recorded else ["serve"]
        peer = await run_session(era, args)
        (found.recorded if recorded else found.plain)[era] = peer

    async with anyio.create_task_group() as group:
        for era in ERAS:
            group.start_soon(one, era, True)
            group.start_soon(one, era, False)
    yield found


def wire_bytes(path: Path, direction: str) -> bytes:
    return b"".join(
        (entry.wire_text() + "\n").encode("utf-8", "surrogateescape")
        for entry in load(path).frames
        if entry.direction == direction
    )


@pytest.mark.parametrize("era", ERAS)
async def test_the_recording_holds_exactly_the_bytes_that_travelled(era: str, sessions: Sessions) -> None:
    peer = sessions.recorded[era]
    assert wire_bytes(sessions.files[era], "c2s") == bytes(peer.sent)
    assert wire_bytes(sessions.files[era], "s2c") == bytes(peer.received)


@pytest.mark.parametrize("era", ERAS)
async def test_recording_changes_nothing_on_the_wire(era: str, sessions: Sessions) -> None:
    def masked(data: bytearray) -> bytes:
        # What differs between any two runs, recorded or not: sealed states, random ids and the
        # second a Responses object was made.
        unsealed = SEALED.sub(b'"<sealed>"', bytes(data))
        return CREATED_AT.sub(rb"\1<time>", RANDOM_HEX.sub(rb"\1_<hex>", unsealed))

    assert masked(sessions.recorded[era].received) == masked(sessions.plain[era].received)
    assert masked(sessions.recorded[era].sent) == masked(sessions.plain[era].sent)


@pytest.mark.parametrize("era", ERAS)
async def test_header_and_negotiated_protocol(era: str, sessions: Sessions) -> None:
    records = [json.loads(line) for line in sessions.files[era].read_text(encoding="utf-8").splitlines()]
    header = records[0]
    assert header["kind"] == "header" and header["format"] == FORMAT and header["formatVersion"] == 1
    assert header["server"] == {"name": "agent-as-model", "version": agent_as_model.__version__}
    assert header["redacted"] is False
    protocol = [(n, r) for n, r in enumerate(records) if r["kind"] == "protocol"]
    assert len(protocol) == 1
    where, line = protocol[0]
    expected = ("2025-11-25", "legacy") if era == "legacy" else ("2026-07-28", "modern")
    assert (line["protocolVersion"], line["era"]) == expected
    # Written right after the first server answer (the initialize result; the first 2026 result).
    negotiating = records[where - 1]
    assert (
        negotiating["dir"] == "s2c" and negotiating["frame"]["id"] == 1 and "result" in negotiating["frame"]
    )
    transcript = load(sessions.files[era])
    assert (transcript.protocol_version, transcript.era) == expected


@pytest.mark.parametrize("era", ERAS)
async def test_a_fresh_recording_replays_to_a_match_in_process(era: str, sessions: Sessions) -> None:
    out = io.StringIO()
    status = await replay_path(sessions.files[era], out=out, err=io.StringIO())
    assert status == MATCHED, out.getvalue()


@dataclass
class Against:
    status: int
    out: str


@pytest.fixture(scope="module")
async def against(sessions: Sessions) -> AsyncIterator[dict[tuple[str, str], Against]]:
    """Replays against server commands, concurrently: the installed one on 2026-07-28 (MRTR state
    sealed by another process), and on the legacy era one that upper-cases every completion (its
    other frames, the sampling requests included, must still match)."""
    commands = {
        "installed": shlex.join([str(COMMAND)]),
        "divergent": shlex.join([sys.executable, "-m", "tests.divergent_server", "shout"]),
    }
    runs = [("modern", "installed"), ("legacy", "divergent")]
    found: dict[tuple[str, str], Against] = {}

    async def one(era: str, name: str) -> None:
        out = io.StringIO()
        status = await replay_path(sessions.files[era], against=commands[name], out=out, err=io.StringIO())
        found[(era, name)] = Against(status, out.getvalue())

    async with anyio.create_task_group() as group:
        for era, name in runs:
            group.start_soon(one, era, name)
    yield found


async def test_a_recording_replays_against_a_server_command(against: dict[tuple[str, str], Against]) -> None:
    run = against[("modern", "installed")]
    assert run.status == MATCHED, run.out
    assert f"against {COMMAND}:" in run.out


async def test_another_server_command_that_differs_is_reported(
    against: dict[tuple[str, str], Against],
) -> None:
    run = against[("legacy", "divergent")]
    assert run.status == DIVERGED
    assert "differs: server → host: result of tools/call generate (id 2)" in run.out
    assert '-        "text": "Grüße",\n+        "text": "GRÜSSE",' in run.out
    assert "differs: server → host: result of tools/call responses_create (id 3)" in run.out
    assert "differs: server → host: result of tools/call list_models (id 4)" in run.out
    assert "frames: 4 match, 3 differ, 0 missing, 0 unexpected" in run.out  # the -32700 reply matches
