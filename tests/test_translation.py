"""Spec section 1.1: each tool's request becomes one sampling request, the same on both eras."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

HINT = {"hints": [{"name": "agent-default"}]}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": {"type": "text", "text": text}}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": text}}


async def call(
    era: str, tool: str, arguments: dict[str, Any], answer: str = "ok"
) -> tuple[Any, ScriptedHost]:
    host = ScriptedHost(answer)
    async with connect(era, host) as client:
        result = await client.call_tool(tool, arguments)
    return result, host


async def test_chat_folds_system_and_developer_in_order(era: str) -> None:
    result, host = await call(
        era,
        "chat_complete",
        {
            "messages": [
                {"role": "system", "content": "S1"},
                {"role": "user", "content": "u1"},
                {"role": "developer", "content": [{"type": "text", "text": "D1"}]},
                {"role": "assistant", "content": "a1"},
                {"role": "user", "content": [{"type": "text", "text": "p1"}, {"type": "text", "text": "p2"}]},
            ]
        },
        answer="the answer",
    )
    assert not result.is_error
    assert result.content[0].text == "the answer"
    assert result.structured_content is None
    assert host.asked == 1
    assert host.wire() == {
        "messages": [user("u1"), assistant("a1"), user("p1\np2")],
        "systemPrompt": "S1\n\nD1",
        "maxTokens": 4096,
        "modelPreferences": HINT,
    }


async def test_chat_passes_model_temperature_and_max_tokens(era: str) -> None:
    _, host = await call(
        era,
        "chat_complete",
        {
            "messages": [{"role": "user", "content": "x"}],
            "model": "gpt-x",
            "temperature": 0.5,
            "max_tokens": 77,
        },
    )
    assert host.wire() == {
        "messages": [user("x")],
        "maxTokens": 77,
        "temperature": 0.5,
        "modelPreferences": {"hints": [{"name": "gpt-x"}]},
    }


async def test_chat_accepts_and_ignores_the_name_field(era: str) -> None:
    result, host = await call(
        era, "chat_complete", {"messages": [{"role": "user", "content": "x", "name": "bob"}]}
    )
    assert not result.is_error
    assert host.wire()["messages"] == [user("x")]


async def test_messages_system_blocks_and_content_blocks_join_with_newline(era: str) -> None:
    result, host = await call(
        era,
        "messages_create",
        {
            "system": [{"type": "text", "text": "line one"}, {"type": "text", "text": "line two"}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                {"role": "assistant", "content": "c"},
                {"role": "user", "content": "d"},
            ],
            "temperature": 1,
            "max_tokens": 10,
        },
    )
    assert not result.is_error
    assert host.wire() == {
        "messages": [user("a\nb"), assistant("c"), user("d")],
        "systemPrompt": "line one\nline two",
        "maxTokens": 10,
        "temperature": 1.0,
        "modelPreferences": HINT,
    }


async def test_messages_system_string(era: str) -> None:
    _, host = await call(
        era, "messages_create", {"system": "S", "messages": [{"role": "user", "content": "q"}]}
    )
    assert host.wire()["systemPrompt"] == "S"


async def test_responses_string_input_is_one_user_message(era: str) -> None:
    result, host = await call(era, "responses_create", {"input": "hello", "model": "m-1"}, answer="hi there")
    assert host.wire() == {
        "messages": [user("hello")],
        "maxTokens": 4096,
        "modelPreferences": {"hints": [{"name": "m-1"}]},
    }
    body = json.loads(result.content[0].text)
    assert result.structured_content == body
    assert result.content[0].text == json.dumps(body, sort_keys=True)
    assert body["object"] == "response"
    assert body["model"] == "scripted-model"  # the model that answered
    assert result.meta is not None and result.meta["agent-as-model/result"]["requested_model"] == "m-1"
    assert body["status"] == "completed"
    assert body["id"].startswith("resp_") and len(body["id"]) == 5 + 32
    int(body["id"][5:], 16)
    assert len(body["output"]) == 1
    item = body["output"][0]
    assert item["type"] == "message" and item["role"] == "assistant"
    assert item["content"] == [{"type": "output_text", "text": "hi there", "annotations": []}]


async def test_responses_ids_are_unique(era: str) -> None:
    host = ScriptedHost("x")
    async with connect(era, host) as client:
        ids = {
            json.loads((await client.call_tool("responses_create", {"input": "q"})).content[0].text)["id"]
            for _ in range(3)
        }
    assert len(ids) == 3


async def test_responses_items_instructions_lead_and_both_text_keys(era: str) -> None:
    result, host = await call(
        era,
        "responses_create",
        {
            "instructions": "I",
            "input": [
                {"role": "system", "content": "S"},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "real api"}]},
                {"role": "developer", "content": [{"type": "input_text", "input_text": "D"}]},
                {"role": "assistant", "content": [{"type": "output_text", "text": "prev"}]},
                {
                    "role": "user",
                    "content": [{"type": "text", "input_text": "ref"}, {"type": "input_text", "text": "2"}],
                },
            ],
            "temperature": 0,
            "max_tokens": 5,
        },
    )
    assert not result.is_error
    assert host.wire() == {
        "messages": [user("real api"), assistant("prev"), user("ref\n2")],
        "systemPrompt": "I\n\nS\n\nD",
        "maxTokens": 5,
        "temperature": 0.0,
        "modelPreferences": HINT,
    }


async def test_generate_is_one_user_message_without_system(era: str) -> None:
    result, host = await call(era, "generate", {"prompt": "Say ü and 𝄞", "temperature": 1.5}, answer="𝄞 ü")
    assert result.content[0].text == "𝄞 ü"
    assert host.wire() == {
        "messages": [user("Say ü and 𝄞")],
        "maxTokens": 4096,
        "temperature": 1.5,
        "modelPreferences": HINT,
    }


async def test_list_models(era: str) -> None:
    async with connect(era) as client:
        result = await client.call_tool("list_models", {})
    assert not result.is_error
    models = json.loads(result.content[0].text)
    assert result.content[0].text == json.dumps(models, sort_keys=True)
    assert [m["id"] for m in models] == ["agent-default"]
    assert models[0]["owned_by"] == "host-agent"
    assert models[0]["description"]


async def test_several_host_text_blocks_join_with_newline(era: str) -> None:
    from mcp_types import CreateMessageResultWithTools, TextContent

    answer = CreateMessageResultWithTools(
        role="assistant",
        content=[TextContent(type="text", text="one"), TextContent(type="text", text="two")],
        model="m",
    )
    host = ScriptedHost(answer)
    async with connect(era, host) as client:
        result = await client.call_tool("generate", {"prompt": "x"})
    assert not result.is_error
    assert result.content[0].text == "one\ntwo"


async def test_empty_answer_is_an_empty_completion(era: str) -> None:
    result, _ = await call(era, "chat_complete", {"messages": [{"role": "user", "content": ""}]}, answer="")
    assert not result.is_error
    assert result.content[0].text == ""
