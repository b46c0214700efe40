"""The input schema `gemini_generate_content` lists, written by hand: the product's own keys only
(the registry adds the shared ones, `extensions.py`).
"""

from __future__ import annotations

from typing import Any

from agent_as_model.adapters.dialects import common, options
from agent_as_model.adapters.dialects.products.gemini.config import FATES
from agent_as_model.adapters.dialects.products.gemini.keys import (
    HINTS,
    MODES,
    REFUSED,
    ROLES,
    SPELLINGS,
    STOP,
)
from agent_as_model.adapters.tools import listing

_TEXT_PART = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
_BLOB = {
    "type": "object",
    "properties": {"mimeType": {"type": "string"}, "data": {"type": "string"}},
    "required": ["mimeType", "data"],
}
_PART = {
    "type": "object",
    "description": "{text}, {inlineData: {mimeType, data}} (an image or audio, base64), {functionCall: "
    "{id?, name, args}} (model) or {functionResponse: {id?, name, response, parts?}} (user); fileData "
    "is refused.",
    "properties": {
        "text": {"type": "string"},
        "inlineData": _BLOB,
        "functionCall": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "args": {"type": "object"}},
        },
        "functionResponse": {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "name": {"type": "string"},
                "response": {"type": "object"},
                "parts": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"inlineData": _BLOB},
                        "required": ["inlineData"],
                    },
                },
            },
        },
    },
}
_SCHEMA_FRAGMENT: dict[str, Any] = {
    "type": "object",
    "description": "Gemini's Schema (OpenAPI subset, type OBJECT, STRING, ...).",
}
_DECLARATION = {
    "type": "object",
    "properties": {
        "name": listing.NAME,
        "description": listing.DESCRIPTION,
        "parameters": _SCHEMA_FRAGMENT,
        "parametersJsonSchema": listing.PARAMETERS,
    },
    "required": ["name"],
}
TOOLS_SCHEMA = listing.tools_schema(
    {
        "type": "object",
        "description": "A Tool {functionDeclarations: [{name, description, parameters (Gemini Schema) or "
        "parametersJsonSchema}]}; built-in tools (googleSearch, codeExecution, ...) cannot be forwarded.",
        "properties": {"functionDeclarations": {"type": "array", "items": _DECLARATION}},
    },
    listing.SEED_TOOL,
)
CHOICE_SCHEMA: dict[str, Any] = {
    "type": ["object", "null"],
    "description": "functionCallingConfig: mode AUTO (the model decides), ANY (it must call a function), "
    "NONE (it must not) or VALIDATED (as AUTO); allowedFunctionNames with ANY: one name (that function, "
    "forwarded alone as required) or every declared name. Needs tools, except AUTO and NONE.",
    "properties": {
        "functionCallingConfig": {
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": list(MODES)},
                "allowedFunctionNames": {"type": "array", "items": {"type": "string"}},
            },
        }
    },
}
_CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "temperature, maxOutputTokens, stopSequences (up to 5), responseMimeType "
    "('application/json' for structured output) with responseSchema (Gemini's Schema) or "
    "responseJsonSchema (JSON Schema); topP, topK, seed, penalties, thinkingConfig: sent to the host "
    "as hints (sampling metadata), named in _meta warnings; candidateCount asks for that many "
    "candidates (above 1 needs result 'object'); logprobs and non-text modalities are refused.",
    "properties": {
        "candidateCount": {
            "type": "integer",
            "minimum": 1,
            "default": 1,
            "description": "How many independent candidates; above 1 needs result 'object'.",
        },
        "temperature": common.temperature_schema(2),
        "maxOutputTokens": {
            **common.MAX_TOKENS_SCHEMA,
            "description": "Maximum tokens the host may generate.",
        },
        "stopSequences": options.stop_schema(STOP),
        "responseMimeType": {
            "type": "string",
            "enum": ["text/plain", "application/json"],
            "description": "application/json: structured output (validated JSON text).",
        },
        "responseSchema": _SCHEMA_FRAGMENT,
        "responseJsonSchema": {"type": "object", "description": "A JSON Schema with root type object."},
    },
}
_CONTENTS = {
    "description": "A string (one user content) or contents {role: user|model, parts}.",
    "anyOf": [
        {"type": "string"},
        {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {"role": {"enum": list(ROLES)}, "parts": {"type": "array", "items": _PART}},
                "required": ["parts"],
            },
        },
    ],
}
_SYSTEM = {
    "anyOf": [
        {"type": "string"},
        {
            "type": "object",
            "properties": {"parts": {"type": "array", "items": _TEXT_PART}},
            "required": ["parts"],
        },
    ],
    "description": "System prompt: a string, or a content of text parts (joined by newlines).",
}


def _same_as(name: str) -> dict[str, Any]:
    return {"description": f"The same as {name} (the SDK's snake_case spelling)."}


INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "contents": _CONTENTS,
        "systemInstruction": _SYSTEM,
        "generationConfig": _CONFIG_SCHEMA,
        "tools": TOOLS_SCHEMA,
        "toolConfig": CHOICE_SCHEMA,
        **options.hint_schemas(HINTS, FATES),
        **options.refused_schemas(REFUSED),
        **{
            snake: _same_as(camel)
            for camel, snake in SPELLINGS.items()
            if snake not in HINTS and snake not in REFUSED
        },
    },
    "required": ["contents"],
    "additionalProperties": False,
}
