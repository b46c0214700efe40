"""The shared store: Redis (`--store redis://HOST:PORT/DB`, or `rediss://` for TLS), for several
processes or machines behind a load balancer, through the official `redis` client's asyncio API
(the `[redis]` extra, imported only when configured).

Each value is one key with its own expiry (`SET ... NX PX`), so Redis itself forgets an expired
response and a second write of the same id never replaces the first. Every failure of the client
(refused, timed out, an error reply) is a `StoreUnavailable` naming the store, never a traceback.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agent_as_model.adapters.store.base import StoreUnavailable
from agent_as_model.errors import StartupError

PREFIX = "agent-as-model:response:"
# The providers' cooldowns, one hash for all: `NAME:failures` and `NAME:until` (epoch seconds).
COOLDOWNS = "agent-as-model:cooldowns"
# Seconds a connection or a reply may take before the store counts as unreachable.
TIMEOUT = 5.0


def open_client(url: str, label: str, missing: str) -> tuple[Any, tuple[type[Exception], ...]]:
    """The official client's asyncio connection to `url` (imported only here, when configured),
    and the errors that mean Redis is unreachable or refused; `label` names it in a start-up
    error, `missing` says what to install when the client is not there."""
    try:
        import redis.asyncio
        from redis.exceptions import RedisError
    except ImportError:
        raise StartupError(f"{label} {missing}") from None
    try:
        client = redis.asyncio.from_url(url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
    except ValueError as err:
        raise StartupError(f"{label}: {err}") from None
    return client, (RedisError, OSError)


class RedisStore:
    def __init__(self, url: str) -> None:
        self.where = without_password(url)
        self._client, self._errors = open_client(
            url,
            f"--store {self.where}",
            "needs the redis client: install agent-as-model with its "
            "[redis] extra (README: Stored responses)",
        )

    async def get(self, key: str) -> bytes | None:
        try:
            value = await self._client.get(PREFIX + key)
        except self._errors as err:
            raise self._unavailable(err) from None
        return None if value is None else bytes(value)

    async def add(self, key: str, value: bytes, ttl: float) -> bool:
        try:
            added = await self._client.set(PREFIX + key, value, nx=True, px=max(1, int(ttl * 1000)))
        except self._errors as err:
            raise self._unavailable(err) from None
        return bool(added)

    async def delete(self, key: str) -> bool:
        try:
            removed = await self._client.delete(PREFIX + key)
        except self._errors as err:
            raise self._unavailable(err) from None
        return bool(removed)

    async def aclose(self) -> None:
        await self._client.aclose()

    # The providers' cooldowns (`cooldown.CooldownState`): not sealed, they hold no conversation.

    async def read_cooldowns(self) -> dict[str, tuple[int, float]]:
        try:
            fields = await self._client.hgetall(COOLDOWNS)
        except self._errors as err:
            raise self._unavailable(err) from None
        state: dict[str, list[float]] = {}
        for field, value in fields.items():
            name, _, part = bytes(field).decode().rpartition(":")
            entry = state.setdefault(name, [0, 0.0])
            entry[0 if part == "failures" else 1] = float(value)
        return {name: (int(failures), until) for name, (failures, until) in state.items()}

    async def cooldown_failed(
        self, name: str, opens_at: int, seconds: float, at_least: float
    ) -> tuple[int, float]:
        try:
            failures = int(await self._client.hincrby(COOLDOWNS, f"{name}:failures", 1))
            until = float(await self._client.hget(COOLDOWNS, f"{name}:until") or 0)
            if failures >= opens_at:
                until = max(until, time.time() + seconds)
            until = max(until, at_least)
            await self._client.hset(COOLDOWNS, f"{name}:until", repr(until))
        except self._errors as err:
            raise self._unavailable(err) from None
        return failures, until

    async def cooldown_succeeded(self, name: str) -> None:
        try:
            await self._client.hset(COOLDOWNS, f"{name}:failures", 0)
        except self._errors as err:
            raise self._unavailable(err) from None

    def _unavailable(self, err: Exception) -> StoreUnavailable:
        return StoreUnavailable(f"{self.where}: {err or type(err).__name__}")


def without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
