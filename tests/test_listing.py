"""tools/list: every registered dialect and list_models, valid hand-written schemas, concise
descriptions for both eras."""

from __future__ import annotations

import logging

import jsonschema
import pytest
from mcp_types import ListToolsResult, Tool

from agent_as_model import server
from agent_as_model.adapters.dialects import DIALECTS, Dialect
from agent_as_model.adapters.dialects.writing import Said
from agent_as_model.adapters.tools import models
from tests.helpers import listed_tools
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

# A valid request for some tools, using more of each product's shape than `example` writes.
RICH_EXAMPLES = {
    "chat_complete": {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}],
        "temperature": 2,
    },
    "messages_create": {
        "system": [{"type": "text", "text": "s"}],
        "messages": [{"role": "user", "content": "x"}],
    },
    "responses_create": {"input": [{"role": "user", "content": [{"type": "input_text", "input_text": "x"}]}]},
    "gemini_generate_content": {
        "contents": [{"role": "user", "parts": [{"text": "x"}]}],
        "systemInstruction": {"parts": [{"text": "s"}]},
        "generationConfig": {"temperature": 2, "maxOutputTokens": 3, "stopSequences": ["z"]},
        "tools": [{"functionDeclarations": [{"name": "f", "parameters": {"type": "OBJECT"}}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
    },
    "generate": {"prompt": "x", "model": "m", "max_tokens": 3},
    models.NAME: {},
}


def examples() -> dict[str, dict[str, object]]:
    """A valid request per listed tool: the advertised schema and the server must agree on each.
    A tool without a rich example gets one user message, written by its dialect's writing."""
    written = {
        name: dialect.writing.write([Said("user", "x")], None)
        for name, dialect in DIALECTS.items()
        if dialect.writing is not None
    }
    return {**written, **RICH_EXAMPLES}


async def test_lists_every_registered_tool_with_valid_schemas(era: str) -> None:
    async with connect(era) as client:
        listed = await client.list_tools()
    assert [tool.name for tool in listed.tools] == listed_tools()
    assert len(listed.tools) >= 6  # the five built-in products and list_models at least
    requests = examples()
    for tool in listed.tools:
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert tool.input_schema["type"] == "object"
        jsonschema.validate(requests[tool.name], tool.input_schema)
        description = tool.description or ""
        assert 80 <= len(description) <= 700, (tool.name, len(description))
        if tool.name in DIALECTS:
            # Says what it does on each era.
            assert "sampling/createMessage" in description and "2026-07-28" in description
            assert "InputRequiredResult" in description


def _as_models(listed: list[Dialect | models.StaticTool]) -> ListToolsResult:
    return ListToolsResult(
        tools=[Tool(name=t.NAME, description=t.DESCRIPTION, input_schema=t.INPUT_SCHEMA) for t in listed]
    )


@pytest.mark.parametrize("stored", [False, True], ids=["plain", "stored"])
def test_the_listing_is_the_mapping_its_model_dumps_to(stored: bool) -> None:
    # The server returns tools/list as the wire mapping, made once (server._Listing): it must be
    # what the SDK would dump the ListToolsResult of the same tools to, envelope and all.
    listed: list[Dialect | models.StaticTool] = [*DIALECTS.values(), models.LIST_MODELS]
    if stored:
        listed += [tool for _, tool in server._stored_tools()]
    dumped = _as_models(listed).model_dump(by_alias=True, mode="json", exclude_none=True)
    assert server._tools(stored) == dumped


async def test_a_client_reads_the_listing_as_the_models_of_the_tools(era: str) -> None:
    async with connect(era) as client:
        listed = await client.list_tools()
    expected = _as_models([*DIALECTS.values(), models.LIST_MODELS])
    assert listed.tools == expected.tools


async def test_every_example_is_accepted_by_the_server(era: str) -> None:
    host = ScriptedHost("ok")
    async with connect(era, host) as client:
        for name, arguments in examples().items():
            result = await client.call_tool(name, arguments)
            assert not result.is_error, (name, result.content)


async def test_internal_fault_gives_a_generic_message_and_logs_the_traceback(
    era: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    dialect = DIALECTS["generate"]

    def broken_render(completion: object, request: object, cursor: object) -> str:
        raise RuntimeError("secret internal detail")

    # A dialect is an immutable declaration: the broken one replaces it in the registry.
    monkeypatch.setitem(DIALECTS, "generate", dialect._replace(render=broken_render))
    host = ScriptedHost("ok")
    with caplog.at_level(logging.ERROR, logger="agent_as_model"):
        async with connect(era, host) as client:
            bad = await client.call_tool("generate", {"prompt": "x"})
            monkeypatch.undo()
            good = await client.call_tool("generate", {"prompt": "x"})
    assert bad.is_error
    assert bad.content[0].text == "generate: internal error in the server (see its log). The host was asked."
    assert "secret internal detail" not in bad.content[0].text
    assert "secret internal detail" in caplog.text  # the traceback went to the log
    assert not good.is_error
