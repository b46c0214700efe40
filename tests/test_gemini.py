"""`gemini_generate_content`: the generateContent shape, on both eras, driven by the
official google-genai SDK itself.

The SDK's async client talks to an in-memory HTTP transport that hands the body it posts to the
MCP tool (the model from its URL) and answers with the tool's result. So every request here is
exactly what the SDK sends (its camelCase and snake_case keys mixed), and every result is parsed
by the SDK into its `GenerateContentResponse`, whose `.text` and `.function_calls` the tests read.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types
from mcp import Client
from mcp_types import CreateMessageResult, TextContent

from agent_as_model import cursors
from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.tools.names import host_name
from tests.agent_loop import tool_answer
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

NAME = "gemini_generate_content"
MODEL = "gemini-2.5-flash"
WEATHER = types.FunctionDeclaration(
    name="weather.get",  # not a host-safe name: mapped for the host, mapped back in the result
    description="Weather for a city.",
    parameters=types.Schema(
        type=types.Type.OBJECT,
        properties={"city": types.Schema(type=types.Type.STRING)},
        required=["city"],
    ),
)
NO_AFC = types.AutomaticFunctionCallingConfig(disable=True)  # the test's loop runs the tools


class Bridge:
    """The SDK on one side, the MCP tool on the other; keeps every body the SDK posted."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.bodies: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.bodies.append(body)
        model = request.url.path.split("/models/")[1].split(":")[0]
        result = await self.client.call_tool(NAME, {**body, "model": model})
        text = result.content[0].text  # type: ignore[union-attr]
        if result.is_error:
            return httpx2.Response(
                400, json={"error": {"code": 400, "message": text, "status": "INVALID_ARGUMENT"}}
            )
        assert text == json.dumps(result.structured_content, sort_keys=True)  # spec section 1
        self.results.append(result.structured_content or {})
        return httpx2.Response(200, json=result.structured_content)


@asynccontextmanager
async def sdk(
    era: str, host: ScriptedHost, *, tools: bool = False, **extra_body: Any
) -> AsyncIterator[tuple[genai.Client, Bridge]]:
    async with connect(era, host, tools=tools) as client:
        bridge = Bridge(client)
        options = types.HttpOptions(
            base_url="http://127.0.0.1:1",  # never dialled: the transport answers in memory
            httpx_async_client=httpx2.AsyncClient(transport=httpx2.MockTransport(bridge.handle)),
            httpx_client=httpx2.Client(transport=httpx2.MockTransport(lambda r: httpx2.Response(500))),
            extra_body=extra_body or None,
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        yield genai.Client(api_key="unused", http_options=options), bridge


def config(**kwargs: Any) -> types.GenerateContentConfig:
    return types.GenerateContentConfig(automatic_function_calling=NO_AFC, **kwargs)


# -- text ----------------------------------------------------------------------------------------


async def test_an_sdk_request_is_answered_by_the_host(era: str) -> None:
    host = ScriptedHost(
        CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text="Paris."),
            model="host-model-7",
            stop_reason="endTurn",
        )
    )
    async with sdk(era, host) as (client, bridge):
        response = await client.aio.models.generate_content(
            model=MODEL,
            contents="What is the capital of France?",
            config=config(
                system_instruction="Answer in one word.",
                temperature=0.5,
                max_output_tokens=64,
                stop_sequences=["\n\n"],
                top_p=0.9,
                seed=7,
            ),
        )
    assert response.text == "Paris."
    assert response.model_version == "host-model-7"
    assert response.candidates[0].finish_reason == types.FinishReason.STOP  # type: ignore[index]
    assert response.response_id is not None and response.response_id.startswith("resp_")
    assert host.asked == 1
    assert host.wire() == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
        "systemPrompt": "Answer in one word.",
        "maxTokens": 64,
        "temperature": 0.5,
        "stopSequences": ["\n\n"],
        "modelPreferences": {"hints": [{"name": MODEL}]},
        # topP and seed: no field in MCP sampling, so hints to the host's model provider (spec 14)
        "metadata": {"agent-as-model/hints": {"seed": 7, "top_p": 0.9}},
    }
    assert bridge.bodies[0]["generationConfig"]["maxOutputTokens"] == 64  # what the SDK posted


