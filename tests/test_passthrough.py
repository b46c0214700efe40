"""Same-product pass-through: when the provider that answers speaks the call's own product (Chat
Completions and Responses to an OpenAI-compatible provider, Messages to Anthropic), the body
reaches it as the SDK wrote it, with every parameter, and the provider's own object comes back
unchanged (its `_meta` aside); the warnings of parameters sent to the host as hints are not
given, since the provider got them. Cross-product calls still go through the neutral
conversation, and calls that lean on the server's own features (a cursor, `n`, an output
contract, a persona) too. The corpus of SDK-built bodies (tests/corpus/) on stand-in providers
reached through the official SDKs, on both eras, and once over stdio."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from agent_as_model.adapters.dialects import extensions
from agent_as_model.adapters.dialects.options import HOST_ONLY_REFUSALS
from agent_as_model.adapters.dialects.products import chat, messages, responses
from agent_as_model.adapters.dialects.products.gemini import DIALECT as GEMINI
from agent_as_model.commands.standin_provider import (
    StandInProvider,
    anthropic_reply,
    openai_reply,
    responses_reply,
)
from agent_as_model.neutral import SERVER_KEYS
from agent_as_model.server import build_server
from tests.corpus.entries import ENTRIES
from tests.gateway_harness import config_text, gateway_of, meta_of, providers, write_config
from tests.helpers import server_params
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio
__all__ = ["providers"]  # the fixture

# Each product's tool, the stand-in that speaks it and the model its route sends there.
PRODUCTS = {
    "chat_complete": ("a", "gpt-4.1"),
    "responses_create": ("a", "gpt-4.1"),
    "messages_create": ("b", "claude-sonnet-4-5"),
}


def _wants_json(body: dict[str, Any]) -> bool:
    """The body asks for JSON in its product's own words (the API then answers in that format)."""
    formats = (
        body.get("response_format"),
        (body.get("text") or {}).get("format"),
        (body.get("output_config") or {}).get("format"),
    )
    return any(isinstance(f, dict) and str(f.get("type", "")).startswith("json") for f in formats)


def _reply(tool: str, model: str, body: dict[str, Any]) -> dict[str, Any]:
    """The provider's answer: a call of the first tool when the body asks for one (as the real
    API would make), an object of the format's schema when it asks for JSON, else a text."""
    choice = body.get("tool_choice")
    wants_call = (
        body.get("tools")
        and choice not in (None, "auto", "none")
        and (not isinstance(choice, dict) or choice.get("type") != "auto")
    )
    answer = '{"city": "Oslo"}' if _wants_json(body) else "passed"
    if tool == "chat_complete":
        if wants_call:
            name = body["tools"][0]["function"]["name"]
            return openai_reply(None, tool_calls=[("call_1", name, '{"city": "Oslo"}')], model=model)
        return openai_reply(answer, model=model)
    if tool == "responses_create":
        if wants_call:
            return responses_reply(
                None, calls=[("call_1", body["tools"][0]["name"], '{"city": "Oslo"}')], model=model
            )
        return responses_reply(answer, model=model)
    if wants_call:
        return anthropic_reply(
            None, tool_uses=[("toolu_1", body["tools"][0]["name"], {"city": "Oslo"})], model=model
        )
    return anthropic_reply(answer, model=model)


# What sends a call through the neutral conversation even to a provider that speaks its product:
# the server's own output contract, repairs and persona.
NEUTRAL_KEYS = ("output_schema", "repair_attempts", "persona")


# Each product's models to the provider that speaks it alone: a product's own output format passes
# through only when every backend of the route takes the body as written.
OWN_ROUTES = '[routes]\n"gpt-*" = ["a"]\n"claude-*" = ["b"]\n'


def _server(tmp_path: Path, stand_ins: dict[str, StandInProvider], routes: str = OWN_ROUTES) -> object:
    return build_server(gateway=gateway_of(write_config(tmp_path, config_text(stand_ins, routes=routes))))


def _passes(tool: str, body: dict[str, Any]) -> bool:
    """Chat's `previous_response_id` is the server's cursor; Responses' `resp_` ids are its API's."""
    previous = body.get("previous_response_id")
    cursor = previous is not None and (tool != "responses_create" or not str(previous).startswith("resp_"))
    neutral = any(key in body for key in NEUTRAL_KEYS) or (body.get("n") or 1) != 1 or cursor
    return not neutral


def test_the_server_keys_are_the_shared_keys_of_every_product() -> None:
    for dialect in (chat.DIALECT, messages.DIALECT, responses.DIALECT, GEMINI):
        assert set(extensions.properties(dialect)) <= SERVER_KEYS
    assert set(extensions.properties(chat.DIALECT)) == SERVER_KEYS


