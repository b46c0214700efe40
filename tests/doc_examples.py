"""Run the worked examples of docs/tools-and-structured-output.md and render them as Markdown.

Every example is a real exchange: the SDK's `mcp.Client`, in-process, calls the server that
`agent_as_model.server.build_server()` builds, and a scripted host answers the server's
sampling requests. Each step of an example is rendered as the tool's arguments, the
`sampling/createMessage` params the host received, the host's answer, and the tool result.

    python -m tests.doc_examples                     # print every example as Markdown
    python -m tests.doc_examples --write docs/tools-and-structured-output.md

The blocks sit between `<!-- example:<key>:begin -->` and `<!-- example:<key>:end -->`.
Only what changes from run to run is normalised: the 32 hex digits of `resp_…` and `msg_…`
become `<hex>`, and a Responses object's `created_at` time becomes `<time>`.
tests/test_tools_doc.py runs the examples again and fails when the document is stale.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client import ClientRequestContext
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ErrorData,
    TextContent,
)

from agent_as_model.adapters.tools.names import host_name
from tests.agent_loop import Call, next_request, tool_answer
from tests.doc_blocks import GeneratedBlocks
from tests.scripted_host import ScriptedHost, connect

LEGACY = "legacy"
REGENERATE = "python -m tests.doc_examples --write docs/tools-and-structured-output.md"
HOST_MODEL = "host-model"
RANDOM_HEX = re.compile(r"\b(resp_|msg_|chatcmpl-)[0-9a-f]{32}\b")
CREATED_AT = re.compile(r'("created(?:_at)?": )\d+')

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}
WEATHER_DESCRIPTION = "Current weather for a city."
WEATHER_OUTPUT = '{"sky": "sunny", "temp_c": 24}'  # what the caller's own get_weather returned
PERSON_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "born": {"type": "integer"}},
    "required": ["name", "born"],
    "additionalProperties": False,
}
QUESTION = "Who wrote the first published computer program? Give her name and birth year."


# ----------------------------------------------------------------------------------------------
# What is recorded


@dataclass
class Sampling:
    """One sampling/createMessage request as the host received it, and what the host answered."""

    params: dict[str, Any]
    answer: dict[str, Any]


@dataclass
class Step:
    caption: str
    tool: str
    arguments: dict[str, Any]
    samplings: list[Sampling]
    is_error: bool
    text: str
    structured: dict[str, Any] | None
    warnings: list[str]


@dataclass
class Example:
    key: str
    steps: list[Step] = field(default_factory=list)


class RecordingHost(ScriptedHost):
    """A ScriptedHost that also keeps each answer it gave, as it travelled."""

    def __init__(self, *answers: Any) -> None:
        super().__init__(*answers)
        self.answers: list[dict[str, Any]] = []

    async def __call__(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | CreateMessageResultWithTools | ErrorData:
        answer = await super().__call__(context, params)
        self.answers.append(answer.model_dump(by_alias=True, mode="json", exclude_none=True))
        return answer


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class Recorder:
    """Calls tools on one connection and records each call as a Step of one Example."""

    def __init__(self, key: str, client: Client, host: RecordingHost) -> None:
        self.example = Example(key)
        self._client = client
        self._host = host

    async def call(self, caption: str, tool: str, arguments: dict[str, Any]) -> Step:
        before = self._host.asked
        logger = logging.getLogger("agent_as_model")
        handler = _Warnings()
        logger.addHandler(handler)
        try:
            result = await self._client.call_tool(tool, arguments)
        finally:
            logger.removeHandler(handler)
        assert len(result.content) == 1 and isinstance(result.content[0], TextContent)
        samplings = [
            Sampling(self._host.wire(i), self._host.answers[i]) for i in range(before, self._host.asked)
        ]
        step = Step(
            caption,
            tool,
            json.loads(json.dumps(arguments)),
            samplings,
            bool(result.is_error),
            result.content[0].text,
            result.structured_content,
            handler.messages,
        )
        self.example.steps.append(step)
        return step


# ----------------------------------------------------------------------------------------------
# Host answers


def says(text: str) -> CreateMessageResult:
    return CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text=text),
        model=HOST_MODEL,
        stop_reason="endTurn",
    )


def calls(text: str, *uses: Call) -> CreateMessageResultWithTools:
    return tool_answer(text, *uses, model=HOST_MODEL)


# ----------------------------------------------------------------------------------------------
# The examples. Each one runs on its own connection; the agent loops below do what a caller's
# loop does with a tool-calling result in that dialect's own shape.

Run = Callable[[str], Awaitable[Example]]


async def chat_tool_loop(era: str) -> Example:
    host = RecordingHost(
        calls("", ("call_1", "get_weather", {"city": "Paris"})),
        says("It is sunny in Paris, 24 °C."),
    )
    tool = {
        "type": "function",
        "function": {"name": "get_weather", "description": WEATHER_DESCRIPTION, "parameters": WEATHER_SCHEMA},
    }
    async with connect(era, host, tools=True) as client:
        rec = Recorder("chat-tool-loop", client, host)
        request: dict[str, Any] = {
            "messages": [
                {"role": "system", "content": "You answer weather questions."},
                {"role": "user", "content": "What is the weather in Paris?"},
            ],
            "tools": [tool],
        }
        first = await rec.call("Call 1: ask with tools", "chat_complete", request)
        await rec.call(
            "Call 2: the assistant turn and the tool result appended, asked again",
            "chat_complete",
            next_request("chat_complete", request, first.text, WEATHER_OUTPUT),
        )
    return rec.example


async def messages_tool_loop(era: str) -> Example:
    host = RecordingHost(
        calls("I'll look that up.", ("toolu_01", "get_weather", {"city": "Paris"})),
        says("It is sunny in Paris, 24 °C."),
    )
    tool = {"name": "get_weather", "description": WEATHER_DESCRIPTION, "input_schema": WEATHER_SCHEMA}
    async with connect(era, host, tools=True) as client:
        rec = Recorder("messages-tool-loop", client, host)
        request: dict[str, Any] = {
            "system": "You answer weather questions.",
            "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
            "tools": [tool],
        }
        first = await rec.call("Call 1: ask with tools", "messages_create", request)
        await rec.call(
            "Call 2: the assistant turn and the tool result appended, asked again",
            "messages_create",
            next_request("messages_create", request, first.text, WEATHER_OUTPUT),
        )
    return rec.example


async def responses_tool_loop(era: str) -> Example:
    host = RecordingHost(
        calls("", ("call_7", "get_weather", {"city": "Paris"})),
        says("It is sunny in Paris, 24 °C."),
    )
    tool = {
        "type": "function",
        "name": "get_weather",
        "description": WEATHER_DESCRIPTION,
        "parameters": WEATHER_SCHEMA,
    }
    async with connect(era, host, tools=True) as client:
        rec = Recorder("responses-tool-loop", client, host)
        request: dict[str, Any] = {
            "instructions": "You answer weather questions.",
            "input": [{"role": "user", "content": "What is the weather in Paris?"}],
            "tools": [tool],
        }
        first = await rec.call("Call 1: ask with tools", "responses_create", request)
        await rec.call(
            "Call 2: the output items and the tool result appended, asked again",
            "responses_create",
            next_request("responses_create", request, first.text, WEATHER_OUTPUT),
        )
    return rec.example


async def gemini_tool_loop(era: str) -> Example:
    host = RecordingHost(
        calls("", ("call_8", "get_weather", {"city": "Paris"})),
        says("It is sunny in Paris, 24 °C."),
    )
    declaration = {
        "name": "get_weather",
        "description": WEATHER_DESCRIPTION,
        "parametersJsonSchema": WEATHER_SCHEMA,
    }
    async with connect(era, host, tools=True) as client:
        rec = Recorder("gemini-tool-loop", client, host)
        request: dict[str, Any] = {
            "systemInstruction": {"parts": [{"text": "You answer weather questions."}]},
            "contents": [{"role": "user", "parts": [{"text": "What is the weather in Paris?"}]}],
            "tools": [{"functionDeclarations": [declaration]}],
        }
        first = await rec.call("Call 1: ask with tools", "gemini_generate_content", request)
        await rec.call(
            "Call 2: the model content and a functionResponse appended, asked again",
            "gemini_generate_content",
            next_request("gemini_generate_content", request, first.text, WEATHER_OUTPUT),
        )
    return rec.example


def _question(tool: str) -> dict[str, Any]:
    if tool == "responses_create":
        return {"input": QUESTION}
    return {"messages": [{"role": "user", "content": QUESTION}]}


async def _one_call(
    key: str, era: str, tool: str, arguments: dict[str, Any], answers: list[Any], *, tools: bool
) -> Example:
    host = RecordingHost(*answers)
    async with connect(era, host, tools=tools) as client:
        rec = Recorder(key, client, host)
        await rec.call("", tool, arguments)
    return rec.example


ADA = {"name": "Ada Lovelace", "born": 1815}


async def result_object(era: str) -> Example:
    """`result: "object"`: the product's own object, passed back as the SDK's loop does."""
    host = RecordingHost(
        calls("", ("call_1", "get_weather", {"city": "Paris"})),
        says("It is sunny in Paris, 24 °C."),
    )
    tool = {
        "type": "function",
        "function": {"name": "get_weather", "description": WEATHER_DESCRIPTION, "parameters": WEATHER_SCHEMA},
    }
    async with connect(era, host, tools=True) as client:
        rec = Recorder("result-object", client, host)
        messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the weather in Paris?"}]
        request: dict[str, Any] = {"tools": [tool], "result": "object"}
        first = await rec.call(
            "Call 1: a ChatCompletion with the call in message.tool_calls",
            "chat_complete",
            {**request, "messages": messages},
        )
        message = json.loads(first.text)["choices"][0]["message"]
        messages = [*messages, message, {"role": "tool", "tool_call_id": "call_1", "content": WEATHER_OUTPUT}]
        await rec.call(
            "Call 2: `messages.append(completion.choices[0].message)` and the tool's result, asked again",
            "chat_complete",
            {**request, "messages": messages},
        )
    return rec.example


async def output_schema_with_tools(era: str) -> Example:
    return await _one_call(
        "output-schema-tool",
        era,
        "messages_create",
        {**_question("messages_create"), "output_schema": PERSON_SCHEMA},
        [calls("", ("toolu_02", "structured_output", ADA))],
        tools=True,
    )


async def output_schema_in_prompt(era: str) -> Example:
    fenced = 'Here it is:\n```json\n{"name": "Ada Lovelace", "born": 1815}\n```'
    return await _one_call(
        "output-schema-prompt",
        era,
        "chat_complete",
        {**_question("chat_complete"), "output_schema": PERSON_SCHEMA},
        [says(fenced)],
        tools=False,
    )


async def chat_response_format(era: str) -> Example:
    response_format = {
        "type": "json_schema",
        "json_schema": {"name": "person", "schema": PERSON_SCHEMA, "strict": True},
    }
    return await _one_call(
        "chat-response-format",
        era,
        "chat_complete",
        {**_question("chat_complete"), "response_format": response_format},
        [calls("", ("call_3", "structured_output", ADA))],
        tools=True,
    )


async def responses_text_format(era: str) -> Example:
    text = {"format": {"type": "json_schema", "name": "person", "schema": PERSON_SCHEMA, "strict": True}}
    return await _one_call(
        "responses-text-format",
        era,
        "responses_create",
        {**_question("responses_create"), "text": text},
        [calls("", ("call_4", "structured_output", ADA))],
        tools=True,
    )


async def gemini_response_schema(era: str) -> Example:
    # Gemini's own Schema (OpenAPI subset, upper-case types), as the google-genai SDK sends it.
    schema = {
        "type": "OBJECT",
        "properties": {"name": {"type": "STRING"}, "born": {"type": "INTEGER"}},
        "required": ["name", "born"],
        "propertyOrdering": ["name", "born"],
    }
    config = {"responseMimeType": "application/json", "responseSchema": schema}
    return await _one_call(
        "gemini-response-schema",
        era,
        "gemini_generate_content",
        {"contents": [{"role": "user", "parts": [{"text": QUESTION}]}], "generationConfig": config},
        [calls("", ("call_9", "structured_output", ADA))],
        tools=True,
    )


async def repair(era: str) -> Example:
    return await _one_call(
        "repair",
        era,
        "chat_complete",
        {**_question("chat_complete"), "output_schema": PERSON_SCHEMA, "repair_attempts": 1},
        [
            calls("", ("call_5", "structured_output", {"name": "Ada Lovelace", "born": "1815"})),
            calls("", ("call_6", "structured_output", ADA)),
        ],
        tools=True,
    )


async def invalid_output(era: str) -> Example:
    return await _one_call(
        "invalid-output",
        era,
        "chat_complete",
        {**_question("chat_complete"), "output_schema": PERSON_SCHEMA},
        [calls("", ("call_8", "structured_output", {"name": "Ada Lovelace", "born": "December 1815"}))],
        tools=True,
    )


async def tools_and_output_schema(era: str) -> Example:
    tool = {"name": "get_weather", "input_schema": WEATHER_SCHEMA}
    return await _one_call(
        "tools-with-output-schema",
        era,
        "messages_create",
        {**_question("messages_create"), "tools": [tool], "output_schema": PERSON_SCHEMA},
        [says("never asked")],
        tools=True,
    )


async def tools_dropped(era: str) -> Example:
    tool = {"name": "get_weather", "description": WEATHER_DESCRIPTION, "input_schema": WEATHER_SCHEMA}
    return await _one_call(
        "tools-dropped",
        era,
        "messages_create",
        {"messages": [{"role": "user", "content": "What is the weather in Paris?"}], "tools": [tool]},
        [says("I cannot look up live weather.")],
        tools=False,
    )


async def tools_emulated(era: str) -> Example:
    """`serve --host-without-tools emulate`: the tools in the system prompt, a call read from an
    answer that is wholly the reply contract's object, and the turn after it shown as text."""
    from agent_as_model.limits import Limits
    from agent_as_model.server import build_server

    call = json.dumps({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]})
    host = RecordingHost(says(f"```json\n{call}\n```"), says("It is sunny in Paris, 24 °C."))
    tool = {
        "type": "function",
        "function": {"name": "get_weather", "description": WEATHER_DESCRIPTION, "parameters": WEATHER_SCHEMA},
    }
    server = build_server(limits=Limits(host_without_tools="emulate"))
    async with connect(era, host, server=server) as client:
        rec = Recorder("tools-emulated", client, host)
        request: dict[str, Any] = {
            "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
            "tools": [tool],
        }
        first = await rec.call(
            "Call 1: the tools in the system prompt; the answer is a call", "chat_complete", request
        )
        await rec.call(
            "Call 2: the call and its result passed back, shown to the host as text",
            "chat_complete",
            next_request("chat_complete", request, first.text, WEATHER_OUTPUT),
        )
    return rec.example


