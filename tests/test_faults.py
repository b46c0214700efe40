"""Every fault answered at once and truly, in-process on both eras through the SDK
Client (the stdio and HTTP sides are in test_faults_stdio.py and test_http_faults.py)."""

from __future__ import annotations

import json

import pytest

from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

NUMBER = {"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}
ASK = {"messages": [{"role": "user", "content": "n?"}]}


@pytest.mark.parametrize("written", ["NaN", "Infinity", "1e999", "-Infinity"])
async def test_a_text_answer_holding_a_number_json_cannot_carry_is_a_schema_violation(
    era: str, written: str
) -> None:
    host = ScriptedHost(f'{{"n": {written}}}')
    async with connect(era, host) as client:  # no sampling.tools: the schema goes in the prompt
        result = await client.call_tool("chat_complete", {**ASK, "output_schema": NUMBER})
    assert result.is_error
    text = result.content[0].text
    assert "output_schema: the host's answer violates the schema at JSON pointer '/n': holds " in text
    assert "which JSON cannot carry" in text
    assert result.structured_content is None


async def test_a_repair_round_may_fix_a_nan_and_the_text_then_equals_structured_content(era: str) -> None:
    host = ScriptedHost('{"n": NaN}', '{"n": 1.5}')
    async with connect(era, host) as client:
        result = await client.call_tool(
            "chat_complete", {**ASK, "output_schema": NUMBER, "repair_attempts": 1}
        )
    assert not result.is_error, result.content[0].text
    assert host.asked == 2
    repair = host.seen[1].messages[-1].content
    assert "holds NaN, which JSON cannot carry" in repair.text  # type: ignore[union-attr]
    assert json.loads(result.content[0].text) == result.structured_content == {"n": 1.5}


async def test_an_error_result_names_the_backend_once_one_was_chosen(era: str) -> None:
    host = ScriptedHost('{"n": "not a number"}')
    async with connect(era, host) as client:
        violated = await client.call_tool("chat_complete", {**ASK, "output_schema": NUMBER})
        rejected = await client.call_tool("chat_complete", {"messages": "not a list"})
    assert violated.is_error and violated.meta is not None
    assert violated.meta["agent-as-model/result"]["backend"] == "host"
    assert rejected.is_error  # refused while parsing: no backend was chosen yet
    assert "agent-as-model/result" not in (rejected.meta or {})


async def test_a_long_host_error_message_is_cut_with_a_mark() -> None:
    from mcp_types import ErrorData

    host = ScriptedHost(ErrorData(code=-1, message="y" * 1_000_000))
    async with connect("legacy", host) as client:
        result = await client.call_tool("generate", {"prompt": "q"})
    text = result.content[0].text
    assert "the host answered with error -1: " + "y" * 300 + "... [cut: 999700 more characters]" in text
    assert len(text) < 1000


async def test_a_host_error_using_the_unreadable_key_is_still_a_decline() -> None:
    # Only the transport may say an answer could not be read; a host writing the same words into
    # its own error's data declines as any host error does, and its text is bounded.
    from mcp_types import ErrorData

    for key in ("agent-as-model/unreadable-answer", "agent-as-model/unreadable-answer/0"):
        host = ScriptedHost(ErrorData(code=-1, message="no", data={key: "z" * 1_000_000}))
        async with connect("legacy", host) as client:
            result = await client.call_tool("generate", {"prompt": "q"})
        text = result.content[0].text
        assert result.is_error
        assert "sampling/createMessage: the host answered with error -1: no" in text
        assert "z" * 300 not in text


async def test_an_integer_of_exactly_the_digit_limit_is_written(era: str) -> None:
    from agent_as_model.arguments import not_json

    longest = 10**4300 - 1  # 4300 nines: Python writes it; one more digit it would not
    assert not_json(longest) is None
    assert not_json(longest + 1) == (
        (),
        "holds an integer longer than 4300 digits, which cannot be written as JSON",
    )
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    host = ScriptedHost(f'{{"n": {longest}}}')
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", {**ASK, "output_schema": schema})
    assert not result.is_error, result.content[0].text
    assert result.structured_content == {"n": longest}
