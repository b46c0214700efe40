"""Backends: the ways to reach a model, each one module behind `base.Backend`.

- `sampling`: the host's model through a real `sampling/createMessage` request (before 2026-07-28);
- `mrtr`: the host's model through a multi-round-trip request (2026-07-28 and later).

`for_call` is the one place that decides which backend serves a call (today: by the negotiated
protocol version, spec section 2); everything after it is the same code whichever serves.
"""

from __future__ import annotations

from mcp.server import ServerRequestContext
from mcp_types import CallToolRequestParams
from mcp_types.version import is_version_at_least

from agent_as_model.adapters.backends.base import Backend, HostAnswer, SamplingSupport, Suspension
from agent_as_model.adapters.backends.mrtr import ModernRoundTrip
from agent_as_model.adapters.backends.sampling import LegacySampling, progress_token
from agent_as_model.limits import DEFAULT_LIMITS, Limits

MODERN_FROM = "2026-07-28"


def is_modern(protocol_version: str | None) -> bool:
    """Whether a negotiated protocol version is of the 2026-07-28 era (the one place that says so)."""
    return is_version_at_least(protocol_version or "", MODERN_FROM)


def for_call(
    ctx: ServerRequestContext, params: CallToolRequestParams, limits: Limits = DEFAULT_LIMITS
) -> Backend:
    if is_modern(ctx.protocol_version):
        return ModernRoundTrip(params.request_state, params.input_responses)
    return LegacySampling(ctx.session, ctx.request_id, limits, progress_token(params))


__all__ = [
    "Backend",
    "HostAnswer",
    "LegacySampling",
    "ModernRoundTrip",
    "SamplingSupport",
    "Suspension",
    "for_call",
    "is_modern",
]
