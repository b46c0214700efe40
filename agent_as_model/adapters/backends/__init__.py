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
from agent_as_model.adapters.backends.cooldown import Cooldowns, CooldownState
from agent_as_model.adapters.backends.mrtr import ModernRoundTrip, wire_result
from agent_as_model.adapters.backends.router import CallRouter, Pool, is_modern
from agent_as_model.adapters.backends.sampling import LegacySampling

if TYPE_CHECKING:
    from agent_as_model.adapters.backends.provider import ProviderApi, ProviderBackend
    from agent_as_model.adapters.backends.recorded import Tap, settings_from_json, settings_json
    from agent_as_model.adapters.provider_names import ProviderSettings
    from agent_as_model.adapters.routes import Gateway

# The provider is opt-in (spec section 8): a server without one never loads its modules. These
# names are the provider modules', loaded on first use (PEP 562).
_PROVIDER_NAMES = {
    "ProviderApi": "agent_as_model.adapters.backends.provider",
    "ProviderBackend": "agent_as_model.adapters.backends.provider",
    "ProviderSettings": "agent_as_model.adapters.provider_names",
    "Tap": "agent_as_model.adapters.backends.recorded",
    "settings_from_json": "agent_as_model.adapters.backends.recorded",
    "settings_json": "agent_as_model.adapters.backends.recorded",
}


def __getattr__(name: str) -> Any:
    module = _PROVIDER_NAMES.get(name)
    if module is not None:
        return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def connect(
    settings: ProviderSettings,
    *,
    tap: Tap | None = None,
    replay: list[dict[str, Any]] | None = None,
    redacted: bool = False,
) -> ProviderBackend:
    """The backend of one provider the operator configured; its SDK is imported only now.
    Raises `ProviderUnavailable` (a one-line start-up error) when it cannot be set up.

    `tap` receives every exchange (`serve --record`); `replay` answers from recorded exchanges
    instead (this provider's, in order), with no SDK and no network (`replay`; `redacted`: their
    texts are placeholders)."""
    from agent_as_model.adapters.backends.provider import ProviderBackend, provider_module
    from agent_as_model.adapters.backends.recorded import ReplayedApi, TappedApi

    module = provider_module(settings.provider)
    api: ProviderApi
    if replay is not None:

        def body_of(payload: Any, model: str, passing: Any) -> dict[str, Any]:
            if passing is None:
                return module.request_body(payload, model)
            return module.passed_body(passing, model)  # type: ignore[attr-defined,no-any-return]

        products = frozenset(getattr(module, "PRODUCTS", ()))
        api = ReplayedApi(replay, body_of, compare_requests=not redacted, products=products)
    else:
        from agent_as_model.adapters.backends.sdk_api import SdkApi

        api = SdkApi(settings, module)
    if tap is not None:
        api = TappedApi(api, settings.label, tap)
    return ProviderBackend(settings, api)


def connect_pool(
    gateway: Gateway,
    *,
    tap: Tap | None = None,
    replay: list[dict[str, Any]] | None = None,
    redacted: bool = False,
    cooldown_state: CooldownState | None = None,
) -> Pool:
    """Every provider of the operator's gateway, connected (`connect`), with its routes and the
    providers' cooldowns: kept in `cooldown_state` (a store several processes share) or, None, in
    this process. A replay answers each provider from its own recorded exchanges."""
    providers = {}
    for settings in gateway.providers:
        own = None if replay is None else [e for e in replay if e.get("provider") == settings.label]
        providers[settings.label] = connect(settings, tap=tap, replay=own, redacted=redacted)
    return Pool(gateway, providers, Cooldowns(gateway.cooldown, cooldown_state))


__all__ = [
    "Backend",
    "CallRouter",
    "Pool",
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
    "connect_pool",
    "is_modern",
    "wire_result",
]
