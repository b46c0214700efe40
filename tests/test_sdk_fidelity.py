"""Faithful to the products' own SDKs. Real `openai` and `anthropic` objects
(`model_validate` of realistic responses, then `model_dump()`) are passed back unchanged; the
Responses object validates as the SDK's `Response`; truncation and the stop reason are visible
in `_meta` in each product's words; the tool limits a caller sets are kept. Both eras."""

from __future__ import annotations

import json
from typing import Any

import anthropic.types as anthropic_types
import pytest
from google.genai import types as genai_types
from mcp_types import CreateMessageResult, TextContent
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from tests import sdk_truth
from tests.agent_loop import tool_answer
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

META = "agent-as-model/result"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CHAT_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}
ANTHROPIC_TOOL = {"name": "get_weather", "input_schema": SCHEMA}
RESPONSES_TOOL = {"type": "function", "name": "get_weather", "parameters": SCHEMA}
GEMINI_TOOL = {"functionDeclarations": [{"name": "get_weather", "parametersJsonSchema": SCHEMA}]}
TOOLS = {
    "chat_complete": CHAT_TOOL,
    "messages_create": ANTHROPIC_TOOL,
    "responses_create": RESPONSES_TOOL,
    "gemini_generate_content": GEMINI_TOOL,
}


def answer(text: str, stop: str | None = "endTurn", model: str = "host-model-7") -> CreateMessageResult:
    return CreateMessageResult(
        role="assistant", content=TextContent(type="text", text=text), model=model, stop_reason=stop
    )


def meta(result: Any) -> dict[str, Any]:
    """The product's words of the result metadata; who answered is checked here too."""
    assert result.meta is not None, result
    said = dict(result.meta[META])
    assert said.pop("backend") == "host", said
    # The alias asked for, and who counted the usage (a scripted host reports none).
    assert said.pop("requested_model") == "agent-default", said
    assert said.pop("usage") == "estimated", said
    return said


Q = {"role": "user", "content": "Weather in Oslo?"}
TEXT = {"type": "text", "text": "Checking.", "citations": None}


def last_blocks(host: ScriptedHost) -> list[Any]:
    content = host.wire()["messages"][-1]["content"]
    return content if isinstance(content, list) else [content]


# -- 1. round trips of the SDKs' own objects ----------------------------------------------------


CHAT_RESPONSE = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1764547200,
    "model": "gpt-4.1-2025-04-14",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "logprobs": None,
            "message": {
                "role": "assistant",
                "content": "Checking.",
                "refusal": None,
                "annotations": [],
                "tool_calls": [
                    {
                        "id": "call_abc",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                    }
                ],
            },
        }
    ],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
}


async def test_chat_message_dump_passes_back(era: str) -> None:
    message = ChatCompletion.model_validate(CHAT_RESPONSE).choices[0].message
    dumped = message.model_dump()
    assert {"annotations", "audio", "function_call", "refusal"} <= dumped.keys()  # the SDK's own dump
    body = {
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            dumped,
            {"role": "tool", "tool_call_id": "call_abc", "content": "12 C"},
        ],
        "tools": [CHAT_TOOL],
    }
    host = ScriptedHost("It is 12 C.")
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool("chat_complete", body)
    assert not result.is_error, result.content[0].text
    assert result.content[0].text == "It is 12 C."
    said = host.wire()["messages"][1]["content"]
    assert said[0] == {"type": "text", "text": "Checking."}
    assert said[1]["type"] == "tool_use" and said[1]["input"] == {"city": "Oslo"}


ANTHROPIC_MESSAGE = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "text", "text": "Checking.", "citations": None},
        {
            "type": "tool_use",
            "id": "toolu_01",
            "name": "get_weather",
            "input": {"city": "Oslo"},
            "caller": {"type": "direct"},
        },
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 5},
}


