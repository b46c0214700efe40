"""For the telemetry tests: the spans and metrics a server reports, read from the SDK's in-memory
exporters.

OpenTelemetry's global tracer provider is set once per process and never replaced, and the MCP
SDK opens its own SERVER spans through it, so it is set once here; its spans go to the exporter of
the test that is watching (`observed`), and nowhere when none is. Each test gets a meter provider
of its own, handed to the server's telemetry directly, and stops reporting when it ends
(`telemetry.unwatch`), so the tests after it serve as without an SDK."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from agent_as_model import telemetry

if TYPE_CHECKING:  # the SDK is imported by the tests that watch, not by every test's conftest
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


class _Watching:
    """The exporter of the test that is watching, if any."""

    exporter: InMemorySpanExporter | None = None


_WATCHING = _Watching()


def _process_tracer_provider() -> None:
    """Set once: the SDK's tracer provider, recording (and the trace context propagated) only while
    a test watches. Outside one, the process serves as it would with no SDK: its spans are not
    sampled, and no request carries a `traceparent` (tests compare what travels, byte for byte)."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult

    class ToTheWatchingTest(SpanProcessor):
        def on_end(self, span: ReadableSpan) -> None:
            exporter = _WATCHING.exporter
            if exporter is not None:
                exporter.export([span])

    class WhileWatching(Sampler):
        def should_sample(
            self,
            parent_context: Any,
            trace_id: int,
            name: str,
            kind: Any = None,
            attributes: Any = None,
            links: Any = None,
            trace_state: Any = None,
        ) -> SamplingResult:
            if _WATCHING.exporter is None:
                return SamplingResult(Decision.DROP)
            return SamplingResult(Decision.RECORD_AND_SAMPLE, attributes)

        def get_description(self) -> str:
            return "WhileWatching"

    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider(sampler=WhileWatching())
        provider.add_span_processor(ToTheWatchingTest())
        trace.set_tracer_provider(provider)
        _propagate(False)


def _propagate(on: bool) -> None:
    """W3C trace context and baggage propagated (the API's default), or nothing."""
    from opentelemetry import propagate
    from opentelemetry.baggage.propagation import W3CBaggagePropagator
    from opentelemetry.propagators.composite import CompositePropagator
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    kept = [TraceContextTextMapPropagator(), W3CBaggagePropagator()] if on else []
    propagate.set_global_textmap(CompositePropagator(kept))


class Observed:
    def __init__(self, exporter: InMemorySpanExporter, reader: InMemoryMetricReader) -> None:
        self.exporter = exporter
        self.reader = reader

    def spans(self, name: str | None = None) -> list[ReadableSpan]:
        found = list(self.exporter.get_finished_spans())
        return [s for s in found if name is None or s.name == name]

    def rounds(self) -> list[ReadableSpan]:
        """The model rounds' spans, in the order they ended."""
        return [s for s in self.spans() if s.name.startswith("chat ")]

    def tool_spans(self) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.name.startswith("tools/call ")]

    def parent_of(self, span: ReadableSpan) -> ReadableSpan:
        assert span.parent is not None, f"{span.name} has no parent"
        (parent,) = [s for s in self.spans() if s.context.span_id == span.parent.span_id]
        return parent

    def points(self, metric: str) -> list[Any]:
        """The data points of `metric` (empty when it was never recorded)."""
        data = self.reader.get_metrics_data()
        found: list[Any] = []
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                for item in scope.metrics:
                    if item.name == metric:
                        found.extend(item.data.data_points)
        return found


@pytest.fixture
def observed(request: pytest.FixtureRequest) -> Iterator[Observed]:
    """Spans and metrics on, for this test (a parametrized fixture's param is the content capture)."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    capture = getattr(request, "param", "off")
    _process_tracer_provider()
    exporter = InMemorySpanExporter()
    reader = InMemoryMetricReader()
    meters = MeterProvider([reader])
    _WATCHING.exporter = exporter
    _propagate(True)
    telemetry.watch(True, [meters.get_meter(telemetry.SCOPE)], capture)
    try:
        yield Observed(exporter, reader)
    finally:
        _WATCHING.exporter = None
        _propagate(False)
        telemetry.unwatch()
        meters.shutdown()
