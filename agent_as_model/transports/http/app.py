"""`serve --http`'s ASGI app: the same server over streamable HTTP, for many hosts.

Both eras on one endpoint (the SDK routes by the `MCP-Protocol-Version` header): 2026-07-28
requests are stateless per POST, their MRTR state sealed in `requestState`, so any process that
shares the sealing key (`AGENT_AS_MODEL_STATE_KEY`) can answer any round; legacy sessions are
stateful with SSE (sampling is a server-to-client request, which needs the session's stream) and
live in one process, so several instances need routing sticky on `Mcp-Session-Id`.

Guards: loopback by default; a bearer token (constant-time comparison) required to bind a
non-loopback address and whenever a provider backend is configured (the command line refuses
the rest: `commands/http_options.py`); the SDK's Host/Origin checks against DNS rebinding; the
SDK's request-body limit. `/healthz` answers without a token so a load balancer can probe it;
without the token it says only "ok". The Host header's form and each POST's JSON-RPC frame are
checked before the SDK reads them (`guards.py`); legacy sessions that never finish their handshake
are ended, and make room at the session cap (`sessions.py`); the door (the callers' tokens, spec
section 17), `Retry-After`, the legacy refusal under several workers and the store's closing are
`middleware.py`'s. uvicorn builds the app in each worker
process with `app_from_environment`, from what the parent handed over (`workers.py`).
"""

from __future__ import annotations

from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import ASGIApp

from agent_as_model.adapters.callers import CallersSettings, open_gate, token_table
from agent_as_model.engine import offload
from agent_as_model.server import build_server, open_store
from agent_as_model.transports import freeze_heap
from agent_as_model.transports.http import holds, workers
from agent_as_model.transports.http.guards import FrameCheck, HostForm, health
from agent_as_model.transports.http.metrics import metrics
from agent_as_model.transports.http.middleware import (
    BearerAuth,
    ClosesStore,
    LegacyNeedsOneProcess,
    OpenDoor,
    RetryAfter,
)
from agent_as_model.transports.http.sessions import Sessions
from agent_as_model.transports.http.settings import HEALTH_PATH, METRICS_PATH, HttpSettings, is_loopback

# Bind addresses that listen on every interface, loopback among them.
WILDCARD_BINDS = ("0.0.0.0", "::")
# Loopback Host and Origin patterns the SDK's DNS-rebinding check accepts by default.
LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")


def transport_security(settings: HttpSettings) -> Any:
    """The SDK's DNS-rebinding check: loopback names always, plus the bound address and what the
    operator allows. `--allowed-host '*'` switches it off (behind a proxy that checks Host itself)."""
    if "*" in settings.allowed_hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = list(LOOPBACK_HOSTS)
    if is_loopback(settings.host) or settings.host in WILDCARD_BINDS:
        # A client may leave the port out of Host (it is implied); the names alone mean loopback,
        # which a wildcard bind listens on too.
        hosts.extend(pattern.removesuffix(":*") for pattern in LOOPBACK_HOSTS)
    else:
        bound = f"[{settings.host}]" if ":" in settings.host else settings.host
        hosts.extend((bound, f"{bound}:*"))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*hosts, *settings.allowed_hosts],
        allowed_origins=[*LOOPBACK_ORIGINS, *settings.allowed_origins],
    )


def build_app(settings: HttpSettings, server: Any = None, callers: CallersSettings | None = None) -> ASGIApp:
    """The ASGI app: the SDK's streamable HTTP app of `build_server()`, stateful with SSE for legacy
    sampling (2026-07-28 requests are stateless whatever this says), `/healthz`, the door (the
    callers' tokens and `--auth-token`'s; with limits, `Retry-After` on a refusal), the legacy
    sessions' handshake timeout and room at the cap (`sessions.py`), and under several workers the
    legacy refusal. `server` is built with the callers' gate, if any."""
    tokens = token_table(callers, settings.auth_token)
    limited = callers is not None and callers.limited()
    server = server or build_server()
    security = transport_security(settings)
    routes = [Route(HEALTH_PATH, health(tokens), methods=["GET"])]
    if settings.metrics:
        routes.append(Route(METRICS_PATH, metrics, methods=["GET"]))
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=settings.path,
        json_response=False,
        stateless_http=False,
        max_request_body_size=settings.max_body_bytes,
        session_idle_timeout=settings.session_idle_timeout,
        max_sessions=settings.max_sessions,
        transport_security=security,
        host=settings.host,
        custom_starlette_routes=routes,
    )
    sessions = Sessions(
        app, settings.path, settings.handshake_timeout, settings.max_sessions, settings.session_idle_timeout
    )
    guarded: ASGIApp = HostForm(FrameCheck(sessions, settings.path, settings.max_body_bytes, security))
    if settings.workers > 1:
        guarded = LegacyNeedsOneProcess(guarded, settings.path, settings.workers)
    if limited:
        guarded = RetryAfter(guarded)
    if tokens:
        return BearerAuth(guarded, tokens)
    return OpenDoor(guarded) if limited else guarded


def app_from_environment() -> ASGIApp:
    """uvicorn's factory in each worker process: the app of the settings the parent handed over in
    the environment (`workers.hand_off`: the HTTP settings, and the provider settings, limits and
    store `serve` was given)."""
    given = workers.handed_over()
    offload.share_the_gil()  # a worker process of its own (uvicorn's --workers)
    settings = given.settings
    holds.configure(holds.Guard(settings.header_timeout, settings.body_timeout, settings.max_connections))
    kept = None if given.store is None else open_store(given.store)  # once per worker, at its start-up
    if given.telemetry.on:  # each worker its own SDK, before its server, which reports to it
        from agent_as_model.telemetry import setup

        setup.configure(given.telemetry)
    gate = None if given.callers is None else open_gate(given.callers)  # its counters, likewise
    server = build_server(gateway=given.provider, limits=given.limits, store=kept, gate=gate)
    app = build_app(settings, server, given.callers)
    freeze_heap()  # as on stdio: start-up's objects leave the collector's walk
    closing = [opened for opened in (kept, gate) if opened is not None]
    return ClosesStore(app, *closing) if closing else app
