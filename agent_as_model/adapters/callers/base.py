"""What a caller is, what limits it, and what counts its use: plain values and the counters'
protocol, shared by the door that names a caller, the machine's admission and `agent-as-model
callers`."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Mapping
from typing import Any, Literal, Protocol

from agent_as_model.records import Record

# A caller's name: what logs, errors, counters and `agent-as-model callers` know it by.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,64}")
# The caller of `serve --auth-token` (the one token of a server that names no callers), and of a
# server that takes no token at all (loopback, open): limits still apply to them.
TOKEN_CALLER = "default"
ANONYMOUS = "anonymous"
# Seconds an in-flight entry lives unless the process that holds it renews it: a call whose
# process died (killed, its machine gone) gives its place back after this long.
DEFAULT_LEASE = 60.0
# The window of requests-per-minute: a sliding minute, each request counted for 60 s after it.
MINUTE = 60.0

Limit = Literal["requests-per-minute", "concurrent-calls", "tokens-per-day"]
LIMITS: tuple[Limit, ...] = ("requests-per-minute", "concurrent-calls", "tokens-per-day")


class CallerLimits(Record):
    """A caller's bounds; None: that one is not limited."""

    requests_per_minute: int | None = None
    concurrent_calls: int | None = None
    tokens_per_day: int | None = None

    def any(self) -> bool:
        return any(bound is not None for bound in self)

    def bound(self, limit: Limit) -> int | None:
        bound: int | None = getattr(self, limit.replace("-", "_"))
        return bound


NO_LIMITS = CallerLimits()


class Caller(Record):
    """A named caller as the operator configured it: the sha256 digests (hex) of its bearer
    tokens, never a token, and its limits, its own merged over the defaults."""

    name: str
    digests: tuple[str, ...]
    limits: CallerLimits


class CallersSettings(Record):
    """What `[callers]` and `[limits]` configure: the named callers, the limits of a caller that
    names none (the token's, the tokens file's, an open server's), where use is counted (a URL:
    sqlite:PATH or redis://...; None: in this process's memory) and an in-flight entry's lease."""

    callers: tuple[Caller, ...] = ()
    defaults: CallerLimits = NO_LIMITS
    counters: str | None = None
    lease: float = DEFAULT_LEASE

    def limited(self) -> bool:
        """Whether any limit applies: only then is use counted, and a call admitted."""
        return self.defaults.any() or any(caller.limits.any() for caller in self.callers)

    def limits_of(self, name: str) -> CallerLimits:
        for caller in self.callers:
            if caller.name == name:
                return caller.limits
        return self.defaults

    def bounds(self, others: str) -> dict[str, dict[str, int]]:
        """Each named caller's bounds and, under `others`, the defaults every other caller has:
        caller -> limit -> bound, the unlimited left out (what metrics export)."""
        table = [(caller.name, caller.limits) for caller in self.callers] + [(others, self.defaults)]
        return {
            name: {limit: bound for limit in LIMITS if (bound := limits.bound(limit)) is not None}
            for name, limits in table
        }

    def names(self, extra: Iterable[str] = ()) -> list[str]:
        return list(dict.fromkeys([*(caller.name for caller in self.callers), *extra]))

    def to_json(self) -> str:
        return json.dumps(
            {
                "callers": [
                    {"name": c.name, "digests": list(c.digests), "limits": c.limits._asdict()}
                    for c in self.callers
                ],
                "defaults": self.defaults._asdict(),
                "counters": self.counters,
                "lease": self.lease,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> CallersSettings:
        given: dict[str, Any] = json.loads(text)
        callers = tuple(
            Caller(c["name"], tuple(c["digests"]), CallerLimits(**c["limits"])) for c in given["callers"]
        )
        return cls(callers, CallerLimits(**given["defaults"]), given["counters"], given["lease"])


class Over(Record):
    """A limit a caller is at: which, how much it has used, its bound, and in how many seconds
    another call is allowed (None: when one of its calls ends). `estimated`: how many of the used
    tokens were estimated rather than counted."""

    limit: Limit
    used: int
    bound: int
    resets_in: float | None
    estimated: int = 0


class Use(Record):
    """A caller's use as the counters hold it now: requests in the last minute, calls in flight,
    tokens today (UTC) and how many of those were estimated."""

    requests: int = 0
    in_flight: int = 0
    tokens: int = 0
    estimated: int = 0


class CountersUnavailable(Exception):
    """The counters could not be reached or read (the message names where, without a password)."""


class Counters(Protocol):
    """Where callers' use is counted: one process's memory, an SQLite file, or Redis shared by
    every worker and machine. Each admission is atomic: its checks and its counts are one step,
    so concurrent calls cannot both take the last place. Every method may raise
    `CountersUnavailable`."""

    where: str
    # Whether an in-flight entry expires unless renewed (counters another process may outlive).
    leases: bool

    async def admit(self, caller: str, limits: CallerLimits, ticket: str, lease: float) -> Over | None:
        """Count one request and one call in flight under `ticket` unless a limit is reached;
        None when admitted, else the limit reached (nothing counted)."""

    async def settle(self, caller: str, ticket: str | None, tokens: int, estimated: int) -> None:
        """The call of `ticket` ended (None: it held no place in this request): its place is given
        back and its tokens added to today's (`estimated` of them estimated)."""

    async def renew(self, tickets: Mapping[str, str], lease: float) -> None:
        """The calls of `tickets` (ticket -> caller) are still running: each lives `lease` more."""

    async def use(self, callers: Iterable[str]) -> dict[str, Use]:
        """Each caller's use now."""

    async def aclose(self) -> None: ...


DAY = 86400.0


def day_of(now: float) -> str:
    """The UTC day `now` (seconds since the epoch) falls in: what tokens-per-day counts under."""
    return time.strftime("%Y-%m-%d", time.gmtime(now))


def until_midnight(now: float) -> float:
    """Seconds from `now` to the next UTC midnight, when tokens-per-day resets."""
    return DAY - now % DAY


def reached(
    limits: CallerLimits,
    requests: int,
    oldest: float,
    in_flight: int,
    tokens: int,
    estimated: int,
    now: float,
) -> Over | None:
    """The limit a caller's use has reached (None: another call is allowed): calls in flight
    first, then requests in the last minute (`oldest` is the first of them: the minute resets a
    minute after it), then tokens today. A call that crossed the token limit while it ran has
    finished; this refuses the next."""
    bound = limits.concurrent_calls
    if bound is not None and in_flight >= bound:
        return Over("concurrent-calls", in_flight, bound, None)
    bound = limits.requests_per_minute
    if bound is not None and requests >= bound:
        return Over("requests-per-minute", requests, bound, max(0.0, oldest + MINUTE - now))
    bound = limits.tokens_per_day
    if bound is not None and tokens >= bound:
        return Over("tokens-per-day", tokens, bound, until_midnight(now), estimated)
    return None
