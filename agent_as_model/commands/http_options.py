"""`serve --http`'s flags: `--http` and the options only it uses, read into one `HttpSettings`
(`transports/http/settings.py`), refusing what would be unsafe or meaningless. The transport
itself is `transports/http/`."""

from __future__ import annotations

import argparse
import os
import shlex
from typing import Any, NoReturn

from agent_as_model.records import Record
from agent_as_model.transports.http.settings import (
    AUTH_TOKEN_ENV,
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HANDSHAKE_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_BODY,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_SESSION_IDLE_TIMEOUT,
    HEALTH_PATH,
    METRICS_PATH,
    HttpSettings,
    is_loopback,
)

PROVIDER_ENV = "AGENT_AS_MODEL_PROVIDER"


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
    group.add_argument(
        "--metrics",
        action="store_true",
        help=f"serve the metrics as Prometheus text at GET {METRICS_PATH} (behind the bearer token when one "
        "is set; the [otel] extra; docs/telemetry.md)",
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
        "seconds a legacy session may go with no request in flight before it is closed; its id then gets 404",
    ),
    _Hold(
        "--max-sessions",
        "AGENT_AS_MODEL_MAX_SESSIONS",
        int,
        DEFAULT_MAX_SESSIONS,
        "legacy sessions open at once; at the cap, a new one first ends the oldest whose handshake is "
        "not complete, else the one idle longest, and gets 503 only when every session is in use",
    ),
    _Hold(
        "--handshake-timeout",
        "AGENT_AS_MODEL_HANDSHAKE_TIMEOUT",
        float,
        DEFAULT_HANDSHAKE_TIMEOUT,
        "seconds a legacy session may take from its initialize answer to its next request "
        "(notifications/initialized) before it is ended",
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


def provider_configured(args: argparse.Namespace) -> str | None:
    """The provider backend in use, if any: a `--provider` flag (when the CLI has one), the
    environment, or the configuration file's named providers. An open server that holds a
    provider's key would let anyone spend it."""
    config = getattr(args, "config_file", None)
    named = None if config is None else config.sections.get("providers")
    if named:
        return ", ".join(p.label for p in named)
    return getattr(args, "provider", None) or os.environ.get(PROVIDER_ENV) or None


def _refuse_open_provider(
    parser: argparse.ArgumentParser, args: argparse.Namespace, message: str
) -> NoReturn:
    """The message names no flag of the provider (it may be the file's [providers]): a provider the
    configuration file set is refused at its table's line, or its key's, as the file's errors are."""
    config = getattr(args, "config_file", None)
    if config is not None:
        if config.sections.get("providers"):
            raise config.error(("providers",), message)
        if "provider" in config.applied:
            raise config.error(("serve", "provider"), message)
    parser.error(message)


def settings_from_args(
    parser: argparse.ArgumentParser, args: argparse.Namespace, *, named_callers: bool = False
) -> HttpSettings | None:
    """The HTTP settings, or None when serving stdio. Refuses (exit 2) what would be unsafe or
    meaningless, each with the reason. `named_callers`: the configuration file names callers, each
    with its token, which stand in for `--auth-token`."""
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
    if args.metrics and args.path == METRICS_PATH:
        parser.error(f"--path {METRICS_PATH} is where --metrics serves the metrics: choose another --path")
    token = args.auth_token or os.environ.get(AUTH_TOKEN_ENV) or None
    if token is None and not named_callers:
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
            _refuse_open_provider(
                parser,
                args,
                f"a provider backend is configured ({provider}): set a bearer token with --auth-token or "
                f"{AUTH_TOKEN_ENV}, or anyone who reaches the port could spend its key",
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
        handshake_timeout=_hold_value(parser, args, HOLDS[5]),
        metrics=bool(args.metrics),
    )
