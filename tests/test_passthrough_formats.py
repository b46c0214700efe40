"""A product's own output format through pass-through: Chat's `response_format`, Responses'
`text.format` and Messages' `output_config.format` go with the body as written to a provider that
speaks the product; the answer is still checked against the schema (bad output is never returned).
On a route with a backend of another product, that one gets the neutral conversation, where the
server asks for the contract itself; so do the server's own `output_schema` and
`repair_attempts`. Both eras, in-process, and once over stdio."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from agent_as_model.commands.standin_provider import (
    StandInProvider,
    Status,
    anthropic_reply,
    gemini_reply,
    openai_reply,
    responses_reply,
)
from agent_as_model.server import build_server
from tests.gateway_harness import OWN_ROUTES, config_text, gateway_of, meta_of, providers, write_config
from tests.helpers import server_params
from tests.scripted_host import connect

pytestmark = pytest.mark.anyio
__all__ = ["providers"]  # the fixture

CITY = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
ASK = [{"role": "user", "content": "Where?"}]
MIXED = '[routes]\n"gpt-*" = ["a", "b/claude-x"]\n'
FORMATS: dict[str, tuple[str, dict[str, Any], Any]] = {
    "chat_complete": (
        "a",
        {
            "model": "gpt-4.1",
            "messages": ASK,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "city", "schema": CITY, "strict": True},
            },
        },
        lambda text: openai_reply(text, model="gpt-4.1"),
    ),
    "responses_create": (
        "a",
        {
            "model": "gpt-4.1",
            "input": "Where?",
            "text": {"format": {"type": "json_schema", "name": "city", "schema": CITY, "strict": True}},
        },
        lambda text: responses_reply(text, model="gpt-4.1"),
    ),
    "messages_create": (
        "b",
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 100,
            "messages": ASK,
            "output_config": {"format": {"type": "json_schema", "schema": CITY}},
        },
        lambda text: anthropic_reply(text, model="claude-sonnet-4-5"),
    ),
    "gemini_generate_content": (
        "g",
        {
            "model": "gemini-2.5-flash",
            "contents": [{"role": "user", "parts": [{"text": "Where?"}]}],
            "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": CITY},
        },
        lambda text: gemini_reply(text, model="gemini-2.5-flash"),
    ),
}


def _server(tmp_path: Path, stand_ins: dict[str, StandInProvider], routes: str) -> Any:
    return build_server(gateway=gateway_of(write_config(tmp_path, config_text(stand_ins, routes=routes))))


@pytest.mark.parametrize("tool", sorted(FORMATS))
async def test_the_products_own_format_passes_through_and_is_checked(
    era: str, tool: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    name, body, reply = FORMATS[tool]
    stand_in = providers[name]
    good, bad = reply('{"city": "Oslo"}'), reply('{"town": "Oslo"}')
    stand_in.script += [good, bad]
    async with connect(era, server=_server(tmp_path, providers, OWN_ROUTES)) as client:
        passed = await client.call_tool(tool, {**body, "result": "object"})
        broken = await client.call_tool(tool, body)
        after = await client.call_tool("generate", {"prompt": "q", "model": "gpt-4.1"})
    assert not passed.is_error, passed.content[0].text
    # Every key as written (Gemini's model is in the request's path).
    sent = {key: value for key, value in body.items() if key != "model" or name != "g"}
    assert [seen.body for seen in stand_in.seen[:2]] == [sent, sent]
    assert passed.structured_content == good  # the provider's object, unchanged
    assert meta_of(passed)["passed_through"] is True
    # The answer breaks the schema: an error naming the format, as the neutral path's check says.
    assert broken.is_error
    text = broken.content[0].text
    where = {
        "chat_complete": "response_format.json_schema.schema",
        "responses_create": "text.format.schema",
        "messages_create": "output_config.format.schema",
        "gemini_generate_content": "generationConfig.responseJsonSchema",
    }
    assert text.startswith(f"{tool}: {where[tool]}: "), text
    assert (
        "violates the schema at JSON pointer '' (the root): has a property the schema does not allow" in text
    )
    assert "was asked; its answer was not used" in text
    assert not after.is_error  # the next call is served


async def test_on_a_mixed_route_each_backend_gets_the_contract_its_own_way(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    """gpt-* goes to provider a (Chat Completions: the body as written), then b (Anthropic: the
    neutral conversation, where the server asks for the contract as its one tool)."""
    _, body, _ = FORMATS["chat_complete"]
    providers["a"].script += [openai_reply('{"city": "Oslo"}', model="gpt-4.1"), Status(503, "down")]
    providers["b"].script.append(
        anthropic_reply(
            None, tool_uses=[("toolu_1", "structured_output", {"city": "Bergen"})], model="claude-x"
        )
    )
    async with connect(era, server=_server(tmp_path, providers, MIXED)) as client:
        passed = await client.call_tool("chat_complete", body)
        fell_back = await client.call_tool("chat_complete", body)
    assert not passed.is_error, passed.content[0].text
    assert meta_of(passed)["passed_through"] is True
    assert [seen.body for seen in providers["a"].seen] == [body, body]
    assert passed.content[0].text == '{"city": "Oslo"}'
    assert not fell_back.is_error, fell_back.content[0].text
    assert "passed_through" not in meta_of(fell_back)
    assert meta_of(fell_back)["backend"] == "provider:b/claude-x"
    assert fell_back.content[0].text == '{"city": "Bergen"}'
    sent = providers["b"].seen[0].body
    assert [tool["name"] for tool in sent["tools"]] == ["structured_output"]
    assert "response_format" not in sent


async def test_repairs_or_the_servers_own_schema_go_through_the_neutral_conversation(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    _, body, _ = FORMATS["chat_complete"]
    structured = openai_reply(
        None, tool_calls=[("call_1", "structured_output", '{"city": "Oslo"}')], model="gpt-4.1"
    )
    providers["a"].script += [structured, structured]
    own_schema = {"model": "gpt-4.1", "messages": ASK, "output_schema": CITY}
    async with connect(era, server=_server(tmp_path, providers, OWN_ROUTES)) as client:
        repaired = await client.call_tool("chat_complete", {**body, "repair_attempts": 1})
        schema = await client.call_tool("chat_complete", own_schema)
    for result in (repaired, schema):
        assert not result.is_error, result.content[0].text
        assert "passed_through" not in meta_of(result)
        assert result.content[0].text == '{"city": "Oslo"}'
    for seen in providers["a"].seen:
        assert "response_format" not in seen.body  # the server asked for the contract itself
        assert [tool["function"]["name"] for tool in seen.body["tools"]] == ["structured_output"]


@pytest.mark.stdio
async def test_a_format_passes_through_over_stdio(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    _, body, reply = FORMATS["responses_create"]
    good = reply('{"city": "Oslo"}')
    providers["a"].script.append(good)
    config = write_config(tmp_path, config_text(providers, routes=OWN_ROUTES))
    async with Client(
        server_params("serve", "--config", str(config), env=dict(os.environ)), mode=era
    ) as client:
        result = await client.call_tool("responses_create", body)
    assert not result.is_error, result.content[0].text
    assert providers["a"].seen[-1].body == body
    assert result.structured_content == good
    assert meta_of(result)["passed_through"] is True
