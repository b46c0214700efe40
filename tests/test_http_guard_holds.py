"""What the HTTP frame guard (`transports/http/guards.FrameCheck`) keeps while the SDK handles a
request: only the call's id. A legacy call's handling lasts its whole round with the host, so a
parsed frame, the joined body or the list of its chunks left in the guard's frame would be a
copy of the conversation held all that time beside the SDK's own (benchmarks/README.md, "Issue
26's classes"). The app behind the guard stands in for the SDK: it reads the body, then looks at
what the guard's frames still refer to."""

from __future__ import annotations

import inspect
import json
from typing import Any

import anyio
import mcp_types as types
import pytest

from agent_as_model.transports.http import guards

CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {
        "name": "chat_complete",
        "arguments": {"messages": [{"role": "user", "content": "q" * 300_000}]},
    },
}
LEGACY = [(b"mcp-session-id", b"abc"), (b"mcp-protocol-version", b"2025-11-25")]


def _scope(extra: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), *extra]
    return {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}


def _held_by_the_guard(frame: Any) -> list[str]:
    """The guard's frames above `frame`: each local that holds the body, a chunk of it, the list
    of its ASGI messages or a parsed message."""
    held = []
    frame = frame.f_back
    while frame is not None:
        if frame.f_code.co_filename == guards.__file__:
            for name, value in frame.f_locals.items():
                chunks = isinstance(value, list) and any(isinstance(m, dict) and m.get("body") for m in value)
                if isinstance(value, bytes | types.JSONRPCRequest) or chunks:
                    held.append(f"{frame.f_code.co_name}: {name}")
        frame = frame.f_back
    return held


async def _through_the_guard(extra: list[tuple[bytes, bytes]], pieces: int) -> tuple[bytes, list[str]]:
    body = json.dumps(CALL).encode()
    size = -(-len(body) // pieces)
    chunks = [body[i : i + size] for i in range(0, len(body), size)]
    given = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)
    ]
    seen: dict[str, Any] = {}

    async def sdk(scope: Any, receive: Any, send: Any) -> None:
        read = b""
        while True:
            message = await receive()
            read += message.get("body", b"")
            if not message.get("more_body", False):
                break
        seen["body"] = read
        del message  # the stand-in's own last chunk is not the guard's
        current = inspect.currentframe()
        assert current is not None
        seen["held"] = _held_by_the_guard(current)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}", "more_body": False})

    async def receive() -> dict[str, Any]:
        if given:
            return given.pop(0)
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def send(message: Any) -> None:
        return None

    guard = guards.FrameCheck(sdk, "/mcp", max_body=10 * 2**20)
    await guard(_scope(extra), receive, send)
    return seen["body"], seen["held"]


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("pieces", [1, 4])
async def test_the_guard_keeps_no_copy_of_the_request_while_the_sdk_handles_it(era: str, pieces: int) -> None:
    # A legacy session's tools/call goes through the cancel-when-gone wrapper; the rest straight on.
    body, held = await _through_the_guard(LEGACY if era == "legacy" else [], pieces)
    assert json.loads(body) == CALL  # the SDK still reads the whole body, as it was sent
    assert held == []
