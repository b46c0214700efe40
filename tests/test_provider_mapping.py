"""The sampling payload mapped onto each provider's API and its answer mapped
back, row by row, through the real SDK clients against the stand-in provider, on both eras."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_as_model.adapters.backends.providers import anthropic as provider_anthropic
from agent_as_model.adapters.backends.providers import gemini as provider_gemini
from agent_as_model.adapters.backends.providers import openai as provider_openai
from agent_as_model.commands.standin_provider import (
    StandInProvider,
    anthropic_reply,
    gemini_reply,
    openai_reply,
)
from tests.provider_harness import (
    ANTHROPIC_KEY,
    GEMINI_KEY,
    OPENAI_KEY,
    PROVIDERS,
    backend_of,
    provider_server,
)

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = [
    {"name": "get_weather", "description": "Weather for a city.", "input_schema": SCHEMA},
    {"name": "get_time", "input_schema": {"type": "object"}},
]
CONVERSATION: dict[str, Any] = {
    "system": "Be brief.",
    "messages": [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "no data", "is_error": True},
                {"type": "text", "text": "try again"},
            ],
        },
    ],
    "tools": TOOLS,
    "stop_sequences": ["END"],
    "temperature": 0.5,
    "max_tokens": 77,
}


def _tool_spec(body: dict[str, Any], provider: str) -> list[tuple[str, Any]]:
    if provider == "openai":
        return [(t["function"]["name"], t["function"]["parameters"]) for t in body["tools"]]
    if provider == "gemini":
        (entry,) = body["tools"]
        # The SDK writes this key in snake case (google-genai 3.6); the API reads either spelling.
        return [(d["name"], d["parameters_json_schema"]) for d in entry["functionDeclarations"]]
    return [(t["name"], t["input_schema"]) for t in body["tools"]]


def _calls(
    provider: str, calls: list[tuple[str, str, dict[str, Any]]], text: str | None = None
) -> dict[str, Any]:
    """The provider's own reply calling these tools (id, name, input)."""
    if provider == "openai":
        wire = [(i, n, json.dumps(a)) for i, n, a in calls]
        return openai_reply(text, tool_calls=wire, finish_reason="tool_calls")
    if provider == "gemini":
        reply = gemini_reply(text, calls=[(n, a) for _, n, a in calls])
        parts = reply["candidates"][0]["content"]["parts"]
        for part, (call_id, _, _) in zip([p for p in parts if "functionCall" in p], calls, strict=True):
            part["functionCall"]["id"] = call_id
        return reply
    return anthropic_reply(text, tool_uses=calls, stop_reason="tool_use")


async def test_openai_request_mapping(era: str, standin: StandInProvider) -> None:
    async with connect_provider(era, standin, "openai") as client:
        result = await client.call_tool("messages_create", CONVERSATION)
    assert not result.is_error, result.content[0].text
    (seen,) = standin.seen
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    body = seen.body
    assert body["model"] == "model-one"
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "toolu_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": "[error] no data"},
        {"role": "user", "content": "try again"},
    ]
    assert body["max_completion_tokens"] == 77
    assert "max_tokens" not in body
    assert body["temperature"] == 0.5
    assert body["stop"] == ["END"]
    assert _tool_spec(body, "openai") == [("get_weather", SCHEMA), ("get_time", {"type": "object"})]
    assert body["tools"][0]["function"]["description"].startswith("Weather for a city.")
    assert "tool_choice" not in body  # none given, none sent


async def test_anthropic_request_mapping(era: str, standin: StandInProvider) -> None:
    async with connect_provider(era, standin, "anthropic") as client:
        result = await client.call_tool("messages_create", CONVERSATION)
    assert not result.is_error, result.content[0].text
    (seen,) = standin.seen
    assert seen.path == "/v1/messages"
    # The SDK sends the key from ANTHROPIC_API_KEY (as x-api-key, or as a bearer token in recent SDKs).
    assert ANTHROPIC_KEY in (seen.headers.get("x-api-key"), seen.headers.get("authorization", "")[7:])
    body = seen.body
    assert body["model"] == "model-one"
    assert body["system"] == "Be brief."
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
            ],
        },
        # The payload carries the tool result and the text as two user turns; the API takes both.
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "no data", "is_error": True}
            ],
        },
        {"role": "user", "content": [{"type": "text", "text": "try again"}]},
    ]
    assert body["max_tokens"] == 77
    assert body["temperature"] == 0.5
    assert body["stop_sequences"] == ["END"]
    assert _tool_spec(body, "anthropic") == [("get_weather", SCHEMA), ("get_time", {"type": "object"})]
    assert "tool_choice" not in body


