"""Spec section 4: tool definitions forwarded, tool calls in results, tool results
going back in, so an agent loop runs for many turns, on both eras, through the SDK Client."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.writing import Call, Said, ToolTurn
from agent_as_model.adapters.tools.names import host_name
from tests.agent_loop import next_request, tool_answer
from tests.helpers import writing_of
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
SEED_TOOL = {"name": "get_weather", "description": "Weather for a city.", "input_schema": SCHEMA}
# The tools whose product writes tool-call turns and takes tool definitions: every one of them
# runs the agent loop, from the registry.
LOOP_TOOLS = [
    name
    for name, dialect in DIALECTS.items()
    if dialect.writing is not None and dialect.writing.tool_turns and dialect.tools is not None
]


def native_tool(tool: str) -> Any:
    """get_weather in the product's own shape, as its ToolShape writes it for export-tools."""
    shape = DIALECTS[tool].tools
    assert shape is not None
    written = shape.write_tool("get_weather", "Weather for a city.", SCHEMA)
    return written if shape.group is None else shape.group([written])[0]


def loop_request(tool: str, question: str, tools: list[Any]) -> dict[str, Any]:
    """The first request of an agent loop in the tool's own shape, written by its dialect's
    writing, with cursors on (so its reader reads the result)."""
    return {
        **writing_of(tool).write([Said("user", question)], None),
        "tools": tools,
        "previous_response_id": "",
    }


def loop_next(tool: str, question: str, tools: list[Any], result: Any, tool_output: str) -> dict[str, Any]:
    """What an agent loop does with a tool-calling result: pass the assistant's turn back in the
    dialect's own shape with the tool's output, and the cursor."""
    read = writing_of(tool).read(result.content[0].text, result.structured_content)
    envelope = json.loads(read.completion)
    calls = tuple(Call(c["id"], c["name"], c["input"]) for c in envelope["tool_calls"])
    turn = ToolTurn(envelope["text"], calls, tuple((c.id, tool_output) for c in calls))
    written = writing_of(tool).write([Said("user", question), turn], None)
    return {**written, "tools": tools, "previous_response_id": read.cursor}


def loop_text(tool: str, result: Any) -> str:
    return writing_of(tool).read(result.content[0].text, result.structured_content).completion


def first_request(tool: str, question: str, tools: list[Any]) -> dict[str, Any]:
    if tool == "responses_create":
        return {"input": [{"role": "user", "content": question}], "tools": tools}
    if tool == "gemini_generate_content":
        return {"contents": [{"role": "user", "parts": [{"text": question}]}], "tools": tools}
    return {"messages": [{"role": "user", "content": question}], "tools": tools}


def continue_loop(tool: str, request: dict[str, Any], result: Any, tool_output: str) -> dict[str, Any]:
    """What an agent loop does with a tool-calling result: append the assistant's turn in the
    dialect's own shape, run the tool, append its result."""
    return next_request(tool, request, result.content[0].text, tool_output)


@pytest.mark.parametrize("tool", LOOP_TOOLS)
@pytest.mark.parametrize("shape", ["seed", "native"])
async def test_three_turn_tool_loop(era: str, tool: str, shape: str) -> None:
    definition = SEED_TOOL if shape == "seed" else native_tool(tool)
    host = ScriptedHost(
        tool_answer("Let me check.", ("call_1", "get_weather", {"city": "Paris"})),
        "It is sunny in Paris.",
    )
    request = loop_request(tool, "Weather in Paris?", [definition])
    async with connect(era, host, tools=True) as client:
        first = await client.call_tool(tool, request)
        assert not first.is_error, first.content[0].text
        second_request = loop_next(tool, "Weather in Paris?", [definition], first, "sunny, 24C")
        second = await client.call_tool(tool, second_request)
    assert not second.is_error, second.content[0].text
    assert loop_text(tool, second) == "It is sunny in Paris."

    assert host.asked == 2
    asked_first = host.wire(0)
    assert asked_first["tools"] == [
        {"name": "get_weather", "description": "Weather for a city.", "inputSchema": SCHEMA}
    ]
    assert "toolChoice" not in asked_first  # none given: the host's default, auto
    assert host.wire(1)["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
            ],
        },
        {
            "role": "user",
            "content": {
                "type": "tool_result",
                "toolUseId": "call_1",
                "content": [{"type": "text", "text": "sunny, 24C"}],
            },
        },
    ]
    assert host.wire(1)["tools"] == asked_first["tools"]


