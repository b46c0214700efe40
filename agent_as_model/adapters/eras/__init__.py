"""Eras: the only code that talks to the host.

`for_request` is the one place that asks which era a call runs on (the negotiated protocol
version, spec section 2); everything after it is the same code on both eras.
"""

from __future__ import annotations

from mcp.server import ServerRequestContext
from mcp_types import CallToolRequestParams, ClientCapabilities
from mcp_types.version import is_version_at_least

from agent_as_model.adapters.eras.legacy import LegacySampling
from agent_as_model.adapters.eras.modern import ModernRoundTrip
from agent_as_model.engine.record import Era, SamplingSupport

MODERN_FROM = "2026-07-28"


def is_modern(protocol_version: str | None) -> bool:
    return is_version_at_least(protocol_version or "", MODERN_FROM)


def for_request(ctx: ServerRequestContext, params: CallToolRequestParams) -> Era:
    if is_modern(ctx.protocol_version):
        return ModernRoundTrip(params.request_state, params.input_responses)
    return LegacySampling(ctx.session, ctx.request_id)


def sampling_support(caps: ClientCapabilities | None) -> SamplingSupport:
    sampling = caps.sampling if caps is not None else None
    if sampling is None:
        return SamplingSupport(declared=False)
    return SamplingSupport(declared=True, tools=sampling.tools is not None)


__all__ = ["LegacySampling", "ModernRoundTrip", "for_request", "is_modern", "sampling_support"]
