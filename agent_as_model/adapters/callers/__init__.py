"""Callers and their limits (spec section 17, `serve --http` with `[callers]` and `[limits]`):
several named bearer tokens, and per caller requests per minute, calls in flight and tokens per
day, counted in this process's memory, an SQLite file, or Redis shared by every worker.

`base.py` holds the values (`Caller`, `CallerLimits`, `CallersSettings`) and the counters'
protocol; `tokens.py` the tokens' digests the door matches; `gate.py` the `Gate` a call passes
before anything is spent and settles when it ends; `memory.py`, `sqlite.py` and `redis.py` the
counters.
"""

from __future__ import annotations

from agent_as_model.adapters.callers.base import (
    ANONYMOUS,
    DEFAULT_LEASE,
    LIMITS,
    NAME_PATTERN,
    NO_LIMITS,
    TOKEN_CALLER,
    Caller,
    CallerLimits,
    CallersSettings,
    Counters,
    CountersUnavailable,
    Use,
)
from agent_as_model.adapters.callers.gate import VISIT_KEY, Gate, Refused, Spent, Ticket, Visit
from agent_as_model.adapters.callers.tokens import TokenTable, digest_of, token_table

__all__ = [
    "ANONYMOUS",
    "DEFAULT_LEASE",
    "LIMITS",
    "NAME_PATTERN",
    "NO_LIMITS",
    "TOKEN_CALLER",
    "VISIT_KEY",
    "Caller",
    "CallerLimits",
    "CallersSettings",
    "Counters",
    "CountersUnavailable",
    "Gate",
    "Refused",
    "Spent",
    "Ticket",
    "TokenTable",
    "Use",
    "Visit",
    "counters_shown",
    "digest_of",
    "open_counters",
    "open_gate",
    "token_table",
]

MEMORY = "memory"


def open_counters(url: str | None) -> Counters:
    """The counters `url` names (sqlite:PATH, redis://...; None or "memory": this process's
    memory); a `StartupError` when they cannot be opened."""
    if url is None or url == MEMORY:
        from agent_as_model.adapters.callers.memory import MemoryCounters

        return MemoryCounters()
    # Named as a store is (`--store`'s forms), and read by the store's own parse.
    from agent_as_model.adapters.store import sqlite_path, store_kind

    if store_kind(url) == "sqlite":
        from agent_as_model.adapters.callers.sqlite import SqliteCounters

        return SqliteCounters(sqlite_path(url))
    from agent_as_model.adapters.callers.redis import RedisCounters

    return RedisCounters(url)


def counters_shown(url: str | None) -> str:
    """Where use is counted, as a log or a banner may say it: never a password."""
    if url is None or url == MEMORY:
        return "this process's memory"
    from agent_as_model.adapters.store.redis import without_password

    return without_password(url)


def open_gate(settings: CallersSettings) -> Gate | None:
    """The gate of a server whose callers have limits; None when none has any (nothing counted)."""
    if not settings.limited():
        return None
    return Gate(settings, open_counters(settings.counters))
