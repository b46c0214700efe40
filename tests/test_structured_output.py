"""Spec section 3: structured output with and without sampling.tools, its errors,
and repair rounds, on both eras, through the SDK Client."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp_types import CreateMessageResultWithTools, InputRequiredResult, TextContent

from agent_as_model.schemas import validator_for
from tests.agent_loop import tool_answer
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
    "required": ["name", "age"],
    "additionalProperties": False,
}
GOOD = {"name": "Ada", "age": 36}
SECRET = "s3cr3t-value"  # must never appear in an error message


def tool_use(
    value: Any, ident: str = "so_1", name: str = "structured_output"
) -> CreateMessageResultWithTools:
    return tool_answer("", (ident, name, value))


def with_schema(tool: str, how: str = "output_schema", schema: dict[str, Any] = SCHEMA) -> dict[str, Any]:
    base: dict[str, Any] = (
        {"input": "Who?"}
        if tool == "responses_create"
        else {"messages": [{"role": "user", "content": "Who?"}]}
    )
    if how == "output_schema":
        return {**base, "output_schema": schema}
    if how == "response_format":
        return {
            **base,
            "response_format": {"type": "json_schema", "json_schema": {"name": "p", "schema": schema}},
        }
    return {
        **base,
        "text": {"format": {"type": "json_schema", "name": "p", "schema": schema, "strict": True}},
    }


def completion_text(tool: str, result: Any) -> str:
    if tool == "responses_create":
        return json.loads(result.content[0].text)["output"][0]["content"][0]["text"]
    return result.content[0].text


CONTRACTS = [
    ("chat_complete", "output_schema"),
    ("chat_complete", "response_format"),
    ("messages_create", "output_schema"),
    ("responses_create", "output_schema"),
    ("responses_create", "text.format"),
]


@pytest.mark.parametrize(("tool", "how"), CONTRACTS)
async def test_with_sampling_tools_one_required_tool_carries_the_output(
    era: str, tool: str, how: str
) -> None:
    host = ScriptedHost(tool_use({"age": 36, "name": "Ada"}))
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(tool, with_schema(tool, how))
    assert not result.is_error, result.content[0].text
    assert completion_text(tool, result) == json.dumps(GOOD, sort_keys=True)
    if tool != "responses_create":
        assert result.structured_content == GOOD
    sent = host.wire()
    assert sent["toolChoice"] == {"mode": "required"}
    assert [(t["name"], t["inputSchema"]) for t in sent["tools"]] == [("structured_output", SCHEMA)]
    assert "systemPrompt" not in sent


@pytest.mark.parametrize(("tool", "how"), CONTRACTS)
async def test_without_sampling_tools_the_schema_goes_into_the_system_prompt(
    era: str, tool: str, how: str
) -> None:
    host = ScriptedHost('Sure:\n```json\n{"name": "Ada", "age": 36}\n```')
    async with connect(era, host) as client:
        result = await client.call_tool(tool, with_schema(tool, how))
    assert not result.is_error, result.content[0].text
    assert completion_text(tool, result) == json.dumps(GOOD, sort_keys=True)
    sent = host.wire()
    assert "tools" not in sent
    assert json.dumps(SCHEMA, sort_keys=True) in sent["systemPrompt"]


async def test_the_contract_follows_the_callers_system_prompt(era: str) -> None:
    host = ScriptedHost('{"name": "Ada", "age": 36}')
    arguments = {
        "messages": [{"role": "system", "content": "Be exact."}, {"role": "user", "content": "Who?"}]
    }
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", {**arguments, "output_schema": SCHEMA})
    assert result.content[0].text == json.dumps(GOOD, sort_keys=True)
    assert host.wire()["systemPrompt"].startswith("Be exact.\n\nAnswer with one JSON object")


async def test_json_object_asks_for_any_object(era: str) -> None:
    host = ScriptedHost('{"b": 1, "a": [true]}', "[1, 2]")
    async with connect(era, host) as client:
        good = await client.call_tool(
            "chat_complete",
            {"messages": [{"role": "user", "content": "q"}], "response_format": {"type": "json_object"}},
        )
        bad = await client.call_tool(
            "chat_complete",
            {"messages": [{"role": "user", "content": "q"}], "response_format": {"type": "json_object"}},
        )
    assert good.content[0].text == '{"a": [true], "b": 1}'
    assert (
        bad.is_error and "response_format: the host's answer is JSON but not an object" in bad.content[0].text
    )


async def test_response_format_text_asks_for_nothing(era: str) -> None:
    host = ScriptedHost("plain")
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(
            "chat_complete",
            {"messages": [{"role": "user", "content": "q"}], "response_format": {"type": "text"}},
        )
    assert result.content[0].text == "plain" and "tools" not in host.wire()


@pytest.mark.parametrize(
    ("tools", "answer", "words"),
    [
        (True, tool_use({"name": SECRET, "age": -1}), "violates the schema at JSON pointer '/age'"),
        (True, tool_use({"name": SECRET}), "violates the schema at JSON pointer '' (the root)"),
        (True, tool_use({"name": "x", "age": 1, "extra": SECRET}), "'' (the root): has a property"),
        (True, SECRET, "without calling the 'structured_output' tool"),
        (False, f"not json {SECRET}", "is not JSON (line 1 column 1"),
        (False, f'{{"name": "{SECRET}", "age": "{SECRET}"}}', "JSON pointer '/age'"),
        (False, f'["{SECRET}"]', "JSON but not an object (it is an array)"),
    ],
)
async def test_invalid_output_is_an_error_naming_the_pointer_never_the_output(
    era: str, tools: bool, answer: Any, words: str
) -> None:
    host = ScriptedHost(answer, "the next call works")
    async with connect(era, host, tools=tools) as client:
        bad = await client.call_tool("chat_complete", with_schema("chat_complete"))
        after = await client.call_tool("generate", {"prompt": "x"})
    text = bad.content[0].text
    assert bad.is_error
    assert text.startswith("chat_complete: output_schema: ") and words in text, text
    assert SECRET not in text
    assert text.endswith("The host was asked; its answer was not used.")
    assert after.content[0].text == "the next call works"


@pytest.mark.parametrize(
    ("arguments", "path", "words"),
    [
        ({"output_schema": {"type": "array"}}, "output_schema", "type"),
        (
            {"output_schema": {"type": "object", "properties": {"a": {"type": "integr"}}}},
            "output_schema.properties.a.type",
            "is not valid",
        ),
        ({"output_schema": "x"}, "output_schema", "expected"),
        (
            {"output_schema": SCHEMA, "tools": [{"name": "f", "input_schema": {"type": "object"}}]},
            "tools",
            "cannot be combined with output_schema",
        ),
        (
            {"output_schema": SCHEMA, "response_format": {"type": "json_object"}},
            "response_format",
            "and so does output_schema",
        ),
        ({"repair_attempts": 1}, "repair_attempts", "give output_schema or tools too"),
        ({"output_schema": SCHEMA, "repair_attempts": 99}, "repair_attempts", "between 0 and 5"),
        ({"output_schema": SCHEMA, "repair_attempts": "2"}, "repair_attempts", "expected an integer"),
        (
            {"response_format": {"type": "json_schema", "json_schema": {"name": "x"}}},
            "response_format.json_schema.schema",
            "required",
        ),
        (
            {"response_format": {"type": "xml"}},
            "response_format.type",
            "expected 'text', 'json_object' or 'json_schema'",
        ),
    ],
)
async def test_contract_errors_come_before_anything_is_sent(
    era: str, arguments: Any, path: str, words: str
) -> None:
    host = ScriptedHost("unused")
    async with connect(era, host, tools=True) as client:
        bad = await client.call_tool(
            "chat_complete", {"messages": [{"role": "user", "content": "q"}], **arguments}
        )
    text = bad.content[0].text
    assert bad.is_error and text.startswith(f"chat_complete: {path}: ") and words in text, text
    assert text.endswith("Nothing was sent to the host.")
    assert host.asked == 0


@pytest.mark.parametrize("tools", [True, False])
async def test_repair_asks_again_with_the_error_and_takes_a_valid_answer(era: str, tools: bool) -> None:
    if tools:
        answers: list[Any] = [tool_use({"name": "Ada", "age": "old"}), tool_use(GOOD, ident="so_2")]
    else:
        answers = ['{"name": "Ada"}', '{"name": "Ada", "age": 36}']
    host = ScriptedHost(*answers)
    async with connect(era, host, tools=tools) as client:
        result = await client.call_tool(
            "chat_complete", {**with_schema("chat_complete"), "repair_attempts": 2}
        )
    assert not result.is_error, result.content[0].text
    assert result.content[0].text == json.dumps(GOOD, sort_keys=True)
    assert host.asked == 2
    first, second = host.wire(0), host.wire(1)
    assert second["messages"][: len(first["messages"])] == first["messages"]
    said, fix = second["messages"][len(first["messages"]) :]
    assert said["role"] == "assistant" and fix["role"] == "user"
    if tools:
        assert said["content"][0]["type"] == "tool_use"
        result_block = fix["content"][0]
        assert result_block["type"] == "tool_result" and result_block["toolUseId"] == "so_1"
        assert result_block["isError"] is True
        assert "'/age'" in result_block["content"][0]["text"]
    else:
        assert (
            "'' (the root)" in fix["content"]["text"]
            and "missing required property" in fix["content"]["text"]
        )


async def test_repair_gives_up_after_its_attempts(era: str) -> None:
    host = ScriptedHost("nope", "still nope", "never asked")
    async with connect(era, host) as client:
        bad = await client.call_tool("chat_complete", {**with_schema("chat_complete"), "repair_attempts": 1})
    assert bad.is_error and "is not JSON" in bad.content[0].text
    assert host.asked == 2


async def test_without_repair_attempts_one_bad_answer_is_final(era: str) -> None:
    host = ScriptedHost("nope", "never asked")
    async with connect(era, host) as client:
        bad = await client.call_tool("chat_complete", with_schema("chat_complete"))
    assert bad.is_error and host.asked == 1


async def test_a_repair_is_one_more_round_bound_like_the_first_on_2026() -> None:
    """Driven by hand: round one asks, the retry's bad answer yields a second InputRequiredResult
    whose payload holds the repair, and the retry of that round completes the call."""
    host = ScriptedHost()
    async with connect("2026-07-28", host, tools=True) as client:
        session = client.session
        arguments = {**with_schema("chat_complete"), "repair_attempts": 1}

        async def call(**extra: Any) -> Any:
            return await session.call_tool("chat_complete", arguments, allow_input_required=True, **extra)

        first = await call()
        assert isinstance(first, InputRequiredResult)
        bad = tool_use({"name": "Ada"}).model_dump(by_alias=True, mode="json", exclude_none=True)
        second = await call(input_responses={"completion": bad}, request_state=first.request_state)
        assert isinstance(second, InputRequiredResult)
        repaired = second.input_requests["completion"].params
        assert len(repaired.messages) == 3 and repaired.messages[2].content_as_list[0].type == "tool_result"
        assert second.request_state != first.request_state

        # The second round's retry replays the first round's answer from the sealed state: with a
        # bad answer again the one repair is spent, and the call fails.
        still_bad = await call(input_responses={"completion": bad}, request_state=second.request_state)
        assert not isinstance(still_bad, InputRequiredResult) and still_bad.is_error
        good = tool_use(GOOD, ident="so_2").model_dump(by_alias=True, mode="json", exclude_none=True)
        done = await call(input_responses={"completion": good}, request_state=second.request_state)
    assert not isinstance(done, InputRequiredResult)
    assert not done.is_error, done.content[0].text
    assert json.loads(done.content[0].text) == GOOD
    assert host.asked == 0  # every answer here came by hand


def test_validators_are_compiled_once_per_schema() -> None:
    assert validator_for(SCHEMA) is validator_for(json.loads(json.dumps(SCHEMA)))
    assert validator_for(SCHEMA) is not validator_for({"type": "object"})


async def test_structured_output_travels_as_text_too_when_host_answers_with_prose_alongside(era: str) -> None:
    answer = CreateMessageResultWithTools(
        role="assistant",
        content=[TextContent(type="text", text="Here you go"), *tool_use(GOOD).content],  # type: ignore[list-item]
        model="m",
    )
    host = ScriptedHost(answer)
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool("responses_create", with_schema("responses_create"))
    output = json.loads(result.content[0].text)["output"]
    assert [item["type"] for item in output] == ["message"]
    assert output[0]["content"][0]["text"] == json.dumps(GOOD, sort_keys=True)
