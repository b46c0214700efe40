"""`serve --http` as processes: what the parent hands its uvicorn workers, and the run.

uvicorn starts each worker by importing the app factory by its path (`APP_FACTORY`), so the
settings reach the workers in the environment: the parent writes them (`hand_off`) and each
worker reads them back (`handed_over`), both here so the two sides cannot drift apart. Before
uvicorn runs, the address is bound once to say plainly why it cannot be (`check_can_listen`), and
the descriptor limit is raised to fit `--max-connections` (`fit_descriptors`).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import resource
import secrets
import socket
import sys
from typing import Any

import uvicorn

from agent_as_model.adapters.callers import CallersSettings, counters_shown
from agent_as_model.adapters.routes import gateway_from_json, gateway_json
from agent_as_model.adapters.store import StoreSettings
from agent_as_model.errors import StartupError
from agent_as_model.limits import Limits, limits_json, limits_of_json
from agent_as_model.records import Record
from agent_as_model.server import STATE_KEY_ENV
from agent_as_model.telemetry.setup import TelemetrySettings
from agent_as_model.transports.http.settings import AUTH_TOKEN_ENV, HEALTH_PATH, HttpSettings, endpoint

# Where the parent leaves each of its settings for the workers. The provider's key is not among
# them: the SDKs read theirs from their own variables. The token travels in AUTH_TOKEN_ENV.
SETTINGS_ENV = "AGENT_AS_MODEL_HTTP_SETTINGS"
PROVIDER_SETTINGS_ENV = "AGENT_AS_MODEL_HTTP_PROVIDER_SETTINGS"
LIMITS_ENV = "AGENT_AS_MODEL_HTTP_LIMITS"
STORE_SETTINGS_ENV = "AGENT_AS_MODEL_HTTP_STORE_SETTINGS"
# The callers (their names, their tokens' digests, never a token) and their limits.
CALLERS_ENV = "AGENT_AS_MODEL_HTTP_CALLERS"
TELEMETRY_SETTINGS_ENV = "AGENT_AS_MODEL_HTTP_TELEMETRY_SETTINGS"
# What uvicorn loads by path in each worker: the app factory, the guarded h11 protocol and the
# paced accept loop (transports/http/holds.py).
APP_FACTORY = "agent_as_model.transports.http.app:app_from_environment"
HTTP_PROTOCOL = "agent_as_model.transports.http.holds:GuardedH11Protocol"
HTTP_LOOP = "agent_as_model.transports.http.holds:PacedAcceptLoop"
# Descriptors kept beside the connections: the listening socket, logs, the loop's pipes, imports.
FD_HEADROOM = 64

log = logging.getLogger("agent_as_model.http")


class HandedOver(Record):
    """What a worker serves with: the HTTP settings, and the gateway (providers and routes), limits,
    store and callers `serve` was given (None: none configured), and what of telemetry is on."""

    settings: HttpSettings
    provider: Any
    limits: Limits
    store: Any
    telemetry: Any
    callers: CallersSettings | None = None


def hand_off(
    settings: HttpSettings,
    provider: Any,
    limits: Limits | None,
    store: Any,
    telemetry: Any = None,
    callers: CallersSettings | None = None,
) -> None:
    """Leave the settings in this process's environment, which uvicorn's workers inherit."""
    os.environ[SETTINGS_ENV] = settings.to_env()
    if telemetry is not None:
        os.environ[TELEMETRY_SETTINGS_ENV] = json.dumps(telemetry._asdict())
    if provider is not None:  # the gateway: its providers (no key, only their variables' names) and routes
        os.environ[PROVIDER_SETTINGS_ENV] = json.dumps(gateway_json(provider))
    if limits is not None:
        os.environ[LIMITS_ENV] = json.dumps(limits_json(limits))
    if settings.auth_token:
        os.environ[AUTH_TOKEN_ENV] = settings.auth_token
    if store is not None:
        os.environ[STORE_SETTINGS_ENV] = json.dumps(store._asdict())
    if callers is not None:
        os.environ[CALLERS_ENV] = callers.to_json()


def handed_over() -> HandedOver:
    """In a worker: the settings `hand_off` left in the environment."""
    provider = None
    if os.environ.get(PROVIDER_SETTINGS_ENV):
        provider = gateway_from_json(json.loads(os.environ[PROVIDER_SETTINGS_ENV]))
    limits = limits_of_json(json.loads(os.environ[LIMITS_ENV])) if os.environ.get(LIMITS_ENV) else Limits()
    store = None
    if os.environ.get(STORE_SETTINGS_ENV):
        store = StoreSettings(**json.loads(os.environ[STORE_SETTINGS_ENV]))
    callers = CallersSettings.from_json(os.environ[CALLERS_ENV]) if os.environ.get(CALLERS_ENV) else None
    settings = HttpSettings.from_env(os.environ[SETTINGS_ENV], os.environ.get(AUTH_TOKEN_ENV))
    telemetry = TelemetrySettings(metrics=settings.metrics)
    if os.environ.get(TELEMETRY_SETTINGS_ENV):
        telemetry = TelemetrySettings(**json.loads(os.environ[TELEMETRY_SETTINGS_ENV]))
    return HandedOver(settings, provider, limits, store, telemetry, callers)


def fit_descriptors(max_connections: int) -> int:
    """Raise the soft descriptor limit so `max_connections` fit beside FD_HEADROOM (the workers
    inherit it); past the hard limit, serve fewer connections and say so. Without the bound a
    flood of connections makes accept fail, and every request with it."""
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


def banner(settings: HttpSettings, callers: CallersSettings | None = None) -> str:
    """The one start-up line: where to point a host, and what it must bring."""
    eras = "both eras" if settings.workers == 1 else f"2026-07-28 only, {settings.workers} workers"
    named = 0 if callers is None else len(callers.callers)
    token = "; every request needs the bearer token" if settings.auth_token and not named else ""
    if named:
        count = named + bool(settings.auth_token)
        token = f"; every request needs the bearer token of one of its {count} callers"
    if callers is not None and callers.limited():
        token += f", each with its limits, counted in {counters_shown(callers.counters)}"
    return (
        f"agent-as-model: serving MCP over streamable HTTP at {endpoint(settings)} ({eras}; "
        f"GET {HEALTH_PATH} for probes{token}); Ctrl-C stops"
    )


def check_can_listen(settings: HttpSettings) -> None:
    """Bind the address once before uvicorn does, so that a port in use or an address that is not
    this machine's is one line saying what to change, not uvicorn's log record and exit 3. (A
    port taken in the moment between this and uvicorn's bind still gets uvicorn's message.)"""
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


def serve(
    settings: HttpSettings,
    provider: Any = None,
    limits: Any = None,
    store: Any = None,
    telemetry: Any = None,
    callers: CallersSettings | None = None,
) -> int:
    """Serve over HTTP with uvicorn until stopped: `settings.workers` processes, each building its
    app with `app.app_from_environment` from what this process hands over."""
    check_can_listen(settings)
    settings = settings._replace(max_connections=fit_descriptors(settings.max_connections))

    if settings.workers > 1 and not os.environ.get(STATE_KEY_ENV):
        # Every worker must seal and open MRTR state with the same key; none given, so make one
        # for this family of processes (a restart makes another: rounds in flight then fail).
        os.environ[STATE_KEY_ENV] = secrets.token_urlsafe(32)
        log.warning("%s not set: made one for the %d workers of this run", STATE_KEY_ENV, settings.workers)
    hand_off(settings, provider, limits, store, telemetry, callers)
    print(banner(settings, callers), file=sys.stderr, flush=True)  # stderr: stdout stays free for pipes
    try:
        uvicorn.run(
            APP_FACTORY,
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
