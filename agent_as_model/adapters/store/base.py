"""What every store shares: the one protocol (bytes under a key, for a bounded time) and its errors.

A store holds opaque bytes: sealing (sealing.py) happens before a value reaches it, so neither the
SQLite file nor a Redis dump holds a readable conversation. Every operation is async; a store that
does blocking I/O (SQLite) does it in a worker thread, never on the event loop.
"""

from __future__ import annotations

from typing import Protocol

# How long a stored response lives unless the operator says otherwise (`--store-ttl`): the
# Responses API keeps responses 30 days.
DEFAULT_TTL = 30 * 24 * 3600.0


class StoreUnavailable(Exception):
    """The store could not be reached, or failed the operation; the text says which store and why."""


class Store(Protocol):
    # Where the values go, for messages and logs: the URL without its password.
    where: str

    async def get(self, key: str) -> bytes | None:
        """The value under `key`, or None when there is none (never stored, deleted or expired)."""
        ...

    async def add(self, key: str, value: bytes, ttl: float) -> bool:
        """Store `value` for `ttl` seconds unless `key` already holds one; True when it was added."""
        ...

    async def delete(self, key: str) -> bool:
        """Remove the value under `key`; True when there was one."""
        ...

    async def aclose(self) -> None: ...

    # The providers' cooldowns, shared by every process of the store (adapters/backends/cooldown.py
    # says what they mean). Not sealed: a provider's name and a count hold no conversation.

    async def read_cooldowns(self) -> dict[str, tuple[int, float]]: ...

    async def cooldown_failed(
        self, name: str, opens_at: int, seconds: float, at_least: float
    ) -> tuple[int, float]: ...

    async def cooldown_succeeded(self, name: str) -> None: ...