async def test_the_host_running_out_of_tokens_is_max_tokens(era: str) -> None:
    host = ScriptedHost(
        CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="Par"), model="m", stop_reason="maxTokens"
        )
    )
    async with sdk(era, host) as (client, _):
        response = await client.aio.models.generate_content(model=MODEL, contents="Capital?", config=config())
    assert response.text == "Par"
    assert response.candidates[0].finish_reason == types.FinishReason.MAX_TOKENS  # type: ignore[index]


async def test_contents_of_several_turns_and_snake_case_keys(era: str) -> None:
    host = ScriptedHost("Madrid.")
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Capital of France?"}, {"text": "One word."}]},
            {"role": "model", "parts": [{"text": "Paris.", "thought_signature": "c2ln"}]},
            {"parts": [{"text": "And Spain?"}]},  # no role: a user content
        ],
        "system_instruction": {"parts": [{"text": "Be brief."}, {"text": "Be right."}]},
        "generation_config": {"max_output_tokens": 10, "stop_sequences": ["x"], "top_k": 3},
    }
    async with connect(era, host) as client:
        result = await client.call_tool(NAME, body)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    response = types.GenerateContentResponse.model_validate(result.structured_content)
    assert response.text == "Madrid."
    sent = host.wire()
    assert sent["systemPrompt"] == "Be brief.\nBe right."
    assert (sent["maxTokens"], sent["stopSequences"]) == (10, ["x"])
    assert [(m["role"], m["content"]["text"]) for m in sent["messages"]] == [
        ("user", "Capital of France?\nOne word."),
        ("assistant", "Paris."),
        ("user", "And Spain?"),
    ]


# -- tool loops ----------------------------------------------------------------------------------


async def test_a_tool_loop_of_three_turns_through_the_sdk(era: str) -> None:
    hosted = host_name("weather.get")
    host = ScriptedHost(
        tool_answer("Let me check.", ("call_1", hosted, {"city": "Paris"})),
        tool_answer("", ("call_2", hosted, {"city": "Madrid"}), ("call_3", hosted, {"city": "Rome"})),
        "Sunny in all three.",
    )
    tools = [types.Tool(function_declarations=[WEATHER])]
    async with sdk(era, host, tools=True) as (client, bridge):
        history: list[types.Content] = [types.Content(role="user", parts=[types.Part(text="Weather?")])]
        for _ in range(2):
            response = await client.aio.models.generate_content(
                model=MODEL, contents=history, config=config(tools=tools)
            )
            calls = response.function_calls or []
            assert calls and all(call.name == "weather.get" for call in calls)
            history.append(response.candidates[0].content)  # type: ignore[index,arg-type]
            history.append(
                types.Content(
                    role="user",
                    parts=[
                        types.Part(
                            function_response=types.FunctionResponse(
                                id=call.id,
                                name=call.name,
                                response={"output": f"sunny in {call.args['city']}"},
                            )
                        )
                        for call in calls
                    ],
                )
            )
        final = await client.aio.models.generate_content(
            model=MODEL, contents=history, config=config(tools=tools)
        )
    assert final.text == "Sunny in all three." and not final.function_calls
    first = bridge.results[0]["candidates"][0]
    assert first["content"]["parts"] == [
        {"text": "Let me check."},
        {"functionCall": {"id": "call_1", "name": "weather.get", "args": {"city": "Paris"}}},
    ]
    assert first["finishReason"] == "STOP"
    assert host.wire(0)["tools"] == [
        {
            "name": hosted,
            "description": "Weather for a city.",
            "inputSchema": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        }
    ]
    last = host.wire(2)["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user", "assistant", "user"]
    assert last[4]["content"] == [
        {
            "type": "tool_result",
            "toolUseId": "call_2",
            "content": [{"type": "text", "text": "sunny in Madrid"}],
        },
        {
            "type": "tool_result",
            "toolUseId": "call_3",
            "content": [{"type": "text", "text": "sunny in Rome"}],
        },
    ]


