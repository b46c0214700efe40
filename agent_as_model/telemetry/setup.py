"""Turning the OpenTelemetry SDK on (the `[otel]` extra, imported only here and only when asked):
`serve --otel` exports spans and metrics as the standard OTEL_* variables say, and
`serve --http --metrics` keeps the metrics for `GET /metrics` as Prometheus text.

The standard variables, read by the SDK and its exporters themselves: `OTEL_SERVICE_NAME` and
`OTEL_RESOURCE_ATTRIBUTES` (this server names itself `agent-as-model` when neither does),
`OTEL_TRACES_SAMPLER`, `OTEL_EXPORTER_OTLP_ENDPOINT` / `_HEADERS` / `_TIMEOUT` and their
per-signal forms, `OTEL_BSP_*`, `OTEL_METRIC_EXPORT_INTERVAL`. Read here: `OTEL_SDK_DISABLED`,
`OTEL_TRACES_EXPORTER` and `OTEL_METRICS_EXPORTER` (`otlp`, the default, `console`, `none`, or
any exporter installed under the SDK's entry points), `OTEL_EXPORTER_OTLP_PROTOCOL` and its
per-signal forms (`http/protobuf`, the default here, or `grpc` with its exporter installed).

A process whose SDK is configured already (`opentelemetry-instrument agent-as-model serve`) keeps
its providers: no second provider, no span twice. Only `/metrics` then gets a meter provider of its
own beside that one, since a configured provider's readers cannot be added to.
"""

from __future__ import annotations

import logging
import os
from importlib.metadata import entry_points
from typing import Any

from agent_as_model import __version__
from agent_as_model.errors import StartupError
from agent_as_model.records import Record
from agent_as_model.telemetry import SCOPE, Watch, watch
from agent_as_model.telemetry.content import Capture

log = logging.getLogger("agent_as_model")

SERVICE_NAME = "agent-as-model"
# The protocol this server's OTLP export speaks unless told otherwise: the one its extra installs.
DEFAULT_PROTOCOL = "http/protobuf"
_PROTOCOL_EXPORTERS = {"http/protobuf": "otlp_proto_http", "grpc": "otlp_proto_grpc"}


class TelemetrySettings(Record):
    """What the operator turned on: the SDK with OTLP export (`otel`), `/metrics` (`metrics`), and
    message content on the spans (`content`: off, redacted, full)."""

    otel: bool = False
    metrics: bool = False
    content: Capture = "off"

    @property
    def on(self) -> bool:
        return self.otel or self.metrics


# The Prometheus registry `/metrics` renders (None: `--metrics` is off in this process).
_PROMETHEUS: Any = None


def configure(settings: TelemetrySettings) -> Watch | None:
    """Configure the SDK as `settings` say, reusing the providers of an SDK configured already;
    returns what is on (None: nothing). A missing extra or an exporter that cannot be made is a
    `StartupError`."""
    if not settings.on:
        return None
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        log.warning("OTEL_SDK_DISABLED=true: --otel and --metrics report nothing")
        return None
    try:
        from opentelemetry import metrics, trace
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise StartupError(_missing("the OpenTelemetry SDK", "--otel")) from None

    tracing = False
    if isinstance(trace.get_tracer_provider(), TracerProvider):
        tracing = True  # configured already (opentelemetry-instrument): its spans, once
        log.info("OpenTelemetry: reporting to the tracer provider this process has already")
    elif settings.otel:
        tracer_provider = TracerProvider(resource=_resource())
        for exporter in _exporters("traces"):
            tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
        trace.set_tracer_provider(tracer_provider)
        tracing = True

    meters = []
    prometheus = []
    if settings.metrics:
        prometheus.append(_prometheus_reader())
    configured = metrics.get_meter_provider()
    if isinstance(configured, MeterProvider):
        meters.append(configured.get_meter(SCOPE, __version__))
        if prometheus:  # /metrics needs a reader the configured provider cannot be given
            meters.append(MeterProvider(prometheus, resource=_resource()).get_meter(SCOPE, __version__))
    else:
        readers = prometheus + (_readers() if settings.otel else [])
        if readers:
            meter_provider = MeterProvider(readers, resource=_resource())
            metrics.set_meter_provider(meter_provider)
            meters.append(meter_provider.get_meter(SCOPE, __version__))
    return watch(tracing, meters, settings.content)


