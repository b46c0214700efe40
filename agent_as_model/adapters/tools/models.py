"""`list_models`: a static tool, listed beside the dialects' tools and answered by the server
itself, with no model asked: the one model this server offers, the host agent's own (and, with
a provider configured, the names a call may ask it for: `server.py` adds them)."""

from __future__ import annotations

from typing import Any

from agent_as_model.neutral import DEFAULT_MODEL
from agent_as_model.records import Record


class StaticTool(Record):
    """A tool that takes no product body and needs no sampling: what the listing shows of it."""

    NAME: str
    DESCRIPTION: str
    INPUT_SCHEMA: dict[str, Any]


LIST_MODELS = StaticTool(
    NAME="list_models",
    DESCRIPTION=(
        "List the models this server offers: agent-default, an alias for the host agent's own model, "
        "and the models of a provider when the server's operator configured one. Needs no sampling and "
        "behaves the same on every protocol version."
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


def default_model(provider: str, model: str, use: str, on_host_error: bool = False) -> dict[str, str]:
    """agent-default as the operator's provider settings serve it (plain strings: this room does
    not know the backends), so the listing says who answers and whose key it spends."""
    served = f"the provider {provider}'s model {model}, with this server's API key"
    if use == "always":
        how = (
            f"Served by {served}, whatever the host can do; a call with backend 'host' asks the host "
            "agent's own model through MCP sampling instead."
        )
    else:
        also = " or declines or fails a sampling request" if on_host_error else ""
        how = (
            "The connected host agent's own model, reached through MCP sampling; when the host cannot "
            f"sample{also} (or a call asks for backend 'provider'), {served}."
        )
    return {"id": DEFAULT_MODEL, "owned_by": "host-agent", "description": how}
