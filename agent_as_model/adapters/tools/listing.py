"""The JSON Schema fragments for `tools` and `tool_choice` in each listed tool's inputSchema.

Written by hand to describe what `definitions` accepts, for the reader of a tools/list (a person,
or the host's model composing a call). They are descriptive rather than the gate: objects stay
open, so that a wrong key reaches `definitions`, whose error names its exact path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

Native = Literal["chat", "messages", "responses"]
"""The product shapes a tool definition may take besides the seed's."""

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "A JSON Schema (draft 2020-12) with root type 'object'; $ref only within the schema.",
}
_NAME: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "description": "Unique in the request. Names outside [A-Za-z0-9_-]{1,64} are mapped to safe names for "
    "the host and mapped back in the result.",
}
_DESCRIPTION: dict[str, Any] = {
    "type": ["string", "null"],
    "description": "What the tool does; the host sees at most 1024 characters.",
}
_STRICT: dict[str, Any] = {
    "type": ["boolean", "null"],
    "description": "Accepted and ignored: MCP sampling has no strict mode.",
}
_PARAMETERS: dict[str, Any] = {
    **_SCHEMA,
    "description": _SCHEMA["description"] + " Omitted: a tool without arguments.",
}

_SEED_TOOL: dict[str, Any] = {
    "type": "object",
    "description": "A tool {name, description, input_schema}.",
    "properties": {"name": _NAME, "description": _DESCRIPTION, "input_schema": _SCHEMA},
    "required": ["name", "input_schema"],
}
_CHAT_TOOL: dict[str, Any] = {
    "type": "object",
    "description": "A Chat Completions function tool.",
    "properties": {
        "type": {"const": "function"},
        "function": {
            "type": "object",
            "properties": {
                "name": _NAME,
                "description": _DESCRIPTION,
                "parameters": _PARAMETERS,
                "strict": _STRICT,
            },
            "required": ["name"],
        },
    },
    "required": ["type", "function"],
}
_MESSAGES_TOOL: dict[str, Any] = {
    "type": "object",
    "description": "An Anthropic custom tool {name, description, input_schema}; server tools (web search, "
    "code execution, ...) cannot be forwarded.",
    "properties": {
        "name": _NAME,
        "description": _DESCRIPTION,
        "input_schema": _SCHEMA,
        "type": {"const": "custom"},
        "cache_control": {"type": ["object", "null"], "description": "Accepted and ignored."},
        "strict": _STRICT,
    },
    "required": ["name", "input_schema"],
}
_RESPONSES_TOOL: dict[str, Any] = {
    "type": "object",
    "description": "A Responses function tool; built-in tools (web_search, file_search, ...) "
    "cannot be forwarded.",
    "properties": {
        "type": {"const": "function"},
        "name": _NAME,
        "description": _DESCRIPTION,
        "parameters": _PARAMETERS,
        "strict": _STRICT,
    },
    "required": ["type", "name"],
}

_TOOLS_DESCRIPTION = (
    "Tool definitions for the host's model. Forwarded only when the host declared the sampling.tools "
    "capability; otherwise dropped (a warning is logged) and the call is a plain-text completion. "
    "Cannot be combined with output_schema."
)


def _tools(*shapes: dict[str, Any]) -> dict[str, Any]:
    items = shapes[0] if len(shapes) == 1 else {"anyOf": list(shapes)}
    return {"type": ["array", "null"], "description": _TOOLS_DESCRIPTION, "items": items}


TOOLS_SCHEMA: Mapping[Native, dict[str, Any]] = {
    "chat": _tools(_CHAT_TOOL, _SEED_TOOL),
    "messages": _tools(_MESSAGES_TOOL),  # the seed shape is Anthropic's own
    "responses": _tools(_RESPONSES_TOOL, _SEED_TOOL),
}

_MODE: dict[str, Any] = {
    "type": "string",
    "enum": ["auto", "required", "none"],
    "description": "auto: the model decides; required: it must call a tool; none: it must not.",
}
_CHOICE_DESCRIPTION = (
    "How the model may use the tools (default auto). A named tool is forwarded alone, as required "
    "(MCP has no per-name choice). Needs tools, except auto and none."
)


def _choice(named: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [_MODE, named, {"type": "null"}], "description": _CHOICE_DESCRIPTION}


TOOL_CHOICE_SCHEMA: Mapping[Native, dict[str, Any]] = {
    "chat": _choice(
        {
            "type": "object",
            "description": "Call this function.",
            "properties": {
                "type": {"const": "function"},
                "function": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"],
                },
            },
            "required": ["type", "function"],
        }
    ),
    "messages": _choice(
        {
            "type": "object",
            "description": "Anthropic form: any = required; tool = the named tool. "
            "disable_parallel_tool_use is accepted and ignored.",
            "properties": {
                "type": {"enum": ["auto", "any", "tool", "none"]},
                "name": {"type": "string", "description": "With type tool only."},
                "disable_parallel_tool_use": {"type": "boolean"},
            },
            "required": ["type"],
        }
    ),
    "responses": _choice(
        {
            "type": "object",
            "description": "Call this function.",
            "properties": {"type": {"const": "function"}, "name": {"type": "string"}},
            "required": ["type", "name"],
        }
    ),
}