@pytest.mark.parametrize("caller", [{"type": "direct"}, None])
async def test_anthropic_content_dump_passes_back(era: str, caller: Any) -> None:
    message = anthropic_types.Message.model_validate(
        {
            **ANTHROPIC_MESSAGE,
            "content": [
                ANTHROPIC_MESSAGE["content"][0],
                {**ANTHROPIC_MESSAGE["content"][1], "caller": caller},
            ],
        }
    )
    result_block = anthropic_types.ToolResultBlockParam(
        type="tool_result", tool_use_id="toolu_01", content="12 C"
    )
    body = {
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            {"role": "assistant", "content": [block.model_dump() for block in message.content]},
            {"role": "user", "content": [dict(result_block)]},
        ],
        "tools": [ANTHROPIC_TOOL],
    }
    host = ScriptedHost("It is 12 C.")
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool("messages_create", body)
    assert not result.is_error, result.content[0].text
    said = host.wire()["messages"][1]["content"]
    assert said[1]["type"] == "tool_use" and said[1]["id"] == "toolu_01"


RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1764547200,
    "status": "completed",
    "model": "gpt-4.1",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [RESPONSES_TOOL],
    "output": [
        {
            "type": "message",
            "id": "msg_1",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Checking.", "annotations": [], "logprobs": []}],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Oslo"}',
            "status": "completed",
        },
    ],
}


async def test_responses_output_items_pass_back_as_input(era: str) -> None:
    output = [item.model_dump() for item in Response.model_validate(RESPONSE).output]
    assert "async_" in output[1] and "phase" in output[0]  # what the SDK's dump really holds
    body = {
        "input": [
            {"role": "user", "content": "Weather in Oslo?"},
            *output,
            {"type": "function_call_output", "call_id": "call_1", "output": "12 C"},
        ],
        "tools": [RESPONSES_TOOL],
    }
    host = ScriptedHost("It is 12 C.")
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool("responses_create", body)
    response = sdk_truth.response_of(result)
    assert response.output_text == "It is 12 C."
    assert host.wire()["messages"][1]["content"][1]["type"] == "tool_use"


async def test_our_own_response_output_passes_back_through_the_sdk(era: str) -> None:
    host = ScriptedHost(tool_answer("Checking.", ("call_9", "get_weather", {"city": "Oslo"})), "Done.")
    async with connect(era, host, tools=True) as client:
        body: dict[str, Any] = {"input": "Weather in Oslo?", "tools": [RESPONSES_TOOL]}
        first = sdk_truth.response_of(await client.call_tool("responses_create", body))
        body["input"] = [
            {"role": "user", "content": "Weather in Oslo?"},
            *[item.model_dump() for item in first.output],
            {"type": "function_call_output", "call_id": "call_9", "output": "12 C"},
        ]
        second = sdk_truth.response_of(await client.call_tool("responses_create", body))
    assert second.output_text == "Done."
    assert [t.name for t in first.tools] == ["get_weather"]


@pytest.mark.parametrize(
    ("tool", "body", "path", "words"),
    [
        (
            "chat_complete",
            {"messages": [{"role": "user", "content": "q"}], "functions": [{"name": "f"}]},
            "functions",
            "tools",
        ),
        (
            "chat_complete",
            {"messages": [{"role": "user", "content": "q"}], "function_call": "auto"},
            "function_call",
            "tool_choice",
        ),
        (
            "chat_complete",
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
                ]
            },
            "messages[1].function_call",
            "tool_calls",
        ),
        (
            "chat_complete",
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": "a", "audio": {"id": "audio_1"}},
                ]
            },
            "messages[1].audio",
            "transcript",
        ),
        (
            "chat_complete",
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": "a", "bogus": 1},
                ]
            },
            "messages[1].bogus",
            "unknown",
        ),
        (
            "messages_create",
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": "t",
                                "name": "f",
                                "input": {},
                                "caller": {"type": "code_execution_20250825", "tool_id": "x"},
                            }
                        ],
                    },
                ]
            },
            "messages[1].content[0].caller",
            "direct",
        ),
        (
            "responses_create",
            {
                "input": [
                    {
                        "type": "function_call",
                        "call_id": "c",
                        "name": "f",
                        "arguments": "{}",
                        "namespace": "ns",
                    }
                ]
            },
            "input[0].namespace",
            "namespaced",
        ),
    ],
)
async def test_values_that_cannot_be_honoured_say_why(
    era: str, tool: str, body: Any, path: str, words: str
) -> None:
    host = ScriptedHost("never")
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(tool, body)
        after = await client.call_tool("generate", {"prompt": "x"})
    assert result.is_error
    text = result.content[0].text
    assert text.startswith(f"{tool}: {path}: ") and words in text, text
    assert text.endswith("Nothing was sent to the host.")
    assert host.asked == 1 and after.content[0].text == "never"  # only the generate call


