"""Conversations for the cursor properties, drawn once and written in each dialect's own shape.

A conversation is a list of units: a `Said` (one system, developer, user or assistant message)
or a `ToolTurn` (an assistant turn that called tools, then the caller's results). A tool turn is
one unit so that dropping, adding or moving a unit never leaves a request the server refuses
for its tool-turn order (which it checks before the cursor): every mutation of a conversation
is still a valid request, and the only thing it can break is the commitment.

The units are the dialects' own (`adapters/dialects/writing.py`), and `render` writes them through
the dialect's `writing`, which, given a `random.Random`, varies everything the docs say does not
matter to a cursor (a string or a list of text parts, null or empty chat content beside
tool_calls, the spacing of an `arguments` string, `is_error`, a Messages user turn's text after
its tool results, `type: "message"`, `instructions`), so an equal cursor across those variations
is part of what the properties check; the oracle (`cursor_oracle`) reads the written request
independently, so the writers are checked too.
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

from agent_as_model.adapters.dialects.writing import Call, Said, ToolTurn, Unit, text_parts
from property_tests.cursor_oracle import CHAT, MESSAGES, RESPONSES
from property_tests.strategies import json_values, texts
from tests.helpers import text_of, writing_of

# The products whose raw requests `cursor_oracle` reads from docs/cursors.md on its own: the tests of
# test_cursor_server.py check their writers and the server against it. Every registered dialect,
# these included, is driven by test_registry_cursors.py.
HISTORY_TOOLS = (CHAT, MESSAGES, RESPONSES)
# Tools the host may call: one definition in the seed shape, which every dialect accepts.
FORWARDED = ("get_weather", "lookup")
TOOL_DEFINITIONS = [
    {"name": name, "description": f"The {name} tool.", "input_schema": {"type": "object"}}
    for name in FORWARDED
]


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
    """A message whose text may hold newlines: a writer may send it as text parts split there."""
    pieces = draw(st.lists(texts, min_size=1, max_size=3))
    return Said(draw(st.sampled_from(roles)), "\n".join(pieces))


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
    """The request arguments (the conversation field, and `system` or `instructions`), written by
    the dialect's own `writing` with `rnd` picking among the spellings a cursor must not see."""
    return writing_of(tool).write(list(conversation), rnd)


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
        output = json.loads(text_of(result))["output"]
        items += output
        called = [item["call_id"] for item in output if item["type"] == "function_call"]
        items += [
            {"type": "function_call_output", "call_id": ident, "output": text}
            for ident, text in zip(called, turn.outputs, strict=True)
        ]
        if turn.follow_up is not None:
            items.append({"role": "user", "content": text_parts(turn.follow_up.text, rnd, "input_text")})
        return {**args, "input": items}
    completion = completion_of(tool, result)
    messages = list(args["messages"])
    if not turn.calls:
        messages.append({"role": "assistant", "content": completion})
        if turn.follow_up is not None:
            messages.append({"role": "user", "content": text_parts(turn.follow_up.text, rnd)})
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
    """The text a call returned as its answer, with cursors on, read by the dialect's `writing`:
    a text tool's `completion`; a Response's or a GenerateContentResponse's text, or the
    tool-call envelope when it holds calls."""
    return writing_of(tool).read(text_of(result), result.structured_content).completion


def cursor_of(tool: str, result: CallToolResult) -> str:
    """The cursor a result carries: a text tool's `response_id`, a Response's `id`, ..."""
    return writing_of(tool).read(text_of(result), result.structured_content).cursor
