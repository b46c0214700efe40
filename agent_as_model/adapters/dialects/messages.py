"""Anthropic Messages shape (`messages_create`): request -> neutral, completion -> text.

Message content is a string or a list of blocks: `text`, and `tool_use` (assistant) /
`tool_result` (user), which map onto MCP's blocks of the same names (spec section 1.2). A user
message's tool results come first (as Anthropic requires); text after them becomes a user turn
of its own, because an MCP message with tool results holds only tool results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common as c
from agent_as_model.adapters.dialects import contracts
from agent_as_model.adapters.dialects import options as o
from agent_as_model.adapters.dialects.turns import Turns, call_id, input_object
from agent_as_model.adapters.tools.definitions import TOOL_CHOICE_SCHEMA, TOOLS_SCHEMA
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Completion, Request, Text, ToolResult, ToolUse

NAME = "messages_create"
DESCRIPTION = (
    "Complete an Anthropic Messages-shaped request with the host agent's own model; returns the "
    "completion text. system is a string or text blocks; content is a string or blocks: text, "
    "tool_use (assistant), tool_result (user). tools/tool_choice reach the host if it declared "
    'sampling.tools (else dropped, with a logged warning); tool calls return {"text", "tool_calls"} '
    "as JSON text. output_schema returns validated JSON text. Before MCP 2026-07-28: one "
    "sampling/createMessage request; from 2026-07-28: an InputRequiredResult carrying it, answered "
    "on the retry. Text only: non-text blocks are rejected. No API key."
)

_ROLES = ("user", "assistant")
_TEXT_TYPES = ("text",)
_TEXT_KEYS = ("text",)
_TEXT_BLOCK_KEYS = ("type", "text", "cache_control", "citations")  # the last two: accepted, ignored
_HINTS = ("metadata", "top_p", "top_k", "service_tier")
_REFUSED = ("stream", "thinking", "mcp_servers", "container")
# The persona's request object (spec section 5): these parameters, with their defaults.
_REQUEST_OBJECT = contracts.request_object_defaults("messages", "system")
_TEXT_BLOCKS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
        "required": ["type", "text"],
    },
}
_BLOCKS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "type": {"enum": ["text", "tool_use", "tool_result"]},
            "text": {"type": "string"},
            "id": {"type": "string"},
            "name": {"type": "string"},
            "input": {"type": "object"},
            "tool_use_id": {"type": "string"},
            "content": {"anyOf": [{"type": "string"}, _TEXT_BLOCKS]},
            "is_error": {"type": "boolean"},
        },
        "required": ["type"],
    },
}

# The common body: the conversation and its limits only. It skips the readers of everything else.
_PLAIN = frozenset(["messages", "system", "model", "temperature", "max_tokens"])

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "messages": {
            "type": "array",
            "minItems": 1,
            "description": "Messages {role: user|assistant, content: a string or blocks: text, "
            "tool_use {id, name, input} (assistant), tool_result {tool_use_id, content, is_error} (user)}.",
            "items": {
                "type": "object",
                "properties": {
                    "role": {"type": "string", "enum": list(_ROLES)},
                    "content": {"anyOf": [{"type": "string"}, _BLOCKS]},
                },
                "required": ["role", "content"],
            },
        },
        "system": {
            "anyOf": [{"type": "string"}, _TEXT_BLOCKS],
            "description": "System prompt: a string or a list of text blocks (joined by newlines).",
        },
        "model": c.MODEL_SCHEMA,
        "temperature": c.temperature_schema(1),
        "max_tokens": c.MAX_TOKENS_SCHEMA,
        "stop_sequences": o.stop_schema(string_ok=False, max_items=None),
        "tools": TOOLS_SCHEMA["messages"],
        "tool_choice": TOOL_CHOICE_SCHEMA["messages"],
        "output_schema": o.OUTPUT_SCHEMA_SCHEMA,
        "repair_attempts": o.REPAIR_SCHEMA,
        "persona": contracts.PERSONA_SCHEMA,
        "previous_response_id": contracts.PREVIOUS_SCHEMA,
        **o.hint_schemas(_HINTS),
        **o.refused_schemas(_REFUSED),
    },
    "required": ["messages"],
    "additionalProperties": False,
}


def parse(args: Mapping[str, Any]) -> Request:
    plain = args.keys() <= _PLAIN
    if not plain:
        c.reject_unknown(args, INPUT_SCHEMA["properties"])
        o.check_natives(args)
    turns = Turns()
    system = args.get("system")
    # Anthropic's system blocks join with a newline; the text is one system piece.
    if system is not None:
        turns.fold("system", c.text_of_content(system, "system", _TEXT_TYPES, _TEXT_KEYS, "\n"))
    _read_messages(c.require_list(args.get("messages"), "messages", non_empty=True), turns)
    extras: dict[str, Any] = {}
    if not plain:  # a plain body skips the readers of everything else: the common, hot path
        extras = o.conversation_extras(
            args,
            NAME,
            turns,
            native="messages",
            standard=_REQUEST_OBJECT,
            stop=("stop_sequences", False, None),
        )
    return c.conversation_request(
        NAME, args, turns.system, turns.build(), field_name="messages", max_temperature=1.0, **extras
    )


def _read_messages(messages: list[Any], turns: Turns) -> None:
    for i, raw in enumerate(messages):
        path = f"messages[{i}]"
        message = c.require_object(raw, path)
        c.reject_unknown(message, ("role", "content"), path)
        role = message.get("role")
        if role == "system":
            raise caller_error(f"{path}.role", "'system' is not a message role here: pass it as 'system'")
        if role not in _ROLES:
            raise caller_error(f"{path}.role", f"expected one of {', '.join(_ROLES)}, got {role!r}")
        if "content" not in message:
            raise caller_error(f"{path}.content", "is required")
        content = message["content"]
        if isinstance(content, str):
            turns.text(role, c.require_unicode(content, f"{path}.content"), path)
        elif role == "assistant":
            _read_assistant(c.require_list(content, f"{path}.content"), path, turns)
        else:
            _read_user(c.require_list(content, f"{path}.content"), path, turns)


def _read_user(blocks: list[Any], path: str, turns: Turns) -> None:
    texts: list[str] = []
    for j, raw in enumerate(blocks):
        where = f"{path}.content[{j}]"
        if _kind(raw, where) == "tool_result":
            if texts:
                raise caller_error(where, "tool_result blocks must come before any text in a user message")
            turns.tool_result(_tool_result(raw, where), path)
        else:
            texts.append(_text(raw, where, ("text",)))
    if texts or not blocks:
        turns.text("user", "\n".join(texts), path)


def _read_assistant(blocks: list[Any], path: str, turns: Turns) -> None:
    texts: list[str] = []
    calls: list[ToolUse] = []
    for j, raw in enumerate(blocks):
        where = f"{path}.content[{j}]"
        if _kind(raw, where) == "tool_use":
            calls.append(_tool_use(raw, where))
        else:
            texts.append(_text(raw, where, ("text",)))
    turns.start("assistant", path)
    if texts or not calls:
        turns.add(Text("\n".join(texts)))
    for call in calls:
        turns.add(call)


def _kind(raw: object, path: str) -> object:
    return c.require_object(raw, path).get("type")


def _text(raw: Any, path: str, allowed: tuple[str, ...]) -> str:
    if raw.get("type") in ("tool_use", "tool_result"):
        side = "an assistant" if raw["type"] == "tool_use" else "a user"
        raise caller_error(f"{path}.type", f"a {raw['type']} block belongs in {side} message")
    text = c.text_of_part(raw, path, allowed, _TEXT_KEYS)
    c.reject_unknown(raw, _TEXT_BLOCK_KEYS, path)
    return text


def _tool_use(block: Any, path: str) -> ToolUse:
    c.reject_unknown(block, ("type", "id", "name", "input", "cache_control"), path)
    name = c.require_string(block.get("name"), f"{path}.name")
    if not name:
        raise caller_error(f"{path}.name", "must not be empty")
    return ToolUse(
        call_id(block.get("id"), f"{path}.id"), name, input_object(block.get("input"), f"{path}.input")
    )


def _tool_result(block: Any, path: str) -> ToolResult:
    c.reject_unknown(block, ("type", "tool_use_id", "content", "is_error", "cache_control"), path)
    ident = call_id(block.get("tool_use_id"), f"{path}.tool_use_id")
    content = block.get("content", "")
    text = c.text_of_content(content, f"{path}.content", _TEXT_TYPES, _TEXT_KEYS, "\n")
    is_error = block.get("is_error", False)
    if not isinstance(is_error, bool):
        raise caller_error(f"{path}.is_error", f"expected a boolean, got {c.type_name(is_error)}")
    return ToolResult(ident, text, is_error)


def render(completion: Completion, request: Request, cursor: str | None) -> str | dict[str, Any]:
    return c.text_result(completion, cursor)