# The SDKs' own content types that cannot go on: each refused with the path and why, never with
# a bare "unsupported type". Real objects, validated by the SDK, then dumped as it dumps them.
THINKING = {"type": "thinking", "thinking": "The user wants Oslo.", "signature": "EqQBCkYIARgCKkD"}
REDACTED = {
    "type": "redacted_thinking",
    "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr",
}
SERVER_CALL = {
    "type": "server_tool_use",
    "id": "srvtoolu_01",
    "name": "web_search",
    "input": {"query": "weather in Oslo"},
    "caller": {"type": "direct"},
}
SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01",
    "content": [
        {
            "type": "web_search_result",
            "title": "Oslo weather",
            "url": "https://example.com/oslo",
            "encrypted_content": "Eo8BCioIAhgBIiQ",
            "page_age": None,
        }
    ],
    "caller": {"type": "direct"},
}
REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "Looking up Oslo."}],
    "encrypted_content": "gAAAAABo",
    "status": "completed",
}
REFUSAL = {
    "type": "message",
    "id": "msg_2",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "refusal", "refusal": "I can't help with that."}],
}


def anthropic_content(*blocks: dict[str, Any]) -> list[dict[str, Any]]:
    message = anthropic_types.Message.model_validate({**ANTHROPIC_MESSAGE, "content": list(blocks)})
    return [block.model_dump() for block in message.content]


def responses_output(*items: dict[str, Any]) -> list[dict[str, Any]]:
    return [item.model_dump() for item in Response.model_validate({**RESPONSE, "output": list(items)}).output]


@pytest.mark.parametrize(
    ("tool", "body", "path", "words"),
    [
        (
            "messages_create",
            lambda: {
                "messages": [
                    Q,
                    {"role": "assistant", "content": anthropic_content(SERVER_CALL, SEARCH_RESULT, TEXT)},
                ]
            },
            "messages[1].content[0]",
            "a server_tool_use block belongs to a server tool that ran on Anthropic's side",
        ),
        (
            "messages_create",
            lambda: {
                "messages": [Q, {"role": "assistant", "content": anthropic_content(TEXT, SEARCH_RESULT)}]
            },
            "messages[1].content[1]",
            "a web_search_tool_result block belongs to a server tool",
        ),
        (
            "messages_create",
            lambda: {"messages": [{"role": "user", "content": anthropic_content(THINKING)}]},
            "messages[0].content[0]",
            "a thinking block is the model's own reasoning and belongs in an assistant message",
        ),
        (
            "responses_create",
            lambda: {"input": ["q_item", *responses_output(REFUSAL)]},
            "input[1].content[0]",
            "a refusal part cannot be passed back as such: put its text in an output_text part",
        ),
    ],
    ids=["server_tool_use", "server_tool_result", "thinking_in_a_user_message", "refusal"],
)
async def test_sdk_content_that_cannot_go_on_says_why(
    era: str, tool: str, body: Any, path: str, words: str
) -> None:
    arguments = body()
    if tool == "responses_create":
        arguments["input"][0] = {"role": "user", "content": "Weather in Oslo?"}
    host = ScriptedHost("never")
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error
    text = result.content[0].text
    assert text.startswith(f"{tool}: {path}: {words}"), text
    assert text.endswith("Nothing was sent to the host.") and host.asked == 0


