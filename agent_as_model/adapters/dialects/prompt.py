"""A raw prompt (`generate`): one user message, no system prompt, completion -> text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model import cursors
from agent_as_model.adapters.dialects import common as c
from agent_as_model.adapters.dialects import contracts
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Completion, Request, Text, Turn

NAME = "generate"
DESCRIPTION = (
    "Send a raw prompt to the host agent's own model as one user message (no system prompt, no role "
    "mapping) and return the completion text: the shortest path. Before MCP 2026-07-28 the server "
    "sends one sampling/createMessage request; from 2026-07-28 it answers with an InputRequiredResult "
    "carrying that same request and takes the completion on the retry."
)

# The persona's request object (spec section 5): these parameters, with their defaults.
_REQUEST_OBJECT = contracts.request_object_defaults("prompt", tools=False)

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string", "description": "The prompt, sent as one user message."},
        "model": c.MODEL_SCHEMA,
        "temperature": c.temperature_schema(2),
        "max_tokens": c.MAX_TOKENS_SCHEMA,
        "persona": contracts.PERSONA_SCHEMA,
        "previous_response_id": {
            **contracts.PREVIOUS_SCHEMA,
            "description": "Session cursor: '' mints one for this prompt and its completion (a 'cur_' "
            "cursor is refused: a prompt carries no history to verify it against).",
        },
    },
    "required": ["prompt"],
    "additionalProperties": False,
}


def parse(args: Mapping[str, Any]) -> Request:
    c.reject_unknown(args, INPUT_SCHEMA["properties"])
    if "prompt" not in args:
        raise caller_error("prompt", "is required")
    prompt = c.require_string(args["prompt"], "prompt")
    return Request(
        tool=NAME,
        system=None,
        turns=(Turn("user", (Text(prompt),), "prompt"),),
        model=c.read_model(args),
        max_tokens=c.read_max_tokens(args),
        temperature=c.read_temperature(args),
        persona=contracts.read_persona(args, _REQUEST_OBJECT, None),
        chain=contracts.read_chain(args, NAME, lambda: (cursors.entry("user", prompt),)),
    )


def render(completion: Completion, request: Request, cursor: str | None) -> str | dict[str, Any]:
    return c.text_result(completion, cursor)
