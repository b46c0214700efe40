"""OpenAI Chat Completions shape (`chat_complete`): request -> neutral, completion -> text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common as c
from agent_as_model.neutral import Completion, Request

NAME = "chat_complete"
DESCRIPTION = (
    "Complete an OpenAI Chat Completions-shaped request with the host agent's own model and return "
    "the completion text. system and developer messages become the system prompt; user and assistant "
    "messages are sent in order. Before MCP 2026-07-28 the server sends one sampling/createMessage "
    "request; from 2026-07-28 it answers with an InputRequiredResult carrying that same request and "
    "takes the completion on the retry. Text only: non-text parts are rejected. No API key is used."
)

_ROLES = ("system", "developer", "user", "assistant")
_TEXT_TYPES = ("text",)
_TEXT_KEYS = ("text",)
_SHAPE = c.EntryShape(
    roles=_ROLES,
    keys=("role", "content", "name"),
    text_types=_TEXT_TYPES,
    text_keys=_TEXT_KEYS,
    system_roles=("system", "developer"),
)

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "messages": {
            "type": "array",
            "minItems": 1,
            "description": "Chat messages {role, content}; role system, developer, user or assistant; "
            "content a string or a list of {type: 'text', text} parts.",
            "items": {
                "type": "object",
                "properties": {
                    "role": {"type": "string", "enum": list(_ROLES)},
                    "content": {
                        "anyOf": [
                            {"type": "string"},
                            {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
                                    "required": ["type", "text"],
                                },
                            },
                        ]
                    },
                    "name": {"type": "string", "description": "Accepted and ignored."},
                },
                "required": ["role", "content"],
            },
        },
        "model": c.MODEL_SCHEMA,
        "temperature": c.temperature_schema(2),
        "max_tokens": c.MAX_TOKENS_SCHEMA,
    },
    "required": ["messages"],
    "additionalProperties": False,
}


def parse(args: Mapping[str, Any]) -> Request:
    c.reject_unknown(args, INPUT_SCHEMA["properties"])
    messages = c.require_list(args.get("messages"), "messages", non_empty=True)
    system, turns = c.read_entries(messages, "messages", _SHAPE)
    return c.conversation_request(NAME, args, system, turns, field_name="messages")


def render(completion: Completion, request: Request) -> str | dict[str, Any]:
    return completion.text