# Another model's reasoning passed back as the SDKs dump it: left out of what the host sees, the
# result's warnings naming each, the rest of the turn sent (spec section 14).
@pytest.mark.parametrize(
    ("tool", "body", "paths", "sent"),
    [
        (
            "messages_create",
            lambda: {"messages": [Q, {"role": "assistant", "content": anthropic_content(THINKING, TEXT)}, Q]},
            ["messages[1].content[0]"],
            {"role": "assistant", "content": {"type": "text", "text": "Checking."}},
        ),
        (
            "messages_create",
            lambda: {
                "messages": [
                    Q,
                    {"role": "assistant", "content": anthropic_content(TEXT, REDACTED, THINKING)},
                    Q,
                ]
            },
            ["messages[1].content[1]", "messages[1].content[2]"],
            {"role": "assistant", "content": {"type": "text", "text": "Checking."}},
        ),
        (
            "responses_create",
            lambda: {"input": ["q_item", *responses_output(REASONING, RESPONSE["output"][0]), Q]},
            ["input[1]"],
            {"role": "assistant", "content": {"type": "text", "text": "Checking."}},
        ),
    ],
    ids=["thinking", "redacted_thinking", "reasoning"],
)
async def test_another_models_reasoning_is_left_out_and_named(
    era: str, tool: str, body: Any, paths: list[str], sent: dict[str, Any]
) -> None:
    arguments = body()
    if tool == "responses_create":
        arguments["input"][0] = {"role": "user", "content": "Weather in Oslo?"}
    host = ScriptedHost("It is 12 C.")
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    assert [m for m in host.wire()["messages"] if m["role"] == "assistant"] == [sent]
    assert "Oslo." not in json.dumps(host.wire())  # the reasoning's own text never reaches the host
    warnings = result.meta[META]["warnings"]
    assert [w.split(": ", 1)[0] for w in warnings] == paths, warnings
    assert all("left out of what the answering model sees" in w for w in warnings)


# -- 2. the Responses object validates ---------------------------------------------------------


async def test_every_responses_object_of_this_test_run_was_validated(era: str) -> None:
    before = len(sdk_truth.checked)
    host = ScriptedHost(answer("plain"))
    async with connect(era, host) as client:
        result = await client.call_tool("responses_create", {"input": "q", "previous_response_id": ""})
    response = sdk_truth.response_of(result)
    assert len(sdk_truth.checked) == before + 1 and sdk_truth.checked[-1] == response.id
    assert response.output_text == "plain" and response.id.startswith("cur_")


async def test_structured_response_validates_with_output_text(era: str) -> None:
    host = ScriptedHost(answer('{"city": "Oslo"}'))
    async with connect(era, host) as client:
        result = await client.call_tool("responses_create", {"input": "q", "output_schema": SCHEMA})
    response = sdk_truth.response_of(result)
    assert json.loads(response.output_text) == {"city": "Oslo"}
    assert response.tool_choice == "auto" and response.parallel_tool_calls is True and response.tools == []


def test_an_invalid_response_object_is_caught() -> None:
    with pytest.raises(Exception, match="created_at"):
        sdk_truth.validate({"id": "resp_x", "object": "response", "model": "m", "output": []})


# -- 3. truncation and the stop reason in _meta ------------------------------------------------


BODIES = {
    "chat_complete": {"messages": [{"role": "user", "content": "q"}]},
    "messages_create": {"messages": [{"role": "user", "content": "q"}]},
    "responses_create": {"input": "q"},
    "gemini_generate_content": {"contents": "q"},
    "generate": {"prompt": "q"},
}
UNKNOWN = "refusal"  # a stopReason MCP leaves open (its type is an open string)
WORDS = {
    # tool: (key, {MCP stopReason: the product's word})
    "chat_complete": (
        "finish_reason",
        {"endTurn": "stop", "stopSequence": "stop", "maxTokens": "length", None: "stop", UNKNOWN: "stop"},
    ),
    "generate": (
        "finish_reason",
        {"endTurn": "stop", "stopSequence": "stop", "maxTokens": "length", None: "stop", UNKNOWN: "stop"},
    ),
    "messages_create": (
        "stop_reason",
        {
            "endTurn": "end_turn",
            "stopSequence": "stop_sequence",
            "maxTokens": "max_tokens",
            None: "end_turn",
            UNKNOWN: "end_turn",
        },
    ),
    # Gemini has a word of its own for a reason it does not name: OTHER.
    "gemini_generate_content": (
        "finishReason",
        {
            "endTurn": "STOP",
            "stopSequence": "STOP",
            "maxTokens": "MAX_TOKENS",
            None: "STOP",
            UNKNOWN: "OTHER",
        },
    ),
}


