"""The fresh server a recording is replayed against: this one in-process, or any stdio command.

Both speak in wire lines (one JSON-RPC message a line, without the newline), so replay neither
knows nor cares which it has. In-process, lines go through the same JSON parsing and
serialisation as the SDK's stdio transport, into `Server.run` over memory streams.
"""

from __future__ import annotations

import logging
import math
import os
import shlex
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, Protocol

import anyio
import mcp_types
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.shared.message import SessionMessage

MAX_LINE = 64 << 20
SHUTDOWN_GRACE = 5.0
# How long a started server may take to send its first frame, beyond the per-frame timeout. A
# start costs seconds of CPU (imports), many more on a loaded machine: the replay waits for the
# server to be up rather than count its start against a frame's budget. This bounds only a hang.
STARTUP_GRACE = 300.0
logger = logging.getLogger(__name__)


class Target(Protocol):
    description: str
    startup_grace: float  # extra time the first frame may take (a process must start first)

    async def send(self, line: str) -> bool:
        """Send one line; False when the server no longer listens."""
        ...

    async def receive(self) -> str | None:
        """The next line the server wrote; None once it has closed its output."""
        ...

    async def close_input(self) -> None: ...


ServerFactory = Callable[[], Any]


class InProcess:
    startup_grace = 0.0  # nothing to start

    def __init__(self, description: str) -> None:
        self.description = description
        self._to_server, self.server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](
            math.inf
        )
        self.server_writes, self._from_server = anyio.create_memory_object_stream[SessionMessage](math.inf)

    async def send(self, line: str) -> bool:
        try:
            message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except Exception as err:  # what the SDK's stdio reader does with a line that does not parse
            item: SessionMessage | Exception = err
        else:
            item = SessionMessage(message)
        try:
            await self._to_server.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return False
        return True

    async def receive(self) -> str | None:
        try:
            sent = await self._from_server.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return None
        return sent.message.model_dump_json(by_alias=True, exclude_unset=True)

    async def close_input(self) -> None:
        await self._to_server.aclose()


@asynccontextmanager
async def in_process(factory: ServerFactory | None = None) -> AsyncIterator[Target]:
    """A fresh server of this package (or of `factory`) served over memory streams."""
    from agent_as_model import __version__
    from agent_as_model.server import build_server

    server = (factory or build_server)()
    target = InProcess(f"in-process agent-as-model {__version__}")

    async def serve() -> None:
        async with target.server_writes, target.server_reads:
            try:
                await server.run(
                    target.server_reads, target.server_writes, server.create_initialization_options()
                )
            except Exception:  # a crashing server is a finding to report, not a reason to stop replaying
                logger.exception("the in-process server failed")

    async with anyio.create_task_group() as group:
        group.start_soon(serve)
        try:
            yield target
        finally:
            await target.close_input()
            # It ends on its own once its input is closed; the deadline covers a server that does not.
            group.cancel_scope.deadline = anyio.current_time() + SHUTDOWN_GRACE


class Command:
    startup_grace = STARTUP_GRACE

    def __init__(self, process: Process, description: str) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.description = description
        self._process = process
        self._stdout = BufferedByteReceiveStream(process.stdout)

    async def send(self, line: str) -> bool:
        assert self._process.stdin is not None
        try:
            await self._process.stdin.send(line.encode("utf-8", "surrogateescape") + b"\n")
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            return False
        return True

    async def receive(self) -> str | None:
        try:
            data = await self._stdout.receive_until(b"\n", MAX_LINE)
        except anyio.IncompleteRead:
            rest = bytes(self._stdout.buffer)
            return rest.decode("utf-8", "surrogateescape") if rest else None
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return None
        return data.decode("utf-8", "surrogateescape")

    async def close_input(self) -> None:
        assert self._process.stdin is not None
        with suppress(anyio.BrokenResourceError, OSError):
            await self._process.stdin.aclose()


@asynccontextmanager
async def command(argv: Sequence[str]) -> AsyncIterator[Target]:
    """A fresh server started as `argv`, spoken to over its stdin and stdout; its stderr is ours."""
    process = await anyio.open_process(list(argv), stderr=None, env=dict(os.environ))
    target = Command(process, shlex.join(argv))
    try:
        yield target
    finally:
        with anyio.CancelScope(shield=True):
            await target.close_input()  # a stdio server ends at the end of its input...
            with anyio.move_on_after(SHUTDOWN_GRACE):
                await process.wait()
            if process.returncode is None:  # ...or is made to
                process.kill()
            await process.aclose()