async def test_tool_config_modes_reach_the_host(era: str) -> None:
    host = ScriptedHost(tool_answer("", ("c1", host_name("weather.get"), {"city": "Oslo"})))
    tools = [types.Tool(function_declarations=[WEATHER, types.FunctionDeclaration(name="clock")])]
    forced = types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(
            mode="ANY", allowed_function_names=["weather.get"]
        )
    )
    async with sdk(era, host, tools=True) as (client, _):
        response = await client.aio.models.generate_content(
            model=MODEL, contents="Oslo?", config=config(tools=tools, tool_config=forced)
        )
    assert [c.name for c in response.function_calls or []] == ["weather.get"]
    sent = host.wire()
    assert sent["toolChoice"] == {"mode": "required"}
    assert [t["name"] for t in sent["tools"]] == [host_name("weather.get")]  # the named tool alone


@pytest.mark.parametrize(("mode", "sent"), [("AUTO", "auto"), ("NONE", "none")])
async def test_tool_config_auto_and_none_reach_the_host(era: str, mode: str, sent: str) -> None:
    host = ScriptedHost("No tool needed.")
    tools = [types.Tool(function_declarations=[WEATHER])]
    chosen = types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode=mode))
    async with sdk(era, host, tools=True) as (client, bridge):
        response = await client.aio.models.generate_content(
            model=MODEL, contents="Hello.", config=config(tools=tools, tool_config=chosen)
        )
    assert response.text == "No tool needed." and not response.function_calls
    assert bridge.bodies[0]["toolConfig"] == {"functionCallingConfig": {"mode": mode}}  # as the SDK sent it
    wire = host.wire()
    assert wire["toolChoice"] == {"mode": sent}
    assert [t["name"] for t in wire["tools"]] == [host_name("weather.get")]


async def test_a_tool_call_under_mode_none_is_a_host_violation(era: str) -> None:
    host = ScriptedHost(tool_answer("", ("c1", host_name("weather.get"), {"city": "Oslo"})), "later")
    body = {
        "contents": "Hello.",
        "tools": [{"functionDeclarations": [{"name": "weather.get"}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "NONE"}},
    }
    async with connect(era, host, tools=True) as client:
        bad = await client.call_tool(NAME, body)
        good = await client.call_tool(NAME, {"contents": "again"})
    text = bad.content[0].text  # type: ignore[union-attr]
    assert bad.is_error and "is 'none', yet the host called tool 'weather.get'" in text, text
    # The path the caller wrote the choice at, not the shared readers' `tool_choice`.
    assert text.startswith(f"{NAME}: toolConfig.functionCallingConfig.mode: "), text
    assert text.endswith("The host was asked; its answer was not used.")
    assert not good.is_error


async def test_function_calls_without_ids_are_paired_by_name(era: str) -> None:
    """The Gemini Developer API often sends calls without ids: they get `call_<content>_<part>`,
    and a response without id answers the first call of its name not yet answered."""
    host = ScriptedHost("Done.")
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Both?"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "a", "args": {}}},
                    {"functionCall": {"name": "b", "args": {"x": 1}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "b", "response": {"result": 2}}},
                    {"functionResponse": {"name": "a", "response": {"error": "down"}}},
                ],
            },
        ],
        "tools": [{"functionDeclarations": [{"name": "a"}, {"name": "b"}]}],
    }
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(NAME, body)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    messages = host.wire()["messages"]
    assert [b["id"] for b in messages[1]["content"]] == ["call_1_0", "call_1_1"]
    assert messages[2]["content"] == [
        {
            "type": "tool_result",
            "toolUseId": "call_1_1",
            "content": [{"type": "text", "text": '{"result": 2}'}],
        },
        {
            "type": "tool_result",
            "toolUseId": "call_1_0",
            "content": [{"type": "text", "text": "down"}],
            "isError": True,
        },
    ]


