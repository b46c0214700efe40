"""The gate a call passes before anything is spent: its caller's limits checked and its use
counted (`admit`), and given back when it ends (`settle`).

The door (the HTTP transport) knows who calls: it leaves a `Visit` on the request, naming the
caller, which the call reads. The call machine's `admit` row awaits `Gate.admit` before the
arguments are read; a caller at a limit is refused there, with a tool error naming the limit, the
caller and when it resets (`Refused`), and the visit keeps the seconds to wait, which the door
sends as `Retry-After` where the response has not begun. The call's end, whatever it was, settles
(`Gate.settle`): its place in flight is given back and its tokens added to the day's.

A call that never settles (its process killed, its machine gone) holds its place only as long as
its lease: the gate renews the leases of its running calls every third of one, so a live call
keeps its place however long it runs and a dead process's places come back within one lease.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections.abc import Iterable

from agent_as_model import telemetry
from agent_as_model.adapters.callers.base import (
    ANONYMOUS,
    CallersSettings,
    Counters,
    CountersUnavailable,
    Over,
    Use,
)
from agent_as_model.errors import CallError
from agent_as_model.records import Record

log = logging.getLogger("agent_as_model.callers")

# The key of the request's ASGI scope where the door leaves the `Visit`.
VISIT_KEY = "agent_as_model.visit"


class Visit:
    """One HTTP request's caller, as the door found it, and what a refusal tells the door: the
    seconds after which the caller may try again (`Retry-After`)."""

    __slots__ = ("caller", "retry_after")

    def __init__(self, caller: str) -> None:
        self.caller = caller
        self.retry_after: int | None = None


class Ticket(Record):
    """An admitted call's place: its id in the counters and its caller."""

    id: str
    caller: str


class Spent(Record):
    """The tokens a call used (input and output), and how many of them were estimated."""

    tokens: int = 0
    estimated: int = 0


class Refused(CallError):
    """A call over one of its caller's limits: a caller error (nothing was sent), saying which
    limit, whose, and when another call is allowed."""

    def __init__(self, caller: str, over: Over, now: float) -> None:
        super().__init__("", _told(caller, over, now))
        self.caller = caller
        self.over = over
        # Retry-After's whole seconds: when it resets, or for calls in flight, a second.
        self.retry_after = 1 if over.resets_in is None else max(1, math.ceil(over.resets_in))


def _told(caller: str, over: Over, now: float) -> str:
    who = f"caller '{caller}'"
    if over.limit == "concurrent-calls":
        return (
            f"{who} has {over.used} calls in flight, its limit (concurrent-calls = {over.bound}); "
            "another is allowed when one of them ends"
        )
    resets_in = over.resets_in or 0.0
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + resets_in))
    if over.limit == "requests-per-minute":
        return (
            f"{who} made {over.used} requests in the last minute, its limit (requests-per-minute = "
            f"{over.bound}); another is allowed in {duration(resets_in)} (at {at})"
        )
    estimated = f", {over.estimated} of them estimated" if over.estimated else ""
    return (
        f"{who} has used {over.used} tokens today (UTC{estimated}), its limit (tokens-per-day = "
        f"{over.bound}); it resets at midnight UTC, in {duration(resets_in)} (at {at})"
    )


def duration(seconds: float) -> str:
    whole = max(1, math.ceil(seconds))
    if whole < 120:
        return f"{whole} s"
    minutes = math.ceil(whole / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"


def unavailable(caller: str, err: CountersUnavailable) -> CallError:
    """The counters could not be reached: the call is refused (limits that cannot be checked are
    not skipped), saying so."""
    return CallError("", f"the limits of caller '{caller}' cannot be checked: their counters failed ({err})")


class Gate:
    """The callers' limits and where their use is counted, for one server process."""

    def __init__(self, settings: CallersSettings, counters: Counters) -> None:
        self.settings = settings
        self.counters = counters
        self.lease = settings.lease
        # The tickets of this process's running calls (ticket id -> caller), renewed together.
        self._live: dict[str, str] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._renewing: asyncio.Task[None] | None = None

    async def admit(self, visit: Visit | None) -> Ticket:
        """The call's place, counted; `Refused` when its caller is at a limit (the visit keeps
        when to try again), a `CallError` when the counters cannot be reached."""
        caller = ANONYMOUS if visit is None else visit.caller
        ticket = Ticket(secrets.token_hex(8), caller)
        try:
            over = await self.counters.admit(caller, self.settings.limits_of(caller), ticket.id, self.lease)
        except CountersUnavailable as err:
            raise unavailable(caller, err) from None
        if over is not None:
            refused = Refused(caller, over, time.time())
            if visit is not None:
                visit.retry_after = refused.retry_after
            telemetry.caller_counted(caller, over.limit)
            raise refused
        telemetry.caller_counted(caller)
        if self.counters.leases:
            self._live[ticket.id] = caller
            self._keep_renewing()
        return ticket

    async def settle(self, caller: str, ticket: Ticket | None, spent: Spent) -> None:
        """A call ended: its place given back (when it held one), its tokens counted. Counters that
        fail now lose nothing of the place (its lease ends it) but the tokens, which the log says."""
        if ticket is not None:
            self._live.pop(ticket.id, None)
        if spent.tokens:
            telemetry.caller_spent(caller, *spent)
        try:
            await self.counters.settle(caller, None if ticket is None else ticket.id, *spent)
        except CountersUnavailable as err:
            log.warning(
                "caller %s: the call's end could not be counted (%s): %d tokens (%d estimated) are not "
                "in today's use; its place comes back when its lease ends",
                caller,
                err,
                spent.tokens,
                spent.estimated,
            )

    async def use(self, extra: Iterable[str] = ()) -> dict[str, Use]:
        """Each configured caller's use now, and `extra`'s (the token's, an open server's)."""
        return await self.counters.use(self.settings.names(extra))

    async def aclose(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._renewing is not None:
            self._renewing.cancel()
        await self.counters.aclose()

    def _keep_renewing(self) -> None:
        """Renew the running calls' leases every third of a lease while there are any. A timer,
        not a task that waits: nothing is left pending when the loop ends."""
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.lease / 3, self._renew_now)

    def _renew_now(self) -> None:
        self._timer = None
        if not self._live:
            return  # armed again by the next admission
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.get_running_loop().create_task(self._renew(dict(self._live)))
        self._keep_renewing()

    async def _renew(self, live: dict[str, str]) -> None:
        try:
            await self.counters.renew(live, self.lease)
        except CountersUnavailable as err:
            log.warning("callers' running calls could not be renewed (%s): tried again soon", err)
