"""Assembling neutral turns from a dialect's entries, tool calls and tool results included.

The product APIs spread one turn over several entries (chat: an assistant message, then one
`tool` message per result; responses: a message item, then `function_call` items, then
`function_call_output` items). MCP sampling wants one message per turn: the assistant's text and
tool_use blocks together, then one user message holding only tool_result blocks. `Turns` does
that merging, so every dialect gives the same neutral turns for the same conversation.
"""

from __future__ import annotations

import json
from typing import Any

from agent_as_model import cursors
from agent_as_model.adapters.dialects.common import require_string, type_name
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Block, Role, Text, ToolResult, ToolUse, Turn


class Turns:
    def __init__(self) -> None:
        self.system: list[str] = []
        self._turns: list[tuple[Role, list[Block], str]] = []
        # What came in which order: a system piece (its role and text) or a turn (its index).
        # The sampling request folds system pieces into one prompt; a cursor's transcript keeps
        # them where the caller put them (spec section 6).
        self._order: list[tuple[str, str] | int] = []

    def fold(self, role: str, text: str) -> None:
        """A system or developer piece: it goes into the system prompt."""
        self.system.append(text)
        self._order.append((role, text))

    def text(self, role: Role, text: str, path: str) -> None:
        """A message of its own (a new turn), with one text block."""
        self.start(role, path)
        self.add(Text(text))

    def start(self, role: Role, path: str) -> None:
        self._order.append(len(self._turns))
        self._turns.append((role, [], path))

    def add(self, block: Block) -> None:
        """A block of the current turn."""
        self._turns[-1][1].append(block)

    def tool_call(self, call: ToolUse, path: str) -> None:
        """A tool call joins the assistant turn right before it, or starts one."""
        if not self._turns or self._turns[-1][0] != "assistant" or _has_results(self._turns[-1][1]):
            self.start("assistant", path)
        self.add(call)

    def tool_result(self, result: ToolResult, path: str) -> None:
        """Results that follow each other form one user turn holding only tool results."""
        if not self._turns or self._turns[-1][0] != "user" or not _only_results(self._turns[-1][1]):
            self.start("user", path)
        self.add(result)

    def build(self) -> list[Turn]:
        return [Turn(role, tuple(blocks), path) for role, blocks, path in self._turns if blocks]

    def transcript(self) -> tuple[dict[str, str], ...]:
        """The conversation as cursor transcript entries (docs/cursors.md): system pieces in
        place; an assistant turn as one entry (the tool-call envelope when it called tools);
        each tool result as a `tool` entry; a user turn's text as one entry."""
        entries: list[dict[str, str]] = []
        for item in self._order:
            if not isinstance(item, int):
                entries.append(cursors.entry(*item))
                continue
            role, blocks, _ = self._turns[item]
            texts = "\n".join(b.text for b in blocks if isinstance(b, Text))
            if role == "assistant":
                calls = [b for b in blocks if isinstance(b, ToolUse)]
                entries.append(cursors.assistant_entry(texts, calls))
            elif blocks and all(isinstance(b, ToolResult) for b in blocks):
                entries.extend(
                    cursors.tool_result_entry(b.tool_use_id, b.content)
                    for b in blocks
                    if isinstance(b, ToolResult)
                )
            elif blocks:
                entries.append(cursors.entry(role, texts))
        return tuple(entries)


def _has_results(blocks: list[Block]) -> bool:
    return any(isinstance(b, ToolResult) for b in blocks)


def _only_results(blocks: list[Block]) -> bool:
    return bool(blocks) and all(isinstance(b, ToolResult) for b in blocks)


def call_id(value: object, path: str) -> str:
    ident = require_string(value, path)
    if not ident:
        raise caller_error(path, "must not be empty")
    return ident


def arguments_object(value: object, path: str) -> dict[str, Any]:
    """A tool call's `arguments`: JSON text of an object, as OpenAI writes it."""
    text = require_string(value, path)
    try:
        parsed = json.loads(text)
    except ValueError as err:
        where = (
            f"line {err.lineno} column {err.colno}: {err.msg}"
            if isinstance(err, json.JSONDecodeError)
            else ""
        )
        raise caller_error(path, f"is not JSON text ({where})") from None
    if not isinstance(parsed, dict):
        raise caller_error(path, f"must be the JSON text of an object, got {type_name(parsed)}")
    return parsed


def input_object(value: object, path: str) -> dict[str, Any]:
    """A tool call's `input`: a JSON object, as Anthropic writes it."""
    if not isinstance(value, dict):
        raise caller_error(path, f"expected an object, got {type_name(value)}")
    return value
