"""Refusals met while the conversation is read that hold for the host alone (docs/decisions.md,
"The conversation readers' refusals, sorted"): a part the product's own API takes and MCP
sampling cannot carry. When the host answers the call is refused as before, naming the part, with
nothing sent; a provider that speaks the call's product takes the body as written; a provider of
another product is refused it with nothing sent; on a route whose host comes first, the host is
passed over saying why. The corpus's SDK-built bodies that are refused for such a part are the
cases (Gemini's too, to its provider and across), on both eras, and once over stdio with the
installed command."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from agent_as_model.adapters.dialects.options import HostOnly
from agent_as_model.adapters.dialects.products.gemini.keys import CONFIG_REFUSED
from agent_as_model.commands.standin_provider import StandInProvider
from agent_as_model.server import build_server
from tests.corpus.entries import ENTRIES, Entry
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

# Each product's tool: the stand-in that speaks it and a model its route sends there, then a
# model whose route goes to a provider of another product.
PRODUCTS = {
    "chat_complete": ("a", "gpt-4.1", "claude-x"),
    "responses_create": ("a", "gpt-4.1", "claude-x"),
    "messages_create": ("b", "claude-x", "gpt-4.1"),
}
# The corpus's refusals inside the conversation that hold whoever answers: malformed for the
# product's API too.
ALWAYS = frozenset(["chat: an image in a system message"])
# What sends a call through the neutral conversation even to a provider of its product.
NEUTRAL_KEYS = ("response_format", "text", "output_config", "previous_response_id", "persona", "n")


def _in_conversation(entry: Entry) -> bool:
    """A refusal of a part of the conversation (its path goes into the body), not of a parameter."""
    return entry.expect == "refused" and "[" in entry.named[0] and not entry.named[0].startswith("tools")


CASES = [
    e
    for e in ENTRIES
    if e.tool in PRODUCTS
    and _in_conversation(e)
    and e.name not in ALWAYS
    and not any(key in e.body() for key in NEUTRAL_KEYS)
]


def _host_only_config(entry: Entry) -> bool:
    """A refusal of a generationConfig key the Gemini API takes and the host cannot honour."""
    if entry.expect != "refused":
        return False
    head, _, key = entry.named[0].partition(".")
    return head == "generationConfig" and isinstance(CONFIG_REFUSED.get(key), HostOnly)


# Gemini's: its conversation's parts, and its generationConfig keys only the host cannot honour.
GEMINI_CASES = [
    e
    for e in ENTRIES
    if e.tool == "gemini_generate_content" and (_in_conversation(e) or _host_only_config(e))
]


def _server(tmp_path: Path, stand_ins: dict[str, StandInProvider]) -> Any:
    return build_server(
        gateway=gateway_of(write_config(tmp_path, config_text(stand_ins, routes=HOST_FIRST_ROUTES)))
    )


def _refused(result: Any, entry: Entry) -> None:
    assert result.is_error, entry.name
    text = result.content[0].text
    assert entry.named[0] in text and entry.says in text, (entry.name, text)
    assert "needs at least one" not in text, (entry.name, text)


def test_the_cases_cover_every_product_and_many_parts() -> None:
    tools = {e.tool for e in CASES}
    assert tools == set(PRODUCTS)
    assert len(CASES) >= 40
    assert len(GEMINI_CASES) >= 12
    assert sum(_host_only_config(e) for e in GEMINI_CASES) >= 6  # generationConfig's among them


async def test_refused_as_before_when_the_host_answers(era: str) -> None:
    host = ScriptedHost("never")
    async with connect(era, host) as client:
        for entry in [*CASES, *GEMINI_CASES]:
            _refused(await client.call_tool(entry.tool, entry.body()), entry)
    assert host.seen == []  # nothing was sent to the host


async def test_a_provider_of_the_product_takes_the_body_as_written(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    host = ScriptedHost("never")
    async with connect(era, host, server=_server(tmp_path, providers)) as client:
        for entry in CASES:
            name, model, _ = PRODUCTS[entry.tool]
            stand_in = providers[name]
            before = len(stand_in.seen)
            body = {**entry.body(), "model": model}
            result = await client.call_tool(entry.tool, body)
            assert not result.is_error, (entry.name, result.content[0].text)
            assert meta_of(result)["passed_through"] is True, entry.name
            assert len(stand_in.seen) == before + 1, entry.name
            sent_as_written(stand_in.seen[-1], entry.tool, body, model, entry.name)
            # The same body with the host asked for by name: refused, nothing sent to the host.
            _refused(await client.call_tool(entry.tool, {**body, "backend": "host"}), entry)
    assert host.seen == []


async def test_a_provider_of_another_product_is_refused_it(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    async with connect(era, server=_server(tmp_path, providers)) as client:
        for entry in [*CASES, *GEMINI_CASES]:
            across = PRODUCTS[entry.tool][2] if entry.tool in PRODUCTS else "gpt-4.1"
            _refused(await client.call_tool(entry.tool, {**entry.body(), "model": across}), entry)
    assert [len(p.seen) for p in providers.values()] == [0, 0, 0]  # nothing was sent anywhere


async def test_the_route_passes_the_host_over_saying_why(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    host = ScriptedHost("never")
    async with connect(era, host, server=_server(tmp_path, providers)) as client:
        for entry in CASES:
            name = PRODUCTS[entry.tool][0]
            model = "host-then-a" if name == "a" else "host-then-b"
            body = {**entry.body(), "model": model}
            result = await client.call_tool(entry.tool, body)
            assert not result.is_error, (entry.name, result.content[0].text)
            meta = meta_of(result)
            [passed] = meta["passed_over"]
            assert passed["backend"] == "host", entry.name
            assert passed["why"].startswith(f"{entry.named[0]}: "), (entry.name, passed)
            assert entry.says in passed["why"], (entry.name, passed)
            assert meta["passed_through"] is True, entry.name
            served = "a-one" if name == "a" else "claude-x"
            sent_as_written(providers[name].seen[-1], entry.tool, body, served, entry.name)
    assert host.seen == []


DOCUMENT = {
    "type": "document",
    "source": {"type": "text", "media_type": "text/plain", "data": "The report."},
}


async def test_a_conversation_of_such_parts_alone_is_refused_for_them(era: str) -> None:
    """Left out of the neutral conversation, nothing is left; the refusal is still the part's."""
    host = ScriptedHost("never")
    only_document = {"messages": [{"role": "user", "content": [DOCUMENT]}], "max_tokens": 20}
    only_file = {
        "messages": [
            {"role": "user", "content": [{"type": "file", "file": {"file_id": "file-1"}}]},
        ]
    }
    only_audio = {
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "audio": {"id": "audio_1"}},
        ]
    }
    async with connect(era, host) as client:
        document = await client.call_tool("messages_create", only_document)
        file = await client.call_tool("chat_complete", only_file)
        audio = await client.call_tool("chat_complete", only_audio)
    assert document.is_error and "messages[0].content[0]: a document block" in document.content[0].text
    assert file.is_error and "messages[0].content[0]: part type 'file'" in file.content[0].text
    assert audio.is_error and "messages[1].audio: an audio answer" in audio.content[0].text
    assert host.seen == []


