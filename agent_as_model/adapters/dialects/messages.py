"""Anthropic Messages shape (`messages_create`): request -> neutral, completion -> text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common as c
from agent_as_model.neutral import Completion, Request

NAME = "messages_create"
DESCRIPTION = (
    "Complete an Anthropic Messages-shaped request with the host agent's own model and return the "
    "completion text. system is a string or a list of text blocks; message content is a string or a "
    "list of text blocks (joined by newlines). Before MCP 2026-07-28 the server sends one "
    "sampling/createMessage request; from 2026-07-28 it answers with an InputRequiredResult carrying "
    "that same request and takes the completion on the retry. Text only: non-text blocks are rejected."
)

_ROLES = ("user", "assistant")
_TEXT_TYPES = ("text",)
_TEXT_KEYS = ("text",)
_SHAPE = c.EntryShape(
    roles=_ROLES,
    keys=("role", "content"),
    text_types=_TEXT_TYPES,
    text_keys=_TEXT_KEYS,
    misplaced={"system": "'system' is not a message role here: pass it as 'system'"},
)
_TEXT_BLOCKS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
        "required": ["type", "text"],
    },
}

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "messages": {
            "type": "array",
            "minItems": 1,
            "description": "Messages {role: user|assistant, content: string or text blocks}.",
            "items": {
                "type": "object",
                "properties": {
                    "role": {"type": "string", "enum": list(_ROLES)},
                    "content": {"anyOf": [{"type": "string"}, _TEXT_BLOCKS]},
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
    },
    "required": ["messages"],
    "additionalProperties": False,
}


def parse(args: Mapping[str, Any]) -> Request:
    c.reject_unknown(args, INPUT_SCHEMA["properties"])
    messages = c.require_list(args.get("messages"), "messages", non_empty=True)
    _, turns = c.read_entries(messages, "messages", _SHAPE)
    system = args.get("system")
    # Anthropic's system blocks join with a newline; the text is one system piece.
    pieces = [] if system is None else [c.text_of_content(system, "system", _TEXT_TYPES, _TEXT_KEYS, "\n")]
    return c.conversation_request(NAME, args, pieces, turns, field_name="messages", max_temperature=1.0)


def render(completion: Completion, request: Request) -> str | dict[str, Any]:
    return completion.text
