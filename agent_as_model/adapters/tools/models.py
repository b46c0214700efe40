"""`list_models`: a static tool, listed beside the dialects' tools and answered by the server
itself, with no model asked: the one model this server offers, the host agent's own (and, with
a provider configured, the names a call may ask it for: `server.py` adds them; with routes, every
model a call may name and who serves it, `routed`)."""

from __future__ import annotations

from typing import Any

from agent_as_model.adapters.routes import HOST, Gateway, Hop, RouteRule
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
        "and every model the operator's providers and routes serve, each with who serves it. Needs no "
        "sampling and behaves the same on every protocol version."
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


def routed(gateway: Gateway) -> list[dict[str, Any]]:
    """Every model a call may name on a server with routes, in the route table's order, then each
    provider's: agent-default, each exact name, then each pattern (`"pattern": true`: any name it
    matches). Each says who serves it, in order (`served_by`: "host", "NAME" or "NAME/MODEL")."""
    entries: dict[str, dict[str, Any]] = {}

    def add(name: str, pattern: bool = False) -> None:
        if name in entries:
            return
        if pattern:
            rule = next((r for r in gateway.routes if r.pattern == name), None)
            hops = rule.hops if rule is not None else _listing(gateway, name)
        else:
            hops = gateway.chain(name)
        entry: dict[str, Any] = {
            "id": name,
            "owned_by": "host-agent" if hops[0].backend == HOST else f"provider:{hops[0].backend}",
            "served_by": [str(hop) for hop in hops],
            "description": _served(hops),
        }
        if pattern:
            entry["pattern"] = True
        entries[name] = entry

    add(DEFAULT_MODEL)
    names = [r.pattern for r in gateway.routes] + [m for p in gateway.providers for m in p.models]
    for name in names:
        if not RouteRule(name, ()).is_glob:
            add(name)
    for name in names:
        if RouteRule(name, ()).is_glob:
            add(name, pattern=True)
    return list(entries.values())


def _listing(gateway: Gateway, pattern: str) -> tuple[Hop, ...]:
    """The provider that lists `pattern` among its models."""
    return (next(Hop(p.label, listed_only=True) for p in gateway.providers if pattern in p.models),)


def _served(hops: tuple[Hop, ...]) -> str:
    said = []
    for hop in hops:
        if hop.backend == HOST:
            said.append("the host agent's own model, through MCP sampling (no API key)")
        elif hop.model is not None:
            said.append(f"the provider {hop.backend}'s model {hop.model}")
        else:
            said.append(f"the provider {hop.backend}, asked for this model")
    return "Served by " + "; when it gives no answer, ".join(said) + "."