async def test_gemini_request_mapping(era: str, standin: StandInProvider) -> None:
    async with connect_provider(era, standin, "gemini") as client:
        result = await client.call_tool("messages_create", CONVERSATION)
    assert not result.is_error, result.content[0].text
    (seen,) = standin.seen
    assert seen.path == "/v1beta/models/model-one:generateContent"
    assert seen.headers["x-goog-api-key"] == GEMINI_KEY
    body = seen.body
    assert body["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "weather?"}]},
        {
            "role": "model",
            "parts": [
                {"text": "Checking."},
                {"functionCall": {"id": "toolu_1", "name": "get_weather", "args": {"city": "Paris"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "toolu_1",
                        "name": "get_weather",
                        "response": {"error": "no data"},
                    }
                }
            ],
        },
        {"role": "user", "parts": [{"text": "try again"}]},
    ]
    assert body["generationConfig"] == {"maxOutputTokens": 77, "temperature": 0.5, "stopSequences": ["END"]}
    assert _tool_spec(body, "gemini") == [("get_weather", SCHEMA), ("get_time", {"type": "object"})]
    assert "toolConfig" not in body


CHOICES = {
    "openai": {
        "auto": "auto",
        "any": "required",
        "none": "none",
        "tool": {"type": "function", "function": {"name": "get_time"}},
    },
    "anthropic": {
        "auto": {"type": "auto"},
        "any": {"type": "any"},
        "none": {"type": "none"},
        "tool": {"type": "tool", "name": "get_time"},
    },
    "gemini": {
        "auto": {"functionCallingConfig": {"mode": "AUTO"}},
        "any": {"functionCallingConfig": {"mode": "ANY"}},
        "none": {"functionCallingConfig": {"mode": "NONE"}},
        "tool": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_time"]}},
    },
}
CHOICE_KEY = {"openai": "tool_choice", "anthropic": "tool_choice", "gemini": "toolConfig"}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("choice", ["auto", "any", "none", "tool"])
async def test_tool_choice_mapping(era: str, standin: StandInProvider, provider: str, choice: str) -> None:
    tool_choice = {"type": choice, **({"name": "get_time"} if choice == "tool" else {})}
    args = {"messages": [{"role": "user", "content": "q"}], "tools": TOOLS, "tool_choice": tool_choice}
    if choice in ("any", "tool"):  # a required choice: the answer must call a tool (the limit is kept)
        standin.script.append(_calls(provider, [("c1", "get_time", {})]))
    async with connect_provider(era, standin, provider) as client:
        result = await client.call_tool("messages_create", args)
    assert not result.is_error, result.content[0].text
    body = standin.seen[0].body
    assert body[CHOICE_KEY[provider]] == CHOICES[provider][choice]
    offered = [name for name, _ in _tool_spec(body, provider)]
    assert offered == (["get_time"] if choice == "tool" else ["get_weather", "get_time"])


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_tool_calls_come_back_with_their_ids(era: str, standin: StandInProvider, provider: str) -> None:
    ids = ["call_a", "call_b"] if provider == "openai" else ["toolu_a", "toolu_b"]
    calls = [(ids[0], "get_weather", {"city": "Oslo"}), (ids[1], "get_time", {})]
    standin.script.append(_calls(provider, calls, "Let me look."))
    args = {"messages": [{"role": "user", "content": "q"}], "tools": TOOLS}
    async with connect_provider(era, standin, provider) as client:
        result = await client.call_tool("messages_create", args)
    assert json.loads(result.content[0].text) == {
        "text": "Let me look.",
        "tool_calls": [
            {"id": ids[0], "input": {"city": "Oslo"}, "name": "get_weather"},
            {"id": ids[1], "input": {}, "name": "get_time"},
        ],
    }
    assert backend_of(result) == f"provider:{provider}/model-one"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_structured_output_and_a_repair_through_the_provider(
    era: str, standin: StandInProvider, provider: str
) -> None:
    def call(input_: dict[str, Any], call_id: str) -> dict[str, Any]:
        return _calls(provider, [(call_id, "structured_output", input_)])

    standin.script += [call({"town": "Oslo"}, "c1"), call({"city": "Oslo"}, "c2")]
    args = {
        "messages": [{"role": "user", "content": "where?"}],
        "output_schema": SCHEMA,
        "repair_attempts": 1,
    }
    async with connect_provider(era, standin, provider) as client:
        result = await client.call_tool("messages_create", args)
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == {"city": "Oslo"}
    assert result.structured_content == {"city": "Oslo"}
    first, second = (s.body for s in standin.seen)
    named = CHOICES[provider]["tool"]
    expected_choice = json.loads(json.dumps(named).replace("get_time", "structured_output"))
    assert first[CHOICE_KEY[provider]] == expected_choice
    assert _tool_spec(first, provider) == [("structured_output", SCHEMA)]
    # The repair round carries the bad answer and the validation error back to the model.
    turns = "contents" if provider == "gemini" else "messages"
    assert len(second[turns]) == len(first[turns]) + 2
    assert "city" in json.dumps(second[turns][-1])


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("stop", "endTurn"),
        ("length", "maxTokens"),
        ("tool_calls", "toolUse"),
        ("content_filter", "content_filter"),
    ],
)
def test_openai_reply_mapping(reason: str, expected: str) -> None:
    from openai.types.chat import ChatCompletion

    response = ChatCompletion.model_validate(
        openai_reply(
            "hi", finish_reason=reason, model="gpt-served-1", tool_calls=[("call_z", "f", '{"a": 1}')]
        )
    )
    reply = provider_openai.read_reply(response)
    assert reply.stop_reason == expected
    assert reply.model == "gpt-served-1"
    assert [b.model_dump(exclude_none=True) for b in reply.blocks] == [
        {"type": "text", "text": "hi"},
        {"type": "tool_use", "id": "call_z", "name": "f", "input": {"a": 1}},
    ]


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("end_turn", "endTurn"),
        ("max_tokens", "maxTokens"),
        ("stop_sequence", "stopSequence"),
        ("tool_use", "toolUse"),
        ("refusal", "refusal"),
    ],
)
def test_anthropic_reply_mapping(reason: str, expected: str) -> None:
    from anthropic.types import Message

    response = Message.model_validate(
        anthropic_reply(
            "hi", stop_reason=reason, model="claude-served-1", tool_uses=[("toolu_z", "f", {"a": 1})]
        )
    )
    reply = provider_anthropic.read_reply(response)
    assert reply.stop_reason == expected
    assert reply.model == "claude-served-1"
    assert [b.model_dump(exclude_none=True) for b in reply.blocks] == [
        {"type": "text", "text": "hi"},
        {"type": "tool_use", "id": "toolu_z", "name": "f", "input": {"a": 1}},
    ]


