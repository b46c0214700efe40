"""Conversations for the cursor properties, drawn once and written in each dialect's own shape.

A conversation is a list of units: a `Said` (one system, developer, user or assistant message)
or a `ToolTurn` (an assistant turn that called tools, then the caller's results). A tool turn is
one unit so that dropping, adding or moving a unit never leaves a request the server refuses
for its tool-turn order (which it checks before the cursor): every mutation of a conversation
is still a valid request, and the only thing it can break is the commitment.

`render` writes a conversation as chat messages, Messages messages or Responses items, varying
everything the docs say does not matter to a cursor (a string or a list of text parts, null or
empty chat content beside tool_calls, the spacing of an `arguments` string, `is_error`, a
Messages user turn's text after its tool results, `type: "message"`, `instructions`), so an
equal cursor across those variations is part of what the properties check.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from mcp_types import (
    CallToolResult,
    CreateMessageResult,
    CreateMessageResultWithTools,
    TextContent,
    ToolUseContent,
)

from property_tests.cursor_oracle import CHAT, MESSAGES, RESPONSES, envelope
from property_tests.results import only_text
from property_tests.strategies import json_values, texts

HISTORY_TOOLS = (CHAT, MESSAGES, RESPONSES)
# Tools the host may call: one definition in the seed shape, which every dialect accepts.
FORWARDED = ("get_weather", "lookup")
TOOL_DEFINITIONS = [
    {"name": name, "description": f"The {name} tool.", "input_schema": {"type": "object"}}
    for name in FORWARDED
]


@dataclass(frozen=True)
class Said:
    """One message: its text is the pieces joined by a newline (as a list of parts when `as_parts`)."""

    role: str
    pieces: tuple[str, ...]
    as_parts: bool = False

    @property
    def text(self) -> str:
        return "\n".join(self.pieces)


@dataclass(frozen=True)
class Call:
    id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ToolTurn:
    """An assistant turn with its tool calls, then one result per call (in `results` order)."""

    text: str
    calls: tuple[Call, ...]
    results: tuple[tuple[str, str], ...]  # (call id, result text)


Unit = Said | ToolTurn


def says_assistant(unit: Unit) -> bool:
    """Whether the unit holds an assistant entry: where a cursor's cut can fall."""
    return isinstance(unit, ToolTurn) or unit.role == "assistant"


def last_assistant(units: Sequence[Unit]) -> int:
    return max(i for i, unit in enumerate(units) if says_assistant(unit))


# -- strategies --------------------------------------------------------------------------------------

call_ids = texts.filter(bool)
tool_names = st.sampled_from(FORWARDED) | texts.filter(bool)
inputs = st.dictionaries(st.text(max_size=6), json_values, max_size=3)
models = st.sampled_from(("gpt-4o", "claude-sonnet-4")) | texts.filter(bool)


def roles_of(tool: str, portable: bool) -> tuple[str, ...]:
    """Message roles a conversation may use past its start. Messages takes its system prompt only
    as the leading `system` parameter; a portable conversation can be written in every dialect."""
    return (
        ("user", "assistant")
        if portable or tool == MESSAGES
        else ("system", "developer", "user", "assistant")
    )


@st.composite
def saids(draw: st.DrawFn, roles: Sequence[str]) -> Said:
    pieces = draw(st.lists(texts, min_size=1, max_size=3))
    as_parts = draw(st.booleans())
    return Said(draw(st.sampled_from(roles)), tuple(pieces if as_parts else ["\n".join(pieces)]), as_parts)


@st.composite
def calls(draw: st.DrawFn, names: st.SearchStrategy[str] = tool_names) -> tuple[Call, ...]:
    ids = draw(st.lists(call_ids, min_size=1, max_size=3, unique=True))
    return tuple(Call(ident, draw(names), draw(inputs)) for ident in ids)


@st.composite
def tool_turns(draw: st.DrawFn) -> ToolTurn:
    made = draw(calls())
    answers = [(call.id, draw(texts)) for call in made]
    return ToolTurn(draw(st.just("") | texts), made, tuple(draw(st.permutations(answers))))


def units(tool: str, portable: bool) -> st.SearchStrategy[Unit]:
    return saids(roles_of(tool, portable)) | tool_turns()


@st.composite
def conversations(draw: st.DrawFn, tool: str, *, portable: bool) -> list[Unit]:
    """A leading system message or not, then some units, at least one of them a user or
    assistant turn (a conversation of system messages alone has nothing to answer)."""
    body = draw(st.lists(units(tool, portable), min_size=1, max_size=5))
    if all(isinstance(u, Said) and u.role in ("system", "developer") for u in body):
        body.append(draw(saids(("user",))))
    lead = draw(st.none() | saids(("system",)))
    return [lead, *body] if lead is not None else body