# -- the SDK's own objects passed back -------------------------------------------------------------

# A response as the Gemini API sends it (camelCase, with a thought signature on the call part).
API_RESPONSE = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Checking."},
                    {
                        "functionCall": {"id": "c1", "name": "get_weather", "args": {"city": "Oslo"}},
                        "thoughtSignature": "c2lnbmF0dXJl",
                    },
                ],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "modelVersion": "gemini-2.5-flash",
    "responseId": "aBcD",
    "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 5, "totalTokenCount": 14},
}
GET_WEATHER = {
    "functionDeclarations": [
        {"name": "get_weather", "parametersJsonSchema": {"type": "object", "properties": {"city": {}}}}
    ]
}


@pytest.mark.parametrize("mode", ["python", "json"])
async def test_the_sdks_own_content_dump_passes_back(era: str, mode: str) -> None:
    """`candidates[0].content.model_dump()` holds every field of the SDK's Part, FunctionCall and
    FunctionResponse, mostly null (and the thought signature as bytes, or base64 text in JSON
    mode; these bytes are UTF-8, so the MCP client can send them): it is taken as the model
    content it is."""
    said = types.GenerateContentResponse.model_validate(API_RESPONSE)
    content = said.candidates[0].content.model_dump(mode=mode)  # type: ignore[index,union-attr]
    assert content["parts"][0]["media_resolution"] is None  # what the SDK's dump really holds
    answered = types.Content(
        role="user",
        parts=[
            types.Part(
                function_response=types.FunctionResponse(
                    id="c1", name="get_weather", response={"output": "12 C"}
                )
            )
        ],
    ).model_dump(mode=mode)
    host = ScriptedHost("It is 12 C.")
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Weather?"}]}, content, answered],
        "tools": [GET_WEATHER],
    }
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(NAME, body)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    messages = host.wire()["messages"]
    assert messages[1]["content"] == [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Oslo"}},
    ]
    result_block = messages[2]["content"]  # one block travels as itself, not a list
    assert (result_block["type"], result_block["toolUseId"]) == ("tool_result", "c1")


async def test_the_sdks_part_hints_are_accepted_and_ignored(era: str) -> None:
    host = ScriptedHost("Fine.")
    part = {
        "text": "hi",
        "part_metadata": {"source": "notes.txt"},
        "media_resolution": {"level": "MEDIA_RESOLUTION_LOW"},
        "mediaProcessing": "STATIC",
        "speech_metadata": {"speaker": "Ana"},
    }
    calls = [{"role": "user", "parts": [part]}]
    async with connect(era, host) as client:
        result = await client.call_tool(NAME, {"contents": calls})
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    assert host.wire()["messages"] == [{"role": "user", "content": {"type": "text", "text": "hi"}}]


# -- structured output ---------------------------------------------------------------------------

CITY = types.Schema(
    type=types.Type.OBJECT,
    properties={
        "name": types.Schema(type=types.Type.STRING),
        "population": types.Schema(type=types.Type.INTEGER, nullable=True),
    },
    required=["name"],
    property_ordering=["name", "population"],
)
CITY_JSON_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "population": {"type": ["integer", "null"]}},
    "required": ["name"],
}


@pytest.mark.parametrize("host_tools", [True, False], ids=["as-a-tool", "in-the-prompt"])
async def test_structured_output_from_a_response_schema(era: str, host_tools: bool) -> None:
    answer: Any = '{"name": "Paris", "population": null}'
    if host_tools:
        answer = tool_answer("", ("s1", "structured_output", {"name": "Paris", "population": None}))
    host = ScriptedHost(answer)
    async with sdk(era, host, tools=host_tools) as (client, _):
        response = await client.aio.models.generate_content(
            model=MODEL,
            contents="The capital of France?",
            config=config(response_mime_type="application/json", response_schema=CITY),
        )
    assert response.text == '{"name": "Paris", "population": null}'  # sorted-key JSON text
    assert json.loads(response.text) == {"name": "Paris", "population": None}
    sent = host.wire()
    if host_tools:
        assert sent["tools"][0]["inputSchema"] == CITY_JSON_SCHEMA
    else:
        assert json.dumps(CITY_JSON_SCHEMA, sort_keys=True) in sent["systemPrompt"]


