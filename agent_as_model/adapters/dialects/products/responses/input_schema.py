"""The input schema `responses_create` lists, written by hand: the product's own keys only (the
registry adds the shared ones, `extensions.py`).
"""

from __future__ import annotations

from typing import Any

from agent_as_model.adapters.dialects import common, options
from agent_as_model.adapters.dialects.products.responses.keys import (
    HINTS,
    ITEM_KEYS,
    REFUSED,
    ROLES,
    TEXT_TYPES,
)
from agent_as_model.adapters.tools import listing

# A message's content parts and a function_call_output's output parts, as listed.
_PARTS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "type": {"enum": [*TEXT_TYPES, "input_image"]},
            "text": {"type": "string"},
            "input_text": {"type": "string"},
            "image_url": {
                "type": "string",
                "description": "A data: URL (an http(s) URL only with serve --fetch-media).",
            },
            "detail": {"type": "string"},
        },
        "required": ["type"],
    },
}

TOOLS_SCHEMA = listing.tools_schema(
    {
        "type": "object",
        "description": "A Responses function tool; built-in tools (web_search, file_search, ...) "
        "cannot be forwarded.",
        "properties": {
            "type": {"const": "function"},
            "name": listing.NAME,
            "description": listing.DESCRIPTION,
            "parameters": listing.PARAMETERS,
            "strict": listing.STRICT,
        },
        "required": ["type", "name"],
    },
    listing.SEED_TOOL,
)
CHOICE_SCHEMA = listing.choice_schema(
    {
        "type": "object",
        "description": "Call this function.",
        "properties": {"type": {"const": "function"}, "name": {"type": "string"}},
        "required": ["type", "name"],
    }
)

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "input": {
            "description": "A string (one user message) or a list of items: messages {role, content} "
            "(role user, assistant, system or developer; content a string or text parts "
            "{type: 'input_text'|'output_text'|'text', text or input_text}), function_call items "
            "{type, call_id, name, arguments} and function_call_output items {type, call_id, output}.",
            "anyOf": [
                {"type": "string"},
                {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "type": {"enum": list(ITEM_KEYS)},
                            "call_id": {"type": "string"},
                            "name": {"type": "string"},
                            "arguments": {"type": "string", "description": "JSON text of an object."},
                            "output": {"anyOf": [{"type": "string"}, _PARTS]},
                            "role": {"type": "string", "enum": list(ROLES)},
                            "content": {"anyOf": [{"type": "string"}, _PARTS]},
                        },
                    },
                },
            ],
        },
        "instructions": {"type": "string", "description": "System prompt; leads system/developer items."},
        "temperature": common.temperature_schema(2),
        "max_tokens": {
            **common.MAX_TOKENS_SCHEMA,
            "description": "Maximum tokens the host may generate (the Responses API's max_output_tokens).",
        },
        "max_output_tokens": {**common.MAX_TOKENS_SCHEMA, "description": "The same as max_tokens."},
        "tools": TOOLS_SCHEMA,
        "tool_choice": CHOICE_SCHEMA,
        "text": {
            "type": "object",
            "properties": {"format": options.format_schema(nested=False), "verbosity": {"type": "string"}},
            "description": "format: json_schema (as output_schema), json_object or text; verbosity: a hint.",
        },
        **options.hint_schemas(HINTS),
        **options.refused_schemas(REFUSED),
    },
    "required": ["input"],
    "additionalProperties": False,
}