@pytest.mark.parametrize(
    ("reason", "calls", "expected"),
    [
        ("STOP", False, "endTurn"),
        ("MAX_TOKENS", False, "maxTokens"),
        ("SAFETY", False, "SAFETY"),
        ("STOP", True, "toolUse"),
    ],
)
def test_gemini_reply_mapping(reason: str, calls: bool, expected: str) -> None:
    from google.genai import types

    reply_json = gemini_reply(
        "hi", finish_reason=reason, model="gemini-served-1", calls=[("f", {"a": 1})] if calls else []
    )
    parts = reply_json["candidates"][0]["content"]["parts"]
    parts.insert(0, {"text": "thinking...", "thought": True})  # the model's reasoning: not its answer
    reply = provider_gemini.read_reply(types.GenerateContentResponse.model_validate(reply_json))
    assert reply.stop_reason == expected
    assert reply.model == "gemini-served-1"
    blocks = [b.model_dump(exclude_none=True) for b in reply.blocks]
    assert blocks[0] == {"type": "text", "text": "hi"}
    if calls:  # the API gave the call no id: one is made of its place
        assert blocks[1] == {"type": "tool_use", "id": "call_2", "name": "f", "input": {"a": 1}}
    assert reply.usage is not None and (reply.usage.input_tokens, reply.usage.output_tokens) == (9, 4)


def connect_provider(era: str, standin: StandInProvider, provider: str) -> Any:
    from tests.scripted_host import connect

    # The neutral mapping is what these tests read: a provider that speaks the call's product
    # would take the body as written (tests/test_passthrough.py), so it is told not to.
    return connect(era, server=provider_server(standin, provider, pass_through=False))


@pytest.mark.parametrize(
    ("provider", "reason", "words"),
    [
        ("openai", "stop", "end_turn"),
        ("openai", "length", "max_tokens"),
        ("anthropic", "end_turn", "end_turn"),
        ("anthropic", "max_tokens", "max_tokens"),
        ("anthropic", "stop_sequence", "stop_sequence"),
        ("gemini", "STOP", "end_turn"),
        ("gemini", "MAX_TOKENS", "max_tokens"),
    ],
)
async def test_the_stop_reason_and_model_come_back_end_to_end(
    era: str, standin: StandInProvider, provider: str, reason: str, words: str
) -> None:
    """The provider's stop reason, read into MCP's words, reaches the result in the product's own
    (messages_create's `stop_reason`), with the model the provider named, over real HTTP."""
    if provider == "openai":
        standin.script.append(openai_reply("cut", finish_reason=reason, model="gpt-served-2"))
    elif provider == "gemini":
        standin.script.append(gemini_reply("cut", finish_reason=reason, model="gpt-served-2"))
    else:
        standin.script.append(anthropic_reply("cut", stop_reason=reason, model="gpt-served-2"))
    args = {"messages": [{"role": "user", "content": "q"}], "max_tokens": 5}
    async with connect_provider(era, standin, provider) as client:
        result = await client.call_tool("messages_create", args)
    assert not result.is_error, result.content[0].text
    assert result.content[0].text == "cut"
    meta = result.meta["agent-as-model/result"]
    assert meta == {
        "model": "gpt-served-2",
        "stop_reason": words,
        "backend": f"provider:{provider}/model-one",
        "requested_model": "agent-default",
        "usage": "provider",  # the stand-ins' replies carry the API's counts
        # The route (--use-provider when-host-cannot) passed the host over, and says why.
        "passed_over": [{"backend": "host", "why": "the host did not declare sampling"}],
    }