async def test_a_json_schema_contract_is_repaired(era: str) -> None:
    host = ScriptedHost('{"name": 3}', '{"name": "Paris"}')
    async with sdk(era, host, repair_attempts=1) as (client, _):
        response = await client.aio.models.generate_content(
            model=MODEL,
            contents="The capital of France?",
            config=config(response_mime_type="application/json", response_json_schema=CITY_JSON_SCHEMA),
        )
    assert response.text == '{"name": "Paris"}'
    assert host.asked == 2
    assert "/name" in json.dumps(host.wire(1)["messages"][-1])  # the repair names the violation


async def test_a_broken_contract_names_the_schema_the_caller_wrote(era: str) -> None:
    host = ScriptedHost("not json")
    async with sdk(era, host) as (client, _):
        with pytest.raises(genai_errors.ClientError) as caught:
            await client.aio.models.generate_content(
                model=MODEL,
                contents="?",
                config=config(response_mime_type="application/json", response_schema=CITY),
            )
    message = caught.value.message or ""
    assert message.startswith(f"{NAME}: generationConfig.responseSchema: the host's answer is not JSON")
    assert message.endswith("The host was asked; its answer was not used.")


# -- personas and cursors ------------------------------------------------------------------------


async def test_a_persona_checks_the_request_and_the_answer(era: str) -> None:
    host = ScriptedHost('{"verdict": "ok"}')
    persona = {
        "name": "judge",
        "input_schema": {"type": "object", "properties": {"generationConfig": {"type": "object"}}},
        "output_schema": {"type": "object", "required": ["verdict"]},
    }
    body = {"contents": "Judge this.", "persona": persona, "generationConfig": {"temperature": 0}}
    async with connect(era, host) as client:
        good = await client.call_tool(NAME, body)
        refused = await client.call_tool(NAME, {"contents": "Judge this.", "persona": persona})
    assert not good.is_error
    assert types.GenerateContentResponse.model_validate(good.structured_content).text == '{"verdict": "ok"}'
    text = refused.content[0].text  # type: ignore[union-attr]
    assert text.startswith(f"{NAME}: persona.input_schema: persona 'judge': the request does not satisfy it")
    assert host.asked == 1


def gemini_transcript(system: str | None, contents: list[dict[str, Any]]) -> list[dict[str, str]]:
    """docs/cursors.md, written again here from the doc: system first, then each content."""
    entries = [{"role": "system", "content": system}] if system is not None else []
    for content in contents:
        texts = [p["text"] for p in content["parts"] if "text" in p]
        calls = [p["functionCall"] for p in content["parts"] if "functionCall" in p]
        if content.get("role") == "model":
            text = "\n".join(texts)
            if calls:
                envelope = {
                    "text": text,
                    "tool_calls": [{"id": c["id"], "input": c["args"], "name": c["name"]} for c in calls],
                }
                text = json.dumps(envelope, sort_keys=True)
            entries.append({"role": "assistant", "content": text})
            continue
        for part in content["parts"]:
            if "functionResponse" in part:
                answer = part["functionResponse"]
                entries.append(
                    {"role": "tool", "tool_call_id": answer["id"], "content": answer["response"]["output"]}
                )
        if texts:
            entries.append({"role": "user", "content": "\n".join(texts)})
    return entries


