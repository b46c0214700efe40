"""Tool definitions the product's own API runs on its side (Anthropic's server tools, OpenAI's
built-in and custom tools, Gemini's built-in tools) are refused for the host alone
(docs/decisions.md, "The conversation readers' refusals, sorted"). When the host answers the call
is refused as before, naming the definition, with nothing sent; a provider that speaks the call's
product takes the body as written and its object comes back; a provider of another product is
refused it with nothing sent; on a route whose host comes first, the host is passed over saying
why. A tool_choice naming such a tool hides nothing; a malformed definition stays an error
whoever answers; the kept readings of `tools` keep the refusals. Both eras, once over stdio."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from agent_as_model.adapters.dialects.products import messages
from agent_as_model.adapters.tools.definitions import forget_read, read_count, read_tools
from agent_as_model.commands.standin_provider import (
    StandInProvider,
    anthropic_reply,
    gemini_reply,
    openai_reply,
    responses_reply,
)
from agent_as_model.errors import CallError
from agent_as_model.server import build_server
from tests.corpus.entries import ENTRIES
from tests.gateway_harness import (
    HOST_FIRST_ROUTES,
    config_text,
    gateway_of,
    meta_of,
    providers,
    sent_as_written,
    write_config,
)
from tests.helpers import server_params
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio
__all__ = ["providers"]  # the fixture

# Each product's tool: the stand-in that speaks it, a model its route sends there, a model whose
# route goes to a provider of another product, and the route whose host comes first.
PRODUCTS = {
    "chat_complete": ("a", "gpt-4.1", "claude-x", "host-then-a"),
    "responses_create": ("a", "gpt-4.1", "claude-x", "host-then-a"),
    "messages_create": ("b", "claude-x", "gpt-4.1", "host-then-b"),
    "gemini_generate_content": ("g", "gemini-2.5-flash", "gpt-4.1", "host-then-g"),
}
# What the provider a route of "host-then-..." names serves.
SERVED = {"a": "a-one", "b": "claude-x", "g": "gemini-2.5-flash"}

# The corpus's SDK-built bodies refused for a tool definition.
CASES = [e for e in ENTRIES if e.expect == "refused" and e.named[0].startswith("tools")]

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
ASK = "Weather in Oslo?"
# A function tool beside a server tool, with a tool_choice that names or forces the server tool
# where the product has a way to: (tool, body, the refusal's path, words of its reason).
MIXED: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "messages_create",
        {
            "messages": [{"role": "user", "content": ASK}],
            "max_tokens": 50,
            "tools": [
                {"name": "get_weather", "description": "Weather.", "input_schema": CITY},
                {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
            ],
            "tool_choice": {"type": "tool", "name": "web_search"},
        },
        "tools[1].type",
        "server tools",
    ),
    (
        "responses_create",
        {
            "input": ASK,
            "tools": [
                {"type": "function", "name": "get_weather", "parameters": CITY},
                {"type": "file_search", "vector_store_ids": ["vs_1"]},
            ],
            "tool_choice": {"type": "file_search"},
        },
        "tools[1].type",
        "built-in tools run on OpenAI's servers",
    ),
    (
        "chat_complete",
        {
            "messages": [{"role": "user", "content": ASK}],
            "tools": [
                {"type": "function", "function": {"name": "get_weather", "parameters": CITY}},
                {"type": "custom", "custom": {"name": "grammar", "description": "Free text."}},
            ],
            "tool_choice": {"type": "custom", "custom": {"name": "grammar"}},
        },
        "tools[1].type",
        "custom free-form tools",
    ),
    (
        "gemini_generate_content",
        {
            "contents": [{"role": "user", "parts": [{"text": ASK}]}],
            "tools": [
                {"functionDeclarations": [{"name": "get_weather", "parametersJsonSchema": CITY}]},
                {"googleSearch": {}},
                {"codeExecution": {}},
            ],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
        },
        "tools[1].googleSearch",
        "Google's built-in tools run on Google's side",
    ),
]


def _server(tmp_path: Path, stand_ins: dict[str, StandInProvider]) -> Any:
    return build_server(
        gateway=gateway_of(write_config(tmp_path, config_text(stand_ins, routes=HOST_FIRST_ROUTES)))
    )


def _reply(tool: str, model: str) -> dict[str, Any]:
    """The provider's own object, in its product's shape."""
    if tool == "gemini_generate_content":
        return gemini_reply("searched", model=model)
    if tool == "chat_complete":
        return openai_reply("searched", model=model)
    if tool == "responses_create":
        return responses_reply("searched", model=model)
    return anthropic_reply("searched", model=model)


def _refused(result: Any, path: str, says: str) -> str:
    assert result.is_error
    text: str = result.content[0].text
    assert f"{path}: " in text and says in text, text
    assert "nothing was sent" in text.lower(), text
    return text


def _cases() -> list[tuple[str, str, dict[str, Any], str, str]]:
    """(name, tool, body, path, words): the corpus's cases, then the mixed bodies."""
    corpus = [(e.name, e.tool, e.body(), e.named[0], e.says) for e in CASES]
    return [*corpus, *[(f"mixed {tool}", tool, body, path, says) for tool, body, path, says in MIXED]]


