"""`serve --http`: the same server over streamable HTTP, on uvicorn, for many hosts.

Both eras on one endpoint (the SDK routes by the `MCP-Protocol-Version` header): 2026-07-28
requests are stateless per POST, their MRTR state sealed in `requestState`, so any process that
shares the sealing key (`AGENT_AS_MODEL_STATE_KEY`) can answer any round; legacy sessions are
stateful with SSE (sampling is a server-to-client request, which needs the session's stream) and
live in one process, so several instances need routing sticky on `Mcp-Session-Id`.

Guards: loopback by default; a bearer token (constant-time comparison) required to bind a
non-loopback address and whenever a provider backend is configured; the SDK's Host/Origin checks
against DNS rebinding; the SDK's request-body limit. `/healthz` answers without a token so a load
balancer can probe it; without the token it says only "ok". The Host header's form and each
POST's JSON-RPC frame are checked before the SDK reads them (`http_guards.py`).
"""

from __future__ import annotations

import argparse
import hmac
import ipaddress
import json
import logging
import os
import secrets
import shlex
import socket
from typing import TYPE_CHECKING, Any

from agent_as_model.errors import StartupError
from agent_as_model.limits import limits_json
from agent_as_model.records import Record

if TYPE_CHECKING:  # the command line imports this module; Starlette and the SDK load only to serve
    from starlette.types import ASGIApp, Receive, Scope, Send

AUTH_TOKEN_ENV = "AGENT_AS_MODEL_AUTH_TOKEN"
PROVIDER_ENV = "AGENT_AS_MODEL_PROVIDER"
# How the parent hands its settings to uvicorn's worker processes (they import the app factory).
SETTINGS_ENV = "AGENT_AS_MODEL_HTTP_SETTINGS"
HEALTH_PATH = "/healthz"
DEFAULT_MAX_BODY = 4 * 1024 * 1024
# The holds of slow and abandoned clients (docs/security.md): each a flag and a variable.
DEFAULT_HEADER_TIMEOUT = 10.0  # seconds for a request's headers, from connect or the last answer
DEFAULT_BODY_TIMEOUT = 60.0  # seconds for a whole body: 4 MiB at about 70 KB/s
DEFAULT_MAX_CONNECTIONS = 1000  # the descriptor limit is raised to fit them (`fit_descriptors`)
DEFAULT_SESSION_IDLE_TIMEOUT = 300.0  # nothing in flight; a live legacy host holds a GET stream
DEFAULT_MAX_SESSIONS = 1000  # legacy sessions; each idle one holds about 200 KiB (benchmarks/README.md)
# Descriptors kept beside the connections: the listening socket, logs, the loop's pipes, imports.
FD_HEADROOM = 64
LOOPBACK_NAMES = ("localhost",)
# Bind addresses that listen on every interface, loopback among them.
WILDCARD_BINDS = ("0.0.0.0", "::")
# Loopback Host and Origin patterns the SDK's DNS-rebinding check accepts by default.
LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")

log = logging.getLogger(__name__)


class HttpSettings(Record):
    """Everything `serve --http` decides; a value of its own so other settings merge beside it."""

    host: str = "127.0.0.1"
    port: int = 8000
    path: str = "/mcp"
    workers: int = 1
    auth_token: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    session_idle_timeout: float = DEFAULT_SESSION_IDLE_TIMEOUT
    max_sessions: int = DEFAULT_MAX_SESSIONS

    def to_env(self) -> str:
        """The settings for worker processes; the token stays out (it travels in its own variable)."""
        fields = self._replace(auth_token=None)._asdict()
        return json.dumps(fields)

    @classmethod
    def from_env(cls, text: str, auth_token: str | None) -> HttpSettings:
        fields: dict[str, Any] = json.loads(text)
        fields["allowed_hosts"] = tuple(fields["allowed_hosts"])
        fields["allowed_origins"] = tuple(fields["allowed_origins"])
        fields["auth_token"] = auth_token
        return cls(**fields)