EXAMPLES: tuple[Run, ...] = (
    chat_tool_loop,
    messages_tool_loop,
    responses_tool_loop,
    gemini_tool_loop,
    result_object,
    output_schema_with_tools,
    output_schema_in_prompt,
    chat_response_format,
    responses_text_format,
    gemini_response_schema,
    repair,
    invalid_output,
    tools_and_output_schema,
    tools_dropped,
    tools_emulated,
)
NAMES = ("get_weather", "weather.get", "search docs", "a.b", "a b")


async def run_all(era: str = LEGACY) -> list[Example]:
    """Every example on `era`, one after the other (the warning capture is per logger)."""
    return [await run(era) for run in EXAMPLES]


# ----------------------------------------------------------------------------------------------
# Rendering


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _fence(body: str, lang: str = "json") -> str:
    ticks = "````" if "```" in body else "```"
    return f"{ticks}{lang}\n{body}\n{ticks}\n"


def _result(step: Step) -> list[str]:
    parts = [f"Tool result (`isError: {'true' if step.is_error else 'false'}`), its text exactly:\n"]
    parts.append(_fence(step.text, "text"))
    try:
        value = json.loads(step.text)
    except ValueError:
        value = None
    if isinstance(value, (dict, list)):
        parts.append("The same JSON, indented:\n")
        parts.append(_fence(_json(value)))
    if step.structured is None:
        parts.append("No `structuredContent`.\n")
    elif step.structured == value:
        parts.append("`structuredContent` holds the same object.\n")
    else:
        parts.append("`structuredContent`:\n")
        parts.append(_fence(_json(step.structured)))
    return parts


