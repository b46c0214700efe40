"""The shared JSON Schema fragments for `tools` and `tool_choice` in the listed inputSchemas.

A dialect composes its product's fragments from these (`tools_schema`, `choice_schema`) in its
`ToolShape`. Written by hand to describe what `definitions` accepts, for the reader of a tools/list (a person,
or the host's model composing a call). They are descriptive rather than the gate: objects stay
open, so that a wrong key reaches `definitions`, whose error names its exact path.
"""

from __future__ import annotations

from typing import Any

SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "A JSON Schema (draft 2020-12) with root type 'object'; $ref only within the schema.",
}
NAME: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "description": "Unique in the request. Names outside [A-Za-z0-9_-]{1,64} are mapped to safe names for "
    "the host and mapped back in the result.",
}
DESCRIPTION: dict[str, Any] = {
    "type": ["string", "null"],
    "description": "What the tool does; the host sees at most 1024 characters.",
}
STRICT: dict[str, Any] = {
    "type": ["boolean", "null"],
    "description": "Accepted and ignored: MCP sampling has no strict mode.",
}
PARAMETERS: dict[str, Any] = {
    **SCHEMA,
    "description": SCHEMA["description"] + " Omitted: a tool without arguments.",
}

SEED_TOOL: dict[str, Any] = {
    "type": "object",
    "description": "A tool {name, description, input_schema}.",
    "properties": {"name": NAME, "description": DESCRIPTION, "input_schema": SCHEMA},
    "required": ["name", "input_schema"],
}
_TOOLS_DESCRIPTION = (
    "Tool definitions for the host's model. Forwarded only when the host declared the sampling.tools "
    "capability; otherwise, as the server's operator chose (serve --host-without-tools): dropped, the "
    "result's _meta saying so (a tool_choice that demands a call is then refused), emulated in the "
    "prompt, or refused. Cannot be combined with output_schema."
)


def tools_schema(*shapes: dict[str, Any]) -> dict[str, Any]:
    items = shapes[0] if len(shapes) == 1 else {"anyOf": list(shapes)}
    return {"type": ["array", "null"], "description": _TOOLS_DESCRIPTION, "items": items}


_MODE: dict[str, Any] = {
    "type": "string",
    "enum": ["auto", "required", "none"],
    "description": "auto: the model decides; required: it must call a tool; none: it must not.",
}
_CHOICE_DESCRIPTION = (
    "How the model may use the tools (default auto). A named tool is forwarded alone, as required "
    "(MCP has no per-name choice). Needs tools, except auto and none."
)


def choice_schema(named: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [_MODE, named, {"type": "null"}], "description": _CHOICE_DESCRIPTION}