class _HttpOnly:
    """The HTTP option group, keeping every option added after `--http`: those mean nothing
    over stdio, so `serve` refuses them without `--http` (`refuse_http_only`)."""

    def __init__(self, group: Any) -> None:
        self._group = group
        self.actions: list[argparse.Action] = []

    def add_argument(self, *names: str, **options: Any) -> argparse.Action:
        action: argparse.Action = self._group.add_argument(*names, **options)
        self.actions.append(action)
        return action


def add_options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Add `--http` and the options that only it uses; returns the latter."""
    plain = parser.add_argument_group("HTTP", "serve streamable HTTP instead of stdio (see docs/deploy.md)")
    plain.add_argument("--http", action="store_true", help="serve MCP over streamable HTTP on uvicorn")
    group = _HttpOnly(plain)
    group.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    group.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    group.add_argument("--path", default="/mcp", help="the MCP endpoint's path (default /mcp)")
    group.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes (default 1); more than one serves 2026-07-28 only (legacy sessions are "
        "refused) and shares AGENT_AS_MODEL_STATE_KEY, made for them if unset",
    )
    group.add_argument(
        "--auth-token",
        default=None,
        help=f"bearer token every request must carry (or set {AUTH_TOKEN_ENV}, which stays out of `ps`)",
    )
    group.add_argument(
        "--max-body-bytes",
        type=int,
        default=DEFAULT_MAX_BODY,
        help=f"largest request body accepted; larger ones get 413 (default {DEFAULT_MAX_BODY})",
    )
    group.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST[:PORT|:*]",
        help="a Host header to accept besides loopback (repeatable); '*' turns the Host/Origin check off",
    )
    group.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser Origin to accept besides loopback (repeatable), e.g. https://app.example:*",
    )
    _add_holds(group)
    return group.actions


class _Hold(Record):
    """A bound on what a slow or abandoned client holds: its flag, variable, kind and default."""

    flag: str
    env: str
    kind: type[int] | type[float]
    default: float
    help: str

    @property
    def dest(self) -> str:
        return self.flag.removeprefix("--").replace("-", "_")


HOLDS = (
    _Hold(
        "--header-timeout",
        "AGENT_AS_MODEL_HEADER_TIMEOUT",
        float,
        DEFAULT_HEADER_TIMEOUT,
        "seconds a connection may take to send a request's headers (from connecting, or from the last "
        "answer) before it gets 408 and is closed",
    ),
    _Hold(
        "--body-timeout",
        "AGENT_AS_MODEL_BODY_TIMEOUT",
        float,
        DEFAULT_BODY_TIMEOUT,
        "seconds a request may take to send its whole body before it gets 408 and is closed",
    ),
    _Hold(
        "--max-connections",
        "AGENT_AS_MODEL_MAX_CONNECTIONS",
        int,
        DEFAULT_MAX_CONNECTIONS,
        "open connections per worker; one more closes the one waiting longest for headers, or gets 503",
    ),
    _Hold(
        "--session-idle-timeout",
        "AGENT_AS_MODEL_SESSION_IDLE_TIMEOUT",
        float,
        DEFAULT_SESSION_IDLE_TIMEOUT,
        "seconds a legacy session may go with no request in flight (an abandoned handshake included) "
        "before it is closed; its id then gets 404",
    ),
    _Hold(
        "--max-sessions",
        "AGENT_AS_MODEL_MAX_SESSIONS",
        int,
        DEFAULT_MAX_SESSIONS,
        "legacy sessions open at once; an initialize beyond them gets 503 until one ends or is reaped",
    ),
)


def _add_holds(group: _HttpOnly) -> None:
    for hold in HOLDS:
        group.add_argument(
            hold.flag,
            type=str,
            default=None,
            metavar="SECONDS" if hold.kind is float else "N",
            help=f"{hold.help} (or set {hold.env}; default {hold.default:g})",
        )


def _hold_value(parser: argparse.ArgumentParser, args: argparse.Namespace, hold: _Hold) -> float:
    """The flag's value, else the variable's, else the default; a bad one named by where it came from."""
    given = getattr(args, hold.dest, None)
    source = hold.flag
    if given is None:
        given = os.environ.get(hold.env) or None
        source = hold.env
    if given is None:
        return hold.default
    try:
        value = hold.kind(given)
    except ValueError:
        parser.error(
            f"{source} must be a {'number' if hold.kind is float else 'whole number'}, got {given!r}"
        )
    if not 0 < value < float("inf"):
        parser.error(f"{source} must be positive, got {given}")
    return value


def refuse_http_only(
    parser: argparse.ArgumentParser, given: list[str], http_only: list[argparse.Action]
) -> None:
    """Without `--http`, an HTTP option would be silently ignored (stdio has no port): refuse it.

    Which options the command line named is read by parsing it again with those options'
    defaults suppressed: a name left in the namespace was given, however it was spelt
    (`--port=9000`, an abbreviation) and whatever its value (even the default's)."""
    saved = [(action, action.default) for action in http_only]
    try:
        for action in http_only:
            action.default = argparse.SUPPRESS
        named = vars(parser.parse_known_args(given)[0])
    finally:
        for action, default in saved:
            action.default = default
    flags = [action.option_strings[-1] for action in http_only if action.dest in named]
    if flags:
        one = len(flags) == 1
        at = given.index("serve") + 1 if "serve" in given else 0
        fixed = shlex.join(["agent-as-model", *given[:at], "--http", *given[at:]])
        parser.error(
            f"{', '.join(flags)} {'is' if one else 'are'} for serving HTTP and would be ignored over "
            f"stdio: add --http (`{fixed}`), or leave {'it' if one else 'them'} out to serve stdio"
        )


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def provider_configured(args: argparse.Namespace) -> str | None:
    """The provider backend in use, if any: a `--provider` flag (when the CLI has one) or the
    environment. An open server that holds a provider's key would let anyone spend it."""
    return getattr(args, "provider", None) or os.environ.get(PROVIDER_ENV) or None


def settings_from_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> HttpSettings | None:
    """The HTTP settings, or None when serving stdio. Refuses (exit 2) what would be unsafe or
    meaningless, each with the reason."""
    if not getattr(args, "http", False):
        return None
    if getattr(args, "record", None):
        parser.error(
            "--record cannot be used with --http: recordings are the frames of one stdio session, and an "
            "HTTP server serves many sessions at once. Record over stdio (see docs/transcripts.md)."
        )
    if not 1 <= args.port <= 65535:
        parser.error(f"--port must be between 1 and 65535, got {args.port}")
    if args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")
    if args.max_body_bytes < 1:
        parser.error(f"--max-body-bytes must be at least 1, got {args.max_body_bytes}")
    if not args.path.startswith("/") or args.path == HEALTH_PATH:
        parser.error(f"--path must start with '/' and not be {HEALTH_PATH}, got {args.path!r}")
    token = args.auth_token or os.environ.get(AUTH_TOKEN_ENV) or None
    if token is None:
        if not is_loopback(args.host):
            parser.error(
                f"--host {args.host} is not a loopback address: set a bearer token with --auth-token or "
                f"{AUTH_TOKEN_ENV} first, so that only your hosts can call the server"
            )
        if "*" in args.allowed_host:
            parser.error(
                "--allowed-host '*' switches the Host/Origin check off, which only a bearer token can "
                f"stand in for: set --auth-token or {AUTH_TOKEN_ENV} too"
            )
        provider = provider_configured(args)
        if provider:
            parser.error(
                f"a provider backend is configured ({provider}): set a bearer token with --auth-token or "
                f"{AUTH_TOKEN_ENV}, or anyone who reaches the port could spend its key"
            )
    return HttpSettings(
        host=args.host,
        port=args.port,
        path=args.path,
        workers=args.workers,
        auth_token=token,
        max_body_bytes=args.max_body_bytes,
        allowed_hosts=tuple(args.allowed_host),
        allowed_origins=tuple(args.allowed_origin),
        header_timeout=_hold_value(parser, args, HOLDS[0]),
        body_timeout=_hold_value(parser, args, HOLDS[1]),
        max_connections=int(_hold_value(parser, args, HOLDS[2])),
        session_idle_timeout=_hold_value(parser, args, HOLDS[3]),
        max_sessions=int(_hold_value(parser, args, HOLDS[4])),
    )


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
            from starlette.responses import JSONResponse

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
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

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
                from starlette.responses import JSONResponse

                error = {"code": -32600, "message": self.message}
                response = JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, status_code=400)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def transport_security(settings: HttpSettings) -> Any:
    """The SDK's DNS-rebinding check: loopback names always, plus the bound address and what the
    operator allows. `--allowed-host '*'` switches it off (behind a proxy that checks Host itself)."""
    from mcp.server.transport_security import TransportSecuritySettings

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