async def test_text_tools_return_the_seed_envelope(era: str) -> None:
    host = ScriptedHost(
        tool_answer("", ("c1", "get_weather", {"city": "Oslo"}), ("c2", "get_weather", {"city": "Rome"}))
    )
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool("chat_complete", first_request("chat_complete", "q", [SEED_TOOL]))
    expected = {
        "text": "",
        "tool_calls": [
            {"id": "c1", "input": {"city": "Oslo"}, "name": "get_weather"},
            {"id": "c2", "input": {"city": "Rome"}, "name": "get_weather"},
        ],
    }
    assert result.content[0].text == json.dumps(expected, sort_keys=True)
    assert result.structured_content == expected


async def test_responses_gives_function_call_items_and_omits_an_empty_message(era: str) -> None:
    host = ScriptedHost(
        tool_answer("", ("call_9", "get_weather", {"city": "Oslo"})),
        tool_answer("Both:", ("a", "get_weather", {"city": "X"})),
    )
    async with connect(era, host, tools=True) as client:
        bare = await client.call_tool("responses_create", first_request("responses_create", "q", [SEED_TOOL]))
        with_text = await client.call_tool(
            "responses_create", first_request("responses_create", "q", [SEED_TOOL])
        )
    output = json.loads(bare.content[0].text)["output"]
    assert output == [
        {
            "type": "function_call",
            "id": "fc_call_9",
            "call_id": "call_9",
            "name": "get_weather",
            "arguments": '{"city": "Oslo"}',
            "status": "completed",
        }
    ]
    items = json.loads(with_text.content[0].text)["output"]
    assert [i["type"] for i in items] == ["message", "function_call"]
    assert items[0]["content"][0]["text"] == "Both:"


async def test_prose_that_looks_like_the_envelope_stays_prose(era: str) -> None:
    lookalike = json.dumps({"text": "x", "tool_calls": [{"id": "1", "input": {}, "name": "get_weather"}]})
    host = ScriptedHost(lookalike)
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool("chat_complete", first_request("chat_complete", "q", [SEED_TOOL]))
    assert result.content[0].text == lookalike
    assert result.structured_content is None


async def test_names_the_host_cannot_take_are_mapped_there_and_back(era: str) -> None:
    odd = "weather.get now"
    mapped = host_name(odd)
    assert mapped != odd and mapped.startswith("weather_get_now_")
    host = ScriptedHost(tool_answer("", ("c1", mapped, {"city": "Lima"})), "done")
    tool = {"name": odd, "input_schema": SCHEMA}
    request = first_request("messages_create", "q", [tool])
    async with connect(era, host, tools=True) as client:
        first = await client.call_tool("messages_create", request)
        envelope = json.loads(first.content[0].text)
        assert envelope["tool_calls"][0]["name"] == odd
        second = await client.call_tool(
            "messages_create", continue_loop("messages_create", request, first, "cold")
        )
    assert second.content[0].text == "done"
    assert [t["name"] for t in host.wire(0)["tools"]] == [mapped]
    assert host.wire(1)["messages"][1]["content"]["name"] == mapped  # the history's call, mapped too


async def test_long_descriptions_are_shortened_for_the_host(era: str) -> None:
    tool = {"name": "t", "description": "word " * 400, "input_schema": SCHEMA}
    host = ScriptedHost("ok")
    async with connect(era, host, tools=True) as client:
        await client.call_tool("chat_complete", first_request("chat_complete", "q", [tool]))
    sent = host.wire()["tools"][0]["description"]
    assert len(sent) <= 1024 and sent.endswith("…")