async def test_the_first_refusal_is_a_parameter_then_the_first_part(era: str) -> None:
    host = ScriptedHost("never")
    two_parts = [
        {"role": "user", "content": [{"type": "text", "text": "read"}, DOCUMENT]},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": [DOCUMENT]},
    ]
    async with connect(era, host) as client:
        parts = await client.call_tool("messages_create", {"messages": two_parts, "max_tokens": 20})
        with_parameter = await client.call_tool(
            "messages_create", {"messages": two_parts, "max_tokens": 20, "container": "c-1"}
        )
        # A malformed part after one the host alone cannot take is an error whoever answers.
        malformed = await client.call_tool(
            "messages_create",
            {"messages": [*two_parts, {"role": "user", "content": [{"type": "text"}]}], "max_tokens": 20},
        )
    assert parts.is_error and "messages[0].content[1]: a document block" in parts.content[0].text
    assert (
        with_parameter.is_error
        and "container: containers cannot be honoured" in with_parameter.content[0].text
    )
    assert malformed.is_error and "messages[3].content[0]" in malformed.content[0].text
    assert host.seen == []


async def test_always_refused_parts_reach_no_provider(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    always = [e for e in ENTRIES if e.name in ALWAYS]
    assert len(always) == len(ALWAYS)
    async with connect(era, server=_server(tmp_path, providers)) as client:
        for entry in always:
            _, model, _ = PRODUCTS[entry.tool]
            _refused(await client.call_tool(entry.tool, {**entry.body(), "model": model}), entry)
    assert [len(p.seen) for p in providers.values()] == [0, 0, 0]


@pytest.mark.stdio
async def test_over_stdio(era: str, tmp_path: Path, providers: dict[str, StandInProvider]) -> None:
    config = write_config(tmp_path, config_text(providers, routes=HOST_FIRST_ROUTES))
    body = {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "read"}, DOCUMENT]}],
        "max_tokens": 20,
    }
    host = ScriptedHost("never")
    async with Client(
        server_params("serve", "--config", str(config), env=dict(os.environ)),
        mode=era,
        sampling_callback=host,
    ) as client:
        routed = await client.call_tool("messages_create", {**body, "model": "host-then-b"})
        to_host = await client.call_tool(
            "messages_create", {**body, "model": "host-then-b", "backend": "host"}
        )
    assert not routed.is_error, routed.content[0].text
    assert meta_of(routed)["passed_over"] == [
        {
            "backend": "host",
            "why": "messages[0].content[1]: a document block is not carried: MCP sampling has content "
            "for text, images and audio only, and none for a document (PDF or text source); put the "
            "text it holds in a text block",
        }
    ]
    assert providers["b"].seen[-1].body == {**body, "model": "claude-x"}
    assert to_host.is_error and "messages[0].content[1]: a document block" in to_host.content[0].text
    assert host.seen == []


