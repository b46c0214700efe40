"""What `serve --http` decides, as one value (`HttpSettings`), with the defaults its flags document
and the names a loopback address goes by. The command line fills it (`commands/http_options.py`);
the app and the workers read it."""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from agent_as_model.records import Record

# The bearer token's variable: the command line reads it, and the parent hands the token to its
# workers in it (it stays out of `ps`).
AUTH_TOKEN_ENV = "AGENT_AS_MODEL_AUTH_TOKEN"
HEALTH_PATH = "/healthz"
# `serve --http --metrics`: the metrics as Prometheus text (docs/telemetry.md), behind the token.
METRICS_PATH = "/metrics"
DEFAULT_MAX_BODY = 4 * 1024 * 1024
# The holds of slow and abandoned clients (docs/security.md): each a flag and a variable.
DEFAULT_HEADER_TIMEOUT = 10.0  # seconds for a request's headers, from connect or the last answer
DEFAULT_BODY_TIMEOUT = 60.0  # seconds for a whole body: 4 MiB at about 70 KB/s
DEFAULT_MAX_CONNECTIONS = 1000  # the descriptor limit is raised to fit them (`workers.fit_descriptors`)
DEFAULT_SESSION_IDLE_TIMEOUT = 300.0  # nothing in flight; a live legacy host holds a GET stream
DEFAULT_MAX_SESSIONS = 1000  # legacy sessions, each holding memory while idle (benchmarks/README.md, "HTTP")
# Seconds a legacy session may take from its `initialize` answer to its next request (a host
# sends `notifications/initialized` at once); then it is ended (`sessions.py`).
DEFAULT_HANDSHAKE_TIMEOUT = 10.0
LOOPBACK_NAMES = ("localhost",)


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
    handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT
    metrics: bool = False  # GET /metrics serves the metrics as Prometheus text

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


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def endpoint(settings: HttpSettings) -> str:
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return f"http://{host}:{settings.port}{settings.path}"
