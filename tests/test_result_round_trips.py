"""An object returned with `result: "object"`, passed back as the next call's
history the way the SDKs do (`messages.append(completion.choices[0].message)`,
`messages.append({"role": "assistant", "content": message.content})`), continues the
conversation on both eras, its cursor (the object's `id`) included."""

from __future__ import annotations

import json
from typing import Any

import pytest
from anthropic.types import Message
from openai.types.chat import ChatCompletion

from tests.agent_loop import tool_answer
from tests.helpers import object_of, server_params
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CHAT_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}
ANTHROPIC_TOOL = {"name": "get_weather", "input_schema": SCHEMA}
Q = {"role": "user", "content": "Weather in Oslo?"}


# How a pydantic object is sent back: the SDKs serialise what they are given; a caller may also
# dump it whole (nulls included) or as set.
DUMPS = {
    "full": lambda model: model.model_dump(),
    "as set": lambda model: model.model_dump(exclude_unset=True),
    "json": lambda model: model.model_dump(mode="json", exclude_none=True),
}


@pytest.mark.parametrize("dump", sorted(DUMPS))
async def test_a_chat_completion_message_continues_the_chain(era: str, dump: str) -> None:
    host = ScriptedHost(
        tool_answer("Let me check.", ("call_1", "get_weather", {"city": "Oslo"})),
        "It is 12 C in Oslo.",
        "You are welcome.",
    )
    messages: list[Any] = [Q]
    body = {"tools": [CHAT_TOOL], "result": "object"}
    async with connect(era, host, tools=True) as client:
        first = ChatCompletion.model_validate(
            object_of(
                await client.call_tool(
                    "chat_complete", {**body, "messages": messages, "previous_response_id": ""}
                )
            )
        )
        assert first.id.startswith("cur_") and first.choices[0].finish_reason == "tool_calls"
        messages.append(DUMPS[dump](first.choices[0].message))
        messages.append({"role": "tool", "tool_call_id": "call_1", "content": "12 C"})
        second = ChatCompletion.model_validate(
            object_of(
                await client.call_tool(
                    "chat_complete", {**body, "messages": messages, "previous_response_id": first.id}
                )
            )
        )
        assert second.choices[0].message.content == "It is 12 C in Oslo."
        messages.append(DUMPS[dump](second.choices[0].message))
        messages.append({"role": "user", "content": "Thanks!"})
        third = object_of(
            await client.call_tool(
                "chat_complete", {**body, "messages": messages, "previous_response_id": second.id}
            )
        )
        # A cursor that does not match the history passed back fails loud, sending nothing.
        forged = await client.call_tool(
            "chat_complete", {**body, "messages": messages, "previous_response_id": first.id}
        )
    assert third["choices"][0]["message"]["content"] == "You are welcome."
    assert third["id"].startswith("cur_") and len({first.id, second.id, third["id"]}) == 3
    assert forged.is_error and "previous_response_id" in forged.content[0].text  # type: ignore[union-attr]
    assert host.asked == 3
    # The host saw the whole conversation, the tool turn in MCP's own blocks.
    sent = host.wire(1)["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert [b["type"] for b in sent[1]["content"]] == ["text", "tool_use"]
    assert sent[2]["content"]["type"] == "tool_result"


@pytest.mark.parametrize("dump", sorted(DUMPS))
async def test_a_message_content_continues_the_chain(era: str, dump: str) -> None:
    host = ScriptedHost(
        tool_answer("", ("toolu_1", "get_weather", {"city": "Oslo"})),
        "It is 12 C in Oslo.",
    )
    messages: list[Any] = [Q]
    body = {"tools": [ANTHROPIC_TOOL], "result": "object", "max_tokens": 100}
    async with connect(era, host, tools=True) as client:
        first = Message.model_validate(
            object_of(
                await client.call_tool(
                    "messages_create", {**body, "messages": messages, "previous_response_id": ""}
                )
            )
        )
        assert first.stop_reason == "tool_use" and [b.type for b in first.content] == ["tool_use"]
        messages.append({"role": "assistant", "content": [DUMPS[dump](block) for block in first.content]})
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "12 C"}],
            }
        )
        second = Message.model_validate(
            object_of(
                await client.call_tool(
                    "messages_create", {**body, "messages": messages, "previous_response_id": first.id}
                )
            )
        )
    assert second.content[0].text == "It is 12 C in Oslo."  # type: ignore[union-attr]
    assert second.id.startswith("cur_") and second.id != first.id
    assert host.asked == 2


