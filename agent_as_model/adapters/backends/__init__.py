"""Backends: the ways to reach a model, each one module behind `base.Backend`.

- `sampling`: the host's model through a real `sampling/createMessage` request (before 2026-07-28);
- `mrtr`: the host's model through a multi-round-trip request (2026-07-28 and later);
- `provider` (with `providers/`, one module per provider API): a provider's model through its
  official SDK, opt-in (spec section 8);
- `fallback`: the host first, the provider when the host declines or fails.

`router.CallRouter` is the one place that decides which backend serves a call, from its parsed
request (the machine's build step asks it first, a proven retry's resume likewise): by the
negotiated protocol version (spec section 2), and, when the operator configured a provider, by
the operator's rule, what the host declared and the request's `backend`, `model` and `tools`.
Everything after it is the same code whichever serves.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.backends.base import (
    Backend,
    HostAnswer,
    ProviderUnavailable,
    Replayed,
    Route,
    Router,
    SamplingSupport,
    Suspension,
)
from agent_as_model.adapters.backends.mrtr import ModernRoundTrip, wire_result
from agent_as_model.adapters.backends.router import CallRouter, is_modern
from agent_as_model.adapters.backends.sampling import LegacySampling

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
    from agent_as_model.adapters.backends.provider import (
        ProviderBackend,
        ReplayedApi,
        SdkApi,
        TappedApi,
        provider_module,
    )

    module = provider_module(settings.provider)
    api: ProviderApi
    if replay is not None:
        api = ReplayedApi(replay, module.request_body, compare_requests=not redacted)
    else:
        api = SdkApi(settings.provider, module, settings)
    if tap is not None:
        api = TappedApi(api, settings.provider, tap)
    return ProviderBackend(settings, api)


__all__ = [
    "Backend",
    "CallRouter",
    "HostAnswer",
    "LegacySampling",
    "ModernRoundTrip",
    "ProviderBackend",
    "ProviderSettings",
    "ProviderUnavailable",
    "Replayed",
    "Route",
    "Router",
    "Tap",
    "settings_from_json",
    "settings_json",
    "SamplingSupport",
    "Suspension",
    "connect",
    "is_modern",
    "wire_result",
]