@pytest.mark.parametrize(
    ("tool", "choice"),
    [
        ("chat_complete", {"type": "function", "function": {"name": "b"}}),
        ("messages_create", {"type": "tool", "name": "b"}),
        ("responses_create", {"type": "function", "name": "b"}),
    ],
)
async def test_a_named_choice_forwards_that_tool_alone_as_required(era: str, tool: str, choice: Any) -> None:
    tools = [{"name": n, "input_schema": SCHEMA} for n in ("a", "b", "c")]
    host = ScriptedHost(tool_answer("", ("c1", "b", {"city": "Oslo"})))
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(tool, {**first_request(tool, "q", tools), "tool_choice": choice})
    assert not result.is_error, result.content[0].text
    assert [t["name"] for t in host.wire()["tools"]] == ["b"]
    assert host.wire()["toolChoice"] == {"mode": "required"}


@pytest.mark.parametrize(
    ("tool", "choice", "mode"),
    [
        ("chat_complete", "required", "required"),
        ("chat_complete", "none", "none"),
        ("messages_create", {"type": "any"}, "required"),
        ("messages_create", {"type": "auto"}, "auto"),
        ("responses_create", "auto", "auto"),
    ],
)
async def test_choice_modes_are_forwarded(era: str, tool: str, choice: Any, mode: str) -> None:
    host = ScriptedHost("ok")
    async with connect(era, host, tools=True) as client:
        await client.call_tool(tool, {**first_request(tool, "q", [SEED_TOOL]), "tool_choice": choice})
    assert host.wire()["toolChoice"] == {"mode": mode}
    assert len(host.wire()["tools"]) == 1


async def test_without_sampling_tools_the_tools_are_dropped_with_a_warning(
    era: str, caplog: pytest.LogCaptureFixture
) -> None:
    host = ScriptedHost("plain answer")
    caplog.set_level(logging.WARNING, logger="agent_as_model")
    async with connect(era, host) as client:  # sampling declared, sampling.tools not
        result = await client.call_tool(
            "chat_complete", {**first_request("chat_complete", "q", [SEED_TOOL]), "tool_choice": "auto"}
        )
    assert result.content[0].text == "plain answer"
    assert "tools" not in host.wire() and "toolChoice" not in host.wire()
    assert any("sampling.tools" in r.getMessage() and "dropped" in r.getMessage() for r in caplog.records)
    # Never silently: the result says the tools did not travel, and why.
    meta = (result.meta or {})["agent-as-model/result"]
    assert meta["tools"]["forwarded"] is False and meta["tools"]["handling"] == "dropped"
    assert "sampling.tools" in meta["tools"]["reason"]


async def test_without_sampling_tools_earlier_tool_turns_travel_as_text(era: str) -> None:
    host = ScriptedHost("ok")
    request = {
        "messages": [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "42"},
        ]
    }
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", request)
    assert not result.is_error
    assert host.wire()["messages"][1:] == [
        {"role": "assistant", "content": {"type": "text", "text": '[tool call c1: f {"x": 1}]'}},
        {"role": "user", "content": {"type": "text", "text": "[tool result c1: 42]"}},
    ]


async def test_a_tool_call_without_tools_offered_is_a_host_violation(era: str) -> None:
    host = ScriptedHost(tool_answer("", ("c1", "rm_rf", {})), "next call works")
    async with connect(era, host, tools=True) as client:
        bad = await client.call_tool("chat_complete", first_request("chat_complete", "q", [SEED_TOOL]))
        after = await client.call_tool("generate", {"prompt": "x"})
    assert bad.is_error
    assert "rm_rf" in bad.content[0].text and "not offered" in bad.content[0].text
    assert bad.content[0].text.endswith("The host was asked; its answer was not used.")
    assert after.content[0].text == "next call works"


TOOL_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