async def test_every_corpus_body_reaches_its_own_product_unchanged(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    # Those whose parameters the server serves itself (an output contract, `n`, a stored
    # response) are left to the test below; a refusal that says the host cannot is not made.
    entries = [
        e
        for e in ENTRIES
        if e.tool in PRODUCTS and (e.expect != "refused" or e.named[0] in HOST_ONLY_REFUSALS)
    ]
    refusals = sum(e.expect == "refused" for e in entries)
    assert refusals >= 3  # the corpus's refusals that hold for the host only pass through too
    passed = 0
    async with connect(era, server=_server(tmp_path, providers)) as client:
        for entry in entries:
            name, model = PRODUCTS[entry.tool]
            stand_in = providers[name]
            body = {**entry.body(), "model": model}
            if not _passes(entry.tool, body):
                continue
            reply = _reply(entry.tool, model, body)
            stand_in.script.append(reply)
            before = len(stand_in.seen)
            result = await client.call_tool(entry.tool, {**body, "result": "object"})
            assert not result.is_error, (entry.name, result.content[0].text)
            meta = meta_of(result)
            passed += 1
            assert meta["passed_through"] is True, entry.name
            assert len(stand_in.seen) == before + 1, entry.name
            # Every parameter as the SDK wrote it; nothing of the server's own.
            kept = ("model", "previous_response_id")  # a Responses resp_ id is its API's own (above)
            own = {key: value for key, value in body.items() if key not in SERVER_KEYS or key in kept}
            assert stand_in.seen[-1].body == own, entry.name
            assert result.structured_content == reply, entry.name
            # No parameter is named as not enforced: the provider got them all. (A server without
            # a store still says it kept nothing of a `store: true` call.)
            if not body.get("store"):
                assert "warnings" not in meta, (entry.name, meta.get("warnings"))
    assert passed >= 20  # most of the corpus's bodies of these products pass through


async def test_cross_product_and_server_features_go_through_the_neutral_conversation(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    ask = [{"role": "user", "content": "hello"}]
    async with connect(era, server=_server(tmp_path, providers)) as client:
        # Messages to the OpenAI-compatible provider: a Chat Completions body, the neutral one.
        across = await client.call_tool(
            "messages_create", {"messages": ask, "model": "gpt-4.1", "max_tokens": 20, "top_k": 5}
        )
        # `n`: the server fans the completions out, each its own request.
        fanned = await client.call_tool(
            "chat_complete", {"messages": ask, "model": "gpt-4.1", "n": 2, "result": "object"}
        )
    assert not across.is_error, across.content[0].text
    assert "passed_through" not in meta_of(across)
    assert across.content[0].text == "stand-in answer to: hello"
    sent = providers["a"].seen[0].body
    assert sent["messages"] == [{"role": "user", "content": "hello"}] and "top_k" not in sent
    assert any("top_k" in warning for warning in meta_of(across)["warnings"])
    assert not fanned.is_error and "passed_through" not in meta_of(fanned)
    assert [seen.body.get("n") for seen in providers["a"].seen[1:]] == [None, None]


@pytest.mark.stdio
async def test_passes_through_over_stdio(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    config = write_config(tmp_path, config_text(providers))
    body = {
        "messages": [{"role": "user", "content": "hi"}],
        "model": "gpt-4.1",
        "seed": 7,
        "top_p": 0.5,
        "logit_bias": {"50256": -100},
        "user": "u-1",
    }
    reply = openai_reply("passed", model="gpt-4.1")
    providers["a"].script.append(reply)
    async with Client(
        server_params("serve", "--config", str(config), env=dict(os.environ)), mode=era
    ) as client:
        result = await client.call_tool("chat_complete", {**body, "result": "object"})
    assert not result.is_error, result.content[0].text
    assert providers["a"].seen[-1].body == body
    assert result.structured_content == reply
    assert meta_of(result)["passed_through"] is True and "warnings" not in meta_of(result)


async def test_a_host_only_refusal_applies_only_when_the_host_answers(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    body = {"messages": [{"role": "user", "content": "hi"}], "logprobs": True, "top_logprobs": 2}
    body_messages = {"messages": [{"role": "user", "content": "hi"}]}
    routes = '[routes]\n"agent-default" = ["host", "a"]\n"gpt-*" = ["a"]\n"claude-*" = ["b"]\n'
    config = write_config(tmp_path, config_text(providers, routes=routes))
    host = ScriptedHost("from the host")
    async with connect(era, host, server=build_server(gateway=gateway_of(config))) as client:
        to_provider = await client.call_tool("chat_complete", {**body, "model": "gpt-4.1"})
        # The route's host is passed over, saying why; the provider behind it takes the body.
        routed = await client.call_tool("chat_complete", body)
        to_host = await client.call_tool("chat_complete", {**body, "model": "gpt-4.1", "backend": "host"})
        # Messages to the OpenAI-compatible provider, which does not speak it: refused as before.
        mcp_servers = [{"type": "url", "url": "https://example.invalid/mcp", "name": "x"}]
        across = await client.call_tool(
            "messages_create",
            {**body_messages, "model": "gpt-4.1", "max_tokens": 20, "mcp_servers": mcp_servers},
        )
    assert not to_provider.is_error, to_provider.content[0].text
    assert meta_of(to_provider)["passed_through"] is True
    assert providers["a"].seen[0].body == {**body, "model": "gpt-4.1"}
    assert not routed.is_error, routed.content[0].text
    assert meta_of(routed)["passed_over"] == [
        {
            "backend": "host",
            "why": "logprobs: log probabilities cannot be produced: the host returns text only",
        }
    ]
    assert providers["a"].seen[1].body == {**body, "model": "a-default"}
    assert to_host.is_error
    assert "logprobs: log probabilities cannot be produced" in to_host.content[0].text
    assert host.seen == []  # nothing was sent to the host
    assert across.is_error
    assert "mcp_servers: remote MCP servers cannot be honoured" in across.content[0].text
    assert len(providers["a"].seen) == 2  # nothing more was sent
