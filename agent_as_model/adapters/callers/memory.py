"""Counters in this process's memory: what limits count with when no store is configured. One
process only (`serve --http --workers 1`): each worker would count alone. Everything runs on the
event loop between two awaits, so an admission is atomic without a lock; nothing outlives the
process, so an in-flight entry needs no lease."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Mapping

from agent_as_model.adapters.callers.base import MINUTE, CallerLimits, Over, Use, day_of, reached


class MemoryCounters:
    where = "memory"
    leases = False

    def __init__(self) -> None:
        # Each caller's admissions in the last minute, oldest first; its calls in flight; its
        # tokens (and the estimated part) by UTC day (only today's is kept).
        self._requests: dict[str, deque[float]] = {}
        self._in_flight: dict[str, set[str]] = {}
        self._tokens: dict[str, tuple[str, int, int]] = {}

    async def admit(self, caller: str, limits: CallerLimits, ticket: str, lease: float) -> Over | None:
        now = time.time()
        requests = self._recent(caller, now)
        flying = self._in_flight.setdefault(caller, set())
        oldest = requests[0] if requests else now
        over = reached(limits, len(requests), oldest, len(flying), *self._today(caller, now), now)
        if over is not None:
            return over
        requests.append(now)
        flying.add(ticket)
        return None

    async def settle(self, caller: str, ticket: str | None, tokens: int, estimated: int) -> None:
        if ticket is not None:
            self._in_flight.get(caller, set()).discard(ticket)
        if tokens:
            now = time.time()
            used, guessed = self._today(caller, now)
            self._tokens[caller] = (day_of(now), used + tokens, guessed + estimated)

    async def renew(self, tickets: Mapping[str, str], lease: float) -> None:
        return None  # nothing here outlives the process that would renew it

    async def use(self, callers: Iterable[str]) -> dict[str, Use]:
        now = time.time()
        return {
            name: Use(
                len(self._recent(name, now)), len(self._in_flight.get(name, ())), *self._today(name, now)
            )
            for name in callers
        }

    async def aclose(self) -> None:
        return None

    def _recent(self, caller: str, now: float) -> deque[float]:
        requests = self._requests.setdefault(caller, deque())
        while requests and requests[0] <= now - MINUTE:
            requests.popleft()
        return requests

    def _today(self, caller: str, now: float) -> tuple[int, int]:
        day, used, estimated = self._tokens.get(caller, ("", 0, 0))
        return (used, estimated) if day == day_of(now) else (0, 0)