def build_app(settings: HttpSettings, server: Any = None) -> ASGIApp:
    """The ASGI app: the SDK's streamable HTTP app of `build_server()`, stateful with SSE for legacy
    sampling (2026-07-28 requests are stateless whatever this says), `/healthz`, the token check,
    and under several workers the legacy refusal."""
    from starlette.routing import Route

    from agent_as_model.server import build_server
    from agent_as_model.transports.http.guards import FrameCheck, HostForm, health

    server = server or build_server()
    security = transport_security(settings)
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=settings.path,
        json_response=False,
        stateless_http=False,
        max_request_body_size=settings.max_body_bytes,
        session_idle_timeout=settings.session_idle_timeout,
        max_sessions=settings.max_sessions,
        transport_security=security,
        host=settings.host,
        custom_starlette_routes=[Route(HEALTH_PATH, health(settings.auth_token), methods=["GET"])],
    )
    guarded: ASGIApp = HostForm(FrameCheck(app, settings.path, settings.max_body_bytes, security))
    if settings.workers > 1:
        guarded = LegacyNeedsOneProcess(guarded, settings.path, settings.workers)
    if settings.auth_token:
        return BearerAuth(guarded, settings.auth_token)
    return guarded


def app_from_environment() -> ASGIApp:
    """uvicorn's factory in each worker process: the settings the parent left in the environment
    (the HTTP settings, and the provider settings and limits `serve` was given)."""
    from agent_as_model.adapters.backends import ProviderSettings
    from agent_as_model.limits import Limits, limits_of_json
    from agent_as_model.server import build_server

    provider = None
    if os.environ.get(PROVIDER_SETTINGS_ENV):
        given = json.loads(os.environ[PROVIDER_SETTINGS_ENV])
        provider = ProviderSettings(**{**given, "models": tuple(given["models"])})
    limits = limits_of_json(json.loads(os.environ[LIMITS_ENV])) if os.environ.get(LIMITS_ENV) else Limits()
    from types import SimpleNamespace

    from agent_as_model.commands.cli import freeze_heap, usage_error
    from agent_as_model.commands.store_options import store_settings
    from agent_as_model.engine import offload
    from agent_as_model.server import open_store
    from agent_as_model.transports.http import holds as http_holds

    offload.share_the_gil()  # a worker process of its own (uvicorn's --workers)
    settings = HttpSettings.from_env(os.environ[SETTINGS_ENV], os.environ.get(AUTH_TOKEN_ENV))
    http_holds.configure(
        http_holds.Guard(settings.header_timeout, settings.body_timeout, settings.max_connections)
    )
    store = store_settings(SimpleNamespace(error=usage_error), SimpleNamespace())
    kept = None if store is None else open_store(store)  # once per worker, at its start-up
    server = build_server(provider=provider, limits=limits, store=kept)
    app = build_app(settings, server)
    freeze_heap()  # as on stdio: start-up's objects leave the collector's walk (issue 28)
    return app if kept is None else ClosesStore(app, kept)


