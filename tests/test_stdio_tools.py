"""Tool use and structured output through the installed command over REAL stdio, on both eras,
with a host that declares sampling.tools (every behaviour runs at least once over stdio)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client
from mcp_types import CreateMessageRequestParams, SamplingCapability, SamplingToolsCapability

from tests import sdk_truth
from tests.agent_loop import tool_answer
from tests.helpers import server_params
from tests.scripted_host import ERAS, ScriptedHost, text_answer
from tests.test_tool_use import LOOP_TOOLS, SEED_TOOL, loop_next, loop_request, loop_text

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]

PERSON = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def agent(params: CreateMessageRequestParams) -> Any:
    """A host model: fills structured output, calls get_weather once, then answers from its result."""
    names = [t.name for t in params.tools or []]
    last = params.messages[-1].content_as_list
    if names == ["structured_output"]:
        if params.messages[-1].role == "user" and last[0].type == "tool_result":
            return tool_answer("", ("so_2", "structured_output", {"name": "Ada"}))  # the repair
        return tool_answer("", ("so_1", "structured_output", {"name": 7}))  # invalid first
    if "get_weather" in names and last[0].type != "tool_result":
        return tool_answer("Checking.", ("call_1", "get_weather", {"city": "Paris"}))
    said = [b.content[0].text if b.type == "tool_result" else b.text for b in last]
    return text_answer("final: " + " ".join(said))


@pytest.fixture(scope="module", params=ERAS)
async def client(request: pytest.FixtureRequest) -> AsyncIterator[tuple[Client, ScriptedHost]]:
    host = ScriptedHost(agent)
    caps = SamplingCapability(tools=SamplingToolsCapability())
    async with Client(
        server_params(), mode=request.param, sampling_callback=host, sampling_capabilities=caps
    ) as c:
        yield c, host


def checked(tool: str, result: Any) -> Any:
    """A successful result, its object validated by the product's own SDK: the server runs in
    another process here, where conftest.py's check of every Responses object cannot reach."""
    assert not result.is_error, result.content[0].text
    if tool == "responses_create":
        sdk_truth.response_of(result)
    elif tool == "gemini_generate_content":
        from google.genai import types

        types.GenerateContentResponse.model_validate_json(result.content[0].text)
    return result


@pytest.mark.parametrize("tool", LOOP_TOOLS)
async def test_tool_loop_over_stdio(client: tuple[Client, ScriptedHost], tool: str) -> None:
    session, host = client
    request = loop_request(tool, "Weather in Paris?", [SEED_TOOL])
    first = checked(tool, await session.call_tool(tool, request))
    again = loop_next(tool, "Weather in Paris?", [SEED_TOOL], first, "sunny")
    second = checked(tool, await session.call_tool(tool, again))
    assert loop_text(tool, second) == "final: sunny"
    assert host.wire()["messages"][1]["content"][1]["type"] == "tool_use"


async def test_structured_output_with_a_repair_over_stdio(client: tuple[Client, ScriptedHost]) -> None:
    session, host = client
    before = host.asked
    result = await session.call_tool(
        "chat_complete",
        {"messages": [{"role": "user", "content": "Who?"}], "output_schema": PERSON, "repair_attempts": 1},
    )
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == {"name": "Ada"}
    assert host.asked - before == 2  # the invalid answer, then the repaired one


async def test_a_cursor_chain_and_a_persona_over_stdio(client: tuple[Client, ScriptedHost]) -> None:
    session, host = client
    first = await session.call_tool("generate", {"prompt": "hi", "previous_response_id": ""})
    body = json.loads(first.content[0].text)
    assert body["completion"] == "final: hi" and body["response_id"].startswith("cur_")
    chained = await session.call_tool(
        "chat_complete",
        {
            "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}],
            "previous_response_id": body["response_id"],
        },
    )
    assert chained.is_error and "expected cur_" in chained.content[0].text  # another tool's cursor
    before = host.asked
    judged = await session.call_tool(
        "generate", {"prompt": "hi", "persona": {"name": "j", "output_schema": PERSON}}
    )
    assert judged.is_error and "persona 'j'" in judged.content[0].text
    assert host.asked - before == 1  # asked, and its plain answer was not the persona's JSON


async def test_gemini_structured_output_and_a_cursor_over_stdio(client: tuple[Client, ScriptedHost]) -> None:
    from google.genai import types

    session, host = client
    before = host.asked
    result = await session.call_tool(
        "gemini_generate_content",
        {
            "contents": "Who?",
            "generation_config": {"response_mime_type": "application/json", "response_json_schema": PERSON},
            "repair_attempts": 1,
            "previous_response_id": "",
        },
    )
    assert not result.is_error, result.content[0].text
    response = types.GenerateContentResponse.model_validate_json(result.content[0].text)
    assert response.text == '{"name": "Ada"}' and host.asked - before == 2
    assert response.response_id is not None and response.response_id.startswith("cur_")
