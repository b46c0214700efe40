"""The corpus's entries: one request body each, written by an official SDK (`sdk.py`), with the
outcome it must have and what the scripted host answers.

- `faithful`: served as the product's API would serve it, with no warning;
- `hinted`: served, and every parameter or item that was accepted without being enforced is
  named in `_meta["agent-as-model/result"].warnings` (`named`: the paths the warnings must name);
  a sampling parameter also travels to the host in the sampling request's metadata (`hints`);
- `refused`: an error naming `path`, whose reason holds `says`, with nothing sent to the host.
  Where the product's own API would take what is refused (a parameter or a part of the
  conversation the host alone cannot take, docs/decisions.md), the refusal is the host's alone:
  a provider that speaks the product takes the body as written (tests/test_passthrough.py for the
  parameters, tests/test_host_only_parts.py for the conversation's parts).

Every parameter of each create call, every content part type of each product and the tool loops
as the SDKs pass them back are here; `check` looks at what the host was sent and what came back
where the outcome alone would not show it (an echo, a choice count, a system prompt).
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from anthropic.types import ContentBlockParam as AnthropicBlock
from anthropic.types import Message
from google.genai import types as gt
from mcp_types import CreateMessageResult, CreateMessageResultWithTools
from openai.types.chat import ChatCompletion
from openai.types.responses import Response
from openai.types.responses.response_input_item_param import ResponseInputItemParam as ResponsesItem

from tests.agent_loop import tool_answer
from tests.corpus import sdk
from tests.scripted_host import text_answer

Answer = CreateMessageResult | CreateMessageResultWithTools
# (the product's object, every sampling request the host was sent, as on the wire)
Check = Callable[[dict[str, Any], list[dict[str, Any]]], None]

HINTS_KEY = "agent-as-model/hints"
TEXT = text_answer("Done.", model="host-model")


class Entry(NamedTuple):
    name: str
    tool: str
    body: Callable[[], dict[str, Any]]  # written by the SDK when the corpus is run
    expect: str  # faithful | hinted | refused
    named: tuple[str, ...] = ()  # hinted: the paths the warnings name; refused: the path refused
    says: str = ""  # words of the refusal's reason (refused) or of the warnings (hinted)
    hints: Mapping[str, Any] | None = None  # what the host's sampling request carries as hints
    answers: tuple[Answer, ...] = (TEXT,)
    check: Check | None = None


def calls(*named: tuple[str, str, dict[str, Any]]) -> CreateMessageResultWithTools:
    return tool_answer("", *named, model="host-model")


def answered(text: str) -> CreateMessageResult:
    return text_answer(text, model="host-model")


CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
OSLO = ("call_1", "get_weather", {"city": "Oslo"})
BERGEN = ("call_2", "get_weather", {"city": "Bergen"})
STRUCTURED = calls(("so_1", "structured_output", {"city": "Oslo"}))
TWO_CALLS = calls(OSLO, BERGEN)
ONE_CALL = calls(OSLO)


def _png() -> str:
    """A real 1x1 PNG, base64: the media checks read its magic number."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    raw += chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b"")
    return base64.b64encode(raw).decode()


def _wav() -> str:
    samples = b"\x00\x00" * 8
    header = b"RIFF" + struct.pack("<I", 36 + len(samples)) + b"WAVEfmt "
    header += (
        struct.pack("<IHHIIHH", 16, 1, 1, 8000, 16000, 2, 16) + b"data" + struct.pack("<I", len(samples))
    )
    return base64.b64encode(header + samples).decode()


PNG = _png()
WAV = _wav()
PDF = base64.b64encode(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF").decode()


def hinted(*pairs: tuple[str, Any]) -> dict[str, Any]:
    return dict(pairs)


# -- checks --------------------------------------------------------------------------------------


def first_wire(check: Callable[[dict[str, Any]], None]) -> Check:
    return lambda obj, wires: check(wires[0])


def sent(**fields: Any) -> Check:
    """The host's first sampling request holds these fields (camelCase, as on the wire)."""

    def check(obj: dict[str, Any], wires: list[dict[str, Any]]) -> None:
        for key, value in fields.items():
            assert wires[0].get(key) == value, (key, wires[0].get(key), value)

    return check


def echoed(**fields: Any) -> Check:
    """The product's object echoes these fields as sent."""

    def check(obj: dict[str, Any], wires: list[dict[str, Any]]) -> None:
        for key, value in fields.items():
            assert obj.get(key) == value, (key, obj.get(key), value)

    return check


def both(*checks: Check) -> Check:
    def check(obj: dict[str, Any], wires: list[dict[str, Any]]) -> None:
        for each in checks:
            each(obj, wires)

    return check


def told_one_call(obj: dict[str, Any], wires: list[dict[str, Any]]) -> None:
    """The host was told to make one call at most, in the system prompt of every round."""
    for wire in wires:
        assert "at most one tool call" in wire.get("systemPrompt", ""), wire.get("systemPrompt")


def repaired_to_one_call(obj: dict[str, Any], wires: list[dict[str, Any]]) -> None:
    """The host made two calls, was asked again (each call answered as not run), made one."""
    told_one_call(obj, wires)
    assert len(wires) == 2, len(wires)
    results = wires[1]["messages"][-1]["content"]
    assert [r["type"] for r in results] == ["tool_result", "tool_result"], results
    assert all(r["isError"] for r in results), results


def message_count(n: int) -> Check:
    return lambda obj, wires: _equal(len(wires[0]["messages"]), n)


def _equal(got: Any, want: Any) -> None:
    assert got == want, (got, want)


def no_media_block(kind: str) -> Check:
    def check(obj: dict[str, Any], wires: list[dict[str, Any]]) -> None:
        blocks = [b for m in wires[0]["messages"] for b in _blocks(m)]
        assert any(b["type"] == kind for b in blocks), blocks

    return check


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return content if isinstance(content, list) else [content]


def history_without(word: str, entries: int) -> Check:
    """The host saw `entries` messages, none of them holding `word` (another model's reasoning)."""

    def check(obj: dict[str, Any], wires: list[dict[str, Any]]) -> None:
        assert word not in json.dumps(wires[0]["messages"]), wires[0]["messages"]
        assert len(wires[0]["messages"]) == entries, wires[0]["messages"]

    return check


# -- Chat Completions (`openai`: client.chat.completions.create) -----------------------------------

GPT = "gpt-4.1"
Q = {"role": "user", "content": "Weather in Oslo?"}
CHAT_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": CITY}}
CHAT_ASKED = ChatCompletion.model_validate(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": GPT,
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "refusal": None,
                    "annotations": [],
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                        }
                    ],
                },
            }
        ],
    }
)


