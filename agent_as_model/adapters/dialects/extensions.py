"""What every tool's listing shares: the keys this server adds to every product's request body,
and the sentence of every description that says what a call does on each protocol era.

A dialect declares its product's own keys and its own description; the registry lists it through
`listed`, which adds these, so each is written once here and no dialect can miss one. Which keys
a dialect gets follows from its declaration: every completion tool takes `model`, `backend`,
`result`, `persona` and `previous_response_id`; one that takes tool definitions also takes structured
output (`output_schema`, `repair_attempts`: with a host that takes tools it travels as one
required tool); a tool with no history (a raw prompt) gets the cursor description that says a
`cur_` cursor is refused there.
"""

from __future__ import annotations

from typing import Any

from agent_as_model.adapters.dialects.dialect import Dialect
from agent_as_model.adapters.dialects.options import MAX_REPAIR_ATTEMPTS
from agent_as_model.neutral import BACKEND_CHOICES, DEFAULT_MODEL, RESULT_SHAPES

# The last sentence of every completion tool's description.
ERA = (
    "Before MCP 2026-07-28: one sampling/createMessage request; from 2026-07-28: an "
    "InputRequiredResult carrying it, answered on the retry."
)

MODEL: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "default": DEFAULT_MODEL,
    "description": "Model alias, sent to the host as a model hint; agent-default means the host's own model.",
}
BACKEND: dict[str, Any] = {
    "type": "string",
    "enum": list(BACKEND_CHOICES),
    "default": "auto",
    "description": "Who answers: 'host' (the host's own model through MCP sampling), 'provider' (the "
    "provider this server's operator configured, if any) or 'auto' (the operator's rule).",
}
RESULT: dict[str, Any] = {
    "type": "string",
    "enum": list(RESULT_SHAPES),
    "description": "What the call returns: 'text' (the completion text, or JSON text for tool calls and "
    "structured output) or 'object' (the product's own response object, with usage). Omitted: the "
    "server's default (serve --result, itself 'text' by default).",
}
# A tool with no object shape (a raw prompt): 'object' is refused there.
RESULT_TEXT_ONLY: dict[str, Any] = {
    **RESULT,
    "description": "'text' only: this tool returns the completion text and has no object shape.",
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Structured output: a JSON Schema (draft 2020-12) with root type object. With a host "
    "that takes tools it travels as one required tool; otherwise in the system prompt. The answer is "
    "validated and returned as JSON text (keys sorted). Not together with tools.",
}
REPAIR_ATTEMPTS: dict[str, Any] = {
    "type": "integer",
    "minimum": 0,
    "maximum": MAX_REPAIR_ATTEMPTS,
    "default": 0,
    "description": "With structured output or tools: how many times to ask the host again, with the "
    "validation error, when its answer (or its tool call) does not validate.",
}
PERSONA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "input_schema": {"type": "object"},
        "output_schema": {"type": "object"},
    },
    "required": ["name"],
    "description": "A per-call contract {name, input_schema?, output_schema?}: the request object (this "
    "tool's parameters with defaults, minus persona) must validate against input_schema before anything "
    "is sent; the completion text must be JSON that validates against output_schema. No registry.",
}
PREVIOUS_RESPONSE_ID: dict[str, Any] = {
    "type": ["string", "null"],
    "description": "Session cursor: '' starts a chain, 'cur_<64 hex>' continues one (checked against the "
    "history passed back), 'resp_…' (a Responses id) anchors a new chain. With it, results carry the "
    "next cursor.",
}
# A tool without history: the cursor covers the one exchange, and there is nothing to check a
# `cur_` cursor against.
PREVIOUS_RESPONSE_ID_NO_HISTORY: dict[str, Any] = {
    **PREVIOUS_RESPONSE_ID,
    "description": "Session cursor: '' mints one for this prompt and its completion (a 'cur_' "
    "cursor is refused: a prompt carries no history to verify it against).",
}


def takes_structured_output(dialect: Dialect) -> bool:
    """Whether the tool takes `output_schema` (and `repair_attempts`): the listing and the parse
    path both ask this."""
    return dialect.tools is not None


def properties(dialect: Dialect) -> dict[str, Any]:
    """The shared keys a dialect's tool takes, in listing order, with their schemas."""
    shared: dict[str, Any] = {
        "model": MODEL,
        "backend": BACKEND,
        "result": RESULT if dialect.render_object is not None else RESULT_TEXT_ONLY,
    }
    if takes_structured_output(dialect):
        shared.update(output_schema=OUTPUT_SCHEMA, repair_attempts=REPAIR_ATTEMPTS)
    shared["persona"] = PERSONA
    shared["previous_response_id"] = (
        PREVIOUS_RESPONSE_ID if dialect.body.has_history else PREVIOUS_RESPONSE_ID_NO_HISTORY
    )
    return shared


def listed(dialect: Dialect) -> Dialect:
    """The dialect as it is listed and parsed: its own keys followed by the shared ones, its own
    description followed by the era sentence. A dialect that lists a shared key itself is refused:
    the shared key has one source, here."""
    shared = properties(dialect)
    own = dialect.INPUT_SCHEMA["properties"]
    clash = [key for key in own if key in shared]
    if clash:
        raise ValueError(
            f"dialect {dialect.NAME!r} lists {', '.join(clash)}: shared keys are added by the registry"
        )
    schema = {**dialect.INPUT_SCHEMA, "properties": {**own, **shared}, "additionalProperties": False}
    # `result` is read on the plain path too: asking for the object costs no other reader.
    body = dialect.body._replace(plain=dialect.body.plain | {"result"})
    return dialect._replace(DESCRIPTION=f"{dialect.DESCRIPTION} {ERA}", INPUT_SCHEMA=schema, body=body)
