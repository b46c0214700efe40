"""Tool use on hosts that sample without `sampling.tools`: never dropped silently, a
demanding choice refused, emulated on the operator's request (`serve --host-without-tools`).

Every scripted host here declares `sampling` but not `sampling.tools` (`connect(era, host)`
without `tools=True`). Bodies are built with the products' own SDK types; emulated calls come back
as each product's native shapes and are validated by the SDKs' types (the Responses, ChatCompletion
and Message objects by tests/sdk_truth.py for the whole suite, Gemini's here).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from anthropic.types import ToolParam
from anthropic.types.user_message_param import UserMessageParam
from google.genai import types as genai
from mcp import MCPError
from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionUserMessageParam
from openai.types.responses import EasyInputMessageParam, FunctionToolParam

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.writing import Call, Said, ToolTurn, Unit
from agent_as_model.commands.standin_provider import openai_reply
from agent_as_model.limits import Limits
from agent_as_model.server import build_server
from agent_as_model.states import emulation
from tests import sdk_truth
from tests.agent_loop import tool_answer
from tests.helpers import server_params, writing_of
from tests.provider_harness import backend_of, provider_server
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

META = "agent-as-model/result"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
DESCRIPTION = "Weather for a city."
QUESTION = "Weather in Paris?"


def emulating() -> Any:
    return build_server(limits=Limits(host_without_tools="emulate"))


def refusing() -> Any:
    return build_server(limits=Limits(host_without_tools="refuse"))


def envelope(*calls: tuple[str, dict[str, Any]], fenced: bool = False) -> str:
    text = json.dumps({"tool_calls": [{"name": n, "arguments": a} for n, a in calls]})
    return f"```json\n{text}\n```" if fenced else text


PARIS = envelope(("get_weather", {"city": "Paris"}), fenced=True)


# -- the products' own bodies, from their SDK types ----------------------------------------------


def chat_body(**extra: Any) -> dict[str, Any]:
    tool = ChatCompletionFunctionToolParam(
        type="function", function={"name": "get_weather", "description": DESCRIPTION, "parameters": SCHEMA}
    )
    return {
        "messages": [ChatCompletionUserMessageParam(role="user", content=QUESTION)],
        "tools": [tool],
        **extra,
    }


def chat_call_answered(
    call_id: str, name: str, arguments: str, result: str = "sunny"
) -> list[dict[str, Any]]:
    """The chat messages of one earlier call and its result: the assistant turn, the tool turn."""
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]


def messages_body(**extra: Any) -> dict[str, Any]:
    tool = ToolParam(name="get_weather", description=DESCRIPTION, input_schema=SCHEMA)  # type: ignore[typeddict-item]
    message = UserMessageParam(role="user", content=QUESTION)
    return {"messages": [message], "max_tokens": 200, "tools": [tool], **extra}


def responses_body(**extra: Any) -> dict[str, Any]:
    tool = FunctionToolParam(
        type="function", name="get_weather", description=DESCRIPTION, parameters=SCHEMA, strict=False
    )
    return {"input": [EasyInputMessageParam(role="user", content=QUESTION)], "tools": [tool], **extra}


def gemini_tools() -> list[dict[str, Any]]:
    declaration = genai.FunctionDeclaration(
        name="get_weather", description=DESCRIPTION, parameters_json_schema=SCHEMA
    )
    return [
        genai.Tool(function_declarations=[declaration]).model_dump(
            mode="json", by_alias=True, exclude_none=True
        )
    ]


def gemini_body(**config: Any) -> dict[str, Any]:
    content = genai.Content(role="user", parts=[genai.Part(text=QUESTION)])
    body: dict[str, Any] = {
        "contents": [content.model_dump(mode="json", by_alias=True, exclude_none=True)],
        "tools": gemini_tools(),
    }
    if config:
        body["toolConfig"] = genai.ToolConfig(
            function_calling_config=genai.FunctionCallingConfig(**config)
        ).model_dump(mode="json", by_alias=True, exclude_none=True)
    return body


BODIES = {
    "chat_complete": chat_body,
    "messages_create": messages_body,
    "responses_create": responses_body,
    "gemini_generate_content": gemini_body,
}


def tools_meta(result: Any) -> dict[str, Any]:
    assert result.meta is not None, result
    tools: dict[str, Any] = result.meta[META]["tools"]
    return tools


# -- 1. nothing dropped silently; a demanding choice refused -------------------------------------


@pytest.mark.parametrize("tool", list(BODIES))
async def test_dropped_tools_are_said_in_meta(era: str, tool: str) -> None:
    host = ScriptedHost("plain text")
    async with connect(era, host) as client:
        result = await client.call_tool(tool, BODIES[tool]())
    assert not result.is_error, result.content[0].text
    assert tools_meta(result) == {
        "forwarded": False,
        "handling": "dropped",
        "reason": "the host declared sampling without the sampling.tools capability",
    }
    warnings = result.meta[META]["warnings"]  # type: ignore[index]
    assert any("tools were dropped" in w and "--host-without-tools emulate" in w for w in warnings)
    assert "tools" not in host.wire() and "toolChoice" not in host.wire()


async def test_a_call_without_tools_says_nothing_of_tools(era: str) -> None:
    async with connect(era, ScriptedHost("hi")) as client:
        result = await client.call_tool("chat_complete", {"messages": [{"role": "user", "content": "q"}]})
    assert "tools" not in result.meta[META]  # type: ignore[index]


DEMANDING = [
    ("chat_complete", chat_body(tool_choice="required"), "tool_choice", "a tool"),
    (
        "chat_complete",
        chat_body(tool_choice={"type": "function", "function": {"name": "get_weather"}}),
        "tool_choice",
        "tool 'get_weather'",
    ),
    ("messages_create", messages_body(tool_choice={"type": "any"}), "tool_choice", "a tool"),
    (
        "messages_create",
        messages_body(tool_choice={"type": "tool", "name": "get_weather"}),
        "tool_choice",
        "tool 'get_weather'",
    ),
    ("responses_create", responses_body(tool_choice="required"), "tool_choice", "a tool"),
    (
        "responses_create",
        responses_body(tool_choice={"type": "function", "name": "get_weather"}),
        "tool_choice",
        "tool 'get_weather'",
    ),
    (
        "gemini_generate_content",
        gemini_body(mode=genai.FunctionCallingConfigMode.ANY),
        "toolConfig.functionCallingConfig.mode",
        "a tool",
    ),
    (
        "gemini_generate_content",
        # Allowing every declared function is ANY itself.
        gemini_body(mode=genai.FunctionCallingConfigMode.ANY, allowed_function_names=["get_weather"]),
        "toolConfig.functionCallingConfig.mode",
        "a tool",
    ),
]


@pytest.mark.parametrize(("tool", "body", "path", "wanted"), DEMANDING)
async def test_a_choice_that_demands_a_call_is_refused_in_drop_mode(
    era: str, tool: str, body: dict[str, Any], path: str, wanted: str
) -> None:
    host = ScriptedHost("next call works")
    async with connect(era, host) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool(tool, body)
        after = await client.call_tool("generate", {"prompt": "x"})
    error = caught.value.error
    assert error.code == -32021
    assert error.data == {"requiredCapabilities": {"sampling": {"tools": {}}}}
    message = error.message
    assert message.startswith(f"{tool}: {path}: demands a call of {wanted}"), message
    assert "sampling.tools" in message
    assert "--host-without-tools emulate" in message and "--use-provider when-host-cannot" in message
    assert message.endswith("Nothing was sent to the host.")
    assert host.asked == 1 and after.content[0].text == "next call works"  # only the next call


@pytest.mark.parametrize("tool", list(BODIES))
async def test_refuse_mode_refuses_any_tools_and_serves_calls_without(era: str, tool: str) -> None:
    host = ScriptedHost("plain")
    async with connect(era, host, server=refusing()) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool(tool, BODIES[tool]())
        without = {k: v for k, v in BODIES[tool]().items() if k != "tools"}
        after = await client.call_tool(tool, without)
    assert caught.value.error.code == -32021
    assert caught.value.error.data == {"requiredCapabilities": {"sampling": {"tools": {}}}}
    assert caught.value.error.message.startswith(f"{tool}: tools: this server refuses tools on such hosts")
    assert not after.is_error and host.asked == 1


async def test_a_host_with_sampling_tools_is_untouched_by_the_rule(era: str) -> None:
    host = ScriptedHost(tool_answer("", ("c1", "get_weather", {"city": "Oslo"})))
    async with connect(era, host, tools=True, server=refusing()) as client:
        result = await client.call_tool("chat_complete", chat_body(tool_choice="required"))
    assert not result.is_error, result.content[0].text
    assert "tools" not in result.meta[META]  # type: ignore[index]
    assert host.wire()["tools"][0]["name"] == "get_weather"


# -- 3. a provider still wins where configured ----------------------------------------------------


@pytest.mark.parametrize("mode", ["drop", "emulate", "refuse"])
async def test_when_host_cannot_sends_the_tools_to_the_provider(era: str, standin: Any, mode: str) -> None:
    standin.script.append(
        openai_reply(
            None, tool_calls=[("call_9", "get_weather", '{"city": "Oslo"}')], finish_reason="tool_calls"
        )
    )
    host = ScriptedHost("the host must not be asked")
    server = provider_server(standin, limits=Limits(host_without_tools=mode))
    async with connect(era, host, server=server) as client:
        result = await client.call_tool("chat_complete", chat_body(tool_choice="required"))
    assert not result.is_error, result.content[0].text
    assert backend_of(result) == "provider:openai/model-one"
    assert host.asked == 0
    assert "tools" not in result.meta[META]  # type: ignore[index]  # they were forwarded
    assert json.loads(result.content[0].text)["tool_calls"][0]["id"] == "call_9"
    assert standin.seen[0].body["tools"][0]["function"]["name"] == "get_weather"


async def test_backend_host_on_a_provider_server_is_still_refused(era: str, standin: Any) -> None:
    host = ScriptedHost("never")
    async with connect(era, host, server=provider_server(standin)) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("chat_complete", chat_body(tool_choice="required", backend="host"))
    assert caught.value.error.code == -32021 and host.asked == 0 and standin.seen == []


# -- 2. emulation -------------------------------------------------------------------------------


def gemini_calls(result: Any) -> list[genai.FunctionCall]:
    response = genai.GenerateContentResponse.model_validate(result.structured_content)
    assert response.function_calls is not None
    return response.function_calls


@pytest.mark.parametrize("tool", list(BODIES))
async def test_each_product_gets_an_emulated_call_in_its_own_shapes(era: str, tool: str) -> None:
    host = ScriptedHost(PARIS)
    body = BODIES[tool]()
    if tool in ("chat_complete", "messages_create"):
        body["result"] = "object"  # the product's object, validated by its SDK type (sdk_truth)
    async with connect(era, host, server=emulating()) as client:
        result = await client.call_tool(tool, body)
    assert not result.is_error, result.content[0].text
    assert tools_meta(result)["handling"] == "emulated" and tools_meta(result)["forwarded"] is False
    sent = host.wire()
    assert "tools" not in sent and "toolChoice" not in sent  # the host takes none
    prompt = sent["systemPrompt"]
    assert emulation.CONTRACT in prompt and json.dumps(SCHEMA, sort_keys=True) in prompt
    assert DESCRIPTION in prompt
    expected_id = emulation.call_id(1, 0, "get_weather")
    if tool == "chat_complete":
        message = sdk_truth.validate_chat(result.structured_content).choices[0]
        assert message.finish_reason == "tool_calls"
        call = message.message.tool_calls[0]  # type: ignore[index]
        assert (call.id, call.function.name, json.loads(call.function.arguments)) == (  # type: ignore[union-attr]
            expected_id,
            "get_weather",
            {"city": "Paris"},
        )
        assert message.message.content is None
    elif tool == "messages_create":
        anthropic_message = sdk_truth.validate_message(result.structured_content)
        assert anthropic_message.stop_reason == "tool_use"
        [block] = anthropic_message.content
        assert block.type == "tool_use" and (block.id, block.name, block.input) == (
            expected_id,
            "get_weather",
            {"city": "Paris"},
        )
    elif tool == "responses_create":
        response = sdk_truth.response_of(result)
        [item] = response.output
        assert item.type == "function_call"
        assert (item.call_id, item.name, json.loads(item.arguments)) == (
            expected_id,
            "get_weather",
            {"city": "Paris"},
        )
    else:
        [call] = gemini_calls(result)
        assert (call.id, call.name, call.args) == (expected_id, "get_weather", {"city": "Paris"})


@pytest.mark.parametrize("answer", [PARIS, envelope(("get_weather", {"city": "Paris"})), f"  \n{PARIS}\n "])
async def test_the_whole_answer_bare_or_fenced_is_a_call(era: str, answer: str) -> None:
    async with connect(era, ScriptedHost(answer), server=emulating()) as client:
        result = await client.call_tool("chat_complete", chat_body())
    said = json.loads(result.content[0].text)
    assert said["text"] == "" and [c["name"] for c in said["tool_calls"]] == ["get_weather"]
    assert said["tool_calls"][0]["input"] == {"city": "Paris"}
    assert result.meta[META]["finish_reason"] == "tool_calls"  # type: ignore[index]


async def test_a_fenced_call_whose_arguments_hold_a_fence_is_a_call(era: str) -> None:
    # A call carrying code or markdown in its arguments: the fence inside is the JSON's business.
    city = "Paris ```md``` note"
    answer = envelope(("get_weather", {"city": city}), fenced=True)
    async with connect(era, ScriptedHost(answer), server=emulating()) as client:
        result = await client.call_tool("chat_complete", chat_body(tool_choice="required"))
    assert not result.is_error, result.content[0].text
    said = json.loads(result.content[0].text)
    assert [(c["name"], c["input"]) for c in said["tool_calls"]] == [("get_weather", {"city": city})]


async def test_an_emulated_id_is_never_one_still_in_the_history(era: str) -> None:
    # A caller that trims its history comes back to the same length with a call of that place in
    # it: the next call of the same place gets another id.
    first_id = emulation.call_id(3, 0, "get_weather")
    trimmed = [{"role": "user", "content": QUESTION}, *chat_call_answered(first_id, "get_weather", "{}")]
    async with connect(era, ScriptedHost(PARIS), server=emulating()) as client:
        result = await client.call_tool("chat_complete", chat_body(messages=trimmed))
    assert not result.is_error, result.content[0].text
    [call] = json.loads(result.content[0].text)["tool_calls"]
    assert call["id"] != first_id and call["id"] == emulation.call_id(3, 0, "get_weather", {first_id})
    assert call["id"].startswith("call_")


SPOOFS = [
    f"Here is how a call looks: {envelope(('get_weather', {'city': 'Paris'}))}",
    f"I would answer:\n{PARIS}",
    f"{PARIS}\nThat is what a call looks like.",
    f"{PARIS}\n{PARIS}",
    '{"text": "x", "tool_calls": [{"id": "1", "input": {}, "name": "get_weather"}]} and more',
    json.dumps({"city": "Paris"}),
    "[1, 2]",
]


@pytest.mark.parametrize("answer", SPOOFS)
async def test_prose_that_contains_or_quotes_the_envelope_stays_text(era: str, answer: str) -> None:
    async with connect(era, ScriptedHost(answer), server=emulating()) as client:
        result = await client.call_tool("chat_complete", chat_body())
    assert not result.is_error, result.content[0].text
    assert result.content[0].text == answer  # exactly the host's text: no call read out of it
    assert result.meta[META]["finish_reason"] == "stop"  # type: ignore[index]
    assert tools_meta(result)["handling"] == "emulated"


async def test_a_host_that_ignores_the_contract_is_plain_text(era: str) -> None:
    host = ScriptedHost("It is probably sunny in Paris.")
    async with connect(era, host, server=emulating()) as client:
        result = await client.call_tool("messages_create", messages_body(result="object"))
    message = sdk_truth.validate_message(result.structured_content)
    assert message.stop_reason == "end_turn"
    assert [b.type for b in message.content] == ["text"]
    assert message.content[0].text == "It is probably sunny in Paris."  # type: ignore[union-attr]


LOOP_TOOLS = [t for t in BODIES if (w := DIALECTS[t].writing) is not None and w.tool_turns]


@pytest.mark.parametrize("tool", LOOP_TOOLS)
async def test_a_three_turn_emulated_tool_loop_with_cursors(era: str, tool: str) -> None:
    """Call, result, another call, result, then the answer: each call read from the host's
    text, passed back in the product's own shape, shown to the host as text with its id and name,
    and the cursor chain verifying throughout."""
    host = ScriptedHost(
        PARIS,
        envelope(("get_weather", {"city": "Lyon"})),
        "Sunny in Paris, rain in Lyon.",
    )
    tools = BODIES[tool]()["tools"]
    writing = writing_of(tool)
    units: list[Unit] = [Said("user", QUESTION)]
    cursor = ""
    outputs = ["sunny, 24C", "rain, 12C"]
    async with connect(era, host, server=emulating()) as client:
        for turn in range(3):
            result = await client.call_tool(
                tool, {**writing.write(units, None), "tools": tools, "previous_response_id": cursor}
            )
            assert not result.is_error, result.content[0].text
            read = writing.read(result.content[0].text, result.structured_content)
            cursor = read.cursor
            if turn == 2:
                assert read.completion == "Sunny in Paris, rain in Lyon."
                break
            said = json.loads(read.completion)
            calls = tuple(Call(c["id"], c["name"], c["input"]) for c in said["tool_calls"])
            units.append(ToolTurn(said["text"], calls, tuple((c.id, outputs[turn]) for c in calls)))
    assert host.asked == 3
    first_id = emulation.call_id(1, 0, "get_weather")
    second_id = emulation.call_id(3, 0, "get_weather")
    assert first_id != second_id
    messages = host.wire(2)["messages"]
    texts = [m["content"]["text"] if isinstance(m["content"], dict) else m["content"] for m in messages]
    assert texts == [
        QUESTION,
        json.dumps({"tool_calls": [{"arguments": {"city": "Paris"}, "id": first_id, "name": "get_weather"}]}),
        f"Tool result for call {first_id} (get_weather): sunny, 24C",
        json.dumps({"tool_calls": [{"arguments": {"city": "Lyon"}, "id": second_id, "name": "get_weather"}]}),
        f"Tool result for call {second_id} (get_weather): rain, 12C",
    ]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]


def repairing(*answers: str) -> ScriptedHost:
    return ScriptedHost(*answers)


BAD_CALLS = [
    (envelope(("get_weather", {"town": "Paris"})), "content.tool_calls[0].arguments", "JSON pointer"),
    (envelope(("get_time", {"city": "Paris"})), "content.tool_calls[0].name", "was not offered"),
    (json.dumps({"tool_calls": []}), "content.tool_calls", "non-empty list"),
    (json.dumps({"tool_calls": [{"name": "get_weather"}]}), "content.tool_calls[0].arguments", "JSON object"),
    (json.dumps({"tool_calls": [], "text": "x"}), "content", "keys other than"),
]


@pytest.mark.parametrize(("bad", "path", "words"), BAD_CALLS)
async def test_a_broken_call_is_repaired_within_repair_attempts(
    era: str, bad: str, path: str, words: str
) -> None:
    host = repairing(bad, PARIS)
    async with connect(era, host, server=emulating()) as client:
        result = await client.call_tool("chat_complete", chat_body(repair_attempts=1))
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text)["tool_calls"][0]["input"] == {"city": "Paris"}
    assert host.asked == 2
    repair = host.wire(1)["messages"]
    assert repair[-2] == {"role": "assistant", "content": [{"type": "text", "text": bad}]}
    told = repair[-1]["content"]["text"]
    assert told.startswith("Your tool call is not valid: ") and words in told, told
    assert "tool_calls" in told


@pytest.mark.parametrize(("bad", "path", "words"), BAD_CALLS)
async def test_a_broken_call_without_repairs_is_a_host_violation(
    era: str, bad: str, path: str, words: str
) -> None:
    host = ScriptedHost(bad, "next call works")
    async with connect(era, host, server=emulating()) as client:
        result = await client.call_tool("chat_complete", chat_body())
        after = await client.call_tool("generate", {"prompt": "x"})
    assert result.is_error
    text = result.content[0].text
    assert text.startswith(f"chat_complete: {path}: the host's emulated tool call is not valid here"), text
    assert words in text and text.endswith("The host was asked; its answer was not used.")
    assert after.content[0].text == "next call works"


@pytest.mark.parametrize(
    ("tool", "body", "answers", "path", "words"),
    [
        ("chat_complete", chat_body(tool_choice="required"), ["I cannot.", PARIS], "tool_choice", "a tool"),
        (
            "messages_create",
            messages_body(tool_choice={"type": "tool", "name": "get_weather"}),
            ["No.", PARIS],
            "tool_choice",
            "tool 'get_weather'",
        ),
        ("chat_complete", chat_body(tool_choice="none"), [PARIS, "Sunny."], "tool_choice", "is 'none'"),
        (
            "chat_complete",
            chat_body(parallel_tool_calls=False),
            [envelope(("get_weather", {"city": "A"}), ("get_weather", {"city": "B"})), PARIS],
            "parallel_tool_calls",
            "made 2",
        ),
        (
            "messages_create",
            messages_body(tool_choice={"type": "auto", "disable_parallel_tool_use": True}),
            [envelope(("get_weather", {"city": "A"}), ("get_weather", {"city": "B"})), PARIS],
            "tool_choice.disable_parallel_tool_use",
            "made 2",
        ),
        (
            "gemini_generate_content",
            gemini_body(mode=genai.FunctionCallingConfigMode.ANY),
            ["No.", PARIS],
            "toolConfig.functionCallingConfig.mode",
            "a tool",
        ),
    ],
)
async def test_the_callers_limits_hold_and_are_repaired(
    era: str, tool: str, body: dict[str, Any], answers: list[str], path: str, words: str
) -> None:
    async with connect(era, ScriptedHost(*answers), server=emulating()) as client:
        broken = await client.call_tool(tool, body)
    assert broken.is_error
    text = broken.content[0].text
    assert text.startswith(f"{tool}: {path}: ") and words in text, text
    host = ScriptedHost(*answers)
    async with connect(era, host, server=emulating()) as client:
        repaired = await client.call_tool(tool, {**body, "repair_attempts": 1})
    assert not repaired.is_error, repaired.content[0].text
    assert host.asked == 2


async def test_a_named_choice_offers_that_tool_alone(era: str) -> None:
    other = ChatCompletionFunctionToolParam(
        type="function", function={"name": "get_time", "parameters": SCHEMA}
    )
    body = chat_body(tool_choice={"type": "function", "function": {"name": "get_weather"}})
    body["tools"] = [*body["tools"], other]
    host = ScriptedHost(PARIS)
    async with connect(era, host, server=emulating()) as client:
        result = await client.call_tool("chat_complete", body)
    assert not result.is_error, result.content[0].text
    prompt = host.wire()["systemPrompt"]
    assert '"get_weather"' in prompt and '"get_time"' not in prompt
    assert 'You must call the tool "get_weather" now' in prompt


# -- 4. structured output, personas, n ------------------------------------------------------------


async def test_tools_with_output_schema_are_still_an_error(era: str) -> None:
    host = ScriptedHost("never")
    async with connect(era, host, server=emulating()) as client:
        result = await client.call_tool("chat_complete", chat_body(output_schema=SCHEMA))
    assert result.is_error and "output_schema" in result.content[0].text and host.asked == 0


async def test_structured_output_alone_still_travels_in_the_prompt(era: str) -> None:
    host = ScriptedHost('{"city": "Paris"}')
    async with connect(era, host, server=emulating()) as client:
        result = await client.call_tool(
            "chat_complete", {"messages": [{"role": "user", "content": "q"}], "output_schema": SCHEMA}
        )
    assert json.loads(result.content[0].text) == {"city": "Paris"}
    assert emulation.CONTRACT not in host.wire()["systemPrompt"]


async def test_a_persona_checks_the_final_answer_not_the_emulated_call(era: str) -> None:
    persona = {"name": "forecaster", "output_schema": SCHEMA}
    host = ScriptedHost(PARIS, '{"city": "Paris"}')
    async with connect(era, host, server=emulating()) as client:
        called = await client.call_tool("chat_complete", chat_body(persona=persona))
        assert not called.is_error, called.content[0].text
        said = json.loads(called.content[0].text)
        call = said["tool_calls"][0]
        follow = chat_body(persona=persona)
        follow["messages"] = [*follow["messages"], *chat_call_answered(call["id"], call["name"], "{}")]
        final = await client.call_tool("chat_complete", follow)
    assert not final.is_error, final.content[0].text
    assert json.loads(final.content[0].text) == {"city": "Paris"}


async def test_several_completions_each_read_their_calls(era: str) -> None:
    host = ScriptedHost(PARIS)
    async with connect(era, host, server=emulating()) as client:
        result = await client.call_tool("chat_complete", chat_body(n=2, result="object"))
    assert not result.is_error, result.content[0].text
    completion = sdk_truth.validate_chat(result.structured_content)
    assert [c.finish_reason for c in completion.choices] == ["tool_calls", "tool_calls"]
    assert tools_meta(result)["handling"] == "emulated"


# -- the prompt and the reading, on their own -----------------------------------------------------


def test_only_the_whole_answer_is_read() -> None:
    body = '{"tool_calls": []}'
    assert emulation.whole_body(body) == body
    assert emulation.whole_body(f"```\n{body}\n```") == body
    assert emulation.whole_body(f"```JSON \r\n{body}\r\n```") == body
    assert emulation.whole_body(f"x {body}") is None
    # Two blocks: what lies between the outer fences is no JSON object, so it is text (the reading
    # of calls, below, is what decides: a fence inside one object's strings is allowed).
    two = emulation.whole_body(f"```json\n{body}\n```\n```\n{body}\n```")
    assert two is not None and emulation._json_object(two) is None
    assert emulation.whole_body(f"```json {body}```") is None  # no opening line
    assert emulation.whole_body("```json\nnot an object\n```") is None


def test_reading_a_huge_or_deep_answer_is_linear_and_text() -> None:
    """No regular expression meets the host's text; a deep nesting is text, not a crash."""
    from agent_as_model.neutral import Request, ToolSpec

    request = Request(
        tool="chat_complete",
        system=None,
        turns=(),
        model="m",
        max_tokens=10,
        tools=(ToolSpec("t", None, {"type": "object"}),),
    )
    assert emulation.read_calls("```" + " " * 200_000, request) == []
    assert emulation.read_calls("{" + "[" * 100_000 + "}", request) == []
    assert emulation.read_calls('{"tool_calls": ' + "[" * 100_000 + "]" * 100_000 + "}", request) == []


