"""An OTLP/HTTP receiver on 127.0.0.1 for the export tests: it decodes every ExportTraceServiceRequest
and ExportMetricsServiceRequest it is sent with the OpenTelemetry protocol package, and keeps the
spans and metric names, as a collector would see them."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


@dataclass
class Span:
    name: str
    kind: int
    trace_id: str
    span_id: str
    parent_id: str
    attributes: dict[str, Any]
    resource: dict[str, Any]
    start: int = 0  # nanoseconds since the epoch
    end: int = 0
    events: tuple[str, ...] = ()


@dataclass
class Received:
    endpoint: str = ""
    spans: list[Span] = field(default_factory=list)
    metrics: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def named(self, name: str) -> list[Span]:
        with self.lock:
            return [s for s in self.spans if s.name == name]

    def wait_for(self, name: str, count: int = 1, seconds: float = 60.0) -> list[Span]:
        """The spans named `name` once `count` arrived (the export is batched and asynchronous)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = self.named(name)
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(f"{count} span(s) {name!r} not received; got {[s.name for s in self.spans]}")


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return tuple(_value(v) for v in value.array_value.values)
    return getattr(value, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


@contextmanager
def receiving() -> Iterator[Received]:
    received = Received()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            if self.path == "/v1/traces":
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                with received.lock:
                    for resource_spans in request.resource_spans:
                        resource = _attributes(resource_spans.resource.attributes)
                        for scope in resource_spans.scope_spans:
                            for span in scope.spans:
                                received.spans.append(
                                    Span(
                                        span.name,
                                        span.kind,
                                        span.trace_id.hex(),
                                        span.span_id.hex(),
                                        span.parent_span_id.hex(),
                                        _attributes(span.attributes),
                                        resource,
                                        span.start_time_unix_nano,
                                        span.end_time_unix_nano,
                                        tuple(event.name for event in span.events),
                                    )
                                )
            elif self.path == "/v1/metrics":
                request = ExportMetricsServiceRequest()
                request.ParseFromString(body)
                with received.lock:
                    for resource_metrics in request.resource_metrics:
                        for scope in resource_metrics.scope_metrics:
                            received.metrics.update(metric.name for metric in scope.metrics)
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    received.endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        server.shutdown()
        server.server_close()