async def test_structured_output_passed_back_continues_the_chain(era: str) -> None:
    host = ScriptedHost('{"city": "Oslo"}', '{"city": "Bergen"}')
    async with connect(era, host) as client:
        first = ChatCompletion.model_validate(
            object_of(
                await client.call_tool(
                    "chat_complete",
                    {
                        "messages": [Q],
                        "output_schema": SCHEMA,
                        "result": "object",
                        "previous_response_id": "",
                    },
                )
            )
        )
        messages = [Q, first.choices[0].message.model_dump(), {"role": "user", "content": "And the next?"}]
        second = object_of(
            await client.call_tool(
                "chat_complete",
                {
                    "messages": messages,
                    "output_schema": SCHEMA,
                    "result": "object",
                    "previous_response_id": first.id,
                },
            )
        )
    assert json.loads(second["choices"][0]["message"]["content"]) == {"city": "Bergen"}


async def test_an_object_chain_and_a_text_chain_mint_the_same_cursors(era: str) -> None:
    """The cursor commits to the conversation, not to the result's shape: the same exchange gives
    the same cursor whether the caller asked for text or for the object."""
    async with connect(era, ScriptedHost("Sunny.")) as client:
        as_text = json.loads(
            (await client.call_tool("messages_create", {"messages": [Q], "previous_response_id": ""}))
            .content[0]
            .text  # type: ignore[union-attr]
        )
        as_object = object_of(
            await client.call_tool(
                "messages_create", {"messages": [Q], "previous_response_id": "", "result": "object"}
            )
        )
    assert as_text["response_id"] == as_object["id"]


@pytest.mark.stdio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_over_stdio_an_object_passed_back_continues_the_chain(mode: str) -> None:
    from mcp import Client

    host = ScriptedHost(
        tool_answer("", ("call_1", "get_weather", {"city": "Oslo"})),
        "It is 12 C in Oslo.",
    )
    body = {"tools": [CHAT_TOOL], "result": "object"}
    async with Client(
        server_params(), mode=mode, sampling_callback=host, sampling_capabilities=_with_tools()
    ) as client:
        first = ChatCompletion.model_validate(
            object_of(
                await client.call_tool("chat_complete", {**body, "messages": [Q], "previous_response_id": ""})
            )
        )
        messages = [
            Q,
            first.choices[0].message.model_dump(),
            {"role": "tool", "tool_call_id": "call_1", "content": "12 C"},
        ]
        second = object_of(
            await client.call_tool(
                "chat_complete", {**body, "messages": messages, "previous_response_id": first.id}
            )
        )
        output_config = await client.call_tool(
            "messages_create",
            {
                "messages": [Q],
                "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
                "cache_control": {"type": "ephemeral"},
                "result": "object",
            },
        )
    assert second["choices"][0]["message"]["content"] == "It is 12 C in Oslo."
    assert second["id"].startswith("cur_") and second["id"] != first.id
    # Anthropic's structured output over stdio: the host answered the call's text ("It is 12 C
    # in Oslo." is not JSON), so the contract is enforced and the error names output_config.
    text = output_config.content[0].text  # type: ignore[union-attr]
    assert output_config.is_error and text.startswith("messages_create: output_config.format.schema: ")


def _with_tools() -> Any:
    from mcp_types import SamplingCapability, SamplingToolsCapability

    return SamplingCapability(tools=SamplingToolsCapability())