def said_text(tool: str, result: Any) -> tuple[str, str | None]:
    """The completion text of a result, and the stop reason its object says (None: it says none).
    A Gemini object's finishReason must be the word its `_meta` says."""
    if tool != "gemini_generate_content":
        return result.content[0].text, None
    response = genai_types.GenerateContentResponse.model_validate(result.structured_content)
    candidate = response.candidates[0]  # type: ignore[index]
    return response.text or "", candidate.finish_reason.value  # type: ignore[union-attr]


@pytest.mark.parametrize("tool", ["chat_complete", "messages_create", "gemini_generate_content", "generate"])
@pytest.mark.parametrize("stop", ["endTurn", "stopSequence", "maxTokens", None, UNKNOWN])
async def test_text_results_say_the_stop_reason_and_model_in_meta(
    era: str, tool: str, stop: str | None
) -> None:
    host = ScriptedHost(answer("cut tex", stop))
    async with connect(era, host) as client:
        result = await client.call_tool(tool, BODIES[tool])
    text, in_object = said_text(tool, result)
    assert text == "cut tex"  # the spec's text result (or the product's object) is unchanged
    key, words = WORDS[tool]
    assert meta(result) == {"model": "host-model-7", key: words[stop]}
    assert in_object in (None, words[stop])


TOOL_USE_META = {
    "chat_complete": {"model": "scripted-model", "finish_reason": "tool_calls"},
    "messages_create": {"model": "scripted-model", "stop_reason": "tool_use"},
    "gemini_generate_content": {"model": "scripted-model", "finishReason": "STOP"},
}


@pytest.mark.parametrize("tool", list(TOOL_USE_META))
@pytest.mark.parametrize("stop", ["toolUse", "maxTokens"])
async def test_tool_calls_say_tool_use_in_meta(era: str, tool: str, stop: str) -> None:
    """Tool calls the interpretation accepted are whole, also when the host says it hit the limit:
    the stop is a tool-use stop, in `_meta` and in Gemini's object alike."""
    called = tool_answer("", ("c1", "get_weather", {"city": "Oslo"})).model_copy(update={"stop_reason": stop})
    host = ScriptedHost(called)
    body = {**BODIES[tool], "tools": [TOOLS[tool]]}
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(tool, body)
    assert not result.is_error, result.content[0].text
    assert meta(result) == TOOL_USE_META[tool]
    if tool == "gemini_generate_content":
        assert result.structured_content["candidates"][0]["finishReason"] == "STOP"


async def test_responses_cut_at_the_limit_is_incomplete(era: str) -> None:
    host = ScriptedHost(answer("cut tex", "maxTokens"), answer("whole", "endTurn"))
    async with connect(era, host) as client:
        cut = await client.call_tool("responses_create", {"input": "q", "max_output_tokens": 3})
        whole = await client.call_tool("responses_create", {"input": "q"})
    response = sdk_truth.response_of(cut)
    assert response.status == "incomplete"
    assert (
        response.incomplete_details is not None and response.incomplete_details.reason == "max_output_tokens"
    )
    assert response.output_text == "cut tex"
    assert meta(cut) == {
        "model": "host-model-7",
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
    }
    assert sdk_truth.response_of(whole).status == "completed" and meta(whole)["status"] == "completed"


# The limit is named as the caller wrote it: its product's own name, at its own path.
CUT_LIMITS = {
    "chat_complete": ({"max_completion_tokens": 5}, "max_completion_tokens 5"),
    "messages_create": ({"max_tokens": 5}, "max_tokens 5"),
    "responses_create": ({"max_output_tokens": 5}, "max_output_tokens 5"),
    "gemini_generate_content": (
        {"generationConfig": {"maxOutputTokens": 5}},
        "generationConfig.maxOutputTokens 5",
    ),
}


