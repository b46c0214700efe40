"""`list_models`: the one model this server offers, the host agent's own."""

from __future__ import annotations

from typing import Any

from agent_as_model.adapters.dialects.common import DEFAULT_MODEL

NAME = "list_models"
DESCRIPTION = (
    "List the models this server offers: one, agent-default, an alias for the host agent's own model. "
    "Needs no sampling and behaves the same on every protocol version."
)
INPUT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

MODELS: list[dict[str, str]] = [
    {
        "id": DEFAULT_MODEL,
        "owned_by": "host-agent",
        "description": "The connected host agent's own model, reached through MCP sampling; no API key.",
    }
]
