"""Same-product pass-through: when the provider that answers speaks the call's own product (Chat
Completions and Responses to an OpenAI-compatible provider, Messages to Anthropic,
generateContent to Gemini), the body reaches it as the SDK wrote it, with every parameter, and the
provider's own object comes back unchanged (its `_meta` aside); the warnings of parameters sent to
the host as hints are not given, since the provider got them. Cross-product calls still go through
the neutral conversation, and calls that lean on the server's own features (a cursor, `n`, an
output contract, a persona) too, and every call to a provider configured with `pass-through =
false`. The corpus of SDK-built bodies (tests/corpus/) on stand-in providers reached through the
official SDKs, on both eras, once over stdio and once over HTTP with the installed command."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from agent_as_model.adapters.dialects import extensions
from agent_as_model.adapters.dialects.options import HOST_ONLY_REFUSALS, HostOnly
from agent_as_model.adapters.dialects.products import chat, messages, responses
from agent_as_model.adapters.dialects.products.gemini import DIALECT as GEMINI
from agent_as_model.commands.standin_provider import (
    StandInProvider,
    Status,
    anthropic_reply,
    gemini_reply,
    openai_reply,
    responses_reply,
)
from agent_as_model.neutral import SERVER_KEYS
from agent_as_model.server import build_server
from tests import http_servers
from tests.corpus.entries import ENTRIES
from tests.gateway_harness import (
    OWN_ROUTES,
    config_text,
    gateway_of,
    meta_of,
    providers,
    sent_as_written,
    write_config,
)
from tests.helpers import server_params
from tests.http_servers import http_client
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio
__all__ = ["providers"]  # the fixture

# Each product's tool, the stand-in that speaks it and the model its route sends there.
PRODUCTS = {
    "chat_complete": ("a", "gpt-4.1"),
    "responses_create": ("a", "gpt-4.1"),
    "messages_create": ("b", "claude-sonnet-4-5"),
    "gemini_generate_content": ("g", "gemini-2.5-flash"),
}


def _wants_json(body: dict[str, Any]) -> bool:
    """The body asks for JSON in its product's own words (the API then answers in that format)."""
    formats = (
        body.get("response_format"),
        (body.get("text") or {}).get("format"),
        (body.get("output_config") or {}).get("format"),
    )
    config = body.get("generationConfig") or {}
    gemini = config.get("responseMimeType") == "application/json" or "responseJsonSchema" in config
    return gemini or any(isinstance(f, dict) and str(f.get("type", "")).startswith("json") for f in formats)


def _reply(tool: str, model: str, body: dict[str, Any]) -> dict[str, Any]:
    """The provider's answer: a call of the first tool when the body asks for one (as the real
    API would make), an object of the format's schema when it asks for JSON, else a text."""
    answer = '{"city": "Oslo"}' if _wants_json(body) else "passed"
    if tool == "gemini_generate_content":
        calling = (body.get("toolConfig") or {}).get("functionCallingConfig") or {}
        if body.get("tools") and calling.get("mode") == "ANY":
            name = body["tools"][0]["functionDeclarations"][0]["name"]
            return gemini_reply(None, calls=[(name, {"city": "Oslo"})], model=model)
        return gemini_reply(answer, model=model)
    choice = body.get("tool_choice")
    wants_call = (
        body.get("tools")
        and choice not in (None, "auto", "none")
        and (not isinstance(choice, dict) or choice.get("type") != "auto")
    )
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


# A generateContent body with what the Gemini API takes beside the conversation, in the REST
# spelling the SDK writes (the model goes in the path).
GEMINI_BODY: dict[str, Any] = {
    "contents": [{"role": "user", "parts": [{"text": "Weather in Oslo?"}]}],
    "systemInstruction": {"parts": [{"text": "Be brief."}]},
    "generationConfig": {"temperature": 0.3, "topK": 20, "seed": 7, "maxOutputTokens": 64},
    "safetySettings": [{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}],
    "labels": {"team": "a"},
}