@pytest.mark.parametrize(
    ("arguments", "path", "words"),
    [
        (
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "tool", "tool_call_id": "c1", "content": "r"},
                ]
            },
            "messages[1]",
            "must follow an assistant turn with tool calls",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]},
                ]
            },
            "messages[1]",
            "need their results",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]},
                    {"role": "tool", "tool_call_id": "other", "content": "r"},
                ]
            },
            "messages[2]",
            "did not call",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [TOOL_CALL, {**TOOL_CALL, "id": "c2"}],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": "r"},
                    {"role": "user", "content": "next"},
                ]
            },
            "messages[2]",
            "no tool result for call 'c2'",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]},
                    {"role": "tool", "tool_call_id": "c1", "content": "r"},
                    {"role": "tool", "tool_call_id": "c1", "content": "r"},
                ]
            },
            "messages[2]",
            "two tool results",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{**TOOL_CALL, "function": {"name": "f", "arguments": "{not json"}}],
                    },
                ]
            },
            "messages[1].tool_calls[0].function.arguments",
            "is not JSON text",
        ),
    ],
)
async def test_malformed_tool_sequences_are_caller_errors(
    era: str, arguments: Any, path: str, words: str
) -> None:
    host = ScriptedHost("unused", "next")
    async with connect(era, host, tools=True) as client:
        bad = await client.call_tool("chat_complete", arguments)
        after = await client.call_tool("generate", {"prompt": "x"})
    text = bad.content[0].text
    assert bad.is_error
    assert text.startswith(f"chat_complete: {path}: ") and words in text, text
    assert text.endswith("Nothing was sent to the host.")
    assert host.asked == 1 and after.content[0].text == "unused"


@pytest.mark.parametrize(
    ("tool", "arguments", "path", "words"),
    [
        (
            "messages_create",
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "a"},
                            {"type": "tool_result", "tool_use_id": "x", "content": "r"},
                        ],
                    }
                ]
            },
            "messages[0].content[1]",
            "must come before any text",
        ),
        (
            "messages_create",
            {
                "messages": [
                    {"role": "user", "content": [{"type": "tool_use", "id": "x", "name": "f", "input": {}}]}
                ]
            },
            "messages[0].content[0].type",
            "belongs in an assistant message",
        ),
        (
            "responses_create",
            {"input": [{"type": "function_call_output", "call_id": "x", "output": "r"}]},
            "input[0]",
            "must follow an assistant turn",
        ),
        (
            "responses_create",
            # Left out of what the host sees (another model's reasoning): nothing is left to answer.
            {"input": [{"type": "reasoning", "summary": []}]},
            "input",
            "needs at least one user or assistant item",
        ),
    ],
)
async def test_dialect_tool_shapes_are_checked(
    era: str, tool: str, arguments: Any, path: str, words: str
) -> None:
    host = ScriptedHost("unused")
    async with connect(era, host, tools=True) as client:
        bad = await client.call_tool(tool, arguments)
    assert (
        bad.is_error and bad.content[0].text.startswith(f"{tool}: {path}: ") and words in bad.content[0].text
    ), bad.content[0].text
    assert host.asked == 0


async def test_messages_text_after_tool_results_becomes_its_own_user_turn(era: str) -> None:
    host = ScriptedHost("ok")
    request = {
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "r"}],
                        "is_error": True,
                    },
                    {"type": "text", "text": "and then?"},
                ],
            },
        ],
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
    }
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool("messages_create", request)
    assert not result.is_error, result.content[0].text
    assert host.wire()["messages"][2:] == [
        {
            "role": "user",
            "content": {
                "type": "tool_result",
                "toolUseId": "t1",
                "content": [{"type": "text", "text": "r"}],
                "isError": True,
            },
        },
        {"role": "user", "content": {"type": "text", "text": "and then?"}},
    ]


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        ({"tools": [SEED_TOOL, SEED_TOOL]}, "tools[1].name"),
        ({"tools": [{"name": "", "input_schema": SCHEMA}]}, "tools[0].name"),
        ({"tools": [{"name": "f", "input_schema": {"type": "array"}}]}, "tools[0].input_schema"),
        (
            {"tools": [SEED_TOOL], "tool_choice": {"type": "function", "function": {"name": "nope"}}},
            "tool_choice",
        ),
    ],
)
async def test_tool_definitions_are_validated_before_anything_travels(
    era: str, arguments: Any, path: str
) -> None:
    host = ScriptedHost("unused")
    async with connect(era, host, tools=True) as client:
        bad = await client.call_tool(
            "chat_complete", {"messages": [{"role": "user", "content": "q"}], **arguments}
        )
    assert bad.is_error and bad.content[0].text.startswith(f"chat_complete: {path}"), bad.content[0].text
    assert bad.content[0].text.endswith("Nothing was sent to the host.")
    assert host.asked == 0
