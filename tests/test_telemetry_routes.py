"""Telemetry of named providers and routes (docs/telemetry.md): a round's `gen_ai.provider.name` is
the registered name of the provider's API (`openai`, `anthropic`, `gcp.gemini`) whatever the
operator named it, the configured name in `agent_as_model.backend`; the round carries the
provider's own response id; every provider's request (OpenAI-compatible, Anthropic, Gemini)
carries the round's `traceparent`, a body passed through to its own product's provider too; and a
route falling from one provider to the next is an event and a count naming both. Three stand-in
providers through their SDKs, through the real SDK `Client` on both eras, spans and metrics read
in memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_as_model.commands.standin_provider import StandInProvider, Status
from agent_as_model.server import build_server
from tests.gateway_harness import config_text, gateway_of, meta_of, providers, write_config
from tests.scripted_host import ScriptedHost, connect
from tests.telemetry_helpers import Observed

pytestmark = pytest.mark.anyio
__all__ = ["providers"]  # the fixture


def server(tmp_path: Path, stand_ins: dict[str, StandInProvider]) -> object:
    return build_server(gateway=gateway_of(write_config(tmp_path, config_text(stand_ins))))


@pytest.mark.parametrize(
    ("model", "stand_in", "registered", "response_id"),
    [
        ("a-one", "a", "openai", "chatcmpl-standin"),
        ("claude-x", "b", "anthropic", "msg_standin"),
        ("gemini-2.5-flash", "g", "gcp.gemini", "standin-response"),
    ],
    ids=["openai", "anthropic", "gemini"],
)
async def test_a_named_providers_round_names_its_api_its_backend_its_id_and_carries_its_trace(
    era: str,
    observed: Observed,
    tmp_path: Path,
    providers: dict[str, StandInProvider],
    model: str,
    stand_in: str,
    registered: str,
    response_id: str,
) -> None:
    async with connect(era, ScriptedHost("never asked"), server=server(tmp_path, providers)) as client:
        result = await client.call_tool("generate", {"prompt": "q", "model": model})
    assert not result.is_error, result.content[0].text
    assert meta_of(result)["backend"] == f"provider:{stand_in}/{model}"
    (round_,) = observed.rounds()
    attributes = round_.attributes or {}
    assert attributes["gen_ai.provider.name"] == registered  # never the configured name
    assert attributes["agent_as_model.backend"] == f"provider:{stand_in}/{model}"
    assert attributes["gen_ai.response.id"] == response_id
    (seen,) = providers[stand_in].seen
    headers = {k.lower(): v for k, v in seen.headers.items()}
    _, trace_id, span_id, _ = headers["traceparent"].split("-")
    assert trace_id == f"{round_.context.trace_id:032x}"
    # The round's context, or that of the SDK's own span of the request under it (the Anthropic
    # SDK opens one when OpenTelemetry is configured).
    carried = [s for s in observed.spans() if f"{s.context.span_id:016x}" == span_id]
    assert carried == [round_] or observed.parent_of(carried[0]) == round_, carried
    tokens = observed.points("gen_ai.client.token.usage")
    assert tokens and all(p.attributes["gen_ai.provider.name"] == registered for p in tokens)


@pytest.mark.parametrize(
    ("tool", "arguments", "stand_in"),
    [
        ("chat_complete", {"messages": [{"role": "user", "content": "q"}], "model": "a-one"}, "a"),
        ("responses_create", {"input": "q", "model": "a-one"}, "a"),
        (
            "messages_create",
            {"messages": [{"role": "user", "content": "q"}], "model": "claude-x", "max_tokens": 9},
            "b",
        ),
        (
            "gemini_generate_content",
            {"contents": [{"role": "user", "parts": [{"text": "q"}]}], "model": "gemini-2.5-flash"},
            "g",
        ),
    ],
    ids=["chat", "responses", "messages", "gemini"],
)
async def test_a_body_passed_through_carries_the_rounds_trace_too(
    era: str,
    observed: Observed,
    tmp_path: Path,
    providers: dict[str, StandInProvider],
    tool: str,
    arguments: dict[str, object],
    stand_in: str,
) -> None:
    async with connect(era, ScriptedHost("never asked"), server=server(tmp_path, providers)) as client:
        result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    assert meta_of(result)["passed_through"] is True
    (round_,) = observed.rounds()
    (seen,) = providers[stand_in].seen
    assert "extra_headers" not in seen.body  # the trace goes as a header, not in the body
    _, trace_id, span_id, _ = seen.headers["traceparent"].split("-")
    assert trace_id == f"{round_.context.trace_id:032x}"
    carried = [s for s in observed.spans() if f"{s.context.span_id:016x}" == span_id]
    assert carried == [round_] or observed.parent_of(carried[0]) == round_, carried


async def test_a_route_falling_from_one_provider_to_the_next_is_an_event_and_a_count(
    era: str, observed: Observed, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    providers["a"].script.append(Status(500, "boom"))  # `fast` is a/a-fast, then b/claude-fast
    async with connect(era, ScriptedHost("never asked"), server=server(tmp_path, providers)) as client:
        result = await client.call_tool("generate", {"prompt": "q", "model": "fast"})
    assert not result.is_error, result.content[0].text
    assert meta_of(result)["backend"] == "provider:b/claude-fast"
    (round_,) = observed.rounds()
    (event,) = [e for e in round_.events if e.name == "agent_as_model.fallback"]
    assert dict(event.attributes or {}) == {
        "agent_as_model.fallback.from": "a",
        "agent_as_model.fallback.to": "b",
    }
    assert (round_.attributes or {})["gen_ai.provider.name"] == "anthropic"  # who answered in the end
    (fallback,) = observed.points("agent_as_model.fallbacks")
    assert fallback.value == 1
    assert dict(fallback.attributes) == {
        "agent_as_model.fallback.from": "a",
        "agent_as_model.fallback.to": "b",
    }