# Where `serve` leaves the provider settings and the limits for the worker processes (no key:
# the SDKs read theirs from their own variables).
PROVIDER_SETTINGS_ENV = "AGENT_AS_MODEL_HTTP_PROVIDER_SETTINGS"
LIMITS_ENV = "AGENT_AS_MODEL_HTTP_LIMITS"


# The guarded h11 protocol (transports/http/holds.py), loaded by uvicorn in each worker by this path.
HTTP_PROTOCOL = "agent_as_model.transports.http.holds:GuardedH11Protocol"
HTTP_LOOP = "agent_as_model.transports.http.holds:PacedAcceptLoop"  # uvicorn calls it for each worker's loop


def fit_descriptors(max_connections: int) -> int:
    """Raise the soft descriptor limit so `max_connections` fit beside FD_HEADROOM (the workers
    inherit it); past the hard limit, serve fewer connections and say so. Without the bound a
    flood of connections makes accept fail, and every request with it."""
    import resource

    needed = max_connections + FD_HEADROOM
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    if soft != resource.RLIM_INFINITY and soft < needed:
        fitted = max(1, soft - FD_HEADROOM)
        log.warning(
            "--max-connections %d does not fit the descriptor limit %d (hard): serving %d at most",
            max_connections,
            soft,
            fitted,
        )
        return fitted
    return max_connections


