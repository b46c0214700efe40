"""Spec section 14: the sampling parameters the host cannot be made to obey travel in the
sampling request's metadata under "agent-as-model/hints", by one name across products, the same
on both eras and on every round of a call; every accepted parameter not enforced is named in the
result's warnings (a call of several completions too); every hint a dialect takes has a fate; and
another model's reasoning passed back is left out of the cursor transcript as it is of the host's
conversation, so a chain verifies the same with it or without it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_as_model import cursors
from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.products.gemini import keys as gemini
from agent_as_model.neutral import HINTS_KEY
from agent_as_model.states.commit import RESULT_META, WARNINGS
from tests.agent_loop import tool_answer
from tests.scripted_host import ScriptedHost, connect, text_answer

pytestmark = pytest.mark.anyio

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def warnings_of(result: Any) -> list[str]:
    return list(((result.meta or {}).get(RESULT_META) or {}).get(WARNINGS, []))


# The same sampling parameters in each product's own words, and what the host is sent of them.
SAME = {
    "chat_complete": {"messages": [{"role": "user", "content": "q"}], "top_p": 0.5, "seed": 3},
    "responses_create": {"input": "q", "top_p": 0.5},
    "messages_create": {"messages": [{"role": "user", "content": "q"}], "top_p": 0.5, "top_k": 4},
    "gemini_generate_content": {
        "contents": "q",
        "generationConfig": {"topP": 0.5, "topK": 4, "seed": 3},
    },
}
SENT = {
    "chat_complete": {"seed": 3, "top_p": 0.5},
    "responses_create": {"top_p": 0.5},
    "messages_create": {"top_k": 4, "top_p": 0.5},
    "gemini_generate_content": {"seed": 3, "top_k": 4, "top_p": 0.5},
}


@pytest.mark.parametrize("tool", list(SAME))
async def test_the_same_parameter_travels_under_one_name_on_both_eras(tool: str) -> None:
    wires = []
    for era in ("legacy", "2026-07-28"):
        host = ScriptedHost("ok")
        async with connect(era, host) as client:
            result = await client.call_tool(tool, SAME[tool])
        assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
        wires.append(host.wire())
        named = [w.split(": ", 1)[0] for w in warnings_of(result)]
        assert len(named) == len(SENT[tool]) and all("top" in n or "seed" in n for n in named), named
    assert wires[0] == wires[1]  # the one payload, whichever era carries it
    assert wires[0]["metadata"] == {HINTS_KEY: SENT[tool]}


async def test_every_round_of_a_call_carries_the_same_hints(era: str) -> None:
    """A repair round is built from the same request: its payload carries the hints as round one's."""
    host = ScriptedHost(text_answer('{"city": 1}'), text_answer('{"city": "Oslo"}'))
    body = {
        "messages": [{"role": "user", "content": "Where?"}],
        "output_schema": CITY,
        "repair_attempts": 1,
        "top_p": 0.3,
        "reasoning_effort": "high",
    }
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", body)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    assert host.asked == 2
    sent = {HINTS_KEY: {"reasoning": {"effort": "high"}, "top_p": 0.3}}
    assert host.wire(0)["metadata"] == sent and host.wire(1)["metadata"] == sent
    assert [w.split(": ", 1)[0] for w in warnings_of(result)] == ["top_p", "reasoning_effort"]


async def test_a_call_without_hints_sends_no_metadata(era: str) -> None:
    host = ScriptedHost("ok")
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", {"messages": [{"role": "user", "content": "q"}]})
    assert "metadata" not in host.wire() and warnings_of(result) == []


async def test_reasoning_settings_of_one_call_merge_into_one_hint(era: str) -> None:
    host = ScriptedHost("ok")
    body = {
        "messages": [{"role": "user", "content": "q"}],
        "max_tokens": 2000,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "output_config": {"effort": "low"},
    }
    async with connect(era, host) as client:
        result = await client.call_tool("messages_create", body)
    assert host.wire()["metadata"] == {
        HINTS_KEY: {"reasoning": {"type": "enabled", "budget_tokens": 1024, "effort": "low"}}
    }
    named = [w.split(": ", 1)[0] for w in warnings_of(result)]
    assert named == ["thinking", "output_config.effort"]
    assert "no thinking block can come back" in warnings_of(result)[0]


async def test_several_completions_carry_the_warnings(era: str) -> None:
    host = ScriptedHost("one", "two")
    body = {"messages": [{"role": "user", "content": "q"}], "n": 2, "result": "object", "user": "u-1"}
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", body)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    assert len(json.loads(result.content[0].text)["choices"]) == 2  # type: ignore[union-attr]
    assert [w.split(": ", 1)[0] for w in warnings_of(result)] == ["user"]


def test_every_hint_a_dialect_takes_has_a_fate() -> None:
    for tool, dialect in DIALECTS.items():
        body = dialect.body
        for name in body.hints:
            assert name in body.fates, f"{tool}: the hint {name!r} has no fate (hints.py)"
        listed = dialect.INPUT_SCHEMA["properties"]
        for name in body.fates:
            head = name.split(".")[0]
            assert head in listed or name in gemini.CONFIG_HINTS, (
                f"{tool}: the fate of {name!r} names no parameter"
            )
    gemini_fates = DIALECTS["gemini_generate_content"].body.fates
    assert set(gemini.CONFIG_HINTS) <= set(gemini_fates), "a generationConfig hint has no fate"


# -- another model's reasoning and the cursor --------------------------------------------------------

THINKING = {"type": "thinking", "thinking": "The user wants Oslo.", "signature": "EqQBCkYIARgC"}
Q = {"role": "user", "content": "Weather in Oslo?"}


async def test_a_chain_verifies_the_same_with_the_reasoning_or_without(era: str) -> None:
    host = ScriptedHost(
        tool_answer("Checking.", ("toolu_1", "get_weather", {"city": "Oslo"})), "12 C.", "12 C."
    )
    tools = [{"name": "get_weather", "input_schema": CITY}]
    async with connect(era, host, tools=True) as client:
        first = await client.call_tool(
            "messages_create", {"messages": [Q], "tools": tools, "previous_response_id": ""}
        )
        envelope = json.loads(first.content[0].text)  # type: ignore[union-attr]
        said = [{"type": "text", "text": "Checking."}]
        said.append({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}})
        results = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "12"}],
        }
        plain = [Q, {"role": "assistant", "content": said}, results]
        reasoned = [Q, {"role": "assistant", "content": [THINKING, *said]}, results]
        chained = [
            await client.call_tool(
                "messages_create",
                {"messages": history, "tools": tools, "previous_response_id": envelope["response_id"]},
            )
            for history in (plain, reasoned)
        ]
    assert [c.is_error for c in chained] == [False, False], [c.content[0].text for c in chained]  # type: ignore[union-attr]
    ids = [json.loads(c.content[0].text)["response_id"] for c in chained]  # type: ignore[union-attr]
    assert ids[0] == ids[1]  # the thinking block is no part of the transcript
    assert warnings_of(chained[0]) == [] and len(warnings_of(chained[1])) == 1
    assert host.wire(1) == host.wire(2)  # nor of what the host saw
    transcript = [
        Q,
        cursors.assistant_entry("Checking.", []) | {"content": envelope["completion"]},
        cursors.tool_result_entry("toolu_1", "12"),
        cursors.entry("assistant", "12 C."),
    ]
    assert ids[0] == cursors.mint("agent-default", "messages_create", transcript)
