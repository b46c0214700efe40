"""Legacy sessions that never finish their handshake, and the session cap: no host is locked out.

The SDK keeps a legacy session (before 2026-07-28) from its answer to `initialize` until the client
deletes it or no request has been in flight for `--session-idle-timeout`, and answers a request
that would open one more with 503 while `--max-sessions` are open. So `initialize` requests that
went no further filled the cap, and every new legacy host got 503 until the idle time had
reaped them. `Sessions`, in front of the SDK's app, keeps a book of the sessions it saw opened (the
`Mcp-Session-Id` of a successful answer to a request that carried none) and:

- ends a session whose handshake is not complete `--handshake-timeout` seconds after it opened.
  The handshake is complete at the session's next request: the client's
  `notifications/initialized`, or whatever it sends first (a client that goes on to use the
  session is a host, whether or not it sent the notification);
- at the cap, before a request that may open a session reaches the SDK, ends the session opened
  longest ago whose handshake is not complete, else the one idle longest (no request in flight:
  a host that holds its GET stream open is never idle), so the SDK admits the new one. Only when
  every session is in use does a new host get the SDK's 503.

A session is ended as a client ends its own: a DELETE with its id, handed to the SDK's app, which
forgets the session at once and answers 404 to its id from then on. The book learns of the
sessions the SDK ends by itself (idle, deleted by the client) from the requests it sees: a DELETE
answered, a 404 for the id, or an idle time past the SDK's own.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import anyio
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("agent_as_model.http")

SESSION_HEADER = b"mcp-session-id"
VERSION_HEADER = b"mcp-protocol-version"
# Seconds past the SDK's own idle deadline after which an idle session is taken as reaped by the
# SDK: by then its idle scope has fired and the session is gone, so counting it would make the
# cap look fuller than the SDK's, and forgetting it earlier would make it look emptier.
REAPED_GRACE = 1.0
# What a DELETE handed to the SDK keeps of the request that opened the session: the SDK's own
# checks (the Host allow-list, the Origin) read the Host header; the rest routes the request.
_ROUTED = ("type", "asgi", "http_version", "scheme", "server", "client", "root_path", "path", "raw_path")


class Sessions:
    """The book of legacy sessions and what it ends; one per app (one process: a legacy session
    lives in one process, and several workers refuse legacy requests, `LegacyNeedsOneProcess`)."""

    def __init__(
        self, app: ASGIApp, path: str, handshake_timeout: float, max_sessions: int, idle_timeout: float
    ) -> None:
        self.app = app
        self.path = path
        self.handshake_timeout = handshake_timeout
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self.legacy_versions = {v.encode() for v in HANDSHAKE_PROTOCOL_VERSIONS}
        # Every session in the book, with what a DELETE of it needs (the scope it was opened on).
        self.opened: dict[str, dict[str, Any]] = {}
        # The sessions whose handshake is not complete, by the time each opened: the oldest first
        # (a dict keeps the order they were added in), so both the reaper and the cap find the
        # one to end at once.
        self.handshaking: dict[str, float] = {}
        # The sessions with no request in flight, by the time the last one ended: the idle longest
        # first (a session that becomes idle again goes to the end).
        self.idle: dict[str, float] = {}
        self.in_flight: dict[str, int] = {}
        self.opening = 0  # requests that may open a session, in the SDK's hands now
        self._woken: anyio.Event | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._serve_lifespan(scope, receive, send)
            return
        if scope["type"] != "http" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        session = _header(scope, SESSION_HEADER)
        if session is None:
            if scope["method"] == "POST" and self._may_open(scope):
                await self._open(scope, receive, send)
            else:
                await self.app(scope, receive, send)
            return
        await self._use(session.decode("latin-1"), scope, receive, send)

    def _may_open(self, scope: Scope) -> bool:
        """A POST without a session id opens one unless it is a 2026-07-28 request (stateless)."""
        version = _header(scope, VERSION_HEADER)
        return version is None or version in self.legacy_versions

    # -- a request that may open a session ---------------------------------------------------------

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._make_room(anyio.current_time())
        opened: str | None = None

        async def watching(message: Message) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and message["status"] < 400:
                given = _header(message, SESSION_HEADER)
                if given is not None:
                    opened = given.decode("latin-1")
                    self._add(opened, scope)
            await send(message)

        self.opening += 1
        try:
            await self.app(scope, receive, watching)
        finally:
            self.opening -= 1
            if opened is not None:
                self._done(opened)

    async def _make_room(self, now: float) -> None:
        """At the cap, end the session opened longest ago that has not completed its handshake,
        else the one idle longest, so the SDK admits the request that opens one more."""
        self._forget_reaped(now)
        if len(self.opened) + self.opening < self.max_sessions:
            return
        victim = next(iter(self.handshaking), None)
        why = "its handshake was not complete"
        if victim is None:
            victim = next(iter(self.idle), None)
            why = "it was idle longest"
        if victim is None:
            return  # every session is in use: the SDK answers 503
        log.info("ending legacy session %s at the session cap (%d): %s", victim[:64], self.max_sessions, why)
        await self._end(victim)

    def _forget_reaped(self, now: float) -> None:
        """Forget the idle sessions the SDK has reaped by now (idle past its own timeout)."""
        while self.idle:
            session, since = next(iter(self.idle.items()))
            if now - since < self.idle_timeout + REAPED_GRACE:
                return
            self._forget(session)

    # -- a request of a session --------------------------------------------------------------------

    async def _use(self, session: str, scope: Scope, receive: Receive, send: Send) -> None:
        if session not in self.opened:
            await self.app(scope, receive, send)
            return
        if scope["method"] != "DELETE":
            self.handshaking.pop(session, None)  # its next request: the handshake is complete
        self._busy(session)
        status: int | None = None

        async def watching(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watching)
        finally:
            self._done(session)
            # The client ended it, or the SDK no longer knows it (reaped, or ended by a DELETE).
            if status == 404 or (scope["method"] == "DELETE" and status is not None and status < 400):
                self._forget(session)

    # -- the book ----------------------------------------------------------------------------------

    def _add(self, session: str, scope: Scope) -> None:
        routed = {key: scope[key] for key in _ROUTED if key in scope}
        host = _header(scope, b"host")
        routed["headers"] = [(b"host", host)] if host is not None else []
        self.opened[session] = routed
        self.handshaking[session] = anyio.current_time()
        self.in_flight[session] = 1  # the request that opened it
        if self._woken is not None and len(self.handshaking) == 1:
            self._woken.set()  # the reaper waits for a first session to watch

    def _busy(self, session: str) -> None:
        self.idle.pop(session, None)
        self.in_flight[session] = self.in_flight.get(session, 0) + 1

    def _done(self, session: str) -> None:
        left = self.in_flight.get(session, 0) - 1
        if session not in self.opened:
            return
        if left > 0:
            self.in_flight[session] = left
            return
        self.in_flight.pop(session, None)
        self.idle[session] = anyio.current_time()

    def _forget(self, session: str) -> None:
        self.opened.pop(session, None)
        self.handshaking.pop(session, None)
        self.idle.pop(session, None)
        self.in_flight.pop(session, None)

    async def _end(self, session: str) -> None:
        """End a session as its client would: a DELETE with its id, handed to the SDK's app."""
        routed = self.opened.get(session)
        self._forget(session)
        if routed is None:
            return
        scope = {
            **routed,
            "method": "DELETE",
            "query_string": b"",
            "headers": [*routed["headers"], (SESSION_HEADER, session.encode("latin-1"))],
        }
        given: list[Message] = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive() -> Message:
            return given.pop() if given else {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            return None  # the answer goes to no one: no client asked

        await self.app(scope, receive, send)

    # -- the reaper of handshakes not completed ----------------------------------------------------

    async def _serve_lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The app's lifespan, with the reaper beside it from start-up until shutdown begins (the
        SDK's session manager stops at shutdown, and a DELETE could not reach it after)."""
        # The reaper's own scope: cancelling the task group's would cancel the app's shutdown too,
        # and what closes the store and the counters runs when that shutdown completes.
        reaper = anyio.CancelScope()

        async def reap() -> None:
            with reaper:
                await self._reap()

        async with anyio.create_task_group() as reaping:
            reaping.start_soon(reap)

            async def receiving() -> Message:
                message = await receive()
                if message["type"] == "lifespan.shutdown":
                    reaper.cancel()
                return message

            try:
                await self.app(scope, receiving, send)
            finally:
                reaper.cancel()

    async def _reap(self) -> None:
        while True:
            if not self.handshaking:
                self._woken = anyio.Event()
                await self._woken.wait()
                continue
            session, opened = next(iter(self.handshaking.items()))
            wait = opened + self.handshake_timeout - anyio.current_time()
            if wait > 0:
                await anyio.sleep(wait)
                continue
            log.info(
                "ending legacy session %s: its handshake was not complete within %gs",
                session[:64],
                self.handshake_timeout,
            )
            await self._end(session)


def _header(scope: Scope | Message, name: bytes) -> bytes | None:
    return next((value for key, value in scope["headers"] if key == name), None)