@pytest.mark.parametrize("tools", [False, True])
@pytest.mark.parametrize("tool", list(CUT_LIMITS))
async def test_structured_output_cut_at_the_limit_says_so(era: str, tools: bool, tool: str) -> None:
    if tools:
        cut: Any = tool_answer("", ("s1", "structured_output", {}))
        cut = cut.model_copy(update={"stop_reason": "maxTokens"})
    else:
        cut = answer('{"city": "Os', "maxTokens")
    host = ScriptedHost(cut)
    limit, named = CUT_LIMITS[tool]
    async with connect(era, host, tools=tools) as client:
        result = await client.call_tool(tool, {**BODIES[tool], "output_schema": SCHEMA, **limit})
    assert result.is_error
    text = result.content[0].text
    assert f"cut at the token limit ({named}, stopReason maxTokens)" in text and "violates" not in text, text
    assert text.endswith("The host was asked; its answer was not used.")


# -- 4. the limits callers set are kept --------------------------------------------------------


TWO_CALLS = tool_answer("", ("c1", "get_weather", {"city": "Oslo"}), ("c2", "get_weather", {"city": "Rome"}))
ONE_CALL = tool_answer("", ("c1", "get_weather", {"city": "Oslo"}))


@pytest.mark.parametrize(
    ("tool", "extra", "host_answer", "path", "words"),
    [
        ("chat_complete", {"tool_choice": "none"}, ONE_CALL, "tool_choice", "is 'none'"),
        ("messages_create", {"tool_choice": {"type": "none"}}, ONE_CALL, "tool_choice", "is 'none'"),
        ("responses_create", {"tool_choice": "none"}, ONE_CALL, "tool_choice", "is 'none'"),
        ("chat_complete", {"tool_choice": "required"}, "just text", "tool_choice", "without one"),
        ("messages_create", {"tool_choice": {"type": "any"}}, "just text", "tool_choice", "without one"),
        (
            "responses_create",
            {"tool_choice": {"type": "function", "name": "get_weather"}},
            "just text",
            "tool_choice",
            "tool 'get_weather'",
        ),
        ("chat_complete", {"parallel_tool_calls": False}, TWO_CALLS, "parallel_tool_calls", "made 2"),
        ("responses_create", {"parallel_tool_calls": False}, TWO_CALLS, "parallel_tool_calls", "made 2"),
        (
            "messages_create",
            {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}},
            TWO_CALLS,
            "tool_choice.disable_parallel_tool_use",
            "made 2",
        ),
    ],
)
async def test_an_answer_that_breaks_the_callers_limits_is_a_host_violation(
    era: str, tool: str, extra: dict[str, Any], host_answer: Any, path: str, words: str
) -> None:
    host = ScriptedHost(host_answer, "next call works")
    body = {**BODIES[tool], "tools": [TOOLS[tool]], **extra}
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(tool, body)
        after = await client.call_tool("generate", {"prompt": "x"})
    assert result.is_error
    text = result.content[0].text
    assert text.startswith(f"{tool}: {path}: ") and words in text, text
    assert text.endswith("The host was asked; its answer was not used.")
    assert after.content[0].text == "next call works"


@pytest.mark.parametrize(
    ("tool", "extra"),
    [
        ("chat_complete", {"parallel_tool_calls": False}),
        ("messages_create", {"tool_choice": {"type": "any", "disable_parallel_tool_use": True}}),
        ("responses_create", {"parallel_tool_calls": False, "tool_choice": "required"}),
    ],
)
async def test_an_answer_within_the_limits_is_returned(era: str, tool: str, extra: dict[str, Any]) -> None:
    host = ScriptedHost(ONE_CALL)
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(tool, {**BODIES[tool], "tools": [TOOLS[tool]], **extra})
    assert not result.is_error, result.content[0].text
    if tool == "responses_create":
        response = sdk_truth.response_of(result)
        assert response.parallel_tool_calls is False and response.tool_choice == "required"
        assert [item.type for item in response.output] == ["function_call"]
    else:
        assert json.loads(result.content[0].text)["tool_calls"][0]["id"] == "c1"