@st.composite
def committed(draw: st.DrawFn, tool: str, *, portable: bool) -> list[Unit]:
    """A history a cursor was minted over: it holds at least one assistant entry."""
    body = draw(conversations(tool, portable=portable))
    if not any(says_assistant(unit) for unit in body):
        body.append(draw(saids(("assistant",)) | tool_turns()))
    return body


# -- writing a conversation in a dialect's shape --------------------------------------------------------


def render(tool: str, conversation: Sequence[Unit], rnd: random.Random) -> dict[str, Any]:
    """The request arguments (the conversation field, and `system` or `instructions`)."""
    return {CHAT: _chat, MESSAGES: _messages, RESPONSES: _responses}[tool](list(conversation), rnd)


def _parts(said: Said, part_type: str = "text") -> Any:
    return [{"type": part_type, "text": piece} for piece in said.pieces] if said.as_parts else said.text


def _arguments(given: dict[str, Any], rnd: random.Random) -> str:
    """An `arguments` string: how it is spaced or escaped must not matter."""
    return json.dumps(
        given,
        separators=rnd.choice(((",", ":"), (", ", ": "))),
        indent=rnd.choice((None, 1)),
        ensure_ascii=rnd.random() < 0.5,
        sort_keys=rnd.random() < 0.5,
    )


def _chat(conversation: list[Unit], rnd: random.Random) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for unit in conversation:
        if isinstance(unit, Said):
            messages.append({"role": unit.role, "content": _parts(unit)})
            continue
        content: Any = unit.text if unit.text else rnd.choice((None, ""))
        messages.append(
            {
                "role": "assistant",
                "content": content,
                "tool_calls": [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": _arguments(call.input, rnd)},
                    }
                    for call in unit.calls
                ],
            }
        )
        messages += [{"role": "tool", "tool_call_id": ident, "content": text} for ident, text in unit.results]
    return {"messages": messages}


def _leading(conversation: Sequence[Unit], role: str) -> Said | None:
    """The first unit, when it is a message of this role."""
    first = conversation[0] if conversation else None
    return first if isinstance(first, Said) and first.role == role else None


def _messages(conversation: list[Unit], rnd: random.Random) -> dict[str, Any]:
    args: dict[str, Any] = {}
    system = _leading(conversation, "system")
    if system is not None:
        args["system"] = _parts(system)
        conversation = conversation[1:]
    messages: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] | None = None  # the blocks of the last tool-result message
    for unit in conversation:
        if isinstance(unit, Said):
            if unit.role == "user" and pending is not None and rnd.random() < 0.5:
                # Text after the tool results of the same user message: its own user entry.
                pending += [{"type": "text", "text": piece} for piece in unit.pieces]
            else:
                messages.append({"role": unit.role, "content": _parts(unit)})
            pending = None
            continue
        text_blocks = (
            [{"type": "text", "text": piece} for piece in unit.text.split("\n")] if unit.text else []
        )
        use = [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input} for c in unit.calls]
        messages.append({"role": "assistant", "content": text_blocks + use})
        pending = [_tool_result(ident, text, rnd) for ident, text in unit.results]
        messages.append({"role": "user", "content": pending})
    return {**args, "messages": messages}


def _tool_result(ident: str, text: str, rnd: random.Random) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": ident}
    how = rnd.choice(("string", "blocks", "absent"))
    if how == "blocks":
        block["content"] = [{"type": "text", "text": piece} for piece in text.split("\n")]
    elif how == "string" or text:
        block["content"] = text
    if rnd.random() < 0.3:
        block["is_error"] = rnd.random() < 0.5  # not part of the entry
    return block


def _responses(conversation: list[Unit], rnd: random.Random) -> dict[str, Any]:
    args: dict[str, Any] = {}
    system = _leading(conversation, "system")
    if system is not None and rnd.random() < 0.5:
        args["instructions"] = system.text
        conversation = conversation[1:]
    only = _leading(conversation, "user")
    if only is not None and len(conversation) == 1 and rnd.random() < 0.5:
        return {**args, "input": only.text}  # a string input: one user entry
    items: list[dict[str, Any]] = []
    for index, unit in enumerate(conversation):
        if isinstance(unit, Said):
            item: dict[str, Any] = {
                "role": unit.role,
                "content": _parts(unit, rnd.choice(("input_text", "text"))),
            }
            if rnd.random() < 0.5:
                item["type"] = "message"
            items.append(item)
            continue
        # function_call items join an assistant message item right before them: without a text
        # of their own after one, they get an empty message item, or they would join its turn.
        before = conversation[index - 1] if index else None
        joins = isinstance(before, Said) and before.role == "assistant"
        if unit.text or joins:
            items.append({"type": "message", "role": "assistant", "content": unit.text})
        for call in unit.calls:
            item = {"type": "function_call", "call_id": call.id, "name": call.name}
            item["arguments"] = _arguments(call.input, rnd)
            if rnd.random() < 0.5:
                item["id"] = f"fc_{index}"
            items.append(item)
        items += [
            {"type": "function_call_output", "call_id": ident, "output": text} for ident, text in unit.results
        ]
    return {**args, "input": items}