async def test_a_cursor_chain_through_a_tool_call(era: str) -> None:
    hosted = host_name("weather.get")
    host = ScriptedHost(tool_answer("", ("call_9", hosted, {"city": "Oslo"})), "Cold.")
    tools = [types.Tool(function_declarations=[WEATHER])]
    async with sdk(era, host, tools=True, previous_response_id="") as (client, bridge):
        first = await client.aio.models.generate_content(
            model=MODEL, contents="Oslo?", config=config(tools=tools, system_instruction="Be brief.")
        )
    contents = bridge.bodies[0]["contents"]
    assert first.response_id == cursors.mint(
        MODEL,
        NAME,
        [
            *gemini_transcript("Be brief.", contents),
            *gemini_transcript(None, [bridge.results[0]["candidates"][0]["content"]]),
        ],
    )
    history = [
        *contents,
        bridge.results[0]["candidates"][0]["content"],
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": "call_9", "name": "weather.get", "response": {"output": "-5C"}}}
            ],
        },
    ]
    body = {
        "contents": history,
        "systemInstruction": "Be brief.",
        "tools": bridge.bodies[0]["tools"],
        "model": MODEL,
    }
    async with connect(era, host, tools=True) as client:
        second = await client.call_tool(NAME, {**body, "previous_response_id": first.response_id})
        edited = json.loads(json.dumps(body))
        edited["contents"][1]["parts"][0]["functionCall"]["args"] = {"city": "Bergen"}
        refused = await client.call_tool(NAME, {**edited, "previous_response_id": first.response_id})
    assert not second.is_error, second.content[0].text  # type: ignore[union-attr]
    response = types.GenerateContentResponse.model_validate(second.structured_content)
    assert response.text == "Cold."
    returned = {"role": "model", "parts": [{"text": "Cold."}]}
    assert response.response_id == cursors.mint(
        MODEL, NAME, gemini_transcript("Be brief.", [*history, returned])
    )
    text = refused.content[0].text  # type: ignore[union-attr]
    assert "previous_response_id: does not match the history passed back" in text
    assert host.asked == 2


# -- the shared parameters -----------------------------------------------------------------------

# The keys gemini's view lifts out of the nested objects: everything else is an argument as given.
NESTED = {"generationConfig", "generation_config", "toolConfig", "tool_config"}


def test_the_view_passes_on_every_argument_it_does_not_move() -> None:
    """Body.view starts from all the arguments (each passed the unknown-key check), so a shared
    parameter added later reaches its reader for gemini as for every other dialect."""
    dialect = DIALECTS[NAME]
    assert dialect.body.view is not None
    args = {key: f"<{key}>" for key in dialect.INPUT_SCHEMA["properties"] if key not in NESTED}
    view, origins = dialect.body.view(args)
    assert {key: view.get(key) for key in args} == args
    assert origins == {}


def shared_parameters() -> list[str]:
    """The parameters every tool that takes tool definitions lists, beside its conversation."""
    listed = [set(d.INPUT_SCHEMA["properties"]) for d in DIALECTS.values() if d.tools is not None]
    return sorted(set.intersection(*listed))


@pytest.mark.parametrize("key", shared_parameters())
async def test_a_shared_parameter_is_read_as_for_every_dialect(era: str, key: str) -> None:
    host = ScriptedHost("never")
    async with connect(era, host, tools=True) as client:
        ours = await client.call_tool(NAME, {"contents": USER, key: [1]})
        chat = await client.call_tool(
            "chat_complete", {"messages": [{"role": "user", "content": "hi"}], key: [1]}
        )
    assert chat.is_error and chat.content[0].text.startswith(f"chat_complete: {key}")  # type: ignore[union-attr]
    text = ours.content[0].text  # type: ignore[union-attr]
    assert ours.is_error and text.startswith(f"{NAME}: {key}"), text
    assert host.asked == 0


# -- what is refused -----------------------------------------------------------------------------

