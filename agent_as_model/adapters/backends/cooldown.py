"""A failing provider's cooldown (a circuit breaker): after `failures` answers in a row that passed
the call on (no answer in time, 408, 409, 429, a server error), the provider is passed over for
`seconds`, or as long as its Retry-After asked, when longer; a Retry-After of a second or more
opens it at once (a shorter one is for the provider's next attempt, which the call's own attempts
make). When it ends, the next call asks the provider again, and one more failure opens it again.

The state lives where the server keeps state: in this process, or in the store that several
processes share (`serve --store`: SQLite, Redis), so one cooldown holds for every worker. A
call's route is chosen synchronously (`router.py`), from `Cooldowns`' view of that state, which
the call refreshes from a shared store before it starts (`refresh`, at most every
`REFRESH_SECONDS`) and which every failure and success this process sees updates at once. A
store that fails is logged and the process goes on with what it saw last.
"""

from __future__ import annotations

import logging
import time
from typing import Protocol

from agent_as_model.adapters.routes import Cooldown
from agent_as_model.adapters.store.base import StoreUnavailable

log = logging.getLogger("agent_as_model")

# The shortest Retry-After that keeps a provider out of the routes until then by itself.
RETRY_AFTER_OPENS = 1.0
# How often a call reads a shared store's cooldowns at most (seconds): a cooldown another process
# opened is seen that late at worst, and a busy server reads the store that often, not per call.
REFRESH_SECONDS = 0.5


class CooldownState(Protocol):
    """Where the cooldowns are kept (this process, or a store several processes share). Times are
    epoch seconds, so processes agree on them."""

    async def read_cooldowns(self) -> dict[str, tuple[int, float]]:
        """Every provider's failures in a row and the end of its cooldown."""
        ...

    async def cooldown_failed(
        self, name: str, opens_at: int, seconds: float, at_least: float
    ) -> tuple[int, float]:
        """One more failure of `name`: its cooldown ends `seconds` from now once it has failed
        `opens_at` times in a row, and no sooner than `at_least` (epoch seconds; 0: nothing asked).
        Returns its failures in a row and the end of its cooldown."""
        ...

    async def cooldown_succeeded(self, name: str) -> None:
        """`name` answered: its failures in a row start again from none."""
        ...


class LocalState:
    """The cooldowns of this process alone (no store configured)."""

    def __init__(self) -> None:
        self._state: dict[str, tuple[int, float]] = {}

    async def read_cooldowns(self) -> dict[str, tuple[int, float]]:
        return dict(self._state)

    async def cooldown_failed(
        self, name: str, opens_at: int, seconds: float, at_least: float
    ) -> tuple[int, float]:
        failures, until = self._state.get(name, (0, 0.0))
        failures += 1
        self._state[name] = state = opened(failures, until, opens_at, seconds, at_least, time.time())
        return state

    async def cooldown_succeeded(self, name: str) -> None:
        failures, until = self._state.get(name, (0, 0.0))
        self._state[name] = (0, until)


def opened(
    failures: int, until: float, opens_at: int, seconds: float, at_least: float, now: float
) -> tuple[int, float]:
    """The state after a failure: the cooldown's end moved later when it opens (every store
    computes it so)."""
    if failures >= opens_at:
        until = max(until, now + seconds)
    return failures, max(until, at_least)


class Cooldowns:
    """The providers' cooldowns as this process sees them: read synchronously by the router,
    refreshed from a shared store before a call, updated by every outcome this process sees."""

    def __init__(self, settings: Cooldown, state: CooldownState | None = None) -> None:
        self.settings = settings
        self._state: CooldownState = state if state is not None else LocalState()
        self._shared = state is not None
        self._view: dict[str, tuple[int, float]] = {}
        self._read_at = float("-inf")

    def until(self, name: str, now: float | None = None) -> float | None:
        """When `name`'s cooldown ends, while it lasts; None when it may be asked."""
        ends = self._view.get(name, (0, 0.0))[1]
        return ends if ends > (time.time() if now is None else now) else None

    async def refresh(self) -> None:
        """Read a shared store's cooldowns into the view (at most every REFRESH_SECONDS)."""
        if not self._shared or time.monotonic() - self._read_at < REFRESH_SECONDS:
            return
        self._read_at = time.monotonic()
        try:
            self._view = dict(await self._state.read_cooldowns())
        except StoreUnavailable as err:
            log.warning(
                "the providers' cooldowns could not be read from the store (%s): using what was seen", err
            )

    async def failed(self, name: str, retry_after: float | None = None) -> None:
        settings = self.settings
        now = time.time()
        at_least = now + retry_after if retry_after and retry_after >= RETRY_AFTER_OPENS else 0.0
        try:
            state = await self._state.cooldown_failed(name, settings.failures, settings.seconds, at_least)
        except StoreUnavailable as err:
            log.warning("a provider's failure could not be counted in the store (%s): counted here", err)
            failures, until = self._view.get(name, (0, 0.0))
            state = opened(failures + 1, until, settings.failures, settings.seconds, at_least, now)
        self._view[name] = state
        if state[1] > now:
            log.warning(
                "provider %s is cooling down for %.1f s after %d failure(s)", name, state[1] - now, state[0]
            )

    async def succeeded(self, name: str) -> None:
        if not self._view.get(name, (0, 0.0))[0] and self._shared and self._read_at > float("-inf"):
            return  # nothing counted against it, as far as this process saw lately
        try:
            await self._state.cooldown_succeeded(name)
        except StoreUnavailable as err:
            log.warning("a provider's success could not be written to the store (%s)", err)
        self._view[name] = (0, self._view.get(name, (0, 0.0))[1])
