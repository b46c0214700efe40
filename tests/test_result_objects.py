"""`result: "object"` returns the product's own response object,
valid for the official SDK's type; its `model` is the model that answered (the alias asked for
stays in `_meta`); its `usage` is counted by the provider, by the host when its result says, or
estimated and marked so. Both eras, in-process, and once over real stdio with `serve --result`.
Every object any test makes is also validated by the SDK types (tests/sdk_truth.py)."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from anthropic.types import Message
from google.genai import types as genai_types
from mcp import Client
from mcp_types import CreateMessageResult, TextContent
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from agent_as_model.adapters.dialects.usage import estimate
from agent_as_model.limits import Limits
from agent_as_model.server import build_server
from tests.agent_loop import tool_answer
from tests.helpers import object_of, server_params
from tests.provider_harness import provider_server
from tests.scripted_host import ERAS, ScriptedHost, connect

pytestmark = pytest.mark.anyio

META = "agent-as-model/result"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CHAT_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}
ANTHROPIC_TOOL = {"name": "get_weather", "input_schema": SCHEMA}
Q = {"role": "user", "content": "Weather in Oslo?"}


def answer(text: str, model: str = "host-model-7", **meta: Any) -> CreateMessageResult:
    return CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text=text),
        model=model,
        stop_reason="endTurn",
        **({"_meta": meta} if meta else {}),
    )


def said(result: Any) -> dict[str, Any]:
    return dict(result.meta[META])


async def test_chat_object_is_a_chat_completion_with_the_answering_model(era: str) -> None:
    host = ScriptedHost(answer("Sunny."))
    async with connect(era, host) as client:
        result = await client.call_tool(
            "chat_complete", {"messages": [Q], "model": "my-alias", "result": "object"}
        )
    completion = ChatCompletion.model_validate(object_of(result))
    assert completion.object == "chat.completion" and completion.id.startswith("chatcmpl-")
    assert completion.model == "host-model-7"  # who answered, not the alias
    choice = completion.choices[0]
    assert (choice.index, choice.message.role, choice.message.content) == (0, "assistant", "Sunny.")
    assert choice.finish_reason == "stop" and choice.message.tool_calls is None
    meta = said(result)
    assert meta["requested_model"] == "my-alias" and meta["model"] == "host-model-7"
    # Nobody counted: the documented estimate, and said to be one.
    assert meta["usage"] == "estimated"
    assert completion.usage is not None
    assert completion.usage.prompt_tokens == 4  # "Weather in Oslo?": 16 characters, 4 a token
    assert completion.usage.completion_tokens == 2  # "Sunny.": 6 characters, rounded up
    assert completion.usage.total_tokens == 6
    assert host.asked == 1


async def test_chat_tool_calls_are_tool_calls_with_json_arguments(era: str) -> None:
    host = ScriptedHost(tool_answer("", ("call_1", "get_weather", {"city": "Oslo"})))
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(
            "chat_complete", {"messages": [Q], "tools": [CHAT_TOOL], "result": "object"}
        )
    completion = ChatCompletion.model_validate(object_of(result))
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    assert choice.message.tool_calls is not None
    (call,) = choice.message.tool_calls
    assert (call.id, call.type, call.function.name) == ("call_1", "function", "get_weather")  # type: ignore[union-attr]
    assert json.loads(call.function.arguments) == {"city": "Oslo"}  # type: ignore[union-attr]


async def test_chat_structured_output_is_the_message_content(era: str) -> None:
    host = ScriptedHost(answer('{"city": "Oslo"}'))
    async with connect(era, host) as client:
        result = await client.call_tool(
            "chat_complete", {"messages": [Q], "output_schema": SCHEMA, "result": "object"}
        )
    completion = ChatCompletion.model_validate(object_of(result))
    message = completion.choices[0].message
    assert message.content == '{"city": "Oslo"}' and message.tool_calls is None
    assert completion.choices[0].finish_reason == "stop"


async def test_messages_object_is_a_message(era: str) -> None:
    host = ScriptedHost(tool_answer("Checking.", ("toolu_1", "get_weather", {"city": "Oslo"})))
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(
            "messages_create", {"messages": [Q], "tools": [ANTHROPIC_TOOL], "result": "object"}
        )
    message = Message.model_validate(object_of(result))
    assert (message.type, message.role, message.model) == ("message", "assistant", "scripted-model")
    assert message.id.startswith("msg_") and message.stop_reason == "tool_use"
    assert message.stop_sequence is None
    text, call = message.content
    assert text.type == "text" and text.text == "Checking."
    assert call.type == "tool_use" and (call.id, call.name, call.input) == (
        "toolu_1",
        "get_weather",
        {"city": "Oslo"},
    )
    assert message.usage.input_tokens == 4 and message.usage.output_tokens > 0


async def test_messages_structured_output_is_one_text_block(era: str) -> None:
    host = ScriptedHost(answer('{"city": "Oslo"}'))
    async with connect(era, host) as client:
        result = await client.call_tool(
            "messages_create", {"messages": [Q], "output_schema": SCHEMA, "result": "object"}
        )
    message = Message.model_validate(object_of(result))
    assert [block.type for block in message.content] == ["text"]
    assert json.loads(message.content[0].text) == {"city": "Oslo"}  # type: ignore[union-attr]
    assert message.stop_reason == "end_turn"


@pytest.mark.parametrize("tool", ["chat_complete", "messages_create"])
async def test_text_stays_the_default_and_can_be_asked_for(era: str, tool: str) -> None:
    host = ScriptedHost("plain")
    async with connect(era, host) as client:
        default = await client.call_tool(tool, {"messages": [Q]})
        text = await client.call_tool(tool, {"messages": [Q], "result": "text"})
    for result in (default, text):
        assert result.content[0].text == "plain" and result.structured_content is None  # type: ignore[union-attr]


async def test_generate_has_no_object_shape_and_says_so(era: str) -> None:
    host = ScriptedHost("x")
    async with connect(era, host) as client:
        result = await client.call_tool("generate", {"prompt": "hi", "result": "object"})
        bad = await client.call_tool("chat_complete", {"messages": [Q], "result": "json"})
        fine = await client.call_tool("generate", {"prompt": "hi", "result": "text"})
    message = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and message.startswith("generate: result: 'object' is not available: generate has")
    assert "omit result or give 'text'" in message and message.endswith("Nothing was sent to the host.")
    bad_message = bad.content[0].text  # type: ignore[union-attr]
    assert bad.is_error and bad_message.startswith(
        "chat_complete: result: must be 'text' or 'object', got 'json'"
    )
    assert not fine.is_error and fine.content[0].text == "x"  # type: ignore[union-attr]
    assert host.asked == 1


async def test_with_a_cursor_the_object_id_is_the_cursor(era: str) -> None:
    host = ScriptedHost("Sunny.")
    async with connect(era, host) as client:
        chat = await client.call_tool(
            "chat_complete", {"messages": [Q], "result": "object", "previous_response_id": ""}
        )
        messages = await client.call_tool(
            "messages_create", {"messages": [Q], "result": "object", "previous_response_id": ""}
        )
    chat_id, message_id = object_of(chat)["id"], object_of(messages)["id"]
    assert chat_id.startswith("cur_") and message_id.startswith("cur_") and chat_id != message_id


async def test_the_server_default_is_serve_result(era: str) -> None:
    server = build_server(limits=Limits(result="object"))
    host = ScriptedHost("Sunny.")
    async with connect(era, host, server=server) as client:
        chat = await client.call_tool("chat_complete", {"messages": [Q]})
        text = await client.call_tool("chat_complete", {"messages": [Q], "result": "text"})
        prompt = await client.call_tool("generate", {"prompt": "hi"})
    assert ChatCompletion.model_validate(object_of(chat)).choices[0].message.content == "Sunny."
    assert text.content[0].text == "Sunny."  # type: ignore[union-attr]
    assert prompt.content[0].text == "Sunny." and not prompt.is_error  # type: ignore[union-attr]  # a prompt has no object


async def test_a_host_that_reports_its_counts_is_believed(era: str) -> None:
    host = ScriptedHost(answer("Sunny.", usage={"inputTokens": 120, "outputTokens": 33}))
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", {"messages": [Q], "result": "object"})
        gemini = await client.call_tool("gemini_generate_content", {"contents": "Weather in Oslo?"})
    usage = ChatCompletion.model_validate(object_of(result)).usage
    assert usage is not None and (usage.prompt_tokens, usage.completion_tokens) == (120, 33)
    assert said(result)["usage"] == "host"
    response = genai_types.GenerateContentResponse.model_validate(object_of(gemini))
    assert response.usage_metadata is not None
    assert response.usage_metadata.prompt_token_count == 120
    assert response.usage_metadata.candidates_token_count == 33
    assert response.usage_metadata.total_token_count == 153


async def test_counts_that_are_not_counts_are_not_believed(era: str) -> None:
    host = ScriptedHost(answer("Sunny.", usage={"inputTokens": -1, "outputTokens": "many"}))
    async with connect(era, host) as client:
        result = await client.call_tool("messages_create", {"messages": [Q], "result": "object"})
    assert said(result)["usage"] == "estimated"
    assert Message.model_validate(object_of(result)).usage.input_tokens == 4


@pytest.mark.parametrize(("provider", "counts"), [("openai", (9, 4)), ("anthropic", (1, 1))])
async def test_a_provider_counts_its_own_tokens(era: str, standin: Any, provider: str, counts: Any) -> None:
    server = provider_server(standin, provider, use="always")
    async with connect(era, ScriptedHost("host"), server=server) as client:
        result = await client.call_tool("messages_create", {"messages": [Q], "result": "object"})
    message = Message.model_validate(object_of(result))
    assert (message.usage.input_tokens, message.usage.output_tokens) == counts
    assert said(result)["usage"] == "provider"
    assert message.model == "stand-in-model" or message.model.startswith("model-")  # the provider's own name


async def test_responses_has_usage_and_echoes_what_was_sent(era: str) -> None:
    tool = {"type": "function", "name": "get_weather", "parameters": SCHEMA, "strict": True}
    text = {"format": {"type": "json_schema", "name": "w", "schema": SCHEMA, "strict": True}}
    host = ScriptedHost(answer('{"city": "Oslo"}'))
    async with connect(era, host) as client:
        result = await client.call_tool(
            "responses_create",
            {
                "input": "Weather?",
                "instructions": "Be brief.",
                "text": text,
                "temperature": 0.5,
                "max_output_tokens": 300,
                "model": "alias-1",
            },
        )
        with_tools = await client.call_tool(
            "responses_create",
            # "none": on this host without sampling.tools a demanding choice is refused.
            {"input": "Weather?", "tools": [tool], "tool_choice": "none", "parallel_tool_calls": False},
        )
    response = Response.model_validate(object_of(result))
    assert response.model == "host-model-7" and said(result)["requested_model"] == "alias-1"
    assert response.instructions == "Be brief." and response.temperature == 0.5
    assert response.max_output_tokens == 300
    assert object_of(result)["text"] == text  # exactly as sent
    assert (
        response.usage is not None and response.usage.input_tokens == 5
    )  # "Be brief." + "Weather?": 17 characters
    assert response.usage.total_tokens == response.usage.input_tokens + response.usage.output_tokens
    echoed = object_of(with_tools)
    assert echoed["tools"] == [tool]  # strict: true kept
    assert echoed["tool_choice"] == "none" and echoed["parallel_tool_calls"] is False


def test_the_estimate_rule() -> None:
    from agent_as_model.neutral import Completion, Request, Text, ToolResult, ToolUse, Turn

    request = Request(
        tool="chat_complete",
        system="abcd",  # 4
        turns=(
            Turn("user", (Text("abcdefgh"),)),  # 8
            Turn("assistant", (ToolUse("c", "f", {"a": 1}),)),  # "f" + '{"a": 1}': 9
            Turn("user", (ToolResult("c", "xyz"),)),  # 3
        ),
        model="m",
        max_tokens=10,
    )
    usage = estimate(request, Completion(text="hello", tool_calls=(ToolUse("d", "g", {}),)))
    assert usage == (6, 2, "estimated")  # ceil(24 / 4); ceil((5 + 1 + 2) / 4)


@pytest.mark.stdio
@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("how", ["flag", "environment"])
async def test_over_stdio_serve_result_object_makes_objects(mode: str, how: str) -> None:
    env = {**os.environ}
    args = ["serve", "--result", "object"] if how == "flag" else []
    if how == "environment":
        env["AGENT_AS_MODEL_RESULT"] = "object"
    host = ScriptedHost(answer("Sunny."))
    params = server_params(*args, env=env)
    async with Client(params, mode=mode, sampling_callback=host) as client:
        chat = await client.call_tool("chat_complete", {"messages": [Q]})
        messages = await client.call_tool("messages_create", {"messages": [Q], "result": "object"})
        text = await client.call_tool("messages_create", {"messages": [Q], "result": "text"})
    assert ChatCompletion.model_validate(object_of(chat)).model == "host-model-7"
    assert Message.model_validate(object_of(messages)).content[0].text == "Sunny."  # type: ignore[union-attr]
    assert text.content[0].text == "Sunny."  # type: ignore[union-attr]