USER = [{"role": "user", "parts": [{"text": "hi"}]}]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"contents": []}, "contents: must not be empty"),
        (
            {"contents": [{"role": "assistant", "parts": [{"text": "x"}]}]},
            "contents[0].role: expected 'user' or 'model'",
        ),
        (
            {"contents": [{"role": "user", "parts": [{"inline_data": {"data": "AA=="}}]}]},
            "contents[0].parts[0].inline_data.data: needs a media type",
        ),
        (
            {"contents": [{"role": "user", "parts": [{"text": "a", "functionCall": {"name": "f"}}]}]},
            "contents[0].parts[0]: a part holds exactly one",
        ),
        (
            {"contents": [{"role": "user", "parts": [{"file_data": {"file_uri": "gs://b/a.pdf"}}]}]},
            "contents[0].parts[0].file_data: a fileData part: remote media is not fetched",
        ),
        (
            {"contents": [{"role": "user", "parts": [{"text": "a", "colour": "red", "thought": None}]}]},
            "contents[0].parts[0].colour: unknown key 'colour'",
        ),
        (
            {"contents": [{"parts": [{"text": "a", "audio_transcription": {"text": "a"}}]}]},
            "contents[0].parts[0].audio_transcription: a transcription belongs to audio",
        ),
        (
            {"contents": [{"parts": [{"text": "a", "partMetadata": "notes"}]}]},
            "contents[0].parts[0].partMetadata: expected an object, got string",
        ),
        (
            {
                "contents": [
                    USER[0],
                    {"role": "model", "parts": [{"function_call": {"name": "f", "will_continue": True}}]},
                ]
            },
            "contents[1].parts[0].function_call.will_continue: a call streamed in pieces cannot be honoured",
        ),
        (
            {
                "contents": [
                    USER[0],
                    {
                        "role": "model",
                        "parts": [{"functionCall": {"name": "f", "partialArgs": [{"jsonPath": "$.a"}]}}],
                    },
                ]
            },
            "contents[1].parts[0].functionCall.partialArgs: a call's arguments streamed in pieces",
        ),
        (
            {
                "contents": [
                    USER[0],
                    {"role": "model", "parts": [{"functionCall": {"id": "c", "name": "f"}}]},
                    {
                        "parts": [
                            {
                                "functionResponse": {
                                    "id": "c",
                                    "name": "f",
                                    "response": {},
                                    "willContinue": True,
                                }
                            }
                        ]
                    },
                ]
            },
            "contents[2].parts[0].functionResponse.willContinue: a function that goes on responding",
        ),
        (
            {"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}]},
            "contents[0].parts[0].functionResponse.id: is missing",
        ),
        (
            {"contents": USER, "generationConfig": {"candidateCount": 2}},
            "generationConfig.candidateCount: 2 completions need result: 'object'",
        ),
        (
            {"contents": USER, "generation_config": {"response_logprobs": True}},
            "generation_config.response_logprobs: log probabilities",
        ),
        (
            {"contents": USER, "generationConfig": {"temperature": 3}},
            "generationConfig.temperature: must be between 0 and 2",
        ),
        (
            {"contents": USER, "generationConfig": {"stopSequences": ["a", ""]}},
            "generationConfig.stopSequences[1]: must not be empty",
        ),
        (
            {"contents": USER, "generationConfig": {"colour": 1}},
            "generationConfig.colour: unknown key 'colour'",
        ),
        (
            {"contents": USER, "generationConfig": {"responseSchema": {"type": "OBJECT"}}},
            "generationConfig.responseSchema: needs responseMimeType 'application/json'",
        ),
        (
            {
                "contents": USER,
                "generationConfig": {
                    "responseMimeType": "application/json",
                    "responseSchema": {"type": "WORD"},
                },
            },
            "generationConfig.responseSchema.type: expected one of STRING",
        ),
        (
            {"contents": USER, "tools": [{"googleSearch": {}}]},
            "tools[0].googleSearch: the built-in tool 'googleSearch' cannot be forwarded",
        ),
        (
            {"contents": USER, "tools": [{"functionDeclarations": [{"name": "f"}, {"name": "f"}]}]},
            "tools[0].functionDeclarations[1].name: duplicate tool name 'f' "
            "(also at tools[0].functionDeclarations[0].name)",
        ),
        (
            {
                "contents": USER,
                "tools": [{"function_declarations": [{"name": "f", "parameters": {"type": "STRING"}}]}],
            },
            "tools[0].function_declarations[0].parameters",
        ),
        (
            {"contents": USER, "toolConfig": {"functionCallingConfig": {"mode": "ANY"}}},
            "toolConfig.functionCallingConfig.mode: 'required' needs tools",
        ),
        (
            {
                "contents": USER,
                "tools": [{"functionDeclarations": [{"name": "f"}]}],
                "tool_config": {"function_calling_config": {"mode": "ANY", "allowed_function_names": ["g"]}},
            },
            "tool_config.function_calling_config.allowed_function_names[0]: names tool 'g'",
        ),
        (
            {"contents": USER, "systemInstruction": "a", "system_instruction": "b"},
            "system_instruction: is given twice",
        ),
        (
            {"contents": USER, "cachedContent": "cachedContents/1"},
            "cachedContent: cached contents live on Google's servers",
        ),
        ({"contents": USER, "previous_response_id": "cur_1"}, "previous_response_id: got 'cur_1'"),
    ],
)
async def test_bad_input_names_the_path_and_sends_nothing(
    era: str, arguments: dict[str, Any], message: str
) -> None:
    host = ScriptedHost("fine")
    async with connect(era, host, tools=True) as client:
        bad = await client.call_tool(NAME, arguments)
        text = bad.content[0].text  # type: ignore[union-attr]
        assert bad.is_error and host.asked == 0
        assert text.startswith(f"{NAME}: {message}"), text
        assert text.endswith("Nothing was sent to the host.")
        good = await client.call_tool(NAME, {"contents": USER})  # the next call works
    assert not good.is_error and host.asked == 1


