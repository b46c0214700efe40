"""Stdio with hygiene: the server reads its own stdin, so no line goes unanswered.

The SDK's stdio transport drops, without a reply or a log line, a line that is not JSON, JSON that
is not a JSON-RPC message and JSON nested deeper than its parser takes; it buffers a line with no
newline without bound; and a request before `initialize` gets an opaque -32602. A client then
waits forever. Here every line is read, bounded and judged before the server sees it:

- not JSON (or not UTF-8): -32700 Parse error, id null;
- JSON but not a JSON-RPC message (`42`, a batch array, no `"jsonrpc": "2.0"`, a request without
  a method): -32600 Invalid Request, with the request's id when it has a usable one;
- a request whose id is not a string or an integer (`1.5`, `true`, `{}`): -32600, id null (the
  SDK would take it for a notification and never answer);
- a lone surrogate or an integer longer than the parser reads: an error naming its path, under
  the request's id (-32602 when it sits in `params`);
- nested deeper than the parser takes: an error reply saying so (the message's id when readable);
- longer than `--max-frame` bytes: discarded as it streams in (memory stays bounded), -32600;
- a request before `initialize` (and without the 2026-07-28 protocol version in `_meta`): an
  error that says to initialize first.

Each is logged at WARNING with the line's first bytes; the connection stays usable.

Backpressure: when the host stops reading stdout, the server's results wait to be written. Past
`MAX_PENDING` of them the reader stops reading stdin (so the host's own writes block, and memory
stays bounded) and resumes as the host drains them. The reads and writes run in two threads of
their own (`_IO_THREADS`), so no request work waiting for a worker thread can hold them up. A malformed
*response* (the host's answer to a sampling request) gets no reply, as JSON-RPC says, only the log
line; when its id can be read, the call waiting for it ends at once with an error naming what
was wrong (`frame_checks.for_the_server`), otherwise at `--host-timeout`. Everything else
reaches the server exactly as the SDK's transport would hand it over, and the server's frames
are written the way the SDK writes them. `serve --record` reads and writes through its tap the same way.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.shared.message import SessionMessage

from agent_as_model.transports import frame_checks, freeze_heap
from agent_as_model.transports.tap import claim_stdio, write_all

log = logging.getLogger("agent_as_model.stdio")

if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    Read = Callable[[int], bytes]  # up to n bytes; b"" at the end of the stream
    Write = Callable[[bytes], Any]  # all of the bytes
    ToServer = ObjectSendStream[SessionMessage | Exception]

CHUNK = 64 * 1024
SHOWN = 80  # bytes of a bad line shown in the log
INVALID_REQUEST = frame_checks.INVALID_REQUEST
PROTOCOL_META = "io.modelcontextprotocol/protocolVersion"
# Results waiting to be written beyond which no new request is read (see the module's docstring).
MAX_PENDING = 64
# One reader and one writer at a time: the stdio transport's own threads.
_IO_THREADS = 2
BEFORE_INIT_EXEMPT = frozenset({"initialize", "ping", "server/discover"})


async def serve(server: Any, read: Read, write: Write, *, max_frame: int) -> None:
    """Run `server` (a low-level SDK Server) over a byte stream pair until the input ends."""
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    threads = anyio.CapacityLimiter(_IO_THREADS)
    out = _Out(write, threads, from_server)
    gate = _Gate()
    async with anyio.create_task_group() as tg:
        tg.start_soon(_read_loop, _Reader(read, threads), max_frame, to_server, out, gate)
        tg.start_soon(_write_loop, from_server, out, gate)
        await server.run(server_reads, server_writes, server.create_initialization_options())
        tg.cancel_scope.cancel()


async def serve_stdio(server: Any, *, max_frame: int) -> None:
    """`serve` over the process's own stdin and stdout (claimed: fd 0 and 1 point away from the
    wire meanwhile, so a stray print cannot corrupt it)."""
    with claim_stdio() as (wire_in, wire_out):
        await serve(server, partial(os.read, wire_in), partial(write_all, wire_out), max_frame=max_frame)


async def serve_until_closed(server: Any, *, max_frame: int, store: Any = None) -> None:
    """What `serve` runs over stdio: the start-up heap frozen, `serve_stdio` until the host closes
    stdin, then the store closed (SQLite then folds its write-ahead log back into the file and
    removes it)."""
    freeze_heap()
    try:
        await serve_stdio(server, max_frame=max_frame)
    finally:
        if store is not None:
            await store.aclose()


class _Reader:
    """stdin, read in the transport's own thread."""

    def __init__(self, read: Read, threads: anyio.CapacityLimiter) -> None:
        self._read = read
        self._threads = threads

    async def chunk(self) -> bytes:
        return await anyio.to_thread.run_sync(
            self._read, CHUNK, abandon_on_cancel=True, limiter=self._threads
        )


class _Out:
    """One writer for the server's frames and the reader's error replies, a frame at a time; and
    the count of results waiting to be written (`backlog`), which the reader waits on."""

    def __init__(
        self,
        write: Write,
        threads: anyio.CapacityLimiter,
        from_server: MemoryObjectReceiveStream[SessionMessage],
    ) -> None:
        self._write = write
        self._threads = threads
        self._from_server = from_server
        self._lock = anyio.Lock()
        self._written = anyio.Event()

    async def frame(self, text: str) -> None:
        async with self._lock:
            data = text.encode("utf-8") + b"\n"
            await anyio.to_thread.run_sync(self._write, data, limiter=self._threads)
        self._written.set()

    def backlog(self) -> int:
        """The server's messages waiting to be written: each task that made one waits to send it."""
        return self._from_server.statistics().tasks_waiting_send

    async def drained(self, limit: int) -> None:
        """Wait while more than `limit` messages wait to be written (the host is not reading)."""
        while self.backlog() > limit:
            self._written = anyio.Event()
            await self._written.wait()

    async def error(self, ident: object, code: int, message: str) -> None:
        # Written like every other frame: the SDK's model, its serialisation.
        reply = types.JSONRPCError(jsonrpc="2.0", id=ident, error=types.ErrorData(code=code, message=message))  # type: ignore[arg-type]
        await self.frame(reply.model_dump_json(by_alias=True, exclude_unset=True))


