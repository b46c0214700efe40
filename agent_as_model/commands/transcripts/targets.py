"""The fresh server a recording is replayed against: this one in-process, or any stdio command.

Both speak in wire lines (one JSON-RPC message a line, without the newline), so replay neither
knows nor cares which it has. In-process, lines go through the same stdio reader and writer as
`serve` (transports/stdio.py), over OS pipes, into `Server.run`.
"""

from __future__ import annotations

import logging
import os
import shlex
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from functools import partial
from typing import Any, Protocol

import anyio
import anyio.to_thread
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from agent_as_model import __version__
from agent_as_model.limits import DEFAULT_LIMITS
from agent_as_model.server import build_server
from agent_as_model.transports import stdio
from agent_as_model.transports.tap import write_all

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
    """The server of this package in this process, behind the same stdio reader and writer as
    `serve` (transports/stdio.py) over a pair of OS pipes: it answers every line, a bad one
    included, exactly as the installed command would."""

    startup_grace = 0.0  # nothing to start

    def __init__(self, description: str) -> None:
        self.description = description
        self.server_in, self._to_server = os.pipe()
        self._from_server, self.server_out = os.pipe()
        self._lines = _Lines(self._from_server)
        self._input_open = True

    async def send(self, line: str) -> bool:
        data = line.encode("utf-8", "surrogateescape") + b"\n"
        try:
            await anyio.to_thread.run_sync(write_all, self._to_server, data)
        except OSError:
            return False
        return True

    async def receive(self) -> str | None:
        return await self._lines.next()

    async def close_input(self) -> None:
        if self._input_open:
            self._input_open = False
            os.close(self._to_server)


class _Lines:
    """Lines read from a pipe, without their newline; None at its end."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending = bytearray()
        self._ended = False

    async def next(self) -> str | None:
        while (end := self._pending.find(b"\n")) < 0 and not self._ended:
            chunk = await anyio.to_thread.run_sync(os.read, self._fd, 1 << 16, abandon_on_cancel=True)
            self._pending += chunk
            self._ended = not chunk
        if end < 0:
            if not self._pending:
                return None
            end = len(self._pending)
        line = bytes(self._pending[:end])
        del self._pending[: end + 1]
        return line.decode("utf-8", "surrogateescape")


@asynccontextmanager
async def in_process(factory: ServerFactory | None = None) -> AsyncIterator[Target]:
    """A fresh server of this package (or of `factory`) served over pipes, as `serve` serves stdio."""
    server = (factory or build_server)()
    target = InProcess(f"in-process agent-as-model {__version__}")

    async def serve() -> None:
        try:
            await stdio.serve(
                server,
                partial(os.read, target.server_in),
                partial(write_all, target.server_out),
                max_frame=DEFAULT_LIMITS.max_frame,
            )
        except Exception:  # a crashing server is a finding to report, not a reason to stop replaying
            logger.exception("the in-process server failed")
        finally:
            os.close(target.server_out)  # the reader sees the end of the server's output

    async with anyio.create_task_group() as group:
        group.start_soon(serve)
        try:
            yield target
        finally:
            await target.close_input()
            # It ends on its own once its input is closed; the deadline covers a server that does not.
            group.cancel_scope.deadline = anyio.current_time() + SHUTDOWN_GRACE
    # The read ends stay open: a worker thread may still be blocked reading one (see transports/tap.py).


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
