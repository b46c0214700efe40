"""The ASGI middlewares `build_app` puts around the SDK's app, each for one job: the door, which
finds the caller of a request's bearer token (`BearerAuth`; `OpenDoor` when the server takes no
token but limits its caller), `Retry-After` on a call refused for its caller's limits
(`RetryAfter`), the refusal of legacy sessions under several workers (`LegacyNeedsOneProcess`),
and closing a worker's store and counters when uvicorn shuts it down (`ClosesStore`). The guards
that read a request's Host and frame are in `guards.py`."""

from __future__ import annotations

from typing import Any

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent_as_model.adapters.callers import ANONYMOUS, VISIT_KEY, TokenTable, Visit
from agent_as_model.transports.http.settings import HEALTH_PATH


class BearerAuth:
    """The door: every request but the health probe carries `Authorization: Bearer <token>`, the
    token of one of the callers (`--auth-token`'s is the caller `default`), found by its digest in
    constant time (`adapters/callers/tokens.py`), so the answer's timing says nothing about a
    token. The request's `Visit` names its caller for the call (`calls.py`)."""

    def __init__(self, app: ASGIApp, tokens: TokenTable) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] == HEALTH_PATH:
            await self.app(scope, receive, send)
            return
        given = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
        caller = self.tokens.caller_of(given)
        if caller is None:
            reason = "missing" if not given else "wrong"
            response = JSONResponse(
                {"error": f"unauthorized: the bearer token is {reason} (send 'Authorization: Bearer …')"},
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="agent-as-model"'},
            )
            await response(scope, receive, send)
            return
        scope[VISIT_KEY] = Visit(caller)
        await self.app(scope, receive, send)


class OpenDoor:
    """A server that takes no token but limits its callers: every request is the caller
    `anonymous`'s."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope[VISIT_KEY] = Visit(ANONYMOUS)
        await self.app(scope, receive, send)


class RetryAfter:
    """A call refused for its caller's limits says when to try again in its tool error; this
    says it in the `Retry-After` header as well, where the response has not begun when the call
    is refused: a 2026-07-28 request's one JSON reply. (A legacy call's POST streams its answer,
    begun before the call is read.) The status stays 200: an MCP client reads a tool error from
    a 200 only; the SDK's client turns any other status into a generic internal error, and the
    caller would never read which limit it met."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        visit = scope.get(VISIT_KEY) if scope["type"] == "http" else None
        if visit is None:
            await self.app(scope, receive, send)
            return

        async def telling_send(message: Message) -> None:
            if message["type"] == "http.response.start" and visit.retry_after is not None:
                headers = [*message.get("headers", ()), (b"retry-after", str(visit.retry_after).encode())]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, telling_send)


class LegacyNeedsOneProcess:
    """Under `--workers N` (N > 1) the kernel hands each connection to any worker, so a legacy
    session (kept in one process, its SSE stream and POSTs on different connections) would break
    at random with "Session not found". Refuse legacy requests at once, saying why and what to do;
    2026-07-28 requests (stateless) pass."""

    def __init__(self, app: ASGIApp, path: str, workers: int) -> None:
        self.app = app
        self.path = path
        self.legacy_versions = {v.encode() for v in HANDSHAKE_PROTOCOL_VERSIONS}
        self.message = (
            f"this server runs {workers} worker processes, which cannot keep a legacy (before 2026-07-28) "
            "session: connect with protocol version 2026-07-28, or serve legacy hosts from single-worker "
            "instances behind a load balancer sticky on Mcp-Session-Id (docs/deploy.md)"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == self.path:
            version = next((v for k, v in scope["headers"] if k == b"mcp-protocol-version"), None)
            if version is None or version in self.legacy_versions:
                error = {"code": -32600, "message": self.message}
                response = JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, status_code=400)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class ClosesStore:
    """Closes the worker's response store and callers' counters when uvicorn shuts the worker down
    (the ASGI lifespan's shutdown), after the app's own shutdown and before uvicorn is told it is
    complete."""

    def __init__(self, app: ASGIApp, *closing: Any) -> None:
        self.app = app
        self.closing = closing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def closing_send(message: Any) -> None:
            if message["type"] in ("lifespan.shutdown.complete", "lifespan.shutdown.failed"):
                for opened in self.closing:
                    await opened.aclose()
            await send(message)

        await self.app(scope, receive, closing_send)
