"""Issue 47: spans and metrics in the OpenTelemetry GenAI and MCP conventions, read from the SDK's
in-memory exporters, through the real SDK `Client` on both eras against a scripted host and the
stand-in provider. Over real stdio and HTTP: tests/test_telemetry_export.py."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import MCPError
from mcp_types import ErrorData

from agent_as_model.commands.standin_provider import StandInProvider, Status, openai_reply
from agent_as_model.limits import Limits
from agent_as_model.server import build_server
from tests.provider_harness import provider_server
from tests.scripted_host import ScriptedHost, connect, text_answer
from tests.telemetry_helpers import Observed
from tests.test_slow_hosts import SilentHost
from tests.test_structured_output import GOOD, with_schema

pytestmark = pytest.mark.anyio

HELLO = {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello."}]}


def _traceparent(span: Any) -> str:
    """The version, trace id and parent id of W3C trace context naming `span` (its flags vary)."""
    context = span.context
    return f"00-{context.trace_id:032x}-{context.span_id:016x}"


async def test_a_plain_call_is_one_round_under_the_tool_span(era: str, observed: Observed) -> None:
    host = ScriptedHost(
        text_answer("Hello.", model="host-model").model_copy(update={"stop_reason": "endTurn"})
    )
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", {**HELLO, "temperature": 0.5, "max_tokens": 300})
    assert not result.is_error
    (round_,) = observed.rounds()
    tool_spans = observed.tool_spans()
    assert round_.name == "chat agent-default"
    assert round_.kind.name == "CLIENT"
    assert observed.parent_of(round_) is tool_spans[0]  # under round one's tools/call span
    attributes = round_.attributes or {}
    assert attributes["gen_ai.operation.name"] == "chat"
    assert attributes["gen_ai.provider.name"] == "mcp.host"
    assert attributes["gen_ai.request.model"] == "agent-default"
    assert attributes["gen_ai.request.max_tokens"] == 300
    assert attributes["gen_ai.request.temperature"] == 0.5
    assert attributes["agent_as_model.round"] == 0
    assert "gen_ai.input.messages" not in attributes  # content only when the operator opts in
    tool = tool_spans[-1].attributes or {}
    assert tool["agent_as_model.backend"] == "host"
    assert tool["agent_as_model.repairs"] == 0
    if era == "legacy":
        # The SDK's own request span is the round's child, and its trace context reached the host.
        (sent,) = observed.spans("MCP send sampling/createMessage")
        assert observed.parent_of(sent) is round_
        assert host.seen[0].meta is not None and host.seen[0].meta["traceparent"][:-3] == _traceparent(sent)
        assert tool["agent_as_model.route"] == "host:sampling"
        assert attributes["gen_ai.response.model"] == "host-model"
        assert attributes["gen_ai.response.finish_reasons"] == ("endTurn",)
        assert attributes["agent_as_model.usage.source"] == "estimated"
        assert "agent_as_model.round.suspended" not in attributes
        (duration,) = observed.points("gen_ai.client.operation.duration")
        assert duration.count == 1 and duration.attributes["gen_ai.provider.name"] == "mcp.host"
    else:
        # The round that asks ends its request: its span ends with the InputRequiredResult, and
        # what the host answered is on the retry's tool span.
        assert attributes["agent_as_model.round.suspended"] is True
        assert "gen_ai.response.model" not in attributes
        assert len(tool_spans) == 2
        assert tool["agent_as_model.route"] == "host:2026-07-28"
        assert tool["gen_ai.response.model"] == "host-model"
        assert tool["gen_ai.response.finish_reasons"] == ("endTurn",)
        assert tool["agent_as_model.answered_round"] == 0
        # The 2026-07-28 schema gives an embedded sampling request no _meta: no trace context there.
        assert host.seen[0].meta is None
        assert observed.points("gen_ai.client.operation.duration") == []  # no host time in this request
    (calls,) = observed.points("agent_as_model.calls.in_flight")
    assert calls.value == 0  # counted in, and out again
    server_points = observed.points("mcp.server.operation.duration")
    assert any(p.attributes.get("gen_ai.tool.name") == "chat_complete" for p in server_points)


async def test_a_repair_round_is_a_round_of_its_own(era: str, observed: Observed) -> None:
    host = ScriptedHost('{"name": "Ada"}', '{"name": "Ada", "age": 36}')
    async with connect(era, host) as client:
        result = await client.call_tool(
            "chat_complete", {**with_schema("chat_complete"), "repair_attempts": 1}
        )
    assert not result.is_error, result.content[0].text
    assert result.content[0].text == json.dumps(GOOD, sort_keys=True)
    rounds = observed.rounds()
    assert [(r.attributes or {})["agent_as_model.round"] for r in rounds] == [0, 1]
    assert [(r.attributes or {})["agent_as_model.round.repair"] for r in rounds] == [False, True]
    assert all((r.attributes or {})["gen_ai.output.type"] == "json" for r in rounds)
    assert (observed.tool_spans()[-1].attributes or {})["agent_as_model.repairs"] == 1
    if era == "2026-07-28":  # each round is a request of its own, and the last one takes the answer
        tools = observed.tool_spans()
        assert len(tools) == 3
        assert [observed.parent_of(r) for r in rounds] == tools[:2]
        assert (tools[-1].attributes or {})["agent_as_model.answered_round"] == 1


async def test_a_refusal_names_its_reason_on_the_tool_span_and_in_the_metric(
    era: str, observed: Observed
) -> None:
    async with connect(era, ScriptedHost()) as client:
        result = await client.call_tool("chat_complete", {"messages": [{"role": "robot", "content": "x"}]})
    assert result.is_error
    assert observed.rounds() == []  # nothing was sent
    (tool,) = observed.tool_spans()
    assert (tool.attributes or {})["agent_as_model.refusal.reason"] == "invalid_request"
    assert (tool.attributes or {})["agent_as_model.refusal.path"] == "messages[0].role"
    (refused,) = observed.points("agent_as_model.refusals")
    assert refused.value == 1
    assert dict(refused.attributes) == {
        "gen_ai.tool.name": "chat_complete",
        "agent_as_model.refusal.reason": "invalid_request",
    }


async def test_a_host_without_sampling_is_refused_for_its_capability(era: str, observed: Observed) -> None:
    async with connect(era) as client:
        with pytest.raises(MCPError):
            await client.call_tool("generate", {"prompt": "hi"})
    (refused,) = observed.points("agent_as_model.refusals")
    assert refused.attributes["agent_as_model.refusal.reason"] == "missing_capability"


async def test_several_completions_without_sampling_are_one_refusal(era: str, observed: Observed) -> None:
    async with connect(era) as client:
        with pytest.raises(MCPError):
            await client.call_tool("chat_complete", {**HELLO, "n": 2, "result": "object"})
    (refused,) = observed.points("agent_as_model.refusals")
    assert refused.value == 1
    assert refused.attributes["agent_as_model.refusal.reason"] == "missing_capability"


async def test_a_provider_round_carries_its_trace_context_and_its_retry(
    era: str, observed: Observed, standin: StandInProvider
) -> None:
    standin.script += [Status(429, "slow down"), openai_reply("Hello from the provider.")]
    server = provider_server(standin, use="always", max_retries=1)
    async with connect(era, ScriptedHost("never asked"), server=server) as client:
        result = await client.call_tool("chat_complete", HELLO)
    assert not result.is_error, result.content[0].text
    (round_,) = observed.rounds()
    attributes = round_.attributes or {}
    assert round_.name == "chat model-one"
    assert attributes["gen_ai.provider.name"] == "openai"
    assert attributes["gen_ai.request.model"] == "model-one"
    assert attributes["agent_as_model.usage.source"] == "provider"
    assert attributes["gen_ai.response.id"] == "chatcmpl-standin"  # the provider's own id of its answer
    (retry,) = [e for e in round_.events if e.name == "agent_as_model.provider.retry"]
    assert (retry.attributes or {})["error.type"] == "429"
    assert (retry.attributes or {})["agent_as_model.attempt"] == 1
    # Both attempts carried the round's trace context.
    assert len(standin.seen) == 2
    for seen in standin.seen:
        headers = {k.lower(): v for k, v in seen.headers.items()}
        assert headers["traceparent"][:-3] == _traceparent(round_)
    assert (observed.tool_spans()[-1].attributes or {})["agent_as_model.route"] == "provider"
    tokens = observed.points("gen_ai.client.token.usage")
    assert {p.attributes["gen_ai.token.type"] for p in tokens} == {"input", "output"}
    assert all(p.attributes["gen_ai.provider.name"] == "openai" for p in tokens)


async def test_a_failed_provider_round_says_its_error_type(
    era: str, observed: Observed, standin: StandInProvider
) -> None:
    standin.script += [Status(500, "boom")]
    server = provider_server(standin, use="always", max_retries=0)
    async with connect(era, ScriptedHost(), server=server) as client:
        result = await client.call_tool("chat_complete", HELLO)
    assert result.is_error
    (round_,) = observed.rounds()
    assert (round_.attributes or {})["error.type"] == "provider_error"
    assert round_.status.status_code.name == "ERROR"
    (duration,) = observed.points("gen_ai.client.operation.duration")
    assert duration.attributes["error.type"] == "provider_error"
    (refused,) = observed.points("agent_as_model.refusals")
    assert refused.attributes["agent_as_model.refusal.reason"] == "host_violation"


async def test_a_host_that_declines_fails_its_round(observed: Observed) -> None:
    # Legacy only: on 2026-07-28 a host that will not answer an embedded request has no retry to
    # say so with (the SDK's client raises instead of retrying), so no request of ours sees it.
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"))
    async with connect("legacy", host) as client:
        result = await client.call_tool("chat_complete", HELLO)
    assert result.is_error
    (round_,) = observed.rounds()
    assert (round_.attributes or {})["error.type"] == "host_declined"
    assert round_.status.status_code.name == "ERROR"
    (sent,) = observed.spans("MCP send sampling/createMessage")
    assert observed.parent_of(sent) is round_
    (duration,) = observed.points("gen_ai.client.operation.duration")
    assert dict(duration.attributes) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "mcp.host",
        "gen_ai.request.model": "agent-default",
        "error.type": "host_declined",
    }
    (tool,) = observed.tool_spans()
    assert (tool.attributes or {})["agent_as_model.refusal.reason"] == "host_violation"
    assert (tool.attributes or {})["agent_as_model.route"] == "host:sampling"


async def test_a_host_that_never_answers_and_a_withdrawn_call_fail_their_rounds(observed: Observed) -> None:
    # Legacy only: a 2026-07-28 request never waits for the host (its round returns at once).
    server = build_server(limits=Limits(host_timeout=0.5))
    async with connect("legacy", SilentHost(), server=server) as client:  # type: ignore[arg-type]
        timed_out = await client.call_tool("generate", {"prompt": "q"})
    assert timed_out.is_error
    host = SilentHost()
    async with connect("legacy", host) as client:  # type: ignore[arg-type]
        with anyio.move_on_after(0.5):  # the client withdraws the call (notifications/cancelled)
            await client.call_tool("generate", {"prompt": "q"})
        with anyio.fail_after(30):  # a guard against a hang, not a budget
            await host.cancelled.wait()
            while len(observed.rounds()) < 2:
                await anyio.sleep(0.01)
    assert [(r.attributes or {})["error.type"] for r in observed.rounds()] == ["host_declined", "cancelled"]
    assert all(r.status.status_code.name == "ERROR" for r in observed.rounds())
    (calls,) = observed.points("agent_as_model.calls.in_flight")
    assert calls.value == 0  # the withdrawn call was counted out too


def _stopped(text: str, reason: str) -> Any:
    return text_answer(text).model_copy(update={"stop_reason": reason})


async def test_several_completions_are_a_round_each(era: str, observed: Observed) -> None:
    host = ScriptedHost(_stopped("One.", "endTurn"), _stopped("Two", "maxTokens"))
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", {**HELLO, "n": 2, "result": "object"})
    assert not result.is_error, result.content[0].text
    rounds = observed.rounds()
    assert len(rounds) == 2
    tools = observed.tool_spans()
    assert {observed.parent_of(r).context.span_id for r in rounds} == {tools[0].context.span_id}
    tool = tools[-1].attributes or {}
    assert tool["gen_ai.request.choice.count"] == 2
    assert tool["agent_as_model.route"] == ("host:sampling" if era == "legacy" else "host:2026-07-28")
    assert tool["agent_as_model.backend"] == "host"
    if era == "legacy":
        assert sorted(r.attributes["gen_ai.response.finish_reasons"][0] for r in rounds) == [  # type: ignore[index]
            "endTurn",
            "maxTokens",
        ]
        (duration,) = observed.points("gen_ai.client.operation.duration")
        assert duration.count == 2
    else:  # both rounds asked in one InputRequiredResult; the retry's span says what each answered
        assert all((r.attributes or {})["agent_as_model.round.suspended"] for r in rounds)
        assert len(tools) == 2
        assert sorted(tool["gen_ai.response.finish_reasons"]) == ["endTurn", "maxTokens"]  # type: ignore[arg-type]
        assert tool["gen_ai.response.model"] == "scripted-model"
        assert tool["agent_as_model.answered_round"] == 0


async def test_a_call_whose_completions_fail_is_one_refusal(era: str, observed: Observed) -> None:
    host = ScriptedHost('{"name": "Ada"}')  # every completion's answer breaks the schema
    arguments = {**with_schema("chat_complete"), "repair_attempts": 0, "n": 3, "result": "object"}
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", arguments)
    assert result.is_error
    (refused,) = observed.points("agent_as_model.refusals")
    assert refused.value == 1  # one call, though three completions failed
    assert refused.attributes["agent_as_model.refusal.reason"] == "host_violation"
    tool = observed.tool_spans()[-1].attributes or {}
    assert tool["agent_as_model.refusal.reason"] == "host_violation"
    assert tool["agent_as_model.refusal.path"] == "output_schema"  # where the completions failed


async def test_a_fallback_is_an_event_and_a_count(observed: Observed, standin: StandInProvider) -> None:
    standin.script += [openai_reply("From the provider.")]
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"))
    server = provider_server(standin, on_host_error=True)
    async with connect("legacy", host, server=server) as client:
        result = await client.call_tool("chat_complete", HELLO)
    assert not result.is_error, result.content[0].text
    (round_,) = observed.rounds()
    assert [e.name for e in round_.events] == ["agent_as_model.fallback"]
    assert (round_.attributes or {})["gen_ai.provider.name"] == "openai"  # who answered in the end
    (fallback,) = observed.points("agent_as_model.fallbacks")
    assert fallback.value == 1 and fallback.attributes["agent_as_model.fallback.to"] == "openai"


@pytest.mark.parametrize("observed", ["redacted", "full"], indirect=True)
async def test_message_content_is_recorded_only_as_opted_in(observed: Observed) -> None:
    capture = "full" if observed is not None and _capture() == "full" else "redacted"
    async with connect("legacy", ScriptedHost("Hello there.")) as client:
        await client.call_tool("chat_complete", HELLO)
    (round_,) = observed.rounds()
    attributes = round_.attributes or {}
    inputs = json.loads(attributes["gen_ai.input.messages"])
    system = json.loads(attributes["gen_ai.system_instructions"])
    outputs = json.loads(attributes["gen_ai.output.messages"])
    assert inputs[0]["role"] == "user" and inputs[0]["parts"][0]["type"] == "text"
    said, instructed, answered = (
        inputs[0]["parts"][0]["content"],
        system[0]["content"],
        outputs[0]["parts"][0]["content"],
    )
    if capture == "full":
        assert (said, instructed, answered) == ("Say hello.", "Be brief.", "Hello there.")
    else:  # as --redact writes a recording: same-length placeholders
        for text, original in ((said, "Say hello."), (instructed, "Be brief."), (answered, "Hello there.")):
            assert text.startswith("#") and len(text) == len(original) and text != original


def _capture() -> str:
    from agent_as_model import telemetry

    watch = telemetry.WATCH
    assert watch is not None and watch.content is not None
    return watch.content.capture


async def test_a_cursor_chain_is_the_conversation(era: str, observed: Observed) -> None:
    async with connect(era, ScriptedHost("Hi.", "Fine.")) as client:
        first = await client.call_tool("chat_complete", {**HELLO, "previous_response_id": ""})
        cursor = json.loads(first.content[0].text)["response_id"]
        turns = [
            *HELLO["messages"],
            {"role": "assistant", "content": "Hi."},
            {"role": "user", "content": "And?"},
        ]
        second = await client.call_tool("chat_complete", {"messages": turns, "previous_response_id": cursor})
    assert not second.is_error, second.content[0].text
    assert cursor.startswith("cur_")
    ids = [(t.attributes or {}).get("gen_ai.response.id") for t in observed.tool_spans()]
    assert ids[-1] != cursor and cursor in ids  # each call's span names the cursor its result carries
    first_round, second_round = observed.rounds()
    assert "gen_ai.conversation.id" not in (first_round.attributes or {})  # "" starts a chain
    assert (second_round.attributes or {})["gen_ai.conversation.id"] == cursor


async def test_store_operations_are_counted(era: str, observed: Observed, tmp_path: Any) -> None:
    from agent_as_model.adapters.store import StoreSettings
    from agent_as_model.server import open_store

    store = open_store(StoreSettings(url=f"sqlite:{tmp_path / 'store.db'}"))
    try:
        server = build_server(store=store)
        async with connect(era, ScriptedHost("One."), server=server) as client:
            first = await client.call_tool("responses_create", {"input": "Count to one."})
            ident = json.loads(first.content[0].text)["id"]
            await client.call_tool("responses_create", {"input": "Go on.", "previous_response_id": ident})
    finally:
        await store.aclose()
    counted = {
        p.attributes["agent_as_model.store.operation"]: p.value
        for p in observed.points("agent_as_model.store.operations")
    }
    assert counted == {"write": 2, "read": 1}
    assert (observed.rounds()[-1].attributes or {})["gen_ai.conversation.id"] == ident
    assert ident in [(t.attributes or {}).get("gen_ai.response.id") for t in observed.tool_spans()]


async def test_a_store_that_cannot_be_reached_is_counted_with_its_error(era: str, observed: Observed) -> None:
    pytest.importorskip("redis", reason="the [redis] extra is not installed")
    from agent_as_model.adapters.store import StoreSettings
    from agent_as_model.server import open_store
    from tests.http_servers import free_port

    store = open_store(StoreSettings(url=f"redis://127.0.0.1:{free_port()}/0"))  # nothing listens
    try:
        async with connect(era, ScriptedHost("unused"), server=build_server(store=store)) as client:
            result = await client.call_tool(
                "responses_create", {"input": "q", "previous_response_id": "resp_" + "3" * 32}
            )
    finally:
        await store.aclose()
    assert result.is_error
    (point,) = observed.points("agent_as_model.store.operations")
    assert dict(point.attributes) == {
        "agent_as_model.store.operation": "read",
        "error.type": "StoreUnavailable",
    }
    assert point.value == 1


def test_a_test_that_stopped_watching_leaves_the_servers_after_it_reporting_nothing() -> None:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    from agent_as_model import telemetry
    from tests.telemetry_helpers import _process_tracer_provider

    _process_tracer_provider()
    telemetry.unwatch()
    assert isinstance(trace.get_tracer_provider(), TracerProvider)  # the process has an SDK ...
    build_server()
    assert telemetry.WATCH is None  # ... and a server built now reports nothing to it


async def test_a_continued_calls_state_it_cannot_open_is_a_refusal(observed: Observed, tmp_path: Any) -> None:
    """A retry whose sealed state holds this server's envelope for a continued stored call, but a
    malformed one, is refused by the table's way out: the tool span and the refusals metric see
    it as every refusal. Only 2026-07-28 has a requestState (legacy never reaches it)."""
    from mcp.server.request_state import RequestStateSecurity

    from agent_as_model.adapters.store import StoreSettings
    from agent_as_model.server import open_store
    from tests.test_eras import MODERN, ForeignStateCodec

    malformed = json.dumps({"kind": "agent-as-model/kept", "v": 2}, separators=(",", ":"))
    store = open_store(StoreSettings(url=f"sqlite:{tmp_path / 'store.db'}"))
    try:
        codec = ForeignStateCodec(lambda state: malformed)
        server = build_server(store=store, security=RequestStateSecurity(codec=codec))
        async with connect(MODERN, ScriptedHost(), server=server) as client:
            arguments = {"input": "q"}
            first = await client.session.call_tool("responses_create", arguments, allow_input_required=True)
            assert first.request_state is not None
            result = await client.session.call_tool(
                "responses_create",
                arguments,
                input_responses={"completion": text_answer("unused")},
                request_state=first.request_state,
                allow_input_required=True,
            )
    finally:
        await store.aclose()
    assert result.is_error
    assert result.content[0].text == (
        "responses_create: requestState: this server's state for a continued stored call is malformed. "
        "The host's answer (inputResponses) was not used: call the tool again without requestState."
    )
    tool = observed.tool_spans()[-1].attributes or {}
    assert tool["agent_as_model.refusal.reason"] == "invalid_request"
    assert tool["agent_as_model.refusal.path"] == "requestState"
    (refused,) = observed.points("agent_as_model.refusals")
    assert refused.value == 1
    assert dict(refused.attributes) == {
        "gen_ai.tool.name": "responses_create",
        "agent_as_model.refusal.reason": "invalid_request",
    }
