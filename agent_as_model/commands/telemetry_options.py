"""`serve`'s telemetry (docs/telemetry.md): `--otel` turns the OpenTelemetry SDK on, configured by
the standard OTEL_* variables, and `--otel-content` puts message content on the spans; each has an
environment variable. `--metrics` (Prometheus text at `GET /metrics`) is an HTTP option
(`http_options.py`). Read into one `TelemetrySettings`; the SDK is configured by the transport
that serves (`telemetry.setup.configure`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agent_as_model.telemetry import CONTENT_ENV
from agent_as_model.telemetry.content import CAPTURE_ENV, CAPTURES, capture_from

if TYPE_CHECKING:
    import argparse

    from agent_as_model.commands.provider_options import UsageErrors
    from agent_as_model.telemetry.setup import TelemetrySettings

OTEL_ENV = "AGENT_AS_MODEL_OTEL"
# Each flag's variable, by the flag's destination: set, it wins over the config file.
ENV = {"otel": OTEL_ENV, "otel_content": CONTENT_ENV}
_TRUE = ("1", "true", "yes", "on")


def add_telemetry_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "telemetry (opt-in; docs/telemetry.md)",
        "Spans and metrics in the OpenTelemetry GenAI and MCP conventions, exported as the standard "
        "OTEL_* variables say (OTLP over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT by default); the [otel] extra. "
        "Under opentelemetry-instrument the server reports to the SDK it configured.",
    )
    group.add_argument(
        "--otel",
        action="store_true",
        default=None,
        help=f"turn the OpenTelemetry SDK on ({OTEL_ENV}=1)",
    )
    group.add_argument(
        "--otel-content",
        choices=[c for c in CAPTURES if c != "off"],
        nargs="?",
        const="redacted",
        default=None,
        help="record message content on the spans: 'redacted' (the default: each text a same-length "
        "placeholder, as --redact writes recordings) or 'full' (the words) "
        f"({CONTENT_ENV}; {CAPTURE_ENV}=true means redacted)",
    )


def telemetry_settings(
    parser: UsageErrors, args: Any, metrics: bool = False, env: Mapping[str, str] | None = None
) -> TelemetrySettings:
    """What the flags (or their variables) turn on; `metrics`: `--http --metrics` was given."""
    from agent_as_model.telemetry.setup import TelemetrySettings

    env = os.environ if env is None else env
    otel = getattr(args, "otel", None)
    if otel is None:
        otel = env.get(OTEL_ENV, "").strip().lower() in _TRUE
    given = getattr(args, "otel_content", None) or env.get(CONTENT_ENV) or None
    if given is not None and given not in CAPTURES:
        parser.error(f"{CONTENT_ENV} must be one of {', '.join(CAPTURES)}, got {given!r}")
    # Content goes on spans whoever configured the SDK (--otel, or opentelemetry-instrument).
    content = capture_from(given, env.get(CAPTURE_ENV))
    return TelemetrySettings(otel=bool(otel), metrics=metrics, content=content)
