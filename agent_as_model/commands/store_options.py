"""The operator's response store (spec section 13): `serve --store URL` and `--store-ttl`, each with
an environment variable, read into one `StoreSettings` (or None: no store, the default; the server
keeps nothing). The URL's form is checked here; the store itself is opened by `serve`."""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from agent_as_model.commands.provider_options import UsageErrors
from agent_as_model.errors import StartupError

if TYPE_CHECKING:
    import argparse

    from agent_as_model.adapters.store import StoreSettings

log = logging.getLogger("agent_as_model.store")

ENV = {"store": "AGENT_AS_MODEL_STORE", "store_ttl": "AGENT_AS_MODEL_STORE_TTL"}
# A duration's unit suffixes, in seconds; a bare number is seconds.
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def add_store_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "stored responses (opt-in; README: Stored responses)",
        "Keep responses_create's responses so previous_response_id continues them as the Responses API "
        "does, and list responses_retrieve and responses_delete. Off by default: the server keeps nothing.",
    )
    group.add_argument(
        "--store",
        metavar="URL",
        help="sqlite:PATH (one file, no server to run) or redis://HOST:PORT/DB / rediss://... (several "
        f"processes or machines; the [redis] extra) ({ENV['store']})",
    )
    group.add_argument(
        "--store-ttl",
        metavar="DURATION",
        help=f"how long a response is kept: seconds, or with s, m, h or d ({ENV['store_ttl']}; default 30d)",
    )


def store_configured(args: Any, env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    return bool(getattr(args, "store", None) or env.get(ENV["store"]))


def store_settings(
    parser: UsageErrors, args: Any, env: Mapping[str, str] | None = None
) -> StoreSettings | None:
    """The settings from the flags, each falling back to its environment variable; None when no
    store is configured. A bad value is a usage error (exit status 2)."""
    from agent_as_model.adapters.store import DEFAULT_TTL, StoreSettings, store_kind

    env = os.environ if env is None else env
    url = getattr(args, "store", None) or env.get(ENV["store"]) or None
    ttl_text = getattr(args, "store_ttl", None) or env.get(ENV["store_ttl"]) or None
    if url is None:
        if ttl_text is not None:
            parser.error(f"--store-ttl needs --store (or {ENV['store']})")
        return None
    try:
        store_kind(url)
    except ValueError as err:
        parser.error(f"--store: {err}")
    ttl = DEFAULT_TTL if ttl_text is None else parse_duration(parser, ttl_text)
    return StoreSettings(url, ttl)


def parse_duration(parser: UsageErrors, text: str) -> float:
    raw = text.strip().lower()
    unit = _UNITS.get(raw[-1:])
    number = raw[:-1] if unit is not None else raw
    try:
        seconds = float(number) * (unit or 1)
    except ValueError:
        parser.error(f"--store-ttl: expected seconds or a number with s, m, h or d (30d), got {text!r}")
    if not math.isfinite(seconds) or seconds <= 0:
        parser.error(f"--store-ttl: must be a positive duration, got {text!r}")
    return seconds


def to_env(settings: StoreSettings) -> dict[str, str]:
    """The settings as the environment variables a worker process reads back."""
    return {ENV["store"]: settings.url, ENV["store_ttl"]: repr(settings.ttl)}


def keep_state_key(store: StoreSettings, env: MutableMapping[str, str] | None = None) -> None:
    """Without a state key, a store must still open after a restart what it sealed before: an
    embedded store keeps its key in a file beside its database (made on first use), which becomes
    the state key of this process (and of its HTTP workers, which inherit it), so the requestState
    is sealed with it too; a Redis store, which processes share without a file, cannot start."""
    from agent_as_model.adapters.store import kept_state_key, store_kind
    from agent_as_model.server import STATE_KEY_ENV

    env = os.environ if env is None else env
    if env.get(STATE_KEY_ENV):
        return
    if store_kind(store.url) == "redis":
        raise StartupError(
            f"--store redis://...: a Redis store needs {STATE_KEY_ENV}, the key its values are sealed "
            "with: every process that shares the store must share it, and a key made by one process "
            "dies with it. Set it (32 bytes or more: python3 -c 'import secrets; "
            f"print(secrets.token_urlsafe(32))') in the environment of every process"
        )
    key = kept_state_key(store)
    if key is not None:
        env[STATE_KEY_ENV] = key
        log.info("%s is not set: the state key is the one kept beside the database", STATE_KEY_ENV)