def test_the_corpus_has_a_server_tool_of_each_product_that_has_them() -> None:
    assert {e.tool for e in CASES} == {"messages_create", "responses_create", "gemini_generate_content"}


async def test_refused_as_before_when_the_host_answers(era: str) -> None:
    host = ScriptedHost("never")
    async with connect(era, host) as client:
        for name, tool, body, path, says in _cases():
            result = await client.call_tool(tool, body)
            assert result.is_error, name
            _refused(result, path, says)
    assert host.seen == []  # nothing was sent to the host


async def test_a_provider_of_the_product_takes_the_body_as_written(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    host = ScriptedHost("never")
    async with connect(era, host, server=_server(tmp_path, providers)) as client:
        for name, tool, written, path, says in _cases():
            stand_in_name, model, _, _ = PRODUCTS[tool]
            stand_in = providers[stand_in_name]
            body = {**written, "model": model}
            reply = _reply(tool, model)
            stand_in.script.append(reply)
            before = len(stand_in.seen)
            result = await client.call_tool(tool, {**body, "result": "object"})
            assert not result.is_error, (name, result.content[0].text)
            assert meta_of(result)["passed_through"] is True, name
            assert len(stand_in.seen) == before + 1, name
            sent_as_written(stand_in.seen[-1], tool, body, model)
            assert result.structured_content == reply, name  # its own object back
            # The same body with the host asked for by name: refused, nothing sent to the host.
            _refused(await client.call_tool(tool, {**body, "backend": "host"}), path, says)
    assert host.seen == []


async def test_a_provider_of_another_product_is_refused_it(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    async with connect(era, server=_server(tmp_path, providers)) as client:
        for _, tool, body, path, says in _cases():
            across = PRODUCTS[tool][2]
            _refused(await client.call_tool(tool, {**body, "model": across}), path, says)
    assert [len(p.seen) for p in providers.values()] == [0, 0, 0]  # nothing was sent anywhere


async def test_the_route_passes_the_host_over_saying_why(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    host = ScriptedHost("never")
    async with connect(era, host, server=_server(tmp_path, providers)) as client:
        for name, tool, written, path, says in _cases():
            stand_in_name, _, _, route = PRODUCTS[tool]
            body = {**written, "model": route}
            result = await client.call_tool(tool, body)
            assert not result.is_error, (name, result.content[0].text)
            meta = meta_of(result)
            [passed] = meta["passed_over"]
            assert passed["backend"] == "host", name
            assert passed["why"].startswith(f"{path}: ") and says in passed["why"], (name, passed)
            assert meta["passed_through"] is True, name
            sent_as_written(providers[stand_in_name].seen[-1], tool, body, SERVED[stand_in_name])
    assert host.seen == []


async def test_a_malformed_definition_beside_a_server_tool_reaches_no_provider(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    """A definition the product's API would refuse too is an error whoever answers; so is a
    tool_choice naming a tool that is not there when no tool was left out."""
    server_tool = {"type": "web_search_20250305", "name": "web_search"}
    ask = {"messages": [{"role": "user", "content": ASK}], "max_tokens": 50, "model": "claude-x"}
    async with connect(era, server=_server(tmp_path, providers)) as client:
        empty_name = await client.call_tool(
            "messages_create", {**ask, "tools": [server_tool, {"name": "", "input_schema": CITY}]}
        )
        bad_type = await client.call_tool("messages_create", {**ask, "tools": [{"type": 7, "name": "x"}]})
        gemini_bad = await client.call_tool(
            "gemini_generate_content",
            {
                "contents": [{"role": "user", "parts": [{"text": ASK}]}],
                "tools": [{"googleSearch": {}}, {"functionDeclarations": "not a list"}],
                "model": "gemini-2.5-flash",
            },
        )
        unknown_choice = await client.call_tool(
            "messages_create",
            {
                **ask,
                "tools": [{"name": "get_weather", "input_schema": CITY}],
                "tool_choice": {"type": "tool", "name": "web_search"},
            },
        )
    assert empty_name.is_error and "tools[1].name: must not be empty" in empty_name.content[0].text
    assert bad_type.is_error and "tools[0].type: expected 'custom' or no type" in bad_type.content[0].text
    assert gemini_bad.is_error and "tools[1].functionDeclarations" in gemini_bad.content[0].text
    assert (
        unknown_choice.is_error
        and "tool_choice.name: names tool 'web_search'" in unknown_choice.content[0].text
    )
    assert [len(p.seen) for p in providers.values()] == [0, 0, 0]


async def test_the_same_tools_twice_read_once_and_refused_twice(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    """The kept reading of a `tools` array holds its refusals: the second call, read from it,
    is refused (or passed through) as the first was."""
    tool, body, path, says = MIXED[0]
    forget_read()
    host = ScriptedHost("never")
    async with connect(era, host, server=_server(tmp_path, providers)) as client:
        first = _refused(await client.call_tool(tool, {**body, "backend": "host"}), path, says)
        kept = read_count()
        second = _refused(await client.call_tool(tool, {**body, "backend": "host"}), path, says)
        assert read_count() == kept >= 1  # read from the kept reading, not again
        assert second == first
        for _ in range(2):
            passed = await client.call_tool(tool, {**body, "model": "claude-x"})
            assert not passed.is_error, passed.content[0].text
            assert meta_of(passed)["passed_through"] is True
            sent_as_written(providers["b"].seen[-1], tool, {**body, "model": "claude-x"}, "claude-x")
        assert read_count() == kept
    assert len(providers["b"].seen) == 2
    assert host.seen == []


async def test_the_first_refusal_is_a_parameter_then_a_part_then_a_tool(era: str) -> None:
    """The host refuses what a reading that raised at once would have met first."""
    tool, body, path, says = MIXED[0]
    document = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "A."}}
    with_part = {**body, "messages": [{"role": "user", "content": [{"type": "text", "text": ASK}, document]}]}
    host = ScriptedHost("never")
    async with connect(era, host) as client:
        alone = await client.call_tool(tool, body)
        part = await client.call_tool(tool, with_part)
        parameter = await client.call_tool(tool, {**with_part, "container": "c-1"})
    _refused(alone, path, says)
    _refused(part, "messages[0].content[1]", "a document block")
    _refused(parameter, "container", "containers cannot be honoured")
    assert host.seen == []


def test_a_reading_records_each_server_tool_in_order_or_raises_the_first() -> None:
    """With a list to keep them in, each server tool's refusal is recorded (a fresh error on every
    reading, kept or not) and the function tools are read; without, the first is raised."""
    shape = messages.DIALECT.tools
    assert shape is not None
    tools = [
        {"type": "web_search_20250305", "name": "web_search"},
        {"name": "get_weather", "input_schema": CITY},
        {"type": "bash_20250124", "name": "bash"},
    ]
    forget_read()
    readings = []
    for _ in range(2):  # the second from the kept reading
        kept: list[CallError] = []
        specs = read_tools(tools, "tools", shape, kept)
        assert [s.name for s in specs] == ["get_weather"]
        assert [(e.path, e.kind) for e in kept] == [("tools[0].type", "caller"), ("tools[2].type", "caller")]
        assert "'bash_20250124' cannot be forwarded" in kept[1].reason
        readings.append(kept)
    assert read_count() == 1
    assert all(a is not b and a.reason == b.reason for a, b in zip(*readings, strict=True))
    with pytest.raises(CallError) as caught:
        read_tools(tools, "tools", shape)
    assert caught.value.path == "tools[0].type" and "server tools" in caught.value.reason


@pytest.mark.stdio
async def test_over_stdio(era: str, tmp_path: Path, providers: dict[str, StandInProvider]) -> None:
    config = write_config(tmp_path, config_text(providers, routes=HOST_FIRST_ROUTES))
    tool, body, path, says = MIXED[0]
    host = ScriptedHost("never")
    async with Client(
        server_params("serve", "--config", str(config), env=dict(os.environ)),
        mode=era,
        sampling_callback=host,
    ) as client:
        routed = await client.call_tool(tool, {**body, "model": "host-then-b"})
        to_host = await client.call_tool(tool, {**body, "model": "host-then-b", "backend": "host"})
    assert not routed.is_error, routed.content[0].text
    [passed] = meta_of(routed)["passed_over"]
    assert passed["backend"] == "host"
    assert passed["why"].startswith(f"{path}: Anthropic tool type 'web_search_20250305' cannot be forwarded")
    assert providers["b"].seen[-1].body == {**body, "model": "claude-x"}
    _refused(to_host, path, says)
    assert host.seen == []