# What sends a call through the neutral conversation even to a provider that speaks its product:
# the server's own output contract, repairs and persona.
NEUTRAL_KEYS = ("output_schema", "repair_attempts", "persona")


def _server(tmp_path: Path, stand_ins: dict[str, StandInProvider], routes: str = OWN_ROUTES) -> object:
    return build_server(gateway=gateway_of(write_config(tmp_path, config_text(stand_ins, routes=routes))))


DIALECTS = {dialect.NAME: dialect for dialect in (chat.DIALECT, messages.DIALECT, responses.DIALECT, GEMINI)}


def _host_only(tool: str, name: str) -> bool:
    """Whether the refusal of top-level parameter `name` holds for the host only: a shared one, or
    the dialect's own marked so."""
    return name in HOST_ONLY_REFUSALS or isinstance(DIALECTS[tool].body.refused.get(name), HostOnly)


def _passes(tool: str, body: dict[str, Any]) -> bool:
    """Chat's `previous_response_id` is the server's cursor; Responses' `resp_` ids are its API's.
    Gemini's `candidateCount` is its `n`: the server fans the completions out."""
    previous = body.get("previous_response_id")
    cursor = previous is not None and (tool != "responses_create" or not str(previous).startswith("resp_"))
    config = body.get("generationConfig") or {}
    neutral = (
        any(key in body for key in NEUTRAL_KEYS)
        or (body.get("n") or 1) != 1
        or (config.get("candidateCount") or 1) != 1
        or cursor
    )
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
        e for e in ENTRIES if e.tool in PRODUCTS and (e.expect != "refused" or _host_only(e.tool, e.named[0]))
    ]
    refusals = [e.tool for e in entries if e.expect == "refused"]
    # The corpus's refusals that hold for the host only pass through too, Gemini's own among them.
    assert len(refusals) >= 5 and refusals.count("gemini_generate_content") >= 2, refusals
    passed = 0
    per_product = dict.fromkeys(PRODUCTS, 0)
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
            sent_as_written(stand_in.seen[-1], entry.tool, body)
            assert result.structured_content == reply, entry.name
            per_product[entry.tool] += 1
            # No parameter is named as not enforced: the provider got them all. (A server without
            # a store still says it kept nothing of a `store: true` call.)
            if not body.get("store"):
                assert "warnings" not in meta, (entry.name, meta.get("warnings"))
    assert passed >= 30  # most of the corpus's bodies of these products pass through
    assert min(per_product.values()) >= 5, per_product  # of each product


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
        # generateContent to the OpenAI-compatible provider: a Chat Completions body too.
        gemini_across = await client.call_tool(
            "gemini_generate_content",
            {
                "contents": [{"role": "user", "parts": [{"text": "hi there"}]}],
                "model": "gpt-4.1",
                "generationConfig": {"maxOutputTokens": 30, "topK": 4},
            },
        )
    assert not across.is_error, across.content[0].text
    assert "passed_through" not in meta_of(across)
    assert across.content[0].text == "stand-in answer to: hello"
    sent = providers["a"].seen[0].body
    assert sent["messages"] == [{"role": "user", "content": "hello"}] and "top_k" not in sent
    assert any("top_k" in warning for warning in meta_of(across)["warnings"])
    assert not fanned.is_error and "passed_through" not in meta_of(fanned)
    assert [seen.body.get("n") for seen in providers["a"].seen[1:3]] == [None, None]
    assert not gemini_across.is_error, gemini_across.content[0].text
    assert "passed_through" not in meta_of(gemini_across)
    sent = providers["a"].seen[3]
    assert sent.path == "/v1/chat/completions"
    assert sent.body["messages"] == [{"role": "user", "content": "hi there"}]
    assert sent.body["max_completion_tokens"] == 30 and "generationConfig" not in sent.body
    # The neutral path renders its own GenerateContentResponse from the provider's text.
    parts = gemini_across.structured_content["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "stand-in answer to: hi there"}]
    assert any("topK" in warning for warning in meta_of(gemini_across)["warnings"])
    assert providers["g"].seen == []


async def test_a_provider_configured_without_pass_through_gets_the_neutral_conversation(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    text = config_text(providers)
    for kind in ("openai", "gemini"):
        text = text.replace(f'kind = "{kind}"', f'kind = "{kind}"\npass-through = false')
    chat_body = {"messages": [{"role": "user", "content": "hi"}], "model": "gpt-4.1", "seed": 7}
    gemini_body = {**GEMINI_BODY, "model": "gemini-2.5-flash"}
    server = build_server(gateway=gateway_of(write_config(tmp_path, text)))
    async with connect(era, server=server) as client:
        chat = await client.call_tool("chat_complete", {**chat_body, "result": "object"})
        gemini = await client.call_tool("gemini_generate_content", gemini_body)
        # A provider left as it was still takes its product's body as written.
        claude = await client.call_tool("messages_create", EACH_PRODUCT["messages_create"])
    for result in (chat, gemini, claude):
        assert not result.is_error, result.content[0].text
    assert "passed_through" not in meta_of(chat) and "passed_through" not in meta_of(gemini)
    assert meta_of(claude)["passed_through"] is True
    # The neutral conversation's Chat Completions body: no seed; the warning says it was not applied.
    sent = providers["a"].seen[0].body
    assert sent["messages"] == [{"role": "user", "content": "hi"}] and "seed" not in sent
    assert any("seed" in warning for warning in meta_of(chat)["warnings"])
    assert chat.structured_content["choices"][0]["message"]["content"] == "stand-in answer to: hi"
    # The neutral one's generateContent body, as the SDK writes it from the neutral payload.
    seen = providers["g"].seen[0]
    assert seen.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert seen.body != GEMINI_BODY and "labels" not in seen.body and "safetySettings" not in seen.body
    assert seen.body["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert "topK" not in seen.body["generationConfig"] and "seed" not in seen.body["generationConfig"]
    assert gemini.structured_content["responseId"] != "standin-response"  # the server's own object
    warned = " ".join(meta_of(gemini)["warnings"])
    assert all(name in warned for name in ("generationConfig.topK", "generationConfig.seed", "labels"))


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
    gemini_body = {**GEMINI_BODY, "model": "gemini-2.5-flash"}
    gemini_answer = gemini_reply("passed", model="gemini-2.5-flash-001")
    providers["g"].script.append(gemini_answer)
    async with Client(
        server_params("serve", "--config", str(config), env=dict(os.environ)), mode=era
    ) as client:
        result = await client.call_tool("chat_complete", {**body, "result": "object"})
        gemini = await client.call_tool("gemini_generate_content", gemini_body)
        as_text = await client.call_tool("gemini_generate_content", {**gemini_body, "result": "text"})
    assert not result.is_error, result.content[0].text
    assert providers["a"].seen[-1].body == body
    assert result.structured_content == reply
    assert meta_of(result)["passed_through"] is True and "warnings" not in meta_of(result)
    assert not gemini.is_error, gemini.content[0].text
    sent_as_written(providers["g"].seen[0], "gemini_generate_content", gemini_body)
    assert gemini.structured_content == gemini_answer
    assert meta_of(gemini)["passed_through"] is True and "warnings" not in meta_of(gemini)
    assert meta_of(gemini)["backend"] == "provider:g/gemini-2.5-flash"
    # Gemini's result is its object whatever `result` says, on the neutral path too: here the
    # provider's own (its echo: nothing scripted), as JSON text and as the structured content.
    assert not as_text.is_error, as_text.content[0].text
    assert json.loads(as_text.content[0].text) == as_text.structured_content
    parts = as_text.structured_content["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "stand-in answer to: Weather in Oslo?"}]
    assert meta_of(as_text)["passed_through"] is True and meta_of(as_text)["usage"] == "provider"
    assert providers["g"].seen[-1].body == GEMINI_BODY


# One body of each product, with parameters the neutral conversation has no place for.
EACH_PRODUCT = {
    "chat_complete": {
        "messages": [{"role": "user", "content": "hi"}],
        "model": "gpt-4.1",
        "seed": 7,
        "logit_bias": {"50256": -100},
        "result": "object",
    },
    "responses_create": {
        "input": "hi",
        "model": "gpt-4.1",
        "truncation": "auto",
        "metadata": {"k": "v"},
        "result": "object",
    },
    "messages_create": {
        "messages": [{"role": "user", "content": "hi"}],
        "model": "claude-sonnet-4-5",
        "max_tokens": 40,
        "top_k": 5,
        "metadata": {"user_id": "u-1"},
        "result": "object",
    },
    "gemini_generate_content": {**GEMINI_BODY, "model": "gemini-2.5-flash"},
}


@pytest.mark.stdio
@pytest.mark.parametrize("wire", ["stdio", "http"])
async def test_passes_each_product_through_over_the_wire(
    wire: str, era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    config = write_config(tmp_path, config_text(providers))
    replies = {}
    for tool, body in EACH_PRODUCT.items():
        name, model = PRODUCTS[tool]
        replies[tool] = _reply(tool, model, body)
        providers[name].script.append(replies[tool])
    if wire == "stdio":
        params = server_params("serve", "--config", str(config), env=dict(os.environ))
        async with Client(params, mode=era) as client:
            results = {tool: await client.call_tool(tool, body) for tool, body in EACH_PRODUCT.items()}
    else:
        token = "a-bearer-token-for-the-test-0123456789"
        with http_servers.running("--config", str(config), "--auth-token", token) as server:
            async with http_client(server.url, era, token=token) as client:
                results = {tool: await client.call_tool(tool, body) for tool, body in EACH_PRODUCT.items()}
    for tool, body in EACH_PRODUCT.items():
        result = results[tool]
        assert not result.is_error, (tool, result.content[0].text)
        assert result.structured_content == replies[tool], tool
        assert meta_of(result)["passed_through"] is True and "warnings" not in meta_of(result), tool
        # Each provider got its products' bodies, one request each, in the order they were called.
        name = PRODUCTS[tool][0]
        index = [t for t in EACH_PRODUCT if PRODUCTS[t][0] == name].index(tool)
        sent_as_written(providers[name].seen[index], tool, body)
    assert [len(providers[name].seen) for name in ("a", "b", "g")] == [2, 1, 1]


async def test_a_gemini_provider_failing_a_passed_body_is_read_as_any_failure(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    routes = '[routes]\n"gemini-*" = ["g", "b/claude-x"]\n'
    config = write_config(tmp_path, config_text(providers, routes=routes))
    providers["g"].script += [Status(503, "down for a moment"), Status(400, "no such field: fooBar")]
    body = {**GEMINI_BODY, "model": "gemini-2.5-flash"}
    async with connect(era, server=build_server(gateway=gateway_of(config))) as client:
        fell = await client.call_tool("gemini_generate_content", body)
        refused = await client.call_tool("gemini_generate_content", body)
    # A 503 passes the call on: to b, another product's provider, as the neutral conversation.
    assert not fell.is_error, fell.content[0].text
    assert meta_of(fell)["backend"] == "provider:b/claude-x" and "passed_through" not in meta_of(fell)
    assert meta_of(fell)["passed_over"] == [
        {
            "backend": "provider:g/gemini-2.5-flash",
            "why": "HTTP 503: the provider failed (a server error), still after the configured retries",
        }
    ]
    sent = providers["b"].seen[0].body
    assert sent["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Weather in Oslo?"}]}]
    assert sent["system"] == "Be brief." and "labels" not in sent and "top_k" not in sent
    # A 400 is the caller's: its status and the provider's words, and nothing more is asked.
    assert refused.is_error
    assert "HTTP 400" in refused.content[0].text and "no such field: fooBar" in refused.content[0].text
    assert [seen.body for seen in providers["g"].seen] == [GEMINI_BODY, GEMINI_BODY]
    assert len(providers["b"].seen) == 1


async def test_geminis_own_host_only_refusals_apply_only_when_the_host_answers(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "cachedContent": "cachedContents/1"}
    routes = '[routes]\n"agent-default" = ["host", "g/gemini-2.5-flash"]\n"gpt-*" = ["a"]\n'
    config = write_config(tmp_path, config_text(providers, routes=routes))
    host = ScriptedHost("from the host")
    async with connect(era, host, server=build_server(gateway=gateway_of(config))) as client:
        routed = await client.call_tool("gemini_generate_content", body)
        to_host = await client.call_tool("gemini_generate_content", {**body, "backend": "host"})
        # To the OpenAI-compatible provider, which does not speak generateContent: refused.
        across = await client.call_tool("gemini_generate_content", {**body, "model": "gpt-4.1"})
    assert not routed.is_error, routed.content[0].text
    assert meta_of(routed)["passed_through"] is True
    (passed,) = meta_of(routed)["passed_over"]
    assert passed["backend"] == "host" and passed["why"].startswith("cachedContent: cached contents live")
    assert [seen.body for seen in providers["g"].seen] == [body]
    for refused in (to_host, across):
        assert refused.is_error
        assert "cachedContent: cached contents live on Google's servers" in refused.content[0].text
    assert host.seen == [] and providers["a"].seen == []  # nothing was sent to either


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


async def test_a_responses_max_tokens_goes_under_the_apis_name(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    """The Responses tool takes the shared `max_tokens` (the server's alias of
    `max_output_tokens`, which the API and its SDK have no other name for); passed through, it
    goes under the API's own name, and the SDK's `create` is never handed a keyword it lacks."""
    reply = responses_reply("passed", model="gpt-4.1")
    providers["a"].script += [reply, reply]
    body = {"model": "gpt-4.1", "input": "hi"}
    async with connect(era, server=_server(tmp_path, providers)) as client:
        limited = await client.call_tool("responses_create", {**body, "max_tokens": 50})
        both = await client.call_tool("responses_create", {**body, "max_output_tokens": 50, "max_tokens": 50})
    for result in (limited, both):
        assert not result.is_error, result.content[0].text
        assert meta_of(result)["passed_through"] is True
    assert [seen.body for seen in providers["a"].seen] == [
        {**body, "max_output_tokens": 50},
        {**body, "max_output_tokens": 50},
    ]


async def test_a_host_only_refusal_while_the_provider_cools_down_says_so(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    """A body only a provider of its product can take, whose provider is cooling down: the call
    could be served, just not now, and the error says that rather than what the host cannot."""
    providers["a"].script.append(Status(503, "down"))
    routes = '[routes]\n"gpt-*" = ["a"]\n'
    text = config_text(providers, routes=routes, serve="cooldown-after = 1\ncooldown-for = 60")
    body = {"messages": [{"role": "user", "content": "hi"}], "model": "gpt-4.1", "logprobs": True}
    async with connect(era, server=build_server(gateway=gateway_of(write_config(tmp_path, text)))) as client:
        failed = await client.call_tool("chat_complete", body)
        cooling = await client.call_tool("chat_complete", body)
    assert failed.is_error and "HTTP 503" in failed.content[0].text
    assert cooling.is_error
    said = cooling.content[0].text
    assert "no backend of the route of 'gpt-4.1' can serve the call now" in said, said
    assert "provider:a/gpt-4.1: cooling down after failing, for " in said, said
    assert "log probabilities" not in said
    assert len(providers["a"].seen) == 1  # nothing more was sent
