"""The flags of every route (`--cooldown-after`, `--cooldown-for`, `--route-deadline`), and the
operator's gateway as `serve` is given it: the `--provider` flags' one provider, or the
configuration file's `[providers]` and `[routes]` (read by `gateway_options.py`). Apart from the
file's reader, so that the file's list of variables can name these without a circle."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.routes import (
    CALL_DEADLINE,
    COOLDOWN_FAILURES,
    COOLDOWN_SECONDS,
    Cooldown,
    Gateway,
)
from agent_as_model.commands.provider_options import UsageErrors, provider_settings

# The flags of every route, each with its variable (the flag wins, and both win over the file).
ENV = {
    "cooldown_after": "AGENT_AS_MODEL_COOLDOWN_AFTER",
    "cooldown_for": "AGENT_AS_MODEL_COOLDOWN_FOR",
    "route_deadline": "AGENT_AS_MODEL_ROUTE_DEADLINE",
}


def add_route_options(serve: argparse.ArgumentParser) -> None:
    group = serve.add_argument_group(
        "routes (with the --provider flags, or --config's [providers] and [routes]; docs/providers.md)",
        "A call's model picks its route, the backends that serve it in order; one that declines, times "
        "out, or answers 429 or a server error passes the call to the next.",
    )
    group.add_argument(
        "--cooldown-after",
        metavar="N",
        help="failures in a row (no answer in time, 408, 409, 429, 5xx) after which a provider is passed "
        f"over for --cooldown-for ({ENV['cooldown_after']}; default {COOLDOWN_FAILURES}); a Retry-After of "
        "a second or more passes it over until then by itself; with --store, every process shares it",
    )
    group.add_argument(
        "--cooldown-for",
        metavar="SECONDS",
        help=f"how long a provider is passed over ({ENV['cooldown_for']}; default {COOLDOWN_SECONDS:g})",
    )
    group.add_argument(
        "--route-deadline",
        metavar="SECONDS",
        help="the time one round of a call may spend across its route, every backend's attempts and waits "
        f"included ({ENV['route_deadline']}; default {CALL_DEADLINE:g})",
    )


def gateway_settings(parser: UsageErrors, args: Any, env: Mapping[str, str] | None = None) -> Gateway | None:
    """The operator's providers and routes: the `--provider` flags' one provider, or the
    configuration file's named ones with its routes (one or the other); None when there is none
    (the host alone: no key is read)."""
    env = os.environ if env is None else env
    config = getattr(args, "config_file", None)
    named = None if config is None else config.sections.get("providers")
    routes = None if config is None else config.sections.get("routes")
    one = provider_settings(parser, args, env)
    given = {name: _given(args, env, name) for name in ENV}
    if one is not None and config is not None and (named or routes):
        section = "providers" if named else "routes"
        raise config.error(
            (section,),
            f"names providers or routes, and so do the --provider settings ({one.provider}): give one or the "
            "other (a [providers.NAME] table says all --provider does)",
        )
    if one is None and not named and routes is None:
        flags = [f"--{name.replace('_', '-')}" for name, value in given.items() if value is not None]
        if flags:
            parser.error(f"{', '.join(flags)} need(s) a provider (--provider, or --config's [providers])")
        return None
    cooldown = Cooldown(
        failures=int(
            _positive(parser, "cooldown_after", given["cooldown_after"], COOLDOWN_FAILURES, whole=True)
        ),
        seconds=_positive(parser, "cooldown_for", given["cooldown_for"], COOLDOWN_SECONDS),
    )
    deadline = _positive(parser, "route_deadline", given["route_deadline"], CALL_DEADLINE)
    if one is not None:
        return Gateway.of_provider(one)._replace(cooldown=cooldown, call_deadline=deadline)
    return Gateway(tuple(named or ()), tuple(routes or ()), cooldown, deadline)


def _given(args: Any, env: Mapping[str, str], name: str) -> str | None:
    value = getattr(args, name, None)
    return str(value) if value is not None else env.get(ENV[name]) or None


def _positive(
    parser: UsageErrors, name: str, raw: str | None, default: float, *, whole: bool = False
) -> float:
    if raw is None:
        return default
    try:
        number = int(raw) if whole else float(raw)
    except ValueError:
        parser.error(
            f"--{name.replace('_', '-')}: expected {'a whole number' if whole else 'a number'}, got {raw!r}"
        )
    if not 0 < number < float("inf"):
        parser.error(f"--{name.replace('_', '-')}: must be positive, got {raw}")
    return float(number)