def prometheus_text() -> tuple[bytes, str] | None:
    """`GET /metrics`: the metrics as Prometheus text and its content type (None: `--metrics` is
    off here), written by the Prometheus client's own writer."""
    if _PROMETHEUS is None:
        return None
    from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

    return generate_latest(_PROMETHEUS), CONTENT_TYPE_LATEST


def _prometheus_reader() -> Any:
    global _PROMETHEUS
    try:
        from opentelemetry.exporter.prometheus import PrometheusMetricReader
        from prometheus_client import CollectorRegistry
    except ImportError:
        raise StartupError(_missing("the Prometheus exporter", "--metrics")) from None
    if _PROMETHEUS is None:
        _PROMETHEUS = CollectorRegistry(auto_describe=True)
    return PrometheusMetricReader(registry=_PROMETHEUS)


def _resource() -> Any:
    from opentelemetry.sdk.resources import Resource

    named = "OTEL_SERVICE_NAME" in os.environ or "service.name=" in os.environ.get(
        "OTEL_RESOURCE_ATTRIBUTES", ""
    )
    # Given attributes win over the variables' in `Resource.create`: name the service only when
    # the operator did not.
    ours = (
        {"service.version": __version__}
        if named
        else {"service.name": SERVICE_NAME, "service.version": __version__}
    )
    return Resource.create(ours)


def _exporters(signal: str) -> list[Any]:
    """The exporters `OTEL_{SIGNAL}_EXPORTER` names (comma-separated; `otlp` by default)."""
    variable = f"OTEL_{signal.upper()}_EXPORTER"
    made = []
    for name in _names(variable):
        made.append(_exporter(signal, variable, name)())
    return made


def _readers() -> list[Any]:
    """The metric readers of `OTEL_METRICS_EXPORTER`: each exporter read every
    `OTEL_METRIC_EXPORT_INTERVAL` (the SDK's reader reads the variable)."""
    from opentelemetry.sdk.metrics.export import MetricReader, PeriodicExportingMetricReader

    readers = []
    for name in _names("OTEL_METRICS_EXPORTER"):
        made = _exporter("metrics", "OTEL_METRICS_EXPORTER", name)()
        readers.append(made if isinstance(made, MetricReader) else PeriodicExportingMetricReader(made))
    return readers


def _names(variable: str) -> list[str]:
    given = [name.strip() for name in os.environ.get(variable, "otlp").split(",") if name.strip()]
    return [] if "none" in given else given


def _exporter(signal: str, variable: str, name: str) -> Any:
    group = f"opentelemetry_{signal}_exporter"
    if name == "otlp":
        protocol = (
            os.environ.get(f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL")
            or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
            or DEFAULT_PROTOCOL
        )
        if protocol not in _PROTOCOL_EXPORTERS:
            raise StartupError(
                f"OTEL_EXPORTER_OTLP_PROTOCOL: {protocol!r} is not one this server speaks "
                f"(use {' or '.join(_PROTOCOL_EXPORTERS)})"
            )
        name = _PROTOCOL_EXPORTERS[protocol]
    found = entry_points(group=group, name=name)
    for entry in found:
        return entry.load()
    installed = sorted({e.name for e in entry_points(group=group)} | {"otlp", "none"})
    hint = ""
    if name == "otlp_proto_grpc":
        hint = " (OTLP over grpc needs opentelemetry-exporter-otlp-proto-grpc installed beside this server)"
    raise StartupError(
        f"{variable}: no exporter {name!r} is installed{hint}; installed: {', '.join(installed)}"
    )


def _missing(what: str, flag: str) -> str:
    return (
        f"{flag} needs {what}: install this project with its otel extra "
        "(pip install '/path/to/checkout[otel]', docs/telemetry.md)"
    )
