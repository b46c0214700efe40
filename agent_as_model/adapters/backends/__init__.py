"""Backends: the ways to reach a model, each one module behind `base.Backend`.

- `sampling`: the host's model through a real `sampling/createMessage` request (before 2026-07-28);
- `mrtr`: the host's model through a multi-round-trip request (2026-07-28 and later);
- `provider` (with `provider_openai` / `provider_anthropic`): a provider's model through its
  official SDK, opt-in (spec section 8);
- `fallback`: the host first, the provider when the host declines or fails.

`for_call` is the one place that decides which backend serves a call: by the negotiated protocol
version (spec section 2), and, when the operator configured a provider, by the operator's rule,
what the host declared and the call's `backend` argument. Everything after it is the same code
whichever serves.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from mcp.server import ServerRequestContext
from mcp_types import CallToolRequestParams
from mcp_types.version import is_version_at_least

from agent_as_model.adapters.backends.base import (
    Backend,
    HostAnswer,
    ProviderUnavailable,
    SamplingSupport,
    Suspension,
)
from agent_as_model.adapters.backends.mrtr import ModernRoundTrip
from agent_as_model.adapters.backends.sampling import LegacySampling, progress_token
from agent_as_model.errors import CallError, caller_error
from agent_as_model.limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:
    from agent_as_model.adapters.backends.provider import (
        ProviderApi,
        ProviderBackend,
        ProviderSettings,
        Tap,
        settings_from_json,
        settings_json,
    )

# The provider is opt-in (spec section 8): a server without one never loads its modules. These
# names are the provider module's, loaded on first use (PEP 562).
_PROVIDER_NAMES = frozenset(
    {"ProviderApi", "ProviderBackend", "ProviderSettings", "Tap"} | {"settings_from_json", "settings_json"}
)


def __getattr__(name: str) -> Any:
    if name in _PROVIDER_NAMES:
        return getattr(importlib.import_module("agent_as_model.adapters.backends.provider"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


MODERN_FROM = "2026-07-28"
CHOICES = ("host", "provider", "auto")
# A provider's API takes everything the payload can carry: tool blocks, tools, a tool choice.
PROVIDER_SUPPORT = SamplingSupport(declared=True, tools=True)


def is_modern(protocol_version: str | None) -> bool:
    """Whether a negotiated protocol version is of the 2026-07-28 era (the one place that says so)."""
    return is_version_at_least(protocol_version or "", MODERN_FROM)


class Route(NamedTuple):
    """Who serves a call, what it can take (the call's payload is built for that), and, when the
    call asked for what this server cannot give, the caller error to raise before anything is sent."""

    backend: Backend
    support: SamplingSupport
    refused: CallError | None = None


def connect(
    settings: ProviderSettings,
    *,
    tap: Tap | None = None,
    replay: list[dict[str, Any]] | None = None,
    redacted: bool = False,
) -> ProviderBackend:
    """The provider backend for the operator's settings; its SDK is imported only now.
    Raises `ProviderUnavailable` (a one-line start-up error) when it cannot be set up.

    `tap` receives every exchange (`serve --record`); `replay` answers from recorded exchanges
    instead, with no SDK and no network (`replay`; `redacted`: their texts are placeholders)."""
    from agent_as_model.adapters.backends.provider import ProviderBackend, ReplayedApi, TappedApi
    from agent_as_model.adapters.provider_names import PROVIDER_MODULES

    mapping = importlib.import_module(PROVIDER_MODULES[settings.provider])
    api: ProviderApi
    if replay is not None:
        api = ReplayedApi(replay, mapping.request_body, compare_requests=not redacted)
    else:
        api = mapping.Api(settings)
    if tap is not None:
        api = TappedApi(api, settings.provider, tap)
    return ProviderBackend(settings, api)


def for_call(
    ctx: ServerRequestContext,
    params: CallToolRequestParams,
    provider: ProviderBackend | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Route:
    host_support = SamplingSupport.of(ctx.session.client_capabilities)
    host: Backend
    if is_modern(ctx.protocol_version):
        host = ModernRoundTrip(params.request_state, params.input_responses, host_support)
    else:
        host = LegacySampling(ctx.session, ctx.request_id, limits, progress_token(params))
    arguments = params.arguments or {}
    # A bad value is the parse's to refuse, with its path, before anything is sent: here it is "auto".
    choice = arguments.get("backend")
    choice = choice if choice in CHOICES else "auto"
    if provider is None:
        if choice == "provider":
            return Route(host, host_support, _no_provider())
        return Route(host, host_support)
    if choice == "host":  # the caller's choice: the host alone, -32021 if it cannot sample
        return Route(host, host_support)
    if choice == "provider" or _provider_serves(provider.settings, host_support, arguments):
        return Route(provider, PROVIDER_SUPPORT, provider.refusal(_model(arguments)))
    if provider.settings.on_host_error:
        from agent_as_model.adapters.backends.fallback import HostThenProvider

        return Route(HostThenProvider(host, provider, provider.settings.provider), host_support)
    return Route(host, host_support)


def _no_provider() -> CallError:
    return caller_error(
        "backend",
        "'provider' needs a provider, and this server has none configured (its operator starts it "
        "with --provider: see docs/providers.md); use 'host' or 'auto'",
    )


def _provider_serves(settings: ProviderSettings, host: SamplingSupport, arguments: Mapping[str, Any]) -> bool:
    """The operator's rule for `auto` (spec section 8)."""
    if settings.use == "always" or not host.declared:
        return True
    tools = arguments.get("tools")
    return bool(tools) and isinstance(tools, list) and not host.tools


def _model(arguments: Mapping[str, Any]) -> str:
    from agent_as_model.adapters.backends.provider import DEFAULT_MODEL

    model = arguments.get("model")
    return model if isinstance(model, str) and model else DEFAULT_MODEL


__all__ = [
    "Backend",
    "HostAnswer",
    "LegacySampling",
    "ModernRoundTrip",
    "ProviderBackend",
    "ProviderSettings",
    "ProviderUnavailable",
    "Route",
    "Tap",
    "settings_from_json",
    "settings_json",
    "SamplingSupport",
    "Suspension",
    "connect",
    "for_call",
    "is_modern",
]
