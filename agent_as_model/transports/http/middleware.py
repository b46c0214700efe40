"""Three ASGI middlewares `build_app` puts around the SDK's app, each for one job: the bearer
token (`BearerAuth`), the refusal of legacy sessions under several workers
(`LegacyNeedsOneProcess`), and closing a worker's store when uvicorn shuts it down
(`ClosesStore`). The guards that read a request's Host and frame are in `guards.py`."""

from __future__ import annotations

import hmac
from typing import Any

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from agent_as_model.transports.http.settings import HEALTH_PATH


class BearerAuth:
    """Every request but the health probe carries `Authorization: Bearer <token>`; compared in
    constant time so the answer's timing says nothing about the token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] == HEALTH_PATH:
            await self.app(scope, receive, send)
            return
        given = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
        if not hmac.compare_digest(given, self.expected):
            reason = "missing" if not given else "wrong"
            response = JSONResponse(
                {"error": f"unauthorized: the bearer token is {reason} (send 'Authorization: Bearer …')"},
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="agent-as-model"'},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


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
    """Closes the worker's response store when uvicorn shuts the worker down (the ASGI lifespan's
    shutdown), after the app's own shutdown and before uvicorn is told it is complete."""

    def __init__(self, app: ASGIApp, store: Any) -> None:
        self.app = app
        self.store = store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def closing_send(message: Any) -> None:
            if message["type"] in ("lifespan.shutdown.complete", "lifespan.shutdown.failed"):
                await self.store.aclose()
            await send(message)

        await self.app(scope, receive, closing_send)
