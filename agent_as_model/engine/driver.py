"""The async driver: walks one call record along the machine's table, awaiting its I/O.

It holds no path of its own: from each state it does what the table says (fire the next trigger
the state names, or in an I/O state await what the state names and fire the trigger of its
outcome) until the call ends. What it awaits: a caller's admission (`engine/admission.py`), the
backend's exchange, the completions of a call that asked for several, the store of stored
responses (`engine/stored_responses.py`), and the call's remote media (`serve --fetch-media`,
adapters/fetching.py).

This is also the edge where errors become what the client sees: a `CallError` becomes an
`isError` tool result, a `MissingCapability` the JSON-RPC error -32021, and anything else a
generic message (the traceback goes to the log, never to the client). Each message ends with
what the table says reached the host, by the state the call stopped in.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.to_thread
from mcp import MCPError
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY, CallToolResult, InputRequiredResult

from agent_as_model import telemetry
from agent_as_model.adapters.backends.base import Suspension
from agent_as_model.adapters.fetching import fetch_all
from agent_as_model.engine import admission, observed, stored_responses
from agent_as_model.engine.machine import OFF_LOOP, STATE, STEPS, fire, way_out, what_reached_host
from agent_as_model.engine.offload import off_loop, release_later
from agent_as_model.errors import CallError, MissingCapability
from agent_as_model.states.call import CallRecord
from agent_as_model.states.commit import add_result_meta, error_result

log = logging.getLogger("agent_as_model")


async def drive(record: CallRecord, completion: bool = False) -> CallToolResult | InputRequiredResult:
    # The record is fired through the lookup derived from the table: nothing of a call is left
    # on a shared object (and no reference cycle for the collector). `completion`: the record is
    # one completion of several, whose failure the call's own record counts once.
    try:
        while not (state := STATE[record.state]).terminal:
            awaits = state.awaits
            if awaits is not None:
                trigger, outcome = await AWAITING[awaits](record)
                away = OFF_LOOP[trigger, state.name]
                if away is not None and away(record):  # large fetched media to decode and hash
                    try:
                        await off_loop(fire, record, trigger, outcome)
                    finally:
                        release_later()
                else:
                    fire(record, trigger, outcome)
                continue
            for step in STEPS[state.name]:  # the first the table allows: `then` is last, unguarded
                guard = step[1]
                if guard is None or guard(record):
                    break
            trigger, _, away = step
            try:
                if away is not None and away(record):
                    # A check against a caller's schema, or a large conversation: bounded, but
                    # long enough to stall every other request if it ran on the event loop.
                    try:
                        await off_loop(fire, record, trigger)
                    finally:
                        release_later()  # large work leaves a large heap behind, ended or not
                else:
                    fire(record, trigger)
            except CallError as err:
                # The table decides whether this may be tried again (a repair while
                # repair_attempts last): a guarded transition, not a decision of the driver's.
                if state.on_error is not None and fire(record, state.on_error, err):
                    continue
                raise
        # The only ways to end without an error: `commit`, which made the result, and `suspend`,
        # the 2026-07-28 round that asks.
        asked = record.asked
        return record.result if asked is None else asked
    except CallError as err:
        message = err.message(record.tool, take_way_out(record, err.kind, _who(record)))
        log.info("%s", message)
        # A failed completion tells the tool span where it failed; the call counts the refusal.
        observed.refused(
            record, err.kind, None if isinstance(err, ChoiceFailed) else err.path, not completion
        )
        result = _naming_backend(record, error_result(message))
        if err.meta:  # what the error says beside it (the backends a route passed over)
            add_result_meta(result, err.meta)
        return result
    except MissingCapability as err:
        observed.refused(record, "capability", None, not completion)
        raise MCPError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            err.message(record.tool, take_way_out(record, "capability")),
            {"requiredCapabilities": err.required},
        ) from None
    except MCPError:  # -32021 from one of several completions: told by that completion already
        observed.refused(record, "capability", None)
        take_way_out(record, "capability")
        raise
    except anyio.get_cancelled_exc_class():
        # The client withdrew the request (notifications/cancelled), or its HTTP stream went
        # (transports/http/guards.py): no answer goes anywhere, and the operator's log says so.
        log.info("%s: cancelled by the client in state %s", record.tool, record.state)
        release_later()  # what the call held is freed as it unwinds; the heap is trimmed after
        raise
    except Exception:
        # Our bug, not the caller's: the traceback goes to the log only.
        log.exception("internal error in %s (state %s)", record.tool, record.state)
        observed.refused(record, "fault", None, not completion)
        sent = take_way_out(record, "fault", _who(record))
        return _naming_backend(
            record, error_result(f"{record.tool}: internal error in the server (see its log). {sent}")
        )


async def refuse(record: CallRecord, err: CallError, told: str) -> CallToolResult:
    """A call refused before its walk (a continued call's state this server cannot open): the
    table's way out taken from where it is, and telemetry told, as for a refusal the walk meets;
    `told` says what became of the host's answer the request brought."""
    take_way_out(record, err.kind)
    message = err.message(record.tool, told)
    log.info("%s", message)
    observed.refused(record, err.kind, err.path)
    return error_result(message)


def _naming_backend(record: CallRecord, result: CallToolResult) -> CallToolResult:
    """An error result says which backend the call had (spec section 9), once one was chosen:
    a provider's failure reads as the provider's."""
    backend = record.backend
    if backend is not None:
        try:
            source = backend.source(record.request.model)
        except CallError:  # a model the provider may not use was refused before it was chosen
            return result
        add_result_meta(result, {"backend": source})
    return result


async def exchange(record: CallRecord) -> tuple[str, Any]:
    """awaiting_host: the backend the route chose gets this round's payload; it answers, or on
    2026-07-28 ends this request with the round that asks."""
    route = record.route
    assert route is not None  # build, before every exchange, routed the call
    watch = telemetry.WATCH
    if watch is None:
        outcome = await route.backend.exchange(record.payload, record.round_no, record.findings)
    else:  # the round's span and measurements (docs/telemetry.md)
        outcome = await observed.watched_exchange(watch, record, route.backend)
    return ("suspend", outcome) if isinstance(outcome, Suspension) else ("answer", outcome)


class ChoiceFailed(CallError):
    """A completion of several that failed: the call fails, naming it, by the way out the
    completion's own call took (`kind`: what failed in it)."""

    def __init__(self, index: int, n: int, said: str, kind: str) -> None:
        super().__init__("", said, kind)  # type: ignore[arg-type]  # a fault's kind is none of a CallError's
        self.index, self.n = index, n

    def message(self, tool: str, tail: str = "") -> str:
        # The completion's own message says what reached the host, for it: said as it was.
        lead = f"{tool}: "
        return f"{lead}completion {self.index} of {self.n}: {self.reason.removeprefix(lead)}"


# What failed in a completion, by where its call ended (the failure its way out was taken for).
_FAILED_IN = {"rejected": "caller", "violated": "host"}


async def walk_choices(record: CallRecord) -> tuple[str, Any]:
    """awaiting_choices: every completion walked to its end, side by side. The first that failed
    fails the call; then, on 2026-07-28, the ones still to be answered go in one round; else all
    are answered."""
    choices = record.choices
    n = len(choices)
    outcomes: list[CallToolResult | InputRequiredResult | MCPError | None] = [None] * n

    async def walk(index: int) -> None:
        try:
            outcomes[index] = await drive(choices[index], completion=True)
        except MCPError as err:  # -32021: the same for every completion; raised once, below
            outcomes[index] = err

    async with anyio.create_task_group() as group:
        for index in range(n):
            group.start_soon(walk, index)
    for index, outcome in enumerate(outcomes):
        if isinstance(outcome, MCPError):
            raise outcome
        if isinstance(outcome, CallToolResult) and outcome.is_error:
            text = outcome.content[0].text  # type: ignore[union-attr]  # error results are one text
            raise ChoiceFailed(index, n, text, _FAILED_IN.get(choices[index].state, "fault"))
    suspended = [o if isinstance(o, InputRequiredResult) else None for o in outcomes]
    if any(o is not None for o in suspended):
        return "suspend", record.router.suspend(suspended)
    return "answer", None


async def fetch_media(record: CallRecord) -> tuple[str, Any]:
    """awaiting_media: the remote media the reading met, fetched (adapters/fetching.py)."""
    unfetched = record.unfetched
    assert unfetched is not None and record.fetched is not None  # the row's guard said so
    await fetch_all(unfetched.wanted, record.limits, record.fetched)
    return "fetched", None


# What the driver awaits in each I/O state of the table (`machine.AWAITED` names the outcomes).
AWAITING: dict[str, Callable[[CallRecord], Awaitable[tuple[str, Any]]]] = {
    "admission": admission.admit,
    "host": exchange,
    "choices": walk_choices,
    "store_read": stored_responses.read_stored,
    "store_write": stored_responses.write_stored,
    "media": fetch_media,
}


def _who(record: CallRecord) -> str | None:
    backend = record.backend
    return None if backend is None else backend.who


def take_way_out(record: CallRecord, failure: str, who: str | None = None) -> str:
    """Take the table's way out for this kind of failure; returns what the caller is told about
    the host (or `who` the backend asked instead), decided by the table from where the call
    stopped and where it ended."""
    stopped = record.state
    trigger = way_out(stopped, failure)
    if trigger is not None:  # a call that has already ended has no way out left to take
        fire(record, trigger)
    return what_reached_host(stopped, record.state, who)
