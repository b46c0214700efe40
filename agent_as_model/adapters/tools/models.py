"""`list_models`: a static tool, listed beside the dialects' tools and answered by the server
itself, with no model asked: the one model this server offers, the host agent's own (and, with
a provider configured, the names a call may ask it for: `server.py` adds them)."""

# No `from __future__ import annotations`: this module defines a NamedTuple (docs/architecture.md).
from typing import Any, NamedTuple

from agent_as_model.neutral import DEFAULT_MODEL


class StaticTool(NamedTuple):
    """A tool that takes no product body and needs no sampling: what the listing shows of it."""

    NAME: str
    DESCRIPTION: str
    INPUT_SCHEMA: dict[str, Any]


LIST_MODELS = StaticTool(
    NAME="list_models",
    DESCRIPTION=(
        "List the models this server offers: one, agent-default, an alias for the host agent's own "
        "model. Needs no sampling and behaves the same on every protocol version."
    ),
    INPUT_SCHEMA={"type": "object", "properties": {}, "additionalProperties": False},
)
NAME = LIST_MODELS.NAME

MODELS: list[dict[str, str]] = [
    {
        "id": DEFAULT_MODEL,
        "owned_by": "host-agent",
        "description": "The connected host agent's own model, reached through MCP sampling; no API key.",
    }
]
