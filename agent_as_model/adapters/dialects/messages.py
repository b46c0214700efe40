"""Anthropic Messages shape (`messages_create`): request -> neutral, completion -> text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common as c
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Completion, Request, Text, Turn

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
    turns: list[Turn] = []
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
        text = c.text_of_content(message["content"], f"{path}.content", _TEXT_TYPES, _TEXT_KEYS, "\n")
        turns.append(Turn(role, (Text(text),)))
    system = args.get("system")
    system_text = None
    if system is not None:
        system_text = c.text_of_content(system, "system", _TEXT_TYPES, _TEXT_KEYS, "\n") or None
    return Request(
        tool=NAME,
        system=system_text,
        turns=tuple(turns),
        model=c.read_model(args),
        max_tokens=c.read_max_tokens(args),
        temperature=c.read_temperature(args, maximum=1.0),
    )


def render(completion: Completion, request: Request) -> str | dict[str, Any]:
    return completion.text
