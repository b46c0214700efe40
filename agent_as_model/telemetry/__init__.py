"""Spans and metrics in the OpenTelemetry GenAI and MCP conventions (docs/telemetry.md): the one
place the driver, the backends and the store report to.

Under the MCP SDK's SERVER span of each request (`tools/call chat_complete`, which the SDK opens
itself), every model round is a CLIENT span `chat {model}` (`Round`): a legacy sampling request
(the SDK's own `MCP send sampling/createMessage` span, and the trace context it puts in the
request's `params._meta`, are under it), a 2026-07-28 round that asks the host (ended when the
round's InputRequiredResult is made), a provider's request (its retries are events on it), and
each repair round. The tool span gets what the call ended with (`call_ended`, `refused`).

Nothing when no OpenTelemetry SDK is configured: `WATCH` is None, and each place that reports
asks it first (one global read; nothing else of telemetry runs). It is set when a server is built
in a process whose OpenTelemetry SDK is already configured (`opentelemetry-instrument`, a test's
providers: `watch_configured`), or by `setup.configure` (`serve --otel`, `serve --http
--metrics`). Only `opentelemetry-api` is imported here: the SDK is the operator's (`[otel]`).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.trace import SpanKind, StatusCode

from agent_as_model import __version__
from agent_as_model.neutral import Usage
from agent_as_model.records import Record
from agent_as_model.telemetry import conventions as names
from agent_as_model.telemetry.content import CAPTURE_ENV, Capture, Content, capture_from

SCOPE = "agent_as_model"
# Our own variable for the content capture (`serve --otel-content`): off, redacted or full.
CONTENT_ENV = "AGENT_AS_MODEL_OTEL_CONTENT"


class Metrics:
    """The server's instruments, on each meter given (one, or with `/metrics` beside an SDK that
    `opentelemetry-instrument` configured, that one's and a Prometheus reader's own)."""

    def __init__(self, meters: Sequence[Any]) -> None:
        self.durations = [
            m.create_histogram(
                names.OPERATION_DURATION,
                "s",
                "GenAI operation duration: one model round, from the request to its answer",
                explicit_bucket_boundaries_advisory=names.DURATION_BUCKETS,
            )
            for m in meters
        ]
        self.tokens = [
            m.create_histogram(
                names.TOKEN_USAGE,
                "{token}",
                "Number of input and output tokens used, as the answerer counted them",
                explicit_bucket_boundaries_advisory=names.TOKEN_BUCKETS,
            )
            for m in meters
        ]
        self.requests = [
            m.create_histogram(
                names.SERVER_DURATION,
                "s",
                "MCP request duration as observed on the server, from receipt to the result",
                explicit_bucket_boundaries_advisory=names.SERVER_BUCKETS,
            )
            for m in meters
        ]
        self.in_flight = [
            m.create_up_down_counter(names.IN_FLIGHT, "{call}", "Tool calls being served") for m in meters
        ]
        self.refusals = [
            m.create_counter(names.REFUSALS, "{call}", "Tool calls refused or failed, by reason")
            for m in meters
        ]
        self.store = [
            m.create_counter(names.STORE_OPERATIONS, "{operation}", "Stored-response operations")
            for m in meters
        ]
        self.fallbacks = [
            m.create_counter(names.FALLBACKS, "{call}", "Rounds a provider answered after the host declined")
            for m in meters
        ]
        self.caller_calls = [
            m.create_counter(
                names.CALLER_CALLS, "{call}", "Calls each caller began: admitted, or refused by a limit"
            )
            for m in meters
        ]
        self.caller_tokens = [
            m.create_counter(names.CALLER_TOKENS, "{token}", "Tokens counted against each caller's day")
            for m in meters
        ]
        self.meters = list(meters)  # the callers' limits are observed on them when a gate is built


def _record(instruments: list[Any], value: float, attributes: Mapping[str, Any]) -> None:
    for instrument in instruments:
        instrument.record(value, attributes)


def _add(instruments: list[Any], value: int, attributes: Mapping[str, Any]) -> None:
    for instrument in instruments:
        instrument.add(value, attributes)


class Watch:
    """What is on: spans (`tracer`), metrics (`metrics`), captured content (`content`)."""

    def __init__(self, tracer: Any | None, metrics: Metrics | None, content: Content | None) -> None:
        self.tracer = tracer
        self.metrics = metrics
        self.content = content

    def round(self, asked: Asked) -> Round:
        return Round(self, asked)

    def call_ended(self, seen: CallSeen) -> None:
        """The tool span (the SDK's SERVER span) gets what the call ended with."""
        span = trace.get_current_span()
        if span.is_recording():
            attributes: dict[str, Any] = {names.REPAIRS: seen.repairs}
            if seen.route is not None:
                attributes[names.ROUTE] = seen.route
            if seen.backend is not None:
                attributes[names.BACKEND] = seen.backend
            if seen.model is not None:
                attributes[names.REQUEST_MODEL] = seen.model
            if seen.choices != 1:
                attributes[names.CHOICE_COUNT] = seen.choices
            if seen.response_id is not None:
                attributes[names.RESPONSE_ID] = self._cursor(seen.response_id)
            if seen.caller is not None:
                attributes[names.CALLER] = seen.caller
            span.set_attributes(attributes)
        answers = seen.answers
        if answers:  # a 2026-07-28 retry took the host's answers to an earlier request's round
            if span.is_recording():
                span.set_attributes(_answers_attributes(answers))
            for answer in answers:
                self._count_tokens(answer.provider, answer.asked_model, answer.model, answer.usage)

    def refused(self, tool: str, failure: str, path: str | None, counted: bool = True) -> None:
        """A call that took a way out other than its result (`conventions.REFUSED` names why):
        counted once a call (not `counted`: a completion of several, whose call counts it)."""
        reason = names.REFUSED.get(failure, failure)
        if counted and self.metrics is not None:
            _add(self.metrics.refusals, 1, {names.TOOL_NAME: tool, names.REFUSAL_REASON: reason})
        span = trace.get_current_span()
        if span.is_recording():
            span.set_attribute(names.REFUSAL_REASON, reason)
            if path:
                span.set_attribute(names.REFUSAL_PATH, path)

    def caller_limits(self, limits: Mapping[str, Mapping[str, int]]) -> None:
        """Each caller's bounds (`agent_as_model.caller.limits`), read whenever metrics are
        collected: caller -> limit -> bound, the unlimited left out."""
        if self.metrics is None:
            return
        from opentelemetry.metrics import Observation

        def observe(options: Any) -> list[Any]:
            return [
                Observation(bound, {names.CALLER: caller, names.CALLER_LIMIT: limit})
                for caller, bounds in limits.items()
                for limit, bound in bounds.items()
            ]

        for meter in self.metrics.meters:
            meter.create_observable_gauge(
                names.CALLER_LIMITS, [observe], "{unit}", "Each caller's bound, by limit"
            )

    def in_flight(self, tool: str, delta: int) -> None:
        if self.metrics is not None:
            _add(self.metrics.in_flight, delta, {names.TOOL_NAME: tool})

    def request_took(self, seconds: float, attributes: Mapping[str, Any]) -> None:
        if self.metrics is not None:
            _record(self.metrics.requests, seconds, attributes)

    def _count_tokens(self, provider: str, asked: str, model: str | None, usage: Usage | None) -> None:
        """gen_ai.client.token.usage, only for counts the answerer gave: the conventions allow an
        estimate only where the operator chose offline counting, so an estimate stays on the span."""
        if self.metrics is None or usage is None or usage.source == "estimated":
            return
        attributes = {names.OPERATION: names.CHAT, names.PROVIDER: provider, names.REQUEST_MODEL: asked}
        if model:
            attributes[names.RESPONSE_MODEL] = model
        _record(self.metrics.tokens, usage.input_tokens, {**attributes, names.TOKEN_TYPE: "input"})
        _record(self.metrics.tokens, usage.output_tokens, {**attributes, names.TOKEN_TYPE: "output"})

    def _cursor(self, value: str) -> str:
        content = self.content
        if content is None or content.capture == "full" or not value.startswith("cur_"):
            return value
        return content.cursor(value)  # an unkeyed hash of the conversation: as --redact writes it


class Asked(Record):
    """What a model round asks, as the driver read it from the call."""

    tool: str
    source: str  # what the backend says of itself: host, or provider:<name>/<model>
    model: str  # the model the call asked for (a provider's round asks its own name for it)
    max_tokens: int
    temperature: float | None
    stop: tuple[str, ...]
    round_no: int
    conversation: str | None  # the previous_response_id the call continues, if any
    structured: bool  # an output contract: the answer must be JSON
    payload: Any  # the sampling payload, read only for captured content


class Answered(Record):
    """What a model round got back."""

    source: str
    model: str | None  # the model the answerer named
    stop_reason: str | None
    usage: Usage | None  # as counted, or estimated (`usage.source`)
    blocks: tuple[Any, ...]
    # For a 2026-07-28 retry's answer (`call_ended`): the round it answers, the provider name and
    # the model the round asked for.
    round_no: int = 0
    provider: str = names.HOST_PROVIDER
    asked_model: str = ""
    response_id: str | None = None  # the answerer's own id of the answer, when it gave one


class CallSeen(Record):
    """What a call ended with, for its tool span."""

    route: str | None
    backend: str | None
    model: str | None
    repairs: int
    choices: int = 1
    response_id: str | None = None
    # A 2026-07-28 retry's answers to an earlier request's round: one, or one per completion.
    answers: tuple[Answered, ...] = ()
    # Who called, as the HTTP door named it; None without a door (stdio, in-process).
    caller: str | None = None


class Round:
    """One model round's span and measurements: entered around the backend's exchange."""

    __slots__ = (
        "_watch",
        "_asked",
        "_span",
        "_token",
        "_started",
        "_provider",
        "_model",
        "_answered",
        "_error",
    )

    def __init__(self, watch: Watch, asked: Asked) -> None:
        self._watch = watch
        self._asked = asked
        self._provider, self._model = names.provider_and_model(asked.source, asked.model)
        self._span: Any = None
        self._token: Any = None
        self._answered: Answered | None = None
        self._error: str | None = None
        self._started = 0.0

    def __enter__(self) -> Round:
        self._started = time.perf_counter()
        tracer = self._watch.tracer
        if tracer is not None:
            asked = self._asked
            attributes: dict[str, Any] = {
                names.OPERATION: names.CHAT,
                names.PROVIDER: self._provider,
                names.REQUEST_MODEL: self._model,
                names.MAX_TOKENS: asked.max_tokens,
                names.OUTPUT_TYPE: "json" if asked.structured else "text",
                names.TOOL_NAME: asked.tool,
                names.BACKEND: asked.source,
                names.ROUND: asked.round_no,
                names.REPAIR: asked.round_no > 0,
            }
            if asked.temperature is not None:
                attributes[names.TEMPERATURE] = asked.temperature
            if asked.stop:
                attributes[names.STOP_SEQUENCES] = list(asked.stop)
            if asked.conversation:
                attributes[names.CONVERSATION] = self._watch._cursor(asked.conversation)
            content = self._watch.content
            if content is not None:
                system = content.system(asked.payload)
                if system is not None:
                    attributes[names.SYSTEM_INSTRUCTIONS] = system
                attributes[names.INPUT_MESSAGES] = content.inputs(asked.payload)
            span = self._span = tracer.start_span(
                f"{names.CHAT} {self._model}", kind=SpanKind.CLIENT, attributes=attributes
            )
            # Current while the backend works: the SDK's own request span, a provider's request
            # headers and its retry events are this round's.
            self._token = otel_context.attach(trace.set_span_in_context(span))
        return self

    def answered(self, answer: Answered) -> None:
        self._answered = answer
        span = self._span
        if span is not None and span.is_recording():
            provider, model = names.provider_and_model(answer.source, self._asked.model)
            if (provider, model) != (self._provider, self._model):  # the host declined; a provider answered
                span.set_attributes({names.PROVIDER: provider, names.REQUEST_MODEL: model})
            span.set_attribute(names.BACKEND, answer.source)
            span.set_attributes(_answer_attributes(answer, self._watch.content))

    def suspended(self) -> None:
        """2026-07-28: this round ends the request; the host answers on a retry."""
        if self._span is not None:
            self._span.set_attribute(names.SUSPENDED, True)
        self._error = ""  # nothing to measure: the host's time to answer is not this request's

    def failed(self, error_type: str) -> None:
        self._error = error_type
        span = self._span
        if span is not None:
            span.set_attribute(names.ERROR_TYPE, error_type)
            span.set_status(StatusCode.ERROR, error_type)

    def __exit__(self, *exc: object) -> None:
        took = time.perf_counter() - self._started
        if self._token is not None:
            otel_context.detach(self._token)
        if self._span is not None:
            self._span.end()
        watch = self._watch
        if watch.metrics is None or self._error == "":
            return
        answer = self._answered
        provider, model = self._provider, self._model
        if answer is not None:
            provider, model = names.provider_and_model(answer.source, self._asked.model)
        attributes = {names.OPERATION: names.CHAT, names.PROVIDER: provider, names.REQUEST_MODEL: model}
        if answer is not None and answer.model:
            attributes[names.RESPONSE_MODEL] = answer.model
        if self._error:
            attributes[names.ERROR_TYPE] = self._error
        _record(watch.metrics.durations, took, attributes)
        if answer is not None:
            watch._count_tokens(provider, model, answer.model, answer.usage)


def _answers_attributes(answers: Sequence[Answered]) -> dict[str, Any]:
    """The tool span's account of a retry's answers: one answer's attributes; for several
    completions the first one's model, every completion's finish reason in order (the
    conventions' array is one per choice) and the tokens summed (the source is `estimated` if any
    completion's count is)."""
    attributes = _answer_attributes(answers[0], None)
    # The tool span's id is the result's (the product object's id), set by `call_ended`.
    attributes.pop(names.RESPONSE_ID, None)
    attributes[names.ANSWERED_ROUND] = max(a.round_no for a in answers)
    if len(answers) > 1:
        reasons = [a.stop_reason for a in answers if a.stop_reason]
        if reasons:
            attributes[names.FINISH_REASONS] = reasons
        counted = [a.usage for a in answers if a.usage is not None]
        if len(counted) == len(answers):
            attributes[names.INPUT_TOKENS] = sum(u.input_tokens for u in counted)
            attributes[names.OUTPUT_TOKENS] = sum(u.output_tokens for u in counted)
            estimated = any(u.source == "estimated" for u in counted)
            attributes[names.USAGE_SOURCE] = "estimated" if estimated else counted[0].source
        else:  # a completion's tokens nobody counted: no sum that would read as the whole
            for name in (names.INPUT_TOKENS, names.OUTPUT_TOKENS, names.USAGE_SOURCE):
                attributes.pop(name, None)
    return attributes


def _answer_attributes(answer: Answered, content: Content | None) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    if answer.model:
        attributes[names.RESPONSE_MODEL] = answer.model
    if answer.response_id:
        attributes[names.RESPONSE_ID] = answer.response_id
    if answer.stop_reason:
        attributes[names.FINISH_REASONS] = [answer.stop_reason]
    usage = answer.usage
    if usage is not None:
        attributes[names.INPUT_TOKENS] = usage.input_tokens
        attributes[names.OUTPUT_TOKENS] = usage.output_tokens
        attributes[names.USAGE_SOURCE] = usage.source
    if content is not None:
        attributes[names.OUTPUT_MESSAGES] = content.outputs(answer.blocks, answer.stop_reason)
    return attributes


# What is on; None: nothing (no SDK configured). Set by `watch_configured` or `setup.configure`.
WATCH: Watch | None = None
# Whether `watch_configured` looks for an SDK this process has (until `unwatch`).
_DETECTING = True


def watch_configured() -> Watch | None:
    """Report to the OpenTelemetry SDK this process already has, if any (`opentelemetry-instrument`,
    or a test's providers), found without importing it: a server built before any SDK is
    configured reports nothing. Returns what is on."""
    if WATCH is not None or not _DETECTING:
        return WATCH
    sdk_trace = sys.modules.get("opentelemetry.sdk.trace")
    sdk_metrics = sys.modules.get("opentelemetry.sdk.metrics")
    tracing = sdk_trace is not None and isinstance(trace.get_tracer_provider(), sdk_trace.TracerProvider)
    meter = None
    if sdk_metrics is not None:
        from opentelemetry import metrics

        provider = metrics.get_meter_provider()
        if isinstance(provider, sdk_metrics.MeterProvider):
            meter = provider.get_meter(SCOPE, __version__)
    if tracing or meter is not None:
        watch(tracing, [] if meter is None else [meter], _capture_from_environment())
    return WATCH


def watch(tracing: bool, meters: Sequence[Any], capture: Capture = "off") -> Watch:
    """Report from now on: spans through the global tracer provider (when `tracing`), metrics on
    `meters`, message content as `capture` says."""
    global WATCH
    tracer = trace.get_tracer(SCOPE, __version__) if tracing else None
    content = None if capture == "off" else Content(capture)
    WATCH = Watch(tracer, Metrics(meters) if meters else None, content)
    return WATCH


def unwatch() -> None:
    """Report nothing from now on, not even to an SDK this process has configured: for a test that
    configured the process's providers and is done (a process's configuration is otherwise for
    its life)."""
    global WATCH, _DETECTING
    WATCH = None
    _DETECTING = False


def _capture_from_environment() -> Capture:
    return capture_from(os.environ.get(CONTENT_ENV) or None, os.environ.get(CAPTURE_ENV))


# --- what the backends and the store report: each asks WATCH first -------------------------------


def trace_headers(headers: dict[str, str] | None = None) -> dict[str, str]:
    """The W3C trace context of the current span (a provider's round), as request headers: a
    provider request carries `traceparent` whether or not an SDK records here, as the API
    propagates any context it was given (nothing when there is none)."""
    carrier = {} if headers is None else headers
    propagate.inject(carrier)
    return carrier


def retried(attempt: int, error_type: str, wait: float) -> None:
    """A provider attempt failed and another follows after `wait` seconds: an event on the round."""
    watch = WATCH
    if watch is None or watch.tracer is None:
        return
    trace.get_current_span().add_event(
        names.RETRY_EVENT, {names.ATTEMPT: attempt, names.ERROR_TYPE: error_type, names.WAIT: wait}
    )


def fell_back(failed: str, asked: str) -> None:
    """A backend of the route (`host`, or a provider's configured name) gave the round no answer,
    and the next one is asked instead."""
    watch = WATCH
    if watch is None:
        return
    attributes = {names.FALLBACK_FROM: failed, names.FALLBACK_TO: asked}
    if watch.tracer is not None:
        trace.get_current_span().add_event(names.FALLBACK_EVENT, attributes)
    if watch.metrics is not None:
        _add(watch.metrics.fallbacks, 1, attributes)


def caller_counted(caller: str, refused_by: str | None = None) -> None:
    """A caller's call admitted by its limits, or refused by the one named."""
    watch = WATCH
    if watch is None or watch.metrics is None:
        return
    attributes = {names.CALLER: caller, names.CALLER_OUTCOME: "admitted" if refused_by is None else "refused"}
    if refused_by is not None:
        attributes[names.CALLER_LIMIT] = refused_by
    _add(watch.metrics.caller_calls, 1, attributes)


def caller_spent(caller: str, tokens: int, estimated: int) -> None:
    """The tokens a caller's call was counted for, `estimated` of them estimated."""
    watch = WATCH
    if watch is None or watch.metrics is None:
        return
    if tokens > estimated:
        _add(
            watch.metrics.caller_tokens,
            tokens - estimated,
            {names.CALLER: caller, names.TOKENS_ESTIMATED: False},
        )
    if estimated:
        _add(watch.metrics.caller_tokens, estimated, {names.CALLER: caller, names.TOKENS_ESTIMATED: True})


def store_operation(operation: str, error_type: str | None = None) -> None:
    """One operation on the store of stored responses (read, write, retrieve, delete) and how it
    ended: `error_type` None when it worked."""
    watch = WATCH
    if watch is None or watch.metrics is None:
        return
    attributes = {names.STORE_OPERATION: operation}
    if error_type is not None:
        attributes[names.ERROR_TYPE] = error_type
    _add(watch.metrics.store, 1, attributes)


class MeasuredRequests:
    """The server middleware that records `mcp.server.operation.duration` for every MCP request:
    put first in a server's middleware only when metrics are on (a server reporting nothing pays
    no layer)."""

    def __init__(self, watch: Watch) -> None:
        self._watch = watch

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        started = time.perf_counter()
        attributes: dict[str, Any] = {names.MCP_METHOD: ctx.method}
        version = ctx.protocol_version
        if version:
            attributes[names.MCP_PROTOCOL] = version
        if ctx.method == "tools/call":
            name = (ctx.params or {}).get("name")
            attributes[names.OPERATION] = "execute_tool"
            if isinstance(name, str):
                attributes[names.TOOL_NAME] = name
        try:
            result = await call_next(ctx)
        except BaseException as err:
            code = getattr(getattr(err, "error", None), "code", None)
            attributes[names.ERROR_TYPE] = str(code) if code is not None else type(err).__qualname__
            self._watch.request_took(time.perf_counter() - started, attributes)
            raise
        if _is_error(result):
            attributes[names.ERROR_TYPE] = "tool_error"
        self._watch.request_took(time.perf_counter() - started, attributes)
        return result


def _is_error(result: Any) -> bool:
    if isinstance(result, dict):
        return result.get("isError") is True
    return getattr(result, "is_error", None) is True
