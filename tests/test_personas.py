"""Spec section 5: personas on the four completion tools, on both eras."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp_types import CreateMessageResultWithTools, ToolUseContent

from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

BASE: dict[str, dict[str, Any]] = {
    "chat_complete": {"messages": [{"role": "user", "content": "q"}]},
    "messages_create": {"messages": [{"role": "user", "content": "q"}]},
    "responses_create": {"input": "q"},
    "generate": {"prompt": "q"},
}
VERDICT = {
    "type": "object",
    "properties": {"verdict": {"enum": ["yes", "no"]}},
    "required": ["verdict"],
    "additionalProperties": False,
}
ANY = {"type": "object"}


def completion(tool: str, result: Any) -> str:
    text = result.content[0].text
    if tool == "responses_create":
        return json.loads(text)["output"][0]["content"][0]["text"]
    return text


async def call(
    era: str, tool: str, arguments: dict[str, Any], *answers: Any, tools: bool = False
) -> tuple[Any, ScriptedHost]:
    host = ScriptedHost(*(answers or ("unused",)))
    async with connect(era, host, tools=tools) as client:
        result = await client.call_tool(tool, arguments)
        after = await client.call_tool("list_models", {})
    assert not after.is_error  # the server keeps serving
    return result, host


@pytest.mark.parametrize("tool", list(BASE))
async def test_a_satisfied_persona_changes_nothing_the_host_sees(era: str, tool: str) -> None:
    persona = {"name": "judge", "input_schema": ANY, "output_schema": VERDICT}
    plain, plain_host = await call(era, tool, BASE[tool], '{"verdict": "yes"}')
    judged, judged_host = await call(era, tool, {**BASE[tool], "persona": persona}, '{"verdict": "yes"}')
    assert not judged.is_error, judged.content[0].text
    assert completion(tool, judged) == completion(tool, plain) == '{"verdict": "yes"}'
    assert judged_host.wire() == plain_host.wire()  # persona.output_schema never changes the request


@pytest.mark.parametrize("tool", list(BASE))
async def test_the_request_object_is_checked_before_anything_is_sent(era: str, tool: str) -> None:
    needs_temperature = {
        "type": "object",
        "properties": {"temperature": {"type": "number"}},
        "required": ["temperature"],
    }
    persona = {"name": "careful", "input_schema": needs_temperature}
    bad, host = await call(era, tool, {**BASE[tool], "persona": persona})
    text = bad.content[0].text
    assert bad.is_error
    assert text.startswith(f"{tool}: persona.input_schema: persona 'careful': ")
    assert "JSON pointer '/temperature'" in text and text.endswith("Nothing was sent to the host.")
    assert host.asked == 0
    good, host = await call(era, tool, {**BASE[tool], "persona": persona, "temperature": 0.5}, "fine")
    assert not good.is_error and host.asked == 1


REQUEST_OBJECTS = {
    "chat_complete": {
        "messages": [{"role": "user", "content": "q"}],
        "model": "agent-default",
        "temperature": None,
        "max_tokens": 4096,
        "output_schema": None,
        "tools": None,
        "tool_choice": None,
        "previous_response_id": None,
    },
    "messages_create": {
        "messages": [{"role": "user", "content": "q"}],
        "system": None,
        "model": "agent-default",
        "temperature": None,
        "max_tokens": 4096,
        "output_schema": None,
        "tools": None,
        "tool_choice": None,
        "previous_response_id": None,
    },
    "responses_create": {
        "input": "q",
        "instructions": None,
        "model": "agent-default",
        "temperature": None,
        "max_tokens": 4096,
        "output_schema": None,
        "tools": None,
        "tool_choice": None,
        "previous_response_id": None,
    },
    "generate": {
        "prompt": "q",
        "model": "agent-default",
        "temperature": None,
        "max_tokens": 4096,
        "previous_response_id": None,
    },
}


def exactly(obj: dict[str, Any]) -> dict[str, Any]:
    """A schema that only this very object satisfies."""
    return {
        "type": "object",
        "properties": {key: {"const": value} for key, value in obj.items()},
        "required": list(obj),
        "additionalProperties": False,
    }


@pytest.mark.parametrize("tool", list(BASE))
async def test_the_request_object_is_the_parameters_with_defaults_minus_persona(era: str, tool: str) -> None:
    expected = REQUEST_OBJECTS[tool]
    ok, _ = await call(
        era, tool, {**BASE[tool], "persona": {"name": "p", "input_schema": exactly(expected)}}, "a"
    )
    assert not ok.is_error, ok.content[0].text
    if tool != "generate":
        # a native extra is in the request object only when the caller gave it
        stop = {
            "chat_complete": "stop",
            "messages_create": "stop_sequences",
            "responses_create": "max_output_tokens",
        }[tool]
        value = 5 if tool == "responses_create" else ["END"]
        extra = {"persona": {"name": "p", "input_schema": exactly({**expected, stop: value})}, stop: value}
        with_extra, _ = await call(era, tool, {**BASE[tool], **extra}, "a")
        assert not with_extra.is_error, with_extra.content[0].text


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ('{"verdict": "maybe"}', "JSON pointer '/verdict': "),
        ("yes", "is not JSON (line 1 column 1"),
        ('{"verdict": "yes", "why": "x"}', "JSON pointer '' (the root)"),
    ],
)
async def test_an_answer_that_breaks_the_output_schema_is_an_error_naming_the_persona(
    era: str, answer: str, words: str
) -> None:
    persona = {"name": "judge", "output_schema": VERDICT}
    bad, host = await call(era, "chat_complete", {**BASE["chat_complete"], "persona": persona}, answer)
    text = bad.content[0].text
    assert bad.is_error and text.startswith("chat_complete: persona.output_schema: persona 'judge': ")
    assert words in text, text
    assert text.endswith("The host was asked; its answer was not used.")
    assert host.asked == 1


async def test_a_fenced_json_answer_satisfies_the_output_schema(era: str) -> None:
    answer = 'Here:\n```json\n{"verdict": "no"}\n```'
    ok, _ = await call(
        era, "generate", {"prompt": "q", "persona": {"name": "j", "output_schema": VERDICT}}, answer
    )
    assert not ok.is_error and ok.content[0].text == answer  # the completion text is returned as it came


async def test_a_tool_calling_turn_is_not_the_personas_answer(era: str) -> None:
    call_answer = CreateMessageResultWithTools(
        role="assistant",
        content=[ToolUseContent(type="tool_use", id="c1", name="lookup", input={})],
        model="m",
    )
    arguments = {
        **BASE["chat_complete"],
        "tools": [{"name": "lookup", "input_schema": ANY}],
        "persona": {"name": "judge", "output_schema": VERDICT},
    }
    result, _ = await call(era, "chat_complete", arguments, call_answer, tools=True)
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text)["tool_calls"][0]["name"] == "lookup"


@pytest.mark.parametrize(
    ("persona", "path", "words"),
    [
        ({}, "persona.name", "expected a string"),
        ({"name": ""}, "persona.name", "must not be empty"),
        ({"name": "p", "input_schema": {"type": "array"}}, "persona.input_schema", "object"),
        ({"name": "p", "output_schema": "x"}, "persona.output_schema", "expected"),
        ({"name": "p", "colour": "red"}, "persona.colour", "unknown parameter"),
        ("judge", "persona", "expected an object"),
    ],
)
async def test_a_malformed_persona_is_refused_before_anything_is_sent(
    era: str, persona: Any, path: str, words: str
) -> None:
    bad, host = await call(era, "generate", {"prompt": "q", "persona": persona})
    text = bad.content[0].text
    assert bad.is_error and text.startswith(f"generate: {path}") and words in text, text
    if "schema" in path:
        assert "persona 'p': " in text  # a named persona's errors name it
    assert host.asked == 0


async def test_output_schema_and_persona_output_schema_cannot_be_combined(era: str) -> None:
    arguments = {
        **BASE["chat_complete"],
        "output_schema": VERDICT,
        "persona": {"name": "j", "output_schema": VERDICT},
    }
    bad, host = await call(era, "chat_complete", arguments)
    assert (
        bad.is_error
        and "persona.output_schema: persona 'j': cannot be combined with output_schema" in bad.content[0].text
    )
    assert host.asked == 0