def endpoint(settings: HttpSettings) -> str:
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return f"http://{host}:{settings.port}{settings.path}"


def banner(settings: HttpSettings) -> str:
    """The one start-up line: where to point a host, and what it must bring."""
    eras = "both eras" if settings.workers == 1 else f"2026-07-28 only, {settings.workers} workers"
    token = "; every request needs the bearer token" if settings.auth_token else ""
    return (
        f"agent-as-model: serving MCP over streamable HTTP at {endpoint(settings)} ({eras}; "
        f"GET {HEALTH_PATH} for probes{token}); Ctrl-C stops"
    )


def check_can_listen(settings: HttpSettings) -> None:
    """Bind the address once before uvicorn does, so that a port in use or an address that is not
    this machine's is one line saying what to change, not uvicorn's log record and exit 3. (A
    port taken in the moment between this and uvicorn's bind still gets uvicorn's message.)"""
    import errno

    where = f"{settings.host}:{settings.port}"
    try:
        found = socket.getaddrinfo(
            settings.host, settings.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as err:
        raise StartupError(
            f"--host {settings.host}: not an address or a name this machine resolves ({err.strerror})"
        ) from None
    family, kind, proto, _, address = found[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                why = "the port is in use (another server runs there): stop it, or choose another --port"
            elif err.errno == errno.EACCES:
                why = "permission denied (ports below 1024 need privileges): choose a --port of 1024 or more"
            elif err.errno == errno.EADDRNOTAVAIL:
                why = "that address is not this machine's: choose another --host (127.0.0.1 by default)"
            else:
                why = f"{err.strerror}: choose another --host or --port"
            raise StartupError(f"cannot listen on {where}: {why}") from None


def serve(settings: HttpSettings, provider: Any = None, limits: Any = None, store: Any = None) -> int:
    import sys

    import uvicorn

    check_can_listen(settings)
    settings = settings._replace(max_connections=fit_descriptors(settings.max_connections))

    from agent_as_model.server import STATE_KEY_ENV

    if settings.workers > 1 and not os.environ.get(STATE_KEY_ENV):
        # Every worker must seal and open MRTR state with the same key; none given, so make one
        # for this family of processes (a restart makes another: rounds in flight then fail).
        os.environ[STATE_KEY_ENV] = secrets.token_urlsafe(32)
        log.warning("%s not set: made one for the %d workers of this run", STATE_KEY_ENV, settings.workers)
    os.environ[SETTINGS_ENV] = settings.to_env()
    if provider is not None:
        os.environ[PROVIDER_SETTINGS_ENV] = json.dumps(provider._asdict())
    if limits is not None:
        os.environ[LIMITS_ENV] = json.dumps(limits_json(limits))
    if settings.auth_token:
        os.environ[AUTH_TOKEN_ENV] = settings.auth_token
    if store is not None:  # the workers read the store's settings from its own variables
        from agent_as_model.commands.store_options import to_env

        os.environ.update(to_env(store))
    print(banner(settings), file=sys.stderr, flush=True)  # stderr: stdout stays free for pipes
    try:
        uvicorn.run(
            "agent_as_model.commands.http:app_from_environment",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=settings.workers,
            log_level=logging.getLevelName(logging.getLogger().level).lower(),
            timeout_graceful_shutdown=5,
            http=HTTP_PROTOCOL,
            loop=HTTP_LOOP,
            server_header=False,
        )
    except SystemExit as ended:  # uvicorn's own start-up failure (3): its log line says why
        if ended.code in (0, None):
            raise
        raise StartupError(f"uvicorn could not serve {endpoint(settings)} (its message is above)") from None
    return 0
