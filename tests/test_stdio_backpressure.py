"""Stdio backpressure, over REAL stdio with the installed command, on both eras.

A host that writes requests and never reads stdout: the server stops reading its requests once
`MAX_PENDING` results wait to be written (so the host's own writes block, and the server's memory
stays bounded), and serves every one of them once the host reads again."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from agent_as_model.transports.stdio import MAX_PENDING
from tests.test_stdio_hygiene import WAIT, handshake, spawn
from tests.wire_capture import modern_meta

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]

# Far more requests than the pipes (64 KiB each way), the reader's chunk and MAX_PENDING hold.
REQUESTS = 4000
# How long the writer is given to send them all; a guard, never a budget: with backpressure it
# cannot finish however long it is given, so a slow machine can only make this pass more slowly.
GIVEN = 10.0


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


async def test_a_host_that_stops_reading_stops_the_server_reading(era: str) -> None:
    params: dict[str, Any] = {}
    if era != "legacy":
        params["_meta"] = modern_meta()
    async with spawn() as raw:
        await handshake(raw, era)
        first = await raw.request("tools/list", params)  # the server is up, its modules loaded
        assert "result" in first
        start = rss_kib(raw.process.pid)
        sent: list[int] = []

        async def write_all() -> None:
            for ident in range(REQUESTS):
                frame = {"jsonrpc": "2.0", "id": f"r{ident}", "method": "tools/list", "params": params}
                await raw.send(frame)
                sent.append(ident)

        async with anyio.create_task_group() as group:
            group.start_soon(write_all)
            await anyio.sleep(GIVEN)
            # The server stopped reading: the host could not write them all.
            assert len(sent) < REQUESTS
            assert len(sent) > MAX_PENDING
            # ...and it holds a bounded number of results (each some 30 KiB of tool schemas).
            assert rss_kib(raw.process.pid) - start < 64 * 1024
            answered: set[Any] = set()
            with anyio.fail_after(WAIT * 4):
                while len(answered) < REQUESTS:
                    frame = await raw.receive()
                    assert "result" in frame, json.dumps(frame)[:200]
                    answered.add(frame["id"])
        assert answered == {f"r{ident}" for ident in range(REQUESTS)}
        assert len(sent) == REQUESTS
