"""Capture the real JSON-RPC exchange of one `generate` call on each era, for docs/eras.md.

The installed `agent-as-model` command is spawned and driven over stdio with hand-written,
newline-delimited JSON-RPC: no SDK on the client side, so every frame in both directions is
exactly what travelled. This side plays the host, and answers the server's sampling request itself.

    python -m tests.wire_capture                        # print both captures as Markdown
    python -m tests.wire_capture --write docs/eras.md   # rewrite the captured blocks in place

The blocks sit between `<!-- capture:<era>:begin -->` and `<!-- capture:<era>:end -->`.
Only what legitimately varies is normalised: the sealed requestState token (`v1.<sealed>`) and
the server's version (`<version>`). tests/test_eras_doc.py fails when the document is stale.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from tests.doc_blocks import GeneratedBlocks
from tests.helpers import COMMAND, INITIALIZED, initialize_request

ERAS = ("legacy", "modern")
LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
CLIENT_INFO = {"name": "wire-capture", "version": "1.0.0"}
PROMPT = "Say hi."
ANSWER = {
    "role": "assistant",
    "content": {"type": "text", "text": "Hi!"},
    "model": "host-model",
    "stopReason": "endTurn",
}
SEALED = "v1.<sealed>"
VERSION = "<version>"
# A guard against a hung server, not a budget: frames are waited for until they come (a server's
# start costs seconds of CPU, many more on a loaded machine); only this much silence is a hang.
TIMEOUT = 300.0
MAX_FRAME = 1 << 20
REGENERATE = "python -m tests.wire_capture --write docs/eras.md"

Frame = dict[str, Any]


@dataclass
class Exchange:
    """Every frame of one connection, in the order it travelled: (direction, frame)."""

    frames: list[tuple[str, Frame]] = field(default_factory=list)


class RawStdio:
    """One spawned server, spoken to in newline-delimited JSON-RPC; records both directions."""

    def __init__(self, process: Process, exchange: Exchange) -> None:
        assert process.stdin is not None and process.stdout is not None
        self._process = process
        self._stdout = BufferedByteReceiveStream(process.stdout)
        self.exchange = exchange

    async def send(self, frame: Frame) -> None:
        self.exchange.frames.append(("client", frame))
        assert self._process.stdin is not None
        await self._process.stdin.send(json.dumps(frame).encode() + b"\n")

    async def receive(self) -> Frame:
        with anyio.fail_after(TIMEOUT):
            line = await self._stdout.receive_until(b"\n", MAX_FRAME)
        frame = json.loads(line)
        self.exchange.frames.append(("server", frame))
        return frame

    async def receive_response(self, request_id: int | str) -> Frame:
        """The response to our request `request_id`; anything else the server sends first is kept too."""
        while True:
            frame = await self.receive()
            if "method" not in frame and frame.get("id") == request_id:
                return frame

    async def receive_request(self, method: str) -> Frame:
        while True:
            frame = await self.receive()
            if frame.get("method") == method and "id" in frame:
                return frame

    async def close(self) -> bytes:
        """Close stdin, wait for the server to exit, and return whatever stdout still held."""
        assert self._process.stdin is not None
        await self._process.stdin.aclose()
        rest = bytearray(self._stdout.buffer)
        with anyio.fail_after(TIMEOUT):
            while True:
                try:
                    rest += await self._stdout.receive()
                except (anyio.EndOfStream, anyio.ClosedResourceError):
                    break
            await self._process.wait()
        return bytes(rest)


@asynccontextmanager
async def spawn(
    *, stderr: int | IO[Any] | None = None, env: dict[str, str] | None = None
) -> AsyncIterator[RawStdio]:
    """The installed server on stdio; stderr goes where the caller says (inherited by default)."""
    process = await anyio.open_process([str(COMMAND)], stderr=stderr, env={**os.environ, **(env or {})})
    try:
        yield RawStdio(process, Exchange())
    finally:
        if process.returncode is None:
            process.kill()
            with anyio.move_on_after(5):
                await process.wait()


def modern_meta() -> Frame:
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
    }


async def capture_legacy() -> list[tuple[str, Frame]]:
    async with spawn() as peer:
        await peer.send(initialize_request({"sampling": {}}, client=CLIENT_INFO))
        await peer.receive_response(1)
        await peer.send(INITIALIZED)
        await peer.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "generate", "arguments": {"prompt": PROMPT}},
            }
        )
        sampling = await peer.receive_request("sampling/createMessage")
        await peer.send({"jsonrpc": "2.0", "id": sampling["id"], "result": ANSWER})
        await peer.receive_response(2)
        await peer.close()
        return peer.exchange.frames


async def capture_modern() -> list[tuple[str, Frame]]:
    async with spawn() as peer:
        params: Frame = {"name": "generate", "arguments": {"prompt": PROMPT}, "_meta": modern_meta()}
        await peer.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
        first = await peer.receive_response(1)
        result = first.get("result", {})
        if result.get("resultType") != "input_required":
            raise RuntimeError(f"expected an InputRequiredResult, got {json.dumps(first)}")
        answers = {key: ANSWER for key in result.get("inputRequests", {})}
        retry = {
            "name": "generate",
            "arguments": {"prompt": PROMPT},
            "inputResponses": answers,
            "requestState": result["requestState"],
            "_meta": modern_meta(),
        }
        await peer.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry})
        await peer.receive_response(2)
        await peer.close()
        return peer.exchange.frames


async def capture_all() -> dict[str, list[tuple[str, Frame]]]:
    """Both eras, each on its own server process, captured side by side."""
    captured: dict[str, list[tuple[str, Frame]]] = {}

    async def run(era: str, capture: Any) -> None:
        captured[era] = await capture()

    async with anyio.create_task_group() as group:
        group.start_soon(run, "legacy", capture_legacy)
        group.start_soon(run, "modern", capture_modern)
    return {era: captured[era] for era in ERAS}


def normalise(frame: Frame) -> Frame:
    """Replace what varies from run to run (the sealed state, the server version), nothing else."""
    frame = copy.deepcopy(frame)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "requestState" and isinstance(value, str) and value.startswith("v1."):
                    node[key] = SEALED
                elif key in ("serverInfo", "io.modelcontextprotocol/serverInfo") and isinstance(value, dict):
                    if "version" in value:
                        value["version"] = VERSION
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(frame)
    return frame


def describe(direction: str, frame: Frame, requests: dict[tuple[str, Any], str]) -> str:
    """A one-line caption: who sends what (a request, a notification, or the answer to which request)."""
    sender, receiver = ("host", "server") if direction == "client" else ("server", "host")
    if "method" in frame:
        kind = "request" if "id" in frame else "notification"
        if "id" in frame:
            requests[(direction, frame["id"])] = frame["method"]
        params = frame.get("params") or {}
        if frame["method"] == "tools/call" and "inputResponses" in params:
            return f"{sender} → {receiver}: `tools/call` retry with `inputResponses` and `requestState`"
        return f"{sender} → {receiver}: `{frame['method']}` {kind}"
    answering = "client" if direction == "server" else "server"
    method = requests.get((answering, frame.get("id")), "?")
    result = frame.get("result")
    if isinstance(result, dict) and result.get("resultType") == "input_required":
        return f"{sender} → {receiver}: `InputRequiredResult` for `{method}`"
    outcome = "error" if "error" in frame else "result"
    return f"{sender} → {receiver}: {outcome} of `{method}`"


def render(frames: list[tuple[str, Frame]]) -> str:
    requests: dict[tuple[str, Any], str] = {}
    parts = []
    for number, (direction, frame) in enumerate(frames, start=1):
        caption = describe(direction, frame, requests)
        body = json.dumps(normalise(frame), indent=2, ensure_ascii=False)
        parts.append(f"{number}. {caption}\n\n```json\n{body}\n```\n")
    return "\n".join(parts)


def rendered(captures: dict[str, list[tuple[str, Frame]]]) -> dict[str, str]:
    return {era: render(frames) for era, frames in captures.items()}


BLOCKS = GeneratedBlocks("capture")
markers = BLOCKS.markers
rewrite = BLOCKS.rewrite


def current_blocks(document: str) -> dict[str, str | None]:
    """The captured blocks as the document holds them now (None where the markers are missing)."""
    return BLOCKS.current(document, list(ERAS))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.wire_capture", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--write", metavar="PATH", type=Path, help="rewrite the captured blocks in this file")
    args = parser.parse_args(argv)
    blocks = rendered(anyio.run(capture_all))
    if args.write is None:
        for era in ERAS:
            begin, end = markers(era)
            sys.stdout.write(f"{begin}\n{blocks[era]}{end}\n\n")
        return 0
    path: Path = args.write
    path.write_text(rewrite(path.read_text(encoding="utf-8"), blocks), encoding="utf-8")
    print(f"rewrote the legacy and modern captures in {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = [
    "REGENERATE",
    "RawStdio",
    "capture_all",
    "current_blocks",
    "normalise",
    "rendered",
    "rewrite",
    "spawn",
]
