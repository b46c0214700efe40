"""OpenAI Chat Completions shape (`chat_complete`): request -> neutral, completion -> text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common as c
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Completion, Request, Text, Turn

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
_MESSAGE_KEYS = ("role", "content", "name")

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
    system: list[str] = []
    turns: list[Turn] = []
    for i, raw in enumerate(messages):
        path = f"messages[{i}]"
        message = c.require_object(raw, path)
        c.reject_unknown(message, _MESSAGE_KEYS, path)
        role = message.get("role")
        if role not in _ROLES:
            raise caller_error(f"{path}.role", f"expected one of {', '.join(_ROLES)}, got {role!r}")
        if "content" not in message:
            raise caller_error(f"{path}.content", "is required")
        text = c.text_of_content(message["content"], f"{path}.content", _TEXT_TYPES, _TEXT_KEYS, "\n")
        if role in ("system", "developer"):
            system.append(text)
        else:
            turns.append(Turn(role, (Text(text),)))
    if not turns:
        raise caller_error("messages", "needs at least one user or assistant message")
    return Request(
        tool=NAME,
        system="\n\n".join(system) or None,
        turns=tuple(turns),
        model=c.read_model(args),
        max_tokens=c.read_max_tokens(args),
        temperature=c.read_temperature(args),
    )


def render(completion: Completion, request: Request) -> str | dict[str, Any]:
    return completion.text