class _Gate:
    """Whether the legacy handshake has happened: opened by the server's *result* to `initialize`.

    Until the server has answered an `initialize`, the reader waits (as the SDK's own loop does),
    so a client that sends its next request without waiting is judged after the handshake."""

    def __init__(self) -> None:
        self.open = False
        self.initialize_id: object = None
        self.answered = anyio.Event()

    def refuses(self, message: types.JSONRPCRequest) -> bool:
        if self.open:
            return False
        if message.method == "initialize":
            self.initialize_id = message.id
            return False
        meta = (message.params or {}).get("_meta")
        modern = isinstance(meta, dict) and PROTOCOL_META in meta  # 2026-07-28 has no handshake
        return not modern and message.method not in BEFORE_INIT_EXEMPT

    def sent(self, message: Any) -> None:
        if self.initialize_id is None or self.answered.is_set():
            return
        if (
            isinstance(message, types.JSONRPCResponse | types.JSONRPCError)
            and message.id == self.initialize_id
        ):
            self.open = self.open or isinstance(message, types.JSONRPCResponse)
            self.answered.set()

    async def handshake(self, message: types.JSONRPCRequest) -> None:
        """After handing the server an `initialize`: wait for its answer."""
        if message.method == "initialize" and message.id == self.initialize_id:
            await self.answered.wait()
            if not self.open:  # refused: the next initialize gets its own wait
                self.initialize_id, self.answered = None, anyio.Event()


async def _write_loop(from_server: ObjectReceiveStream[SessionMessage], out: _Out, gate: _Gate) -> None:
    async with from_server:
        async for session_message in from_server:
            message = session_message.message
            gate.sent(message)
            await out.frame(message.model_dump_json(by_alias=True, exclude_unset=True))


async def _read_loop(read: _Reader, max_frame: int, to_server: ToServer, out: _Out, gate: _Gate) -> None:
    async with to_server:
        pending = bytearray()
        scanned = 0  # bytes of `pending` known to hold no newline
        discarding = False  # inside a frame that was too long: drop up to its newline
        while True:
            chunk = await read.chunk()
            if not chunk:
                break
            pending += chunk
            while (end := pending.find(b"\n", scanned)) >= 0:
                line = bytes(pending[:end])
                del pending[: end + 1]
                scanned = 0
                if discarding:
                    discarding = False  # the rest of the long frame ends here
                elif len(line) > max_frame:
                    await _too_long(line, max_frame, out)
                else:
                    await out.drained(MAX_PENDING)  # backpressure: the host reads what it asked first
                    await _frame(line, to_server, out, gate)
            scanned = len(pending)
            if len(pending) > max_frame:
                if not discarding:
                    await _too_long(bytes(pending[:SHOWN]), max_frame, out)
                discarding = True
                pending.clear()
                scanned = 0
        if pending and not discarding:  # a last line without a newline still came
            await _frame(bytes(pending), to_server, out, gate)


async def _too_long(start: bytes, max_frame: int, out: _Out) -> None:
    reason = f"a frame longer than {max_frame} bytes (--max-frame) was discarded"
    log.warning("%s; it began %r", reason, start[:SHOWN])
    await out.error(None, INVALID_REQUEST, f"Invalid Request: {reason}")


async def _frame(line: bytes, to_server: ToServer, out: _Out, gate: _Gate) -> None:
    if not line.strip():
        return  # a blank line carries no message (nothing to answer)
    message = frame_checks.parse(line)
    if isinstance(message, frame_checks.Verdict):
        await _refuse(line, message, to_server, out)
        return
    if isinstance(message, types.JSONRPCRequest) and gate.refuses(message):
        reason = (
            f"the connection is not initialized: send 'initialize' (then 'notifications/initialized') "
            f"before {message.method!r}, or on 2026-07-28 carry {PROTOCOL_META} in the request's _meta"
        )
        log.warning("%s; the line began %r", reason, line[:SHOWN])
        await out.error(message.id, INVALID_REQUEST, f"Invalid Request: {reason}")
        return
    await to_server.send(SessionMessage(message))
    if isinstance(message, types.JSONRPCRequest) and not gate.open:
        await gate.handshake(message)


async def _refuse(line: bytes, verdict: frame_checks.Verdict, to_server: ToServer, out: _Out) -> None:
    """Say why a line is not a message the server can take, to the log and to the client; a
    response (which JSON-RPC never answers) instead ends the request it answers, when its id says
    which."""
    log.warning("%s; the line began %r", verdict.reason, line[:SHOWN])
    if verdict.response:
        instead = frame_checks.for_the_server(verdict)
        if instead is not None:
            await to_server.send(SessionMessage(instead))
        return
    if verdict.notification:
        return  # JSON-RPC never answers a notification; the log line above says what was wrong
    await out.frame(verdict.reply().model_dump_json(by_alias=True, exclude_unset=True))