# -- the host's side of a chain ---------------------------------------------------------------------


@dataclass(frozen=True)
class HostTurn:
    """What the host answers one call with, and what the caller does next: runs the tools it
    called (their outputs in `outputs`) and/or asks a follow-up question."""

    text: str
    calls: tuple[Call, ...]
    outputs: tuple[str, ...]
    follow_up: Said | None

    def answer(self) -> CreateMessageResult | CreateMessageResultWithTools:
        if not self.calls:
            content = TextContent(type="text", text=self.text)
            return CreateMessageResult(role="assistant", content=content, model="scripted-model")
        blocks: list[Any] = [TextContent(type="text", text=self.text)] if self.text else []
        blocks += [ToolUseContent(type="tool_use", id=c.id, name=c.name, input=c.input) for c in self.calls]
        return CreateMessageResultWithTools(
            role="assistant", content=blocks, model="scripted-model", stop_reason="toolUse"
        )


@st.composite
def host_turns(draw: st.DrawFn) -> HostTurn:
    calls_tools = draw(st.booleans())
    made: tuple[Call, ...] = draw(calls(st.sampled_from(FORWARDED))) if calls_tools else ()
    outputs = tuple(draw(texts) for _ in made)
    follow_up: Said | None = draw(saids(("user",)))
    # After tool results the caller may ask the model again at once; after text it must say something.
    ask_at_once = draw(st.booleans())
    if made and ask_at_once:
        follow_up = None
    return HostTurn(draw(texts), made, outputs, follow_up)


def continue_after(
    tool: str, args: dict[str, Any], result: CallToolResult, turn: HostTurn, rnd: random.Random
) -> dict[str, Any]:
    """What a caller does with a result to go on: append the assistant's turn as received (a
    Responses output verbatim; the completion text, or its tool calls in the dialect's shape),
    the outputs of the tools it called, and the follow-up question if there is one."""
    if tool == RESPONSES:
        given = args["input"]
        items = [{"role": "user", "content": given}] if isinstance(given, str) else list(given)
        output = json.loads(only_text(result))["output"]
        items += output
        called = [item["call_id"] for item in output if item["type"] == "function_call"]
        items += [
            {"type": "function_call_output", "call_id": ident, "output": text}
            for ident, text in zip(called, turn.outputs, strict=True)
        ]
        if turn.follow_up is not None:
            items.append({"role": "user", "content": _parts(turn.follow_up, "input_text")})
        return {**args, "input": items}
    completion = completion_of(tool, result)
    messages = list(args["messages"])
    if not turn.calls:
        messages.append({"role": "assistant", "content": completion})
        if turn.follow_up is not None:
            messages.append({"role": "user", "content": _parts(turn.follow_up)})
        return {**args, "messages": messages}
    envelope = json.loads(completion)
    made = tuple(Call(c["id"], c["name"], c["input"]) for c in envelope["tool_calls"])
    said = ToolTurn(
        envelope["text"], made, tuple((c.id, out) for c, out in zip(made, turn.outputs, strict=True))
    )
    tail: list[Unit] = [said] if turn.follow_up is None else [said, turn.follow_up]
    written = render(tool, tail, rnd)
    return {**args, "messages": messages + written["messages"]}


# -- reading results the way a caller does -------------------------------------------------------------


def completion_of(tool: str, result: CallToolResult) -> str:
    """The text a call returned as its answer, with cursors on: a text tool's `completion`; for
    responses_create, the output's text, or the tool-call envelope when it holds function calls."""
    text = only_text(result)
    if tool != RESPONSES:
        body = json.loads(text)
        assert result.structured_content == body and sorted(body) == ["completion", "response_id"], text
        completion: str = body["completion"]
        return completion
    output = json.loads(text)["output"]
    said = [part["text"] for item in output if item["type"] == "message" for part in item["content"]]
    made = [
        (i["call_id"], i["name"], json.loads(i["arguments"])) for i in output if i["type"] == "function_call"
    ]
    return envelope("\n".join(said), made) if made else "\n".join(said)


def cursor_of(tool: str, result: CallToolResult) -> str:
    """The cursor a result carries: a text tool's `response_id`, a Response's `id`."""
    body = json.loads(only_text(result))
    cursor: str = body["id" if tool == RESPONSES else "response_id"]
    return cursor