def render_step(step: Step) -> str:
    parts = []
    if step.caption:
        parts.append(f"**{step.caption}.**\n")
    parts.append(f"Arguments of `{step.tool}`:\n")
    parts.append(_fence(_json(step.arguments)))
    if not step.samplings:
        parts.append("The host received no sampling request.\n")
    for number, sampling in enumerate(step.samplings, start=1):
        which = f" {number}" if len(step.samplings) > 1 else ""
        parts.append(f"`sampling/createMessage` params{which}, as the host received them:\n")
        parts.append(_fence(_json(sampling.params)))
        parts.append(f"The host's answer{which}:\n")
        parts.append(_fence(_json(sampling.answer)))
    for message in step.warnings:
        parts.append("Logged (warning, logger `agent_as_model`):\n")
        parts.append(_fence(message, "text"))
    parts.extend(_result(step))
    return CREATED_AT.sub(r'\1"<time>"', RANDOM_HEX.sub(r"\1<hex>", "\n".join(parts)))


def render(example: Example) -> str:
    return "\n".join(render_step(step) for step in example.steps)


def render_names() -> str:
    rows = ["| caller name | host name |", "|---|---|"]
    rows += [f"| `{name}` | `{host_name(name)}` |" for name in NAMES]
    return "\n".join(rows) + "\n"


def rendered(examples: list[Example]) -> dict[str, str]:
    blocks = {example.key: render(example) for example in examples}
    blocks["name-map"] = render_names()
    return blocks


# ----------------------------------------------------------------------------------------------
# The document


BLOCKS = GeneratedBlocks("example")
markers = BLOCKS.markers
current_blocks = BLOCKS.current
rewrite = BLOCKS.rewrite


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.doc_examples", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument(
        "--write", metavar="PATH", type=Path, help="rewrite the generated blocks in this file"
    )
    args = parser.parse_args(argv)
    blocks = rendered(anyio.run(run_all))
    if args.write is None:
        for key, block in blocks.items():
            begin, end = markers(key)
            sys.stdout.write(f"{begin}\n{block}{end}\n\n")
        return 0
    path: Path = args.write
    path.write_text(rewrite(path.read_text(encoding="utf-8"), blocks), encoding="utf-8")
    print(f"rewrote {len(blocks)} generated blocks in {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["REGENERATE", "current_blocks", "rendered", "rewrite", "run_all"]