def chat(**params: Any) -> Callable[[], dict[str, Any]]:
    return lambda: sdk.chat(**{"model": GPT, "messages": [Q], **params})


def chat_parts(*parts: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return chat(messages=[{"role": "user", "content": [{"type": "text", "text": "What is this?"}, *parts]}])


CHAT = [
    Entry(
        "chat: the limits and the conversation",
        "chat_complete",
        chat(
            messages=[
                {"role": "system", "content": "Be brief."},
                {"role": "developer", "content": "Metric."},
                Q,
            ],
            temperature=0.3,
            max_completion_tokens=200,
            stop=["\n\n"],
        ),
        "faithful",
        check=sent(
            temperature=0.3, maxTokens=200, stopSequences=["\n\n"], systemPrompt="Be brief.\n\nMetric."
        ),
    ),
    Entry(
        "chat: max_tokens, the older limit",
        "chat_complete",
        chat(max_tokens=64),
        "faithful",
        check=sent(maxTokens=64),
    ),
    Entry(
        "chat: harmless values of the refused parameters",
        "chat_complete",
        chat(stream=False, n=1, logprobs=False, modalities=["text"], parallel_tool_calls=True),
        "faithful",
    ),
    Entry(
        "chat: sampling parameters travel as hints",
        "chat_complete",
        chat(top_p=0.9, seed=7, frequency_penalty=0.2, presence_penalty=0.1, logit_bias={"50256": -100}),
        "hinted",
        ("top_p", "seed", "frequency_penalty", "presence_penalty", "logit_bias"),
        "hint",
        hinted(
            ("top_p", 0.9),
            ("seed", 7),
            ("frequency_penalty", 0.2),
            ("presence_penalty", 0.1),
            ("logit_bias", {"50256": -100}),
        ),
    ),
    Entry(
        "chat: reasoning_effort is a reasoning hint",
        "chat_complete",
        chat(reasoning_effort="low"),
        "hinted",
        ("reasoning_effort",),
        hints=hinted(("reasoning", {"effort": "low"})),
    ),
    Entry(
        "chat: verbosity is a hint",
        "chat_complete",
        chat(verbosity="low"),
        "hinted",
        ("verbosity",),
        hints=hinted(("verbosity", "low")),
    ),
    Entry(
        "chat: account and caching settings are not applied",
        "chat_complete",
        chat(
            user="u-1",
            safety_identifier="s-1",
            prompt_cache_key="k",
            prompt_cache_retention="24h",
            prompt_cache_options={"mode": "implicit"},
        ),
        "hinted",
        ("user", "safety_identifier", "prompt_cache_key", "prompt_cache_retention", "prompt_cache_options"),
        "not applied",
    ),
    Entry(
        "chat: metadata is echoed, store false kept",
        "chat_complete",
        chat(metadata={"run": "42"}, store=False),
        "faithful",
        check=echoed(metadata={"run": "42"}),
    ),
    Entry("chat: store true is not applied", "chat_complete", chat(store=True), "hinted", ("store",)),
    Entry(
        "chat: service_tier is echoed, not applied",
        "chat_complete",
        chat(service_tier="flex"),
        "hinted",
        ("service_tier",),
        check=echoed(service_tier="flex"),
    ),
    Entry(
        "chat: predicted outputs are not applied",
        "chat_complete",
        chat(prediction={"type": "content", "content": "It is"}),
        "hinted",
        ("prediction",),
    ),
    Entry(
        "chat: stream_options mean nothing without a stream",
        "chat_complete",
        chat(stream=False, stream_options={"include_usage": True}),
        "faithful",
    ),
    Entry(
        "chat: n asks for that many choices",
        "chat_complete",
        chat(n=2),
        "faithful",
        answers=(answered("One."), answered("Two.")),
        check=lambda obj, wires: _equal(len(obj["choices"]), 2),
    ),
    Entry("chat: stream true", "chat_complete", chat(stream=True), "refused", ("stream",), "streaming"),
    Entry(
        "chat: logprobs", "chat_complete", chat(logprobs=True), "refused", ("logprobs",), "log probabilities"
    ),
    Entry(
        "chat: top_logprobs",
        "chat_complete",
        chat(logprobs=False, top_logprobs=3),
        "refused",
        ("top_logprobs",),
        "log probabilities",
    ),
    Entry(
        "chat: audio output",
        "chat_complete",
        chat(modalities=["text", "audio"], audio={"voice": "alloy", "format": "wav"}),
        "refused",
        ("audio",),
        "audio output",
    ),
    Entry(
        "chat: web search",
        "chat_complete",
        chat(web_search_options={"search_context_size": "low"}),
        "refused",
        ("web_search_options",),
        "web search",
    ),
    Entry(
        "chat: the deprecated functions",
        "chat_complete",
        chat(functions=[{"name": "get_weather", "parameters": CITY}]),
        "refused",
        ("functions",),
        "deprecated",
    ),
    Entry(
        "chat: the deprecated function_call",
        "chat_complete",
        chat(function_call="auto"),
        "refused",
        ("function_call",),
        "deprecated",
    ),
    Entry(
        "chat: moderation",
        "chat_complete",
        chat(moderation={"input": {"mode": "block"}}),  # type: ignore[arg-type]
        "refused",
        ("moderation",),
        "moderation",
    ),
    Entry(
        "chat: response_format json_schema",
        "chat_complete",
        chat(
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "city", "schema": CITY, "strict": True},
            }
        ),
        "faithful",
        answers=(STRUCTURED,),
        check=lambda obj, wires: _equal(
            json.loads(obj["choices"][0]["message"]["content"]), {"city": "Oslo"}
        ),
    ),
    Entry(
        "chat: response_format json_object",
        "chat_complete",
        chat(response_format={"type": "json_object"}),
        "faithful",
        answers=(STRUCTURED,),
    ),
    Entry(
        "chat: tools, the host calls one",
        "chat_complete",
        chat(tools=[CHAT_TOOL], tool_choice="auto"),
        "faithful",
        answers=(ONE_CALL,),
        check=lambda obj, wires: _equal(obj["choices"][0]["finish_reason"], "tool_calls"),
    ),
    Entry(
        "chat: a named tool choice",
        "chat_complete",
        chat(tools=[CHAT_TOOL], tool_choice={"type": "function", "function": {"name": "get_weather"}}),
        "faithful",
        answers=(ONE_CALL,),
        check=sent(toolChoice={"mode": "required"}),
    ),
    Entry(
        "chat: parallel_tool_calls false is told",
        "chat_complete",
        chat(tools=[CHAT_TOOL], parallel_tool_calls=False),
        "faithful",
        answers=(ONE_CALL,),
        check=told_one_call,
    ),
    Entry(
        "chat: two calls under parallel_tool_calls false are repaired",
        "chat_complete",
        chat(tools=[CHAT_TOOL], parallel_tool_calls=False, extra_body={"repair_attempts": 1}),
        "faithful",
        answers=(TWO_CALLS, ONE_CALL),
        check=repaired_to_one_call,
    ),
    Entry(
        "chat: a tool loop passed back as the SDK passes it",
        "chat_complete",
        chat(
            messages=[
                Q,
                CHAT_ASKED.choices[0].message,
                {"role": "tool", "tool_call_id": "call_1", "content": "12 C"},
            ],
            tools=[CHAT_TOOL],
        ),
        "faithful",
        check=message_count(3),
    ),
    Entry(
        "chat: a message's name",
        "chat_complete",
        chat(messages=[{"role": "user", "content": "Hi.", "name": "ana"}]),
        "faithful",
    ),
    Entry(
        "chat: an image_url part",
        "chat_complete",
        chat_parts(
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "low"}}
        ),
        "faithful",
        check=no_media_block("image"),
    ),
    Entry(
        "chat: an input_audio part",
        "chat_complete",
        chat_parts({"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}}),
        "faithful",
        check=no_media_block("audio"),
    ),
    Entry(
        "chat: a remote image_url",
        "chat_complete",
        chat_parts({"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}),
        "refused",
        ("messages[0].content[1].image_url.url",),
        "fetch",
    ),
    Entry(
        "chat: a file part",
        "chat_complete",
        chat_parts(
            {"type": "file", "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "a.pdf"}}
        ),
        "refused",
        ("messages[0].content[1]",),
        "not carried",
    ),
    Entry(
        "chat: an image in a system message",
        "chat_complete",
        chat(
            messages=[
                {"role": "system", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}]},  # type: ignore[list-item]
                Q,
            ]
        ),
        "refused",
        ("messages[0].content[0]",),
        "user",
    ),
]


# -- Anthropic Messages (`anthropic`: client.messages.create) ----------------------------------------

CLAUDE = "claude-sonnet-4-5"
ANTHROPIC_TOOL = {"name": "get_weather", "description": "Weather for a city.", "input_schema": CITY}
THOUGHT = Message.model_validate(
    {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": CLAUDE,
        "content": [
            {"type": "thinking", "thinking": "The user wants Oslo.", "signature": "EqQBCkYIARgC"},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
            {"type": "text", "text": "Checking.", "citations": None},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
)
RESULT_BLOCK = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "12 C"}


def messages(**params: Any) -> Callable[[], dict[str, Any]]:
    return lambda: sdk.messages(**{"model": CLAUDE, "max_tokens": 512, "messages": [Q], **params})


def user_blocks(*blocks: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return messages(
        messages=[{"role": "user", "content": [*blocks, {"type": "text", "text": "What is this?"}]}]
    )


MESSAGES = [
    Entry(
        "messages: the limits and the system prompt",
        "messages_create",
        # This SDK no longer lists temperature, top_p nor top_k; the API and older SDKs take them.
        messages(system="Be brief.", stop_sequences=["END"], extra_body={"temperature": 0.5}),
        "faithful",
        check=sent(temperature=0.5, maxTokens=512, stopSequences=["END"], systemPrompt="Be brief."),
    ),
    Entry(
        "messages: system blocks with cache_control",
        "messages_create",
        messages(system=[{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]),
        "faithful",
        check=sent(systemPrompt="Be brief."),
    ),
    Entry(
        "messages: top_p and top_k travel as hints",
        "messages_create",
        messages(extra_body={"top_p": 0.8, "top_k": 40}),
        "hinted",
        ("top_p", "top_k"),
        hints=hinted(("top_p", 0.8), ("top_k", 40)),
    ),
    Entry(
        "messages: thinking is a reasoning hint",
        "messages_create",
        messages(thinking={"type": "enabled", "budget_tokens": 1024}),
        "hinted",
        ("thinking",),
        "thinking block",
        hinted(("reasoning", {"type": "enabled", "budget_tokens": 1024})),
    ),
    Entry(
        "messages: thinking disabled",
        "messages_create",
        messages(thinking={"type": "disabled"}),
        "faithful",
        hints=hinted(("reasoning", {"type": "disabled"})),
    ),
    Entry(
        "messages: output_config effort is a reasoning hint, its format the contract",
        "messages_create",
        messages(output_config={"effort": "low", "format": {"type": "json_schema", "schema": CITY}}),
        "hinted",
        ("output_config.effort",),
        hints=hinted(("reasoning", {"effort": "low"})),
        answers=(STRUCTURED,),
    ),
    Entry(
        "messages: account and service settings are not applied",
        "messages_create",
        messages(
            metadata={"user_id": "u-1"},
            service_tier="auto",
            inference_geo="us",
            cache_control={"type": "ephemeral"},
            speed="fast",
            user_profile_id="up-1",
            workspace_id="ws-1",
            diagnostics={"previous_message_id": "msg_0"},
        ),
        "hinted",
        # The SDK sends user_profile_id and workspace_id as headers, not in the body.
        ("metadata", "service_tier", "inference_geo", "cache_control", "speed", "diagnostics"),
        "not applied",
    ),
    Entry("messages: stream", "messages_create", messages(stream=True), "refused", ("stream",), "streaming"),
    Entry(
        "messages: remote MCP servers",
        "messages_create",
        # The beta API's parameter (`client.beta.messages`), sent in this SDK's extra_body.
        messages(
            extra_body={"mcp_servers": [{"type": "url", "url": "https://mcp.example.com", "name": "x"}]}
        ),
        "refused",
        ("mcp_servers",),
        "MCP servers",
    ),
    Entry(
        "messages: a container",
        "messages_create",
        messages(container="container_1"),
        "refused",
        ("container",),
        "container",
    ),
    Entry(
        "messages: tools, any choice",
        "messages_create",
        messages(tools=[ANTHROPIC_TOOL], tool_choice={"type": "any"}),
        "faithful",
        answers=(ONE_CALL,),
        check=lambda obj, wires: _equal(obj["stop_reason"], "tool_use"),
    ),
    Entry(
        "messages: disable_parallel_tool_use is told",
        "messages_create",
        messages(tools=[ANTHROPIC_TOOL], tool_choice={"type": "auto", "disable_parallel_tool_use": True}),
        "faithful",
        answers=(ONE_CALL,),
        check=told_one_call,
    ),
    Entry(
        "messages: two calls under disable_parallel_tool_use are repaired",
        "messages_create",
        messages(
            tools=[ANTHROPIC_TOOL],
            tool_choice={"type": "any", "disable_parallel_tool_use": True},
            extra_body={"repair_attempts": 1},
        ),
        "faithful",
        answers=(TWO_CALLS, ONE_CALL),
        check=repaired_to_one_call,
    ),
    Entry(
        "messages: a server tool",
        "messages_create",
        messages(tools=[{"type": "web_search_20250305", "name": "web_search"}]),
        "refused",
        ("tools[0].type",),
        "server tools",
    ),
    Entry(
        "messages: a tool loop passed back as the SDK passes it",
        "messages_create",
        messages(
            messages=[
                Q,
                {
                    "role": "assistant",
                    "content": [b for b in THOUGHT.content if b.type in ("text", "tool_use")],
                },
                {"role": "user", "content": [RESULT_BLOCK]},
            ],
            tools=[ANTHROPIC_TOOL],
        ),
        "faithful",
        check=message_count(3),
    ),
    Entry(
        "messages: thinking blocks in history are left out",
        "messages_create",
        messages(
            messages=[
                Q,
                {"role": "assistant", "content": THOUGHT.content},
                {"role": "user", "content": [RESULT_BLOCK]},
            ],
            tools=[ANTHROPIC_TOOL],
        ),
        "hinted",
        ("messages[1].content[0]", "messages[1].content[1]"),
        "left out",
        check=history_without("The user wants Oslo", 3),
    ),
    Entry(
        "messages: a base64 image block",
        "messages_create",
        user_blocks({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}),
        "faithful",
        check=no_media_block("image"),
    ),
    Entry(
        "messages: a url image block",
        "messages_create",
        user_blocks({"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}}),
        "refused",
        ("messages[0].content[0].source",),
        "fetch",
    ),
    Entry(
        "messages: a document block",
        "messages_create",
        user_blocks(
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}}
        ),
        "refused",
        ("messages[0].content[0]",),
        "not carried",
    ),
    Entry(
        "messages: a plain-text document block",
        "messages_create",
        user_blocks(
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "Notes."}}
        ),
        "refused",
        ("messages[0].content[0]",),
        "not carried",
    ),
    Entry(
        "messages: a search_result block",
        "messages_create",
        user_blocks(
            {
                "type": "search_result",
                "source": "https://example.com",
                "title": "Oslo",
                "content": [{"type": "text", "text": "12 C"}],
            }
        ),
        "refused",
        ("messages[0].content[0]",),
        "search result",
    ),
    Entry(
        "messages: a document in a tool result",
        "messages_create",
        messages(
            messages=[
                Q,
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_1",
                            "content": [
                                {
                                    "type": "document",
                                    "source": {"type": "text", "media_type": "text/plain", "data": "x"},
                                }
                            ],
                        }
                    ],
                },
            ],
            tools=[ANTHROPIC_TOOL],
        ),
        "refused",
        ("messages[2].content[0].content[0]",),
        "not carried",
    ),
]


