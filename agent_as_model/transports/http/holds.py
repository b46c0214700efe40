"""uvicorn's h11 protocol with the holds a slow or abandoned client must not keep.

uvicorn bounds none of these itself: its keep-alive timer is cancelled by the first byte of a
request, so a client sending one header byte every few seconds (or a body slower still) keeps
its connection, and a file descriptor, for ever; and `limit_concurrency` answers 503 only once
headers are complete, after the connection is already held. This protocol adds:

- a header timeout: a timer armed when the connection waits for a request's headers (on
  connect, and after each response), cancelled when they are complete, never reset by data;
- a body timeout: a timer armed when the headers are complete, cancelled when the body is;
- a bound on open connections: a connection over it first evicts the connection that has
  waited longest for headers (so a flood of half-sent requests cannot lock a host out), and is
  refused with 503 when every connection is busy;
- paced accepts (`PacedAcceptLoop`, the loop uvicorn runs in each worker): asyncio accepts as
  many waiting connections in one turn of the loop as the listening backlog (2048), so a burst
  of new connections held every other request for that turn and the one that set them up. This
  loop accepts at most ACCEPT_BATCH per turn; the kernel's queue keeps its full length, so a
  burst waits in it a few turns longer and none is refused.

uvicorn loads this class by its import path in each worker (`workers.HTTP_PROTOCOL`), so the
bounds reach it through `configure`, which the app factory calls before any connection is made.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from agent_as_model.records import Record

log = logging.getLogger("agent_as_model.http")

TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
BUSY = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\nretry-after: 1\r\n\r\n"


# New connections taken per turn of the loop: a batch, so a burst of them cannot hold the loop.
ACCEPT_BATCH = 32


class PacedAcceptLoop(asyncio.SelectorEventLoop):
    """asyncio's selector loop, accepting at most ACCEPT_BATCH connections each time the listening
    socket is ready. asyncio passes one `backlog` both to `listen` (the kernel's queue, kept as
    uvicorn sets it) and to this, its count of accepts per turn; only the second is shortened."""

    def _start_serving(
        self,
        protocol_factory: Any,
        sock: Any,
        sslcontext: Any = None,
        server: Any = None,
        backlog: int = 100,
        *rest: Any,
    ) -> None:
        batch = min(backlog, ACCEPT_BATCH)
        super()._start_serving(protocol_factory, sock, sslcontext, server, batch, *rest)  # type: ignore[misc]


class Guard(Record):
    header_timeout: float
    body_timeout: float
    max_connections: int


_guard: Guard | None = None


def configure(guard: Guard) -> None:
    global _guard
    _guard = guard


def current() -> Guard:
    if _guard is None:
        raise RuntimeError("holds.configure was not called before serving")
    return _guard


# The connections of each server waiting for a request's headers, the longest-waiting first (a
# dict keeps the order they began waiting in): the one to evict is found at once, where a scan
# of every open connection made a flood of N connections cost the loop N * N steps.
_WAITING: weakref.WeakKeyDictionary[Any, dict[GuardedH11Protocol, None]] = weakref.WeakKeyDictionary()


class GuardedH11Protocol(H11Protocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = current()
        self._timer: asyncio.TimerHandle | None = None
        self._phase: str | None = None  # "headers", "body", or None while the app has the request
        self._waiting = _WAITING.setdefault(self.server_state, {})

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.guard.max_connections and not self._evict_one():
            log.warning("refusing a connection: %d are open, all busy", len(self.connections) - 1)
            self._close_with(BUSY)
            return
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def _watch(self) -> None:
        """Arm the timer of the phase the client is in: sending headers, sending a body, or
        neither (the app holds the request: a long answer or an SSE stream is not the client's)."""
        if self.transport.is_closing():
            return
        state = self.conn.their_state
        phase = "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        if phase == self._phase:
            return
        self._disarm()
        self._phase = phase
        if phase == "headers":
            self._waiting[self] = None
            self._timer = self.loop.call_later(self.guard.header_timeout, self._too_slow, phase)
        elif phase == "body":
            self._timer = self.loop.call_later(self.guard.body_timeout, self._too_slow, phase)

    def _disarm(self) -> None:
        self._waiting.pop(self, None)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._phase = None

    def _too_slow(self, phase: str) -> None:
        prefix = f"{self.client[0]}:{self.client[1]} - " if self.client else ""
        bound = self.guard.header_timeout if phase == "headers" else self.guard.body_timeout
        log.info("%sclosing a connection: its request's %s took over %gs", prefix, phase, bound)
        self._close_with(TIMED_OUT)

    def _evict_one(self) -> bool:
        """Close the connection that has waited longest for a request's headers, if any."""
        oldest = next(iter(self._waiting), None)
        if oldest is None:
            return False
        log.info("closing the connection idle longest: %d connections are open", len(self.connections))
        oldest._close_with(TIMED_OUT)
        return True

    def _close_with(self, answer: bytes) -> None:
        """Answer (when no response has started) and close. The app, if it holds this request,
        reads a disconnect; its own answer, if any, goes nowhere."""
        self._disarm()
        self._phase = "closed"
        cycle = self.cycle
        if cycle is None or not cycle.response_started:
            self.transport.write(answer)
        if cycle is not None:
            cycle.response_started = True
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()
