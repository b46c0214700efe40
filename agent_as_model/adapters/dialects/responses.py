"""OpenAI Responses shape (`responses_create`): request -> neutral, completion -> a Response object."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common as c
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Completion, Request, Text, Turn

NAME = "responses_create"
DESCRIPTION = (
    "Complete an OpenAI Responses-shaped request with the host agent's own model and return a Responses "
    "API object ({id: 'resp_…', object: 'response', model, output: [message with one output_text]}). "
    "input is a string (one user message) or a list of {role, content} items; instructions and "
    "system/developer items become the system prompt, instructions first. Before MCP 2026-07-28 the "
    "server sends one sampling/createMessage request; from 2026-07-28 it answers with an "
    "InputRequiredResult carrying that same request and takes the completion on the retry. Text only."
)

_ROLES = ("user", "assistant", "system", "developer")
# The real API names the text key `text`; the reference server used `input_text`. Both are accepted.
_TEXT_TYPES = ("input_text", "output_text", "text")
_TEXT_KEYS = ("text", "input_text")
_SHAPE = c.EntryShape(
    roles=_ROLES,
    keys=("role", "content", "type", "id", "status"),
    text_types=_TEXT_TYPES,
    text_keys=_TEXT_KEYS,
    system_roles=("system", "developer"),
    item_type="message",
)

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "input": {
            "description": "A string (one user message) or a list of items {role, content}; role user, "
            "assistant, system or developer; content a string or text parts "
            "({type: 'input_text'|'output_text'|'text', text or input_text}).",
            "anyOf": [
                {"type": "string"},
                {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "type": {"const": "message"},
                            "role": {"type": "string", "enum": list(_ROLES)},
                            "content": {
                                "anyOf": [
                                    {"type": "string"},
                                    {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "properties": {
                                                "type": {"enum": list(_TEXT_TYPES)},
                                                "text": {"type": "string"},
                                                "input_text": {"type": "string"},
                                            },
                                            "required": ["type"],
                                        },
                                    },
                                ]
                            },
                        },
                        "required": ["role", "content"],
                    },
                },
            ],
        },
        "instructions": {"type": "string", "description": "System prompt; leads system/developer items."},
        "model": c.MODEL_SCHEMA,
        "temperature": c.temperature_schema(2),
        "max_tokens": {
            **c.MAX_TOKENS_SCHEMA,
            "description": "Maximum tokens the host may generate (the Responses API's max_output_tokens).",
        },
    },
    "required": ["input"],
    "additionalProperties": False,
}


def parse(args: Mapping[str, Any]) -> Request:
    c.reject_unknown(args, INPUT_SCHEMA["properties"])
    if "input" not in args:
        raise caller_error("input", "is required")
    instructions = args.get("instructions")
    system = [] if instructions is None else [c.require_string(instructions, "instructions")]
    raw_input = args["input"]
    if isinstance(raw_input, str):
        turns = [Turn("user", (Text(c.require_unicode(raw_input, "input")),))]
    else:
        items = c.require_list(raw_input, "input", non_empty=True)
        item_system, turns = c.read_entries(items, "input", _SHAPE)
        system.extend(item_system)
    return c.conversation_request(NAME, args, system, turns, field_name="input")


def render(completion: Completion, request: Request) -> str | dict[str, Any]:
    # One random hex serves both ids, so a reader can tie the message item to its response.
    ident = uuid.uuid4().hex
    message = {
        "type": "message",
        "id": f"msg_{ident}",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": completion.text, "annotations": []}],
    }
    return {
        "id": f"resp_{ident}",
        "object": "response",
        "status": "completed",
        "model": request.model,
        "output": [message],
    }