# -- OpenAI Responses (`openai`: client.responses.create) ------------------------------------------

RESPONSES_TOOL = {"type": "function", "name": "get_weather", "parameters": CITY, "strict": False}
REASONED = Response.model_validate(
    {
        "id": "resp_68b5f3c1d2e0819aa3c1f4b2e5d6a7b80c9d8e7f6a5b4c3d",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "gpt-5",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [RESPONSES_TOOL],
        "output": [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "The user wants Oslo."}],
                "encrypted_content": "gAAAAABo",
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
)
OPENAI_ID = REASONED.id  # an id the Responses API minted: resp_ and 48 hex digits
SAID = Response.model_validate(
    {
        **REASONED.model_dump(mode="json"),
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Checking.", "annotations": [], "logprobs": []}],
            },
            REASONED.output[1].model_dump(mode="json"),
        ],
    }
)
CALL_OUTPUT = {"type": "function_call_output", "call_id": "call_1", "output": "12 C"}


def responses(**params: Any) -> Callable[[], dict[str, Any]]:
    return lambda: sdk.responses(**{"model": GPT, "input": "Weather in Oslo?", **params})


def input_parts(*parts: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return responses(
        input=[{"role": "user", "content": [{"type": "input_text", "text": "What is this?"}, *parts]}]
    )


RESPONSES = [
    Entry(
        "responses: instructions and the limits",
        "responses_create",
        responses(instructions="Be brief.", temperature=0.4, max_output_tokens=300),
        "faithful",
        check=both(
            sent(temperature=0.4, maxTokens=300, systemPrompt="Be brief."), echoed(max_output_tokens=300)
        ),
    ),
    Entry(
        "responses: items with a developer message",
        "responses_create",
        responses(
            input=[{"role": "developer", "content": "Metric."}, {"role": "user", "content": "Weather?"}]
        ),
        "faithful",
        check=sent(systemPrompt="Metric."),
    ),
    Entry(
        "responses: harmless values",
        "responses_create",
        responses(
            stream=False, background=False, parallel_tool_calls=True, include=[], truncation="disabled"
        ),
        "faithful",
        check=echoed(truncation="disabled", background=False),
    ),
    Entry(
        "responses: top_p travels as a hint and is echoed",
        "responses_create",
        responses(top_p=0.9),
        "hinted",
        ("top_p",),
        hints=hinted(("top_p", 0.9)),
        check=echoed(top_p=0.9),
    ),
    Entry(
        "responses: reasoning is a reasoning hint, echoed",
        "responses_create",
        responses(reasoning={"effort": "low", "summary": "auto"}),
        "hinted",
        ("reasoning",),
        "reasoning",
        hinted(("reasoning", {"effort": "low", "summary": "auto"})),
        check=echoed(reasoning={"effort": "low", "summary": "auto"}),
    ),
    Entry(
        "responses: metadata and store false are echoed",
        "responses_create",
        responses(metadata={"run": "42"}, store=False),
        "faithful",
        check=echoed(metadata={"run": "42"}, store=False),
    ),
    Entry(
        "responses: user, service_tier and safety_identifier are echoed, not applied",
        "responses_create",
        responses(user="u-1", service_tier="flex", safety_identifier="s-1", prompt_cache_key="k"),
        "hinted",
        ("user", "service_tier", "safety_identifier", "prompt_cache_key"),
        "not applied",
        check=echoed(user="u-1", service_tier="flex", safety_identifier="s-1", prompt_cache_key="k"),
    ),
    Entry(
        "responses: truncation auto is not applied",
        "responses_create",
        responses(truncation="auto"),
        "hinted",
        ("truncation",),
        check=echoed(truncation="auto"),
    ),
    Entry(
        "responses: store true keeps nothing on a server without a store",
        "responses_create",
        responses(store=True),
        "hinted",
        ("store",),
        "--store",
        check=echoed(store=True),
    ),
    Entry(
        "responses: background runs in the foreground",
        "responses_create",
        responses(background=True),
        "hinted",
        ("background",),
        "foreground",
        check=both(echoed(background=True, status="completed")),
    ),
    Entry(
        "responses: include asks for what is not produced",
        "responses_create",
        responses(include=["reasoning.encrypted_content"]),
        "hinted",
        ("include",),
    ),
    Entry(
        "responses: max_tool_calls is kept",
        "responses_create",
        responses(max_tool_calls=3),
        "faithful",
        check=echoed(max_tool_calls=3),
    ),
    Entry(
        "responses: text.format json_schema",
        "responses_create",
        responses(text={"format": {"type": "json_schema", "name": "city", "schema": CITY, "strict": True}}),
        "faithful",
        answers=(STRUCTURED,),
        check=lambda obj, wires: _equal(json.loads(obj["output"][0]["content"][0]["text"]), {"city": "Oslo"}),
    ),
    Entry(
        "responses: text.verbosity is a hint",
        "responses_create",
        responses(text={"verbosity": "low"}),
        "hinted",
        ("text.verbosity",),
        hints=hinted(("verbosity", "low")),
    ),
    Entry(
        "responses: stream", "responses_create", responses(stream=True), "refused", ("stream",), "streaming"
    ),
    Entry(
        "responses: a conversation",
        "responses_create",
        responses(conversation="conv_1"),
        "refused",
        ("conversation",),
        "conversation",
    ),
    Entry(
        "responses: a stored prompt",
        "responses_create",
        responses(prompt={"id": "pmpt_1"}),
        "refused",
        ("prompt",),
        "prompt",
    ),
    Entry(
        "responses: top_logprobs",
        "responses_create",
        responses(top_logprobs=2),
        "refused",
        ("top_logprobs",),
        "log probabilities",
    ),
    Entry(
        "responses: tools and a named choice",
        "responses_create",
        responses(tools=[RESPONSES_TOOL], tool_choice={"type": "function", "name": "get_weather"}),
        "faithful",
        answers=(ONE_CALL,),
        check=lambda obj, wires: _equal([i["type"] for i in obj["output"]], ["function_call"]),
    ),
    Entry(
        "responses: two calls under parallel_tool_calls false are repaired",
        "responses_create",
        responses(tools=[RESPONSES_TOOL], parallel_tool_calls=False, extra_body={"repair_attempts": 1}),
        "faithful",
        answers=(TWO_CALLS, ONE_CALL),
        check=both(repaired_to_one_call, echoed(parallel_tool_calls=False)),
    ),
    Entry(
        "responses: a built-in tool",
        "responses_create",
        responses(tools=[{"type": "web_search"}]),
        "refused",
        ("tools[0].type",),
        "built-in",
    ),
    Entry(
        "responses: a tool loop passed back as the SDK passes it",
        "responses_create",
        responses(
            input=[{"role": "user", "content": "Weather in Oslo?"}, *SAID.output, CALL_OUTPUT],
            tools=[RESPONSES_TOOL],
        ),
        "faithful",
        check=message_count(3),
    ),
    Entry(
        "responses: a reasoning item in the input is left out",
        "responses_create",
        responses(
            input=[{"role": "user", "content": "Weather in Oslo?"}, *REASONED.output, CALL_OUTPUT],
            tools=[RESPONSES_TOOL],
        ),
        "hinted",
        ("input[1]",),
        "left out",
        check=history_without("The user wants Oslo", 3),
    ),
    Entry(
        "responses: an OpenAI response id with no history",
        "responses_create",
        responses(previous_response_id=OPENAI_ID, input="And in Bergen?"),
        "hinted",
        ("previous_response_id",),
        "--store",
    ),
    Entry(
        "responses: an OpenAI response id with the history passed",
        "responses_create",
        responses(
            previous_response_id=OPENAI_ID,
            input=[
                {"role": "user", "content": "Weather in Oslo?"},
                {"role": "assistant", "content": "12 C."},
                {"role": "user", "content": "And in Bergen?"},
            ],
        ),
        "faithful",
    ),
    Entry(
        "responses: an input_image data URL",
        "responses_create",
        input_parts({"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "auto"}),
        "faithful",
        check=no_media_block("image"),
    ),
    Entry(
        "responses: an input_image file id",
        "responses_create",
        input_parts({"type": "input_image", "file_id": "file-1", "detail": "auto"}),
        "refused",
        ("input[0].content[1].file_id",),
        "fetch",
    ),
    Entry(
        "responses: an input_file part",
        "responses_create",
        input_parts(
            {"type": "input_file", "file_data": f"data:application/pdf;base64,{PDF}", "filename": "a.pdf"}
        ),
        "refused",
        ("input[0].content[1]",),
        "not carried",
    ),
    Entry(
        "responses: an item reference",
        "responses_create",
        responses(input=[{"type": "item_reference", "id": "msg_1"}, {"role": "user", "content": "Go on."}]),
        "refused",
        ("input[0]",),
        "item reference",
    ),
    Entry(
        "responses: context management and background options are not applied",
        "responses_create",
        responses(
            context_management=[{"type": "compaction", "compact_threshold": 1000}],
            background_options={"completion_window": "soonest"},
            access_programs={"cyber": "standard"},
            image={"context_compression": "auto"},
            prompt_cache_options={"mode": "implicit"},
            prompt_cache_retention="24h",
        ),
        "hinted",
        (
            "context_management",
            "background_options",
            "access_programs",
            "image",
            "prompt_cache_options",
            "prompt_cache_retention",
        ),
        check=echoed(prompt_cache_retention="24h"),
    ),
    Entry(
        "responses: stream_options without a stream",
        "responses_create",
        responses(stream=False, stream_options={"include_obfuscation": False}),
        "faithful",
    ),
    Entry(
        "responses: moderation",
        "responses_create",
        responses(moderation={"input": {"mode": "block"}}),
        "refused",
        ("moderation",),
        "moderation",
    ),
]


# -- Gemini generateContent (`google-genai`: client.models.generate_content) -------------------------

WEATHER = gt.FunctionDeclaration(
    name="get_weather", description="Weather for a city.", parameters_json_schema=CITY
)
GEMINI_TOOLS = [gt.Tool(function_declarations=[WEATHER])]
# As a thinking model answers: its call carries the signature of its reasoning, passed back whole.
ASKED = gt.Content(
    role="model",
    parts=[
        gt.Part(
            function_call=gt.FunctionCall(id="call_1", name="get_weather", args={"city": "Oslo"}),
            thought_signature=b"signature",
        )
    ],
)
THOUGHT_CONTENT = gt.Content(
    role="model",
    parts=[
        gt.Part(text="The user wants Oslo.", thought=True),
        gt.Part(function_call=gt.FunctionCall(id="call_1", name="get_weather", args={"city": "Oslo"})),
    ],
)
RESPONDED = gt.Content(
    role="user", parts=[gt.Part.from_function_response(name="get_weather", response={"output": "12 C"})]
)


def gemini(contents: Any = "Weather in Oslo?", **config: Any) -> Callable[[], dict[str, Any]]:
    return lambda: sdk.gemini(contents, sdk.gemini_config(**config) if config else None)


def gemini_parts(*parts: gt.Part) -> Callable[[], dict[str, Any]]:
    return gemini([gt.Content(role="user", parts=[gt.Part(text="What is this?"), *parts])])


GEMINI = [
    Entry(
        "gemini: the limits and the system instruction",
        "gemini_generate_content",
        gemini(
            system_instruction="Be brief.", temperature=0.2, max_output_tokens=100, stop_sequences=["END"]
        ),
        "faithful",
        check=sent(temperature=0.2, maxTokens=100, stopSequences=["END"], systemPrompt="Be brief."),
    ),
    Entry(
        "gemini: sampling parameters travel as hints",
        "gemini_generate_content",
        gemini(top_p=0.9, top_k=40, seed=7, presence_penalty=0.1, frequency_penalty=0.2),
        "hinted",
        (
            "generationConfig.topP",
            "generationConfig.topK",
            "generationConfig.seed",
            "generationConfig.presencePenalty",
            "generationConfig.frequencyPenalty",
        ),
        "hint",
        hinted(
            ("top_p", 0.9), ("top_k", 40), ("seed", 7), ("presence_penalty", 0.1), ("frequency_penalty", 0.2)
        ),
    ),
    Entry(
        "gemini: safety settings travel as hints",
        "gemini_generate_content",
        gemini(
            safety_settings=[gt.SafetySetting(category="HARM_CATEGORY_HATE_SPEECH", threshold="BLOCK_NONE")]
        ),
        "hinted",
        ("safetySettings",),
        hints=hinted(
            ("safety_settings", [{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}])
        ),
    ),
    Entry(
        "gemini: thinkingConfig is a reasoning hint",
        "gemini_generate_content",
        gemini(thinking_config=gt.ThinkingConfig(thinking_budget=1024, include_thoughts=True)),
        "hinted",
        ("generationConfig.thinkingConfig",),
        hints=hinted(("reasoning", {"budget_tokens": 1024, "include_thoughts": True})),
    ),
    Entry(
        "gemini: a thinking level",
        "gemini_generate_content",
        gemini(thinking_config=gt.ThinkingConfig(thinking_level=gt.ThinkingLevel.LOW)),
        "hinted",
        ("generationConfig.thinkingConfig",),
        hints=hinted(("reasoning", {"effort": "low"})),
    ),
    Entry(
        "gemini: labels, media resolution and routing are not applied",
        "gemini_generate_content",
        gemini(
            labels={"team": "a"},
            media_resolution=gt.MediaResolution.MEDIA_RESOLUTION_LOW,
            service_tier=gt.ServiceTier.FLEX,
        ),
        "hinted",
        ("labels", "generationConfig.mediaResolution", "serviceTier"),
        "not applied",
    ),
    Entry(
        "gemini: JSON with a response schema",
        "gemini_generate_content",
        gemini(
            response_mime_type="application/json",
            response_schema=gt.Schema(
                type=gt.Type.OBJECT, properties={"city": gt.Schema(type=gt.Type.STRING)}
            ),
        ),
        "faithful",
        answers=(STRUCTURED,),
    ),
    Entry(
        "gemini: candidateCount asks for that many candidates",
        "gemini_generate_content",
        gemini(candidate_count=2),
        "faithful",
        answers=(answered("One."), answered("Two.")),
        check=lambda obj, wires: _equal(len(obj["candidates"]), 2),
    ),
    Entry(
        "gemini: tools and mode ANY",
        "gemini_generate_content",
        gemini(
            tools=GEMINI_TOOLS,
            tool_config=gt.ToolConfig(
                function_calling_config=gt.FunctionCallingConfig(mode=gt.FunctionCallingConfigMode.ANY)
            ),
        ),
        "faithful",
        answers=(ONE_CALL,),
        check=sent(toolChoice={"mode": "required"}),
    ),
    Entry(
        "gemini: a function call loop passed back as the SDK passes it",
        "gemini_generate_content",
        gemini(
            [gt.Content(role="user", parts=[gt.Part(text="Weather in Oslo?")]), ASKED, RESPONDED],
            tools=GEMINI_TOOLS,
        ),
        "faithful",
        check=message_count(3),
    ),
    Entry(
        "gemini: a thought part in history is left out",
        "gemini_generate_content",
        gemini(
            [gt.Content(role="user", parts=[gt.Part(text="Weather in Oslo?")]), THOUGHT_CONTENT, RESPONDED],
            tools=GEMINI_TOOLS,
        ),
        "hinted",
        ("contents[1].parts[0]",),
        "left out",
        check=history_without("The user wants Oslo", 3),
    ),
    Entry(
        "gemini: inline image data",
        "gemini_generate_content",
        gemini_parts(gt.Part.from_bytes(data=base64.b64decode(PNG), mime_type="image/png")),
        "faithful",
        check=no_media_block("image"),
    ),
    Entry(
        "gemini: a file URI",
        "gemini_generate_content",
        gemini_parts(gt.Part.from_uri(file_uri="gs://bucket/cat.png", mime_type="image/png")),
        "refused",
        ("contents[0].parts[1].fileData",),
        "fetch",
    ),
    Entry(
        "gemini: a video part",
        "gemini_generate_content",
        gemini_parts(
            gt.Part(
                inline_data=gt.Blob(data=b"\x00\x00\x00\x18ftypmp42", mime_type="video/mp4"),
                video_metadata=gt.VideoMetadata(fps=1.0),
            )
        ),
        "refused",
        ("contents[0].parts[1]",),
        "not carried",
    ),
    Entry(
        "gemini: log probabilities",
        "gemini_generate_content",
        gemini(response_logprobs=True),
        "refused",
        ("generationConfig.responseLogprobs",),
        "log probabilities",
    ),
    Entry(
        "gemini: image output",
        "gemini_generate_content",
        gemini(response_modalities=["IMAGE"]),
        "refused",
        ("generationConfig.responseModalities",),
        "TEXT",
    ),
    Entry(
        "gemini: cached content",
        "gemini_generate_content",
        gemini(cached_content="cachedContents/1"),
        "refused",
        ("cachedContent",),
        "cached",
    ),
    Entry(
        "gemini: JSON with a response JSON schema",
        "gemini_generate_content",
        gemini(response_mime_type="application/json", response_json_schema=CITY),
        "faithful",
        answers=(STRUCTURED,),
    ),
    Entry(
        "gemini: civic answers and store are not applied",
        "gemini_generate_content",
        gemini(enable_enhanced_civic_answers=True, store=True),
        "hinted",
        ("generationConfig.enableEnhancedCivicAnswers", "store"),
    ),
    Entry(
        "gemini: top log probabilities",
        "gemini_generate_content",
        gemini(logprobs=3),
        "refused",
        ("generationConfig.logprobs",),
        "log probabilities",
    ),
    Entry(
        "gemini: audio transcription",
        "gemini_generate_content",
        gemini(audio_transcription_config=gt.AudioTranscriptionConfig()),
        "refused",
        ("generationConfig.audioTranscriptionConfig",),
        "transcription",
    ),
    Entry(
        "gemini: speech output",
        "gemini_generate_content",
        gemini(speech_config=gt.SpeechConfig(language_code="en-US")),
        "refused",
        ("generationConfig.speechConfig",),
        "speech",
    ),
    Entry(
        "gemini: image output settings",
        "gemini_generate_content",
        gemini(image_config=gt.ImageConfig(aspect_ratio="1:1")),
        "refused",
        ("generationConfig.imageConfig",),
        "image output",
    ),
    Entry(
        "gemini: a continuation token",
        "gemini_generate_content",
        gemini(continuation_token=b"token"),
        "refused",
        ("continuationToken",),
        "continuation token",
    ),
    Entry(
        "gemini: a built-in tool",
        "gemini_generate_content",
        gemini(tools=[gt.Tool(google_search=gt.GoogleSearch())]),
        "refused",
        ("tools[0].googleSearch",),
        "Google",
    ),
]


# -- every other type of block, item and part the SDKs define ---------------------------------------
# Each as the SDK's own loop passes it back where it comes from (a response's content or output),
# refused with the true reason: tests/test_corpus.py checks that every type of the SDKs' unions
# is in some entry.

ANTHROPIC_PASSED = (
    "text",
    "image",
    "document",
    "search_result",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
)
SERVER_BLOCKS = [
    Entry(
        f"messages: a {kind} block",
        "messages_create",
        messages(
            messages=[
                Q,
                {"role": "assistant", "content": [{"type": kind, "id": "srvtoolu_1"}]},  # type: ignore[list-item, misc]
                {"role": "user", "content": "Go on."},
            ]
        ),
        "refused",
        ("messages[1].content[0]",),
        "Anthropic's side",
    )
    for kind in sdk.type_literals(AnthropicBlock)
    if kind not in ANTHROPIC_PASSED
]
RESPONSES_PASSED = ("message", "function_call", "function_call_output", "reasoning", "item_reference")
ITEM_REASONS = {
    "compaction": "compaction item",
    "compaction_trigger": "compaction",
    "additional_tools": "tools added in the middle",
    "configuration_update": "settings of later responses",
}
OTHER_ITEMS = [
    Entry(
        f"responses: a {kind} item",
        "responses_create",
        responses(input=[{"type": kind, "id": "item_1"}, {"role": "user", "content": "Go on."}]),  # type: ignore[list-item, misc]
        "refused",
        ("input[0]",),
        ITEM_REASONS.get(kind, "built-in or custom tool"),
    )
    for kind in sdk.type_literals(ResponsesItem)
    if kind not in RESPONSES_PASSED
]
SERVER_PARTS = [
    Entry(
        f"gemini: a {field} part",
        "gemini_generate_content",
        gemini(
            [
                gt.Content(role="user", parts=[gt.Part(text="Run it.")]),
                gt.Content(role="model", parts=[gt.Part(**{field: value})]),
                gt.Content(role="user", parts=[gt.Part(text="Go on.")]),
            ]
        ),
        "refused",
        (f"contents[1].parts[0].{sdk.camel(field)}",),
        "Google's side",
    )
    for field, value in (
        ("executable_code", gt.ExecutableCode(code="print(1)", language=gt.Language.PYTHON)),
        ("code_execution_result", gt.CodeExecutionResult(outcome=gt.Outcome.OUTCOME_OK, output="1")),
        ("tool_call", gt.ToolCall(id="t1")),
        ("tool_response", gt.ToolResponse(id="t1")),
    )
]
PART_FIELDS = [
    Entry(
        "gemini: a transcription part",
        "gemini_generate_content",
        gemini_parts(gt.Part(text="hello", audio_transcription=gt.Transcription(text="hello"))),  # type: ignore[call-arg]
        "refused",
        ("contents[0].parts[1].audioTranscription",),
        "transcription",
    ),
    Entry(
        "gemini: the SDK's part metadata",
        "gemini_generate_content",
        gemini_parts(
            gt.Part(
                inline_data=gt.Blob(data=base64.b64decode(PNG), mime_type="image/png"),
                media_resolution=gt.PartMediaResolution(
                    level=gt.PartMediaResolutionLevel.MEDIA_RESOLUTION_LOW
                ),
                media_processing=gt.MediaProcessing.STATIC,
                part_metadata={"k": "v"},
            ),
            gt.Part(
                text="The page says hello.",
                speech_metadata=gt.SpeechMetadata(speaker="a"),
                document_metadata=gt.DocumentMetadata(start_page=1),
                spreadsheet_metadata=gt.SpreadsheetMetadata(sheet_index=0),
                audio_metadata=gt.AudioMetadata(start_offset="0s"),
            ),
        ),
        "faithful",
    ),
]


ENTRIES: Sequence[Entry] = [
    *CHAT,
    *MESSAGES,
    *SERVER_BLOCKS,
    *RESPONSES,
    *OTHER_ITEMS,
    *GEMINI,
    *SERVER_PARTS,
    *PART_FIELDS,
]