async def test_the_prompt_travels_after_the_callers_system_prompt(era: str) -> None:
    host = ScriptedHost("ok")
    body = chat_body()
    body["messages"] = [{"role": "system", "content": "Be brief."}, *body["messages"]]
    async with connect(era, host, server=emulating()) as client:
        await client.call_tool("chat_complete", body)
    prompt: str = host.wire()["systemPrompt"]
    assert prompt.startswith("Be brief.\n\nYou have these tools (JSON): ")


# -- the serve flag, its variable, and real stdio -------------------------------------------------


def test_the_flag_and_its_variable_set_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_as_model.commands import cli
    from agent_as_model.commands.limit_options import limits_of
    from agent_as_model.errors import StartupError
    from agent_as_model.limits import HOST_WITHOUT_TOOLS_ENV, environment_limits

    parser = cli._parser()
    monkeypatch.delenv(HOST_WITHOUT_TOOLS_ENV, raising=False)
    assert limits_of(parser.parse_args(["serve"])).host_without_tools == "drop"
    assert (
        limits_of(parser.parse_args(["serve", "--host-without-tools", "emulate"])).host_without_tools
        == "emulate"
    )
    monkeypatch.setenv(HOST_WITHOUT_TOOLS_ENV, "refuse")
    assert limits_of(parser.parse_args(["serve"])).host_without_tools == "refuse"
    assert environment_limits().host_without_tools == "refuse"  # the bare command
    assert (
        limits_of(parser.parse_args(["serve", "--host-without-tools", "drop"])).host_without_tools == "drop"
    )
    monkeypatch.setenv(HOST_WITHOUT_TOOLS_ENV, "pretend")
    with pytest.raises(
        StartupError, match=f"{HOST_WITHOUT_TOOLS_ENV}: expected one of drop, emulate, refuse"
    ):
        limits_of(parser.parse_args(["serve"]))
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--host-without-tools", "pretend"])