async def test_the_worked_example_of_docs_cursors_md(era: str) -> None:
    """The gemini chain of docs/cursors.md, run against the server: both cursors the doc shows."""
    from pathlib import Path

    doc = (Path(__file__).parent.parent / "docs" / "cursors.md").read_text(encoding="utf-8")
    host = ScriptedHost(tool_answer("", ("call_1", "get_weather", {"city": "東京"})), "Clear, 22°C.")
    first_request = {
        "model": "gemini-2.5-flash",
        "systemInstruction": "Be brief.",
        "contents": [{"role": "user", "parts": [{"text": "Weather in Tokyo?"}]}],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "get_weather",
                        "parametersJsonSchema": {
                            "type": "object",
                            "properties": {"city": {"type": "string"}},
                        },
                    }
                ]
            }
        ],
        "previous_response_id": "",
    }
    async with connect(era, host, tools=True) as client:
        first = await client.call_tool(NAME, first_request)
        said = types.GenerateContentResponse.model_validate(first.structured_content)
        answered = {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "call_1",
                        "name": "get_weather",
                        "response": {"output": "22°C, clear"},
                    }
                }
            ],
        }
        contents = [
            *first_request["contents"],
            first.structured_content["candidates"][0]["content"],
            answered,
        ]  # type: ignore[index]
        second = await client.call_tool(
            NAME, {**first_request, "contents": contents, "previous_response_id": said.response_id}
        )
    final = types.GenerateContentResponse.model_validate(second.structured_content)
    assert final.text == "Clear, 22°C."
    assert f"\n{said.response_id}\n```" in doc and f"\n{final.response_id}\n```" in doc


@pytest.mark.parametrize("prefix", ["legacy", "modern"])
def test_a_redacted_recording_hides_the_text_and_keeps_the_shape(prefix: str) -> None:
    """`serve --record --redact` knows the gemini shapes from the dialect's `Redaction`: the
    result's finishReason, modelVersion and responseId are structure, a function's args are text
    whatever their keys (tests/fixtures/make_transcripts.py, case redacted_gemini)."""
    from pathlib import Path

    path = Path(__file__).parent / "fixtures" / "transcripts" / f"{prefix}-redacted_gemini.jsonl"
    text = path.read_text(encoding="utf-8")
    for secret in ("Rome", "Giulia", "weather questions", "Warm", "28C"):
        assert secret not in text
    for kept in ('"finishReason": "STOP"', '"role": "model"', '"functionCall": {"args": {"city": "#'):
        assert kept in text
    assert '"responseId": "cur_' in text  # a keyed cursor of the same shape, carried on by replay
