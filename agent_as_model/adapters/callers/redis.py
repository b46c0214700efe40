"""Counters in Redis (`[limits] counters = "redis://HOST:PORT/DB"`, or `serve --store redis://...`
when no counters are named): shared by every worker and machine, through the official client's
asyncio API (the `[redis]` extra, imported only when configured).

An admission is one Lua script, which Redis runs alone: its checks and its counts are one step
for every process, so no two calls take the last place and no increment is lost. A caller's keys
share one hash tag (`{name}`), so a cluster keeps them on one node, where a script can reach them
all. Times are the counting process's clock (machines sharing Redis keep theirs in sync, as NTP
does): the script takes `now` as an argument. An in-flight entry carries an expiry, renewed while
its call runs (`leases`), so the place of a call whose worker died comes back. Every failure of
the client is `CountersUnavailable`, naming the store without its password.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping

from agent_as_model.adapters.callers.base import (
    DAY,
    MINUTE,
    CallerLimits,
    CountersUnavailable,
    Limit,
    Over,
    Use,
    day_of,
    until_midnight,
)
from agent_as_model.adapters.store.redis import open_client, without_password

PREFIX = "agent-as-model:caller:"
_MINUTE_MS = int(MINUTE * 1000)
# The order of the checks is `base.reached`'s: calls in flight, requests in the last minute,
# tokens today. -1 is a limit not set; ARGV[7] is the minute (ms). Refused, it returns the limit,
# the use, the bound and the oldest request's time (ms) or the estimated tokens; admitted, nothing.
_ADMIT = """
local now = tonumber(ARGV[1])
local minute = tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - minute)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local requests = redis.call('ZCARD', KEYS[1])
local in_flight = redis.call('ZCARD', KEYS[2])
local concurrent = tonumber(ARGV[4])
if concurrent >= 0 and in_flight >= concurrent then
  return {'concurrent-calls', in_flight, concurrent, 0}
end
local per_minute = tonumber(ARGV[3])
if per_minute >= 0 and requests >= per_minute then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {'requests-per-minute', requests, per_minute, oldest[2]}
end
local per_day = tonumber(ARGV[5])
if per_day >= 0 then
  local used = tonumber(redis.call('HGET', KEYS[3], 'tokens') or '0')
  if used >= per_day then
    return {'tokens-per-day', used, per_day, redis.call('HGET', KEYS[3], 'estimated') or '0'}
  end
end
local lease = tonumber(ARGV[6])
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('PEXPIRE', KEYS[1], minute)
redis.call('ZADD', KEYS[2], now + lease, ARGV[2])
redis.call('PEXPIRE', KEYS[2], lease)
return {}
"""
# A call's end: its place given back (ARGV[1], empty when it held none), its tokens added to the
# day's (ARGV[2], ARGV[3] of them estimated), the day kept ARGV[4] seconds. A script, not MULTI:
# one command to encode and one reply to read, where a transaction reads one per command.
_SETTLE = """
if ARGV[1] ~= '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
end
local tokens = tonumber(ARGV[2])
if tokens > 0 then
  redis.call('HINCRBY', KEYS[2], 'tokens', tokens)
  redis.call('HINCRBY', KEYS[2], 'estimated', tonumber(ARGV[3]))
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[4]))
end
return 1
"""


def keys(caller: str, now: float) -> tuple[str, str, str]:
    """A caller's requests, in-flight entries and today's tokens, under one hash tag."""
    tag = f"{PREFIX}{{{caller}}}"
    return f"{tag}:requests", f"{tag}:in-flight", f"{tag}:tokens:{day_of(now)}"


class RedisCounters:
    leases = True

    def __init__(self, url: str) -> None:
        self.where = without_password(url)
        self._client, self._errors = open_client(
            url,
            f"counters {self.where}",
            "need the redis client: install agent-as-model with its "
            "[redis] extra (docs/deploy.md: Callers and limits)",
        )
        self._admit = self._client.register_script(_ADMIT)
        self._settle = self._client.register_script(_SETTLE)

    async def admit(self, caller: str, limits: CallerLimits, ticket: str, lease: float) -> Over | None:
        now = time.time()
        args: list[str | int] = [
            _ms(now),
            ticket,
            _bound(limits.requests_per_minute),
            _bound(limits.concurrent_calls),
            _bound(limits.tokens_per_day),
            _ms(lease),
            _MINUTE_MS,
        ]
        try:
            found = await self._admit(keys=list(keys(caller, now)), args=args)
        except self._errors as err:
            raise self._unavailable(err) from None
        if not found:
            return None
        limit: Limit = bytes(found[0]).decode()  # type: ignore[assignment]  # one of the script's names
        used, bound, last = int(found[1]), int(found[2]), found[3]
        if limit == "concurrent-calls":
            return Over(limit, used, bound, None)
        if limit == "requests-per-minute":
            oldest = float(last) / 1000
            return Over(limit, used, bound, max(0.0, oldest + MINUTE - now))
        return Over(limit, used, bound, until_midnight(now), int(last))

    async def settle(self, caller: str, ticket: str | None, tokens: int, estimated: int) -> None:
        _, in_flight, today = keys(caller, time.time())
        # Kept past the day's end, for `agent-as-model callers`; then Redis forgets it.
        args: list[str | int] = ["" if ticket is None else ticket, tokens, estimated, int(2 * DAY)]
        try:
            await self._settle(keys=[in_flight, today], args=args)
        except self._errors as err:
            raise self._unavailable(err) from None

    async def renew(self, tickets: Mapping[str, str], lease: float) -> None:
        now = time.time()
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for ticket, caller in tickets.items():
                    in_flight = keys(caller, now)[1]
                    pipe.zadd(in_flight, {ticket: _ms(now + lease)}, xx=True)
                    pipe.pexpire(in_flight, _ms(lease))
                await pipe.execute()
        except self._errors as err:
            raise self._unavailable(err) from None

    async def use(self, callers: Iterable[str]) -> dict[str, Use]:
        now = time.time()
        names = list(callers)
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for name in names:
                    requests, in_flight, today = keys(name, now)
                    pipe.zcount(requests, f"({_ms(now - MINUTE)}", "+inf")
                    pipe.zcount(in_flight, f"({_ms(now)}", "+inf")
                    pipe.hmget(today, "tokens", "estimated")
                found = await pipe.execute()
        except self._errors as err:
            raise self._unavailable(err) from None
        use = {}
        for index, name in enumerate(names):
            requests, in_flight, (tokens, estimated) = found[3 * index : 3 * index + 3]
            use[name] = Use(int(requests), int(in_flight), int(tokens or 0), int(estimated or 0))
        return use

    async def aclose(self) -> None:
        await self._client.aclose()

    def _unavailable(self, err: Exception) -> CountersUnavailable:
        return CountersUnavailable(f"{self.where}: {err or type(err).__name__}")


def _bound(bound: int | None) -> int:
    return -1 if bound is None else bound


def _ms(seconds: float) -> int:
    return int(seconds * 1000)
