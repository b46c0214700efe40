"""The route table: which backends may serve a call, in order, by the model the call names.

The operator's configuration file names providers (`[providers.NAME]`) and routes (`[routes]`):
a model name or glob pattern -> an ordered chain of hops, each the host or a named provider
(with the model that provider is asked for, or the caller's). `Gateway` holds them, with what a
failing provider's cooldown is; `chain` answers which hops a model's call may try. The router
(`backends/router.py`) is the one place that turns a chain into the call's route, skipping a hop
that cannot take the call or is cooling down.

The `--provider` flags describe one provider; `Gateway.of_provider` writes its policy as routes,
so one router serves both. Plain values, no MCP SDK: the command line makes them before anything
is served, and HTTP workers read them back from JSON (`gateway_json`).
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from agent_as_model.adapters.provider_names import POLICIES, PROVIDER_MODULES, ProviderSettings
from agent_as_model.neutral import DEFAULT_MODEL
from agent_as_model.records import Record

HOST = "host"
# A provider's name: what calls, results and logs know it by ("/" parts a hop's name from its model).
NAME_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,64}")
# How many failures in a row open a provider's cooldown, and how long it lasts (seconds).
COOLDOWN_FAILURES = 3
COOLDOWN_SECONDS = 30.0
# The time one round of a call may spend across its chain, every hop's attempts and waits included.
CALL_DEADLINE = 300.0
_GLOB = re.compile(r"[*?\[]")


class Hop(Record):
    """One backend of a chain: the host, or a provider by its name."""

    backend: str  # HOST, or a provider's name
    # The model the provider is asked for. None: the caller's (agent-default: its default model).
    model: str | None = None
    # The caller's model must be one the provider lists (`--provider-models`): the `--provider`
    # flags' rule, where a route names no model.
    listed_only: bool = False

    def __str__(self) -> str:
        return self.backend if self.model is None else f"{self.backend}/{self.model}"


class RouteRule(Record):
    """Calls whose model is `pattern` (a name, or a glob with `*`, `?`, `[...]`) try `hops` in order."""

    pattern: str
    hops: tuple[Hop, ...]

    @property
    def is_glob(self) -> bool:
        return bool(_GLOB.search(self.pattern))


class Cooldown(Record):
    """A provider that fails `failures` times in a row is skipped for `seconds` (or as long as
    its Retry-After asks, when longer)."""

    failures: int = COOLDOWN_FAILURES
    seconds: float = COOLDOWN_SECONDS


class Gateway(Record):
    """The operator's providers and routes."""

    providers: tuple[ProviderSettings, ...] = ()
    routes: tuple[RouteRule, ...] = ()
    cooldown: Cooldown = Cooldown()
    call_deadline: float = CALL_DEADLINE
    # Whether a host that declines or fails passes the call on to the next hop. The `--provider`
    # flags' rule: only with --provider-on-host-error.
    host_errors_pass: bool = True

    @classmethod
    def of_provider(cls, settings: ProviderSettings) -> Gateway:
        """The `--provider` flags' one provider, its rule written as a route for every model:
        `always`, the provider alone; `when-host-cannot`, the host and then the provider (which
        serves when the host cannot take the call, or, with --provider-on-host-error, when the
        host declines or fails). The model is the caller's, checked against the allowed names."""
        provider = Hop(settings.label, listed_only=True)
        hops = (provider,) if settings.use == "always" else (Hop(HOST), provider)
        return cls((settings,), (RouteRule("*", hops),), host_errors_pass=settings.on_host_error)

    def one_provider(self) -> ProviderSettings | None:
        """The `--provider` flags' one provider, when this gateway is theirs (`of_provider`)."""
        if len(self.providers) != 1:
            return None
        made = Gateway.of_provider(self.providers[0])
        if (made.routes, made.host_errors_pass) != (self.routes, self.host_errors_pass):
            return None
        return self.providers[0]

    def provider(self, name: str) -> ProviderSettings | None:
        for settings in self.providers:
            if settings.label == name:
                return settings
        return None

    def chain(self, model: str) -> tuple[Hop, ...]:
        """The hops a call naming `model` may try, in order: the route of that exact name, else
        the first route whose pattern matches, else the first provider that lists the model
        (a name before a pattern), else the host."""
        for rule in self.routes:
            if not rule.is_glob and rule.pattern == model:
                return rule.hops
        for rule in self.routes:
            if rule.is_glob and fnmatch.fnmatchcase(model, rule.pattern):
                return rule.hops
        if model != DEFAULT_MODEL:
            for settings in self.providers:
                if model in settings.models:
                    return (Hop(settings.label, listed_only=True),)
            for settings in self.providers:
                if any(fnmatch.fnmatchcase(model, listed) for listed in settings.models):
                    return (Hop(settings.label, listed_only=True),)
        return HOST_ONLY


HOST_ONLY = (Hop(HOST),)


def listed(settings: ProviderSettings, model: str) -> bool:
    """Whether a provider lists `model` (a name, or one of its patterns matches it)."""
    return model in settings.allowed() or any(
        _GLOB.search(name) and fnmatch.fnmatchcase(model, name) for name in settings.models
    )


def gateway_json(gateway: Gateway) -> dict[str, Any]:
    """The gateway as JSON (an HTTP worker reads it back with `gateway_from_json`); no key in it,
    only the names of the variables keys are read from."""
    return {
        "providers": [{**p._asdict(), "models": list(p.models)} for p in gateway.providers],
        "routes": [{"pattern": r.pattern, "hops": [h._asdict() for h in r.hops]} for r in gateway.routes],
        "cooldown": gateway.cooldown._asdict(),
        "callDeadline": gateway.call_deadline,
        "hostErrorsPass": gateway.host_errors_pass,
    }


def gateway_from_json(value: dict[str, Any]) -> Gateway:
    providers = []
    for given in value["providers"]:
        if given.get("provider") not in PROVIDER_MODULES or given.get("use") not in POLICIES:
            raise ValueError("not provider settings")
        providers.append(ProviderSettings(**{**given, "models": tuple(given["models"])}))
    routes = tuple(
        RouteRule(rule["pattern"], tuple(Hop(**hop) for hop in rule["hops"])) for rule in value["routes"]
    )
    return Gateway(
        tuple(providers),
        routes,
        Cooldown(**value["cooldown"]),
        float(value["callDeadline"]),
        bool(value["hostErrorsPass"]),
    )