# Parts the corpus has no body of: a refusal passed back, in Chat Completions and in Responses.
REFUSAL_BODIES = [
    (
        "chat_complete",
        {
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": None, "refusal": "I cannot help with that."},
                {"role": "user", "content": "why?"},
            ]
        },
        "messages[1].refusal: a refusal cannot be passed back as such",
    ),
    (
        "responses_create",
        {
            "input": [
                {"role": "user", "content": "hi"},
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "refusal", "refusal": "I cannot help with that."}],
                },
                {"role": "user", "content": "why?"},
            ]
        },
        "input[1].content[0]: a refusal part cannot be passed back as such",
    ),
]


async def test_a_refusal_passed_back_is_the_hosts_alone_to_refuse(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    host = ScriptedHost("never")
    async with connect(era, host, server=_server(tmp_path, providers)) as client:
        for tool, body, said in REFUSAL_BODIES:
            to_host = await client.call_tool(tool, {**body, "backend": "host"})
            assert to_host.is_error and said in to_host.content[0].text, (tool, to_host.content[0].text)
            passed = await client.call_tool(tool, {**body, "model": "gpt-4.1"})
            assert not passed.is_error, (tool, passed.content[0].text)
            assert meta_of(passed)["passed_through"] is True
            assert providers["a"].seen[-1].body == {**body, "model": "gpt-4.1"}
            across = await client.call_tool(tool, {**body, "model": "claude-x"})
            assert across.is_error and said in across.content[0].text, (tool, across.content[0].text)
    assert host.seen == [] and providers["b"].seen == []


async def test_a_gemini_provider_takes_gemini_parts_as_written(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    """The Gemini provider speaks generateContent: the corpus's Gemini bodies refused for a part
    the host cannot take reach it as written (the model in the request's path), and on a route
    whose host comes first the host is passed over saying why."""
    host = ScriptedHost("never")
    model = "gemini-2.5-flash"
    async with connect(era, host, server=_server(tmp_path, providers)) as client:
        for entry in GEMINI_CASES:
            body = {**entry.body(), "model": model}
            result = await client.call_tool(entry.tool, body)
            assert not result.is_error, (entry.name, result.content[0].text)
            assert meta_of(result)["passed_through"] is True, entry.name
            sent_as_written(providers["g"].seen[-1], entry.tool, body, model, entry.name)
            _refused(await client.call_tool(entry.tool, {**body, "backend": "host"}), entry)
            routed = await client.call_tool(entry.tool, {**body, "model": "host-then-g"})
            assert not routed.is_error, (entry.name, routed.content[0].text)
            [passed] = meta_of(routed)["passed_over"]
            assert passed["backend"] == "host" and passed["why"].startswith(f"{entry.named[0]}: "), passed
    assert len(providers["g"].seen) == 2 * len(GEMINI_CASES)
    assert host.seen == []