@pytest.mark.stdio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("how", ["flag", "environment"])
async def test_over_stdio_the_installed_command_emulates_and_a_recording_replays(
    mode: str, how: str, tmp_path: Any
) -> None:
    """`agent-as-model serve --host-without-tools emulate` (or its variable) over real stdio: an
    emulated call and the turn after it, recorded with `--record` (`--redact` too, with the
    variable); the recording replays to a match against a server of the same rule, and diverges
    against the default one."""
    import io
    import os

    from mcp import Client

    from agent_as_model.commands.transcripts.command import DIVERGED, MATCHED, replay_path
    from agent_as_model.limits import HOST_WITHOUT_TOOLS_ENV

    recording = tmp_path / "emulated.jsonl"
    env = {k: v for k, v in os.environ.items() if k != HOST_WITHOUT_TOOLS_ENV}
    args = ["serve", "--record", str(recording)]
    if how == "flag":
        args += ["--host-without-tools", "emulate"]
    else:  # and redacted: the emulated call keeps its tool name, so it still replays
        env[HOST_WITHOUT_TOOLS_ENV] = "emulate"
        args.append("--redact")
    host = ScriptedHost(PARIS, "Sunny in Paris.")
    params = server_params(*args, env=env)
    async with Client(params, mode=mode, sampling_callback=host) as client:
        first = await client.call_tool("chat_complete", chat_body())
        assert not first.is_error, first.content[0].text
        said = json.loads(first.content[0].text)
        [call] = said["tool_calls"]
        follow = chat_body()
        answered = chat_call_answered(call["id"], call["name"], json.dumps(call["input"]))
        follow["messages"] = [*follow["messages"], *answered]
        second = await client.call_tool("chat_complete", follow)
    assert call["input"] == {"city": "Paris"} and call["id"] == emulation.call_id(1, 0, "get_weather")
    assert first.meta is not None and first.meta[META]["tools"]["handling"] == "emulated"
    assert second.content[0].text == "Sunny in Paris."
    shown = host.wire(1)["messages"][-1]["content"]["text"]
    assert shown == f"Tool result for call {call['id']} (get_weather): sunny"
    out = io.StringIO()
    assert await replay_path(recording, out=out, err=io.StringIO(), factory=emulating) == MATCHED, (
        out.getvalue()
    )
    assert await replay_path(recording, out=io.StringIO(), err=io.StringIO()) == DIVERGED  # drop mode


async def test_over_http_workers_take_the_rule() -> None:
    """`serve --http --workers 2 --host-without-tools emulate`: the rule reaches every worker (it
    travels with the limits), so each call is emulated whichever worker serves it. (Workers serve
    2026-07-28 only: a legacy session needs one process.)"""
    from tests import http_servers

    host = ScriptedHost(PARIS)
    with http_servers.running("--workers", "2", "--host-without-tools", "emulate") as server:
        async with http_servers.http_client(server.url, "2026-07-28", host) as client:
            results = [await client.call_tool("chat_complete", chat_body()) for _ in range(4)]
    for result in results:
        assert not result.is_error, result.content[0].text
        assert json.loads(result.content[0].text)["tool_calls"][0]["name"] == "get_weather"
        assert tools_meta(result)["handling"] == "emulated"


def test_the_contract_in_decisions_is_the_one_the_model_reads() -> None:
    from pathlib import Path

    decisions = (Path(__file__).resolve().parent.parent / "docs" / "decisions.md").read_text(encoding="utf-8")
    assert f"> {emulation.CONTRACT}\n" in decisions
