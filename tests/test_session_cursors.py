"""Spec section 6: session cursors through the tools, on both eras.

Every expected cursor here is recomputed by the test itself from the documented rules
(docs/cursors.md), with hashlib and json, not with the server's own code.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from mcp_types import CreateMessageResultWithTools, InputRequiredResult, TextContent, ToolUseContent

from tests.scripted_host import ERAS, ScriptedHost, connect

pytestmark = pytest.mark.anyio


def cursor(tool: str, transcript: list[dict[str, str]], model: str = "agent-default") -> str:
    text = json.dumps(
        {"model": model, "tool": tool, "transcript": transcript}, sort_keys=True, separators=(",", ":")
    )
    return "cur_" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def u(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def a(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def envelope(text: str, calls: list[tuple[str, str, dict[str, Any]]]) -> str:
    return json.dumps(
        {"text": text, "tool_calls": [{"id": i, "input": x, "name": n} for i, n, x in calls]}, sort_keys=True
    )


async def test_a_chat_chain_continues_and_its_cursors_are_the_same_on_both_eras() -> None:
    seen = []
    for era in ERAS:
        host = ScriptedHost("Paris.", "Madrid.", "Rome.")
        async with connect(era, host) as client:
            first = await client.call_tool(
                "chat_complete", {"messages": [u("France?")], "previous_response_id": ""}
            )
            one = json.loads(first.content[0].text)
            assert one == {
                "completion": "Paris.",
                "response_id": cursor("chat_complete", [u("France?"), a("Paris.")]),
            }
            assert first.structured_content == one
            history = [{"role": "system", "content": "Be brief."}, u("France?"), a("Paris."), u("Spain?")]
            second = await client.call_tool(
                "chat_complete", {"messages": history, "previous_response_id": one["response_id"]}
            )
            assert second.is_error  # the system message was not in the first turn's history
            history = [u("France?"), a("Paris."), u("Spain?")]
            second = await client.call_tool(
                "chat_complete", {"messages": history, "previous_response_id": one["response_id"]}
            )
            two = json.loads(second.content[0].text)
            assert two["response_id"] == cursor("chat_complete", [*history, a("Madrid.")])
        seen.append((one["response_id"], two["response_id"]))
    assert seen[0] == seen[1]


@pytest.mark.parametrize(
    ("change", "history"),
    [
        ("an edited user turn", [u("Germany?"), a("Paris."), u("Spain?")]),
        ("an edited assistant turn", [u("France?"), a("Paris!"), u("Spain?")]),
        ("a dropped turn", [a("Paris."), u("Spain?")]),
        ("an added turn", [u("Hi"), u("France?"), a("Paris."), u("Spain?")]),
        ("reordered turns", [a("Paris."), u("France?"), u("Spain?")]),
    ],
)
async def test_a_changed_history_is_refused_naming_expected_and_received(
    era: str, change: str, history: list[dict[str, str]]
) -> None:
    received = cursor("chat_complete", [u("France?"), a("Paris.")])
    host = ScriptedHost("unused")
    async with connect(era, host) as client:
        bad = await client.call_tool("chat_complete", {"messages": history, "previous_response_id": received})
    text = bad.content[0].text
    assert bad.is_error, change
    cut = history[: max(i for i, e in enumerate(history) if e["role"] == "assistant") + 1]
    assert f"expected {cursor('chat_complete', cut)}" in text and f"received {received}" in text, text
    assert text.startswith("chat_complete: previous_response_id: ") and text.endswith(
        "Nothing was sent to the host."
    )
    assert host.asked == 0


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("chat_complete", {"messages": [u("France?"), a("Paris."), u("Spain?")], "model": "other"}),
        ("messages_create", {"messages": [u("France?"), a("Paris."), u("Spain?")]}),
    ],
)
async def test_another_model_or_tool_is_refused(era: str, tool: str, arguments: dict[str, Any]) -> None:
    received = cursor("chat_complete", [u("France?"), a("Paris.")])
    host = ScriptedHost("unused")
    async with connect(era, host) as client:
        bad = await client.call_tool(tool, {**arguments, "previous_response_id": received})
    assert bad.is_error and "does not match the history passed back" in bad.content[0].text
    assert host.asked == 0


async def test_a_truncated_history_with_its_turns_cursor_forks(era: str) -> None:
    host = ScriptedHost("B1", "B2")
    first_turn = cursor("chat_complete", [u("q1"), a("A1")])
    async with connect(era, host) as client:
        fork = await client.call_tool(
            "chat_complete",
            {"messages": [u("q1"), a("A1"), u("other q2")], "previous_response_id": first_turn},
        )
    assert json.loads(fork.content[0].text)["response_id"] == cursor(
        "chat_complete", [u("q1"), a("A1"), u("other q2"), a("B1")]
    )


@pytest.mark.parametrize(
    "value",
    [
        "cur_123",
        "cur_" + "A" * 64,
        "resp_" + "0" * 31 + "-",
        "chat_" + "0" * 64,
        " ",
        7,
        ["cur_"],
        "cur_" + "g" * 64,
    ],
)
async def test_malformed_cursors_are_refused(era: str, value: Any) -> None:
    host = ScriptedHost("unused")
    async with connect(era, host) as client:
        bad = await client.call_tool("chat_complete", {"messages": [u("q")], "previous_response_id": value})
    text = bad.content[0].text
    assert bad.is_error and text.startswith("chat_complete: previous_response_id: "), text
    assert host.asked == 0


@pytest.mark.parametrize(
    ("tool", "arguments", "transcript"),
    [
        (
            "messages_create",
            {
                "system": [{"type": "text", "text": "S1"}, {"type": "text", "text": "S2"}],
                "messages": [u("q")],
            },
            [{"role": "system", "content": "S1\nS2"}, u("q")],
        ),
        (
            "responses_create",
            {
                "instructions": "I",
                "input": [
                    {"role": "developer", "content": "D"},
                    {
                        "role": "user",
                        "content": [
                            {"type": "input_text", "text": "p1"},
                            {"type": "input_text", "text": "p2"},
                        ],
                    },
                ],
            },
            [{"role": "system", "content": "I"}, {"role": "developer", "content": "D"}, u("p1\np2")],
        ),
        ("responses_create", {"input": "just this"}, [u("just this")]),
        ("generate", {"prompt": "P"}, [u("P")]),
        (
            "chat_complete",
            {
                "messages": [
                    {"role": "developer", "content": "D"},
                    u("q"),
                    {"role": "system", "content": "S"},
                    u("r"),
                ]
            },
            [{"role": "developer", "content": "D"}, u("q"), {"role": "system", "content": "S"}, u("r")],
        ),
    ],
)
async def test_each_tool_mints_over_its_transcript(
    era: str, tool: str, arguments: dict[str, Any], transcript: list[dict[str, str]]
) -> None:
    host = ScriptedHost("ans")
    async with connect(era, host) as client:
        result = await client.call_tool(tool, {**arguments, "previous_response_id": ""})
    body = json.loads(result.content[0].text)
    minted = body["id"] if tool == "responses_create" else body["response_id"]
    assert minted == cursor(tool, [*transcript, a("ans")])
    if tool == "responses_create":
        assert body["output"][0]["content"][0]["text"] == "ans"
    else:
        assert body["completion"] == "ans"


async def test_generate_refuses_a_cur_cursor(era: str) -> None:
    host = ScriptedHost("unused")
    async with connect(era, host) as client:
        bad = await client.call_tool(
            "generate", {"prompt": "P", "previous_response_id": cursor("generate", [u("P"), a("x")])}
        )
    assert bad.is_error and "has no history channel" in bad.content[0].text and host.asked == 0


async def test_a_resp_id_anchors_a_new_chain(era: str) -> None:
    host = ScriptedHost("first", "second")
    async with connect(era, host) as client:
        plain = json.loads((await client.call_tool("responses_create", {"input": "q"})).content[0].text)
        assert plain["id"].startswith("resp_") and len(plain["id"]) == 37
        history = [u("q"), a("first"), u("more")]
        anchored = await client.call_tool(
            "responses_create", {"input": history, "previous_response_id": plain["id"]}
        )
    assert json.loads(anchored.content[0].text)["id"] == cursor("responses_create", [*history, a("second")])


def tool_call_answer() -> CreateMessageResultWithTools:
    return CreateMessageResultWithTools(
        role="assistant",
        content=[
            TextContent(type="text", text="Looking."),
            ToolUseContent(type="tool_use", id="c1", name="f", input={"k": "東京"}),
        ],
        model="m",
    )


async def test_tool_turns_chain_whichever_shape_is_passed_back(era: str) -> None:
    """A tool-calling turn of chat_complete continues with chat's tool shapes; the same turn in
    another shape gives the same entries (checked against the recomputed cursor)."""
    tools = [{"name": "f", "input_schema": {"type": "object"}}]
    host = ScriptedHost(tool_call_answer(), "done")
    async with connect(era, host, tools=True) as client:
        first = await client.call_tool(
            "chat_complete", {"messages": [u("go")], "tools": tools, "previous_response_id": ""}
        )
        body = json.loads(first.content[0].text)
        call_text = envelope("Looking.", [("c1", "f", {"k": "東京"})])
        assert body == {
            "completion": call_text,
            "response_id": cursor("chat_complete", [u("go"), a(call_text)]),
        }
        history = [
            u("go"),
            {
                "role": "assistant",
                "content": "Looking.",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{ "k" : "東京" }'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ]
        second = await client.call_tool(
            "chat_complete",
            {"messages": history, "tools": tools, "previous_response_id": body["response_id"]},
        )
    assert not second.is_error, second.content[0].text
    entries = [u("go"), a(call_text), {"role": "tool", "tool_call_id": "c1", "content": "sunny"}, a("done")]
    assert json.loads(second.content[0].text)["response_id"] == cursor("chat_complete", entries)


@pytest.mark.parametrize(
    ("tool", "turn"),
    [
        (
            "messages_create",
            [
                u("go"),
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Looking."},
                        {"type": "tool_use", "id": "c1", "name": "f", "input": {"k": "東京"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "sunny"}],
                },
            ],
        ),
        (
            "responses_create",
            [
                u("go"),
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Looking."}],
                },
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"k":"東京"}'},
                {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
            ],
        ),
    ],
)
async def test_equivalent_tool_turn_shapes_give_the_same_entries(
    era: str, tool: str, turn: list[Any]
) -> None:
    call_text = envelope("Looking.", [("c1", "f", {"k": "東京"})])
    previous = cursor(tool, [u("go"), a(call_text)])
    field = "input" if tool == "responses_create" else "messages"
    host = ScriptedHost("done")
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(
            tool,
            {
                field: turn,
                "tools": [{"name": "f", "input_schema": {"type": "object"}}],
                "previous_response_id": previous,
            },
        )
    assert not result.is_error, result.content[0].text
    body = json.loads(result.content[0].text)
    minted = body["id"] if tool == "responses_create" else body["response_id"]
    entries = [u("go"), a(call_text), {"role": "tool", "tool_call_id": "c1", "content": "sunny"}, a("done")]
    assert minted == cursor(tool, entries)


async def test_on_2026_a_bad_cursor_is_refused_before_round_one() -> None:
    host = ScriptedHost("unused")
    async with connect("2026-07-28", host) as client:
        result = await client.session.call_tool(
            "chat_complete",
            {
                "messages": [u("q"), a("x"), u("y")],
                "previous_response_id": cursor("chat_complete", [u("other"), a("x")]),
            },
            allow_input_required=True,
        )
    assert not isinstance(result, InputRequiredResult)
    assert result.is_error and "previous_response_id" in result.content[0].text
    assert host.asked == 0


async def test_structured_output_with_cursors_commits_to_the_json_text(era: str) -> None:
    host = ScriptedHost('{"b": 2, "a": 1}')
    async with connect(era, host) as client:
        result = await client.call_tool(
            "chat_complete",
            {"messages": [u("q")], "output_schema": {"type": "object"}, "previous_response_id": ""},
        )
    body = json.loads(result.content[0].text)
    assert body["completion"] == '{"a": 1, "b": 2}'
    assert body["response_id"] == cursor("chat_complete", [u("q"), a('{"a": 1, "b": 2}')])
