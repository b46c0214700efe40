"""What a call tells telemetry (agent_as_model/telemetry, docs/telemetry.md), read from its record:
each model round the driver awaits, and what the call ended with. Used only while something is on
(`telemetry.WATCH`): a server that reports nothing never calls here.
"""

from __future__ import annotations

import anyio
from mcp_types import CallToolResult, InputRequiredResult

from agent_as_model import telemetry
from agent_as_model.adapters.backends.base import Backend, HostAnswer, HostDeclined, Suspension
from agent_as_model.adapters.callers.base import ANONYMOUS
from agent_as_model.adapters.dialects import usage
from agent_as_model.errors import CallError
from agent_as_model.neutral import Usage
from agent_as_model.states.call import CallRecord, Unset
from agent_as_model.telemetry import Answered, Asked, CallSeen, Watch
from agent_as_model.telemetry import conventions as names

# What `agent_as_model.route` says of the backend the router chose, by its class.
ROUTES = {
    "LegacySampling": "host:sampling",
    "ModernRoundTrip": "host:2026-07-28",
    "ProviderBackend": "provider",
    "ProviderCall": "provider",
}


def route_name(backend: object) -> str:
    """The way a call reaches its model: one backend's, or a route's backends in order ("host:sampling,
    then provider"), as the route holds them (`backends`)."""
    inner = getattr(backend, "backends", None)
    if inner is not None:
        return ", then ".join(route_name(each) for each in inner)
    name = type(backend).__name__
    return ROUTES.get(name, name)


async def watched_exchange(watch: Watch, record: CallRecord, backend: Backend) -> HostAnswer | Suspension:
    """awaiting_host's exchange inside the round's span (`telemetry.Round`)."""
    payload = record.payload
    request = record.request
    asked = Asked(
        tool=record.tool,
        source=_source(backend, request.model),
        model=request.model,
        max_tokens=payload.max_tokens,
        temperature=payload.temperature,
        stop=tuple(payload.stop_sequences or ()),
        round_no=record.round_no,
        conversation=_conversation(record),
        structured=request.output is not None,
        payload=payload,
    )
    with watch.round(asked) as seen:
        try:
            outcome = await backend.exchange(payload, record.round_no, record.findings)
        except BaseException as err:
            seen.failed(error_type(err))
            raise
        if isinstance(outcome, Suspension):
            seen.suspended()
        else:
            seen.answered(answered(outcome, record, _source(backend, request.model)))
    return outcome


def answered(answer: HostAnswer, record: CallRecord, source: str) -> Answered:
    counted = answer.usage or usage.estimate_round(record.payload, answer.blocks)
    return Answered(
        source, answer.model, answer.stop_reason, counted, answer.blocks, response_id=answer.response_id
    )


def error_type(err: BaseException) -> str:
    """`error.type` of a round that failed: a low-cardinality word (docs/telemetry.md lists them)."""
    if isinstance(err, HostDeclined):
        return "host_declined"
    if isinstance(err, CallError):
        return "provider_error" if err.path.startswith("provider ") else "invalid_answer"
    if isinstance(err, anyio.get_cancelled_exc_class()):
        return "cancelled"
    return type(err).__qualname__


def call_seen(record: CallRecord, result: CallToolResult | InputRequiredResult | None) -> CallSeen:
    """What the tool span says of a call, from where its record ended (a call of several
    completions: from its completions' records, each routed and answered on its own)."""
    visit = record.visit
    caller = visit.caller if visit is not None else ANONYMOUS if record.gate is not None else None
    try:
        request = record.request
    except Unset:  # refused before its arguments were read (by its caller's limits, too)
        return CallSeen(None, None, None, record.round_no, caller=caller)
    model = request.model
    walked = record.choices or (record,)
    backend = next((r.backend for r in walked if r.backend is not None), None)
    route = None if backend is None else route_name(backend)
    source = None if backend is None else _source(backend, model)
    response_id = None
    if (
        isinstance(result, CallToolResult)
        and not result.is_error
        and isinstance(result.structured_content, dict)
    ):
        found = result.structured_content
        response_id = next((v for k in _RESPONSE_IDS if isinstance(v := found.get(k), str)), None)
    answers = tuple(a for a in (_retry_answer(r, model) for r in walked) if a is not None)
    repairs = sum(r.round_no for r in walked)
    return CallSeen(route, source, model, repairs, request.n, response_id, answers, caller)


# Where a result names its response: a product object's `id` (`chatcmpl-`, `resp_`, a cursor as a
# Responses id), a text result's cursor under cursors on, Gemini's `responseId`.
_RESPONSE_IDS = ("id", "response_id", "responseId")


def _conversation(record: CallRecord) -> str | None:
    """The response the call continues: its cursor chain's `previous_response_id`, or the stored
    response it reads (`serve --store`); None for a call that starts one or continues none."""
    chain = record.request.chain
    if chain is not None and chain.previous:
        return chain.previous
    storing = record.storing
    return None if storing is None else storing.previous


def _retry_answer(record: CallRecord, model: str) -> Answered | None:
    """The host's answer a 2026-07-28 retry took for this record's round, if it took one."""
    resumption = record.resumption
    if resumption is None or not isinstance(resumption.answer, HostAnswer):
        return None
    taken = resumption.answer
    counted = taken.usage or _estimated(record, taken)
    provider, asked_model = names.provider_and_model(taken.source, model)
    return Answered(
        taken.source,
        taken.model,
        taken.stop_reason,
        counted,
        taken.blocks,
        len(resumption.earlier),
        provider,
        asked_model,
        taken.response_id,
    )


def _estimated(record: CallRecord, answer: HostAnswer) -> Usage | None:
    """A retry's answer nobody counted, estimated from the payload of its round when this request
    built it (a repair round's); a proven retry builds none, and then says nothing of it."""
    try:
        payload = record.payload
    except Unset:
        return None
    return usage.estimate_round(payload, answer.blocks)


def _source(backend: Backend, model: str) -> str:
    try:
        return backend.source(model)
    except CallError:  # a model the provider may not use: refused before it was asked
        return "host"


def refused(record: CallRecord, failure: str, path: str | None, counted: bool = True) -> None:
    """A call that took a way out: the tool span, and the refusals metric when `counted` (a
    completion of several leaves the count to its call: `Watch.refused`)."""
    watch = telemetry.WATCH
    if watch is not None:
        watch.refused(record.tool, failure, path, counted)
