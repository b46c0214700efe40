"""The async driver: walks one call record along the machine's table, awaiting the backend's I/O.

It holds no path of its own: from each state it does what the table says (fire the state's
trigger, or in the I/O state hand the payload to the backend) until the call ends.

This is also the edge where errors become what the client sees: a `CallError` becomes an
`isError` tool result, a `MissingCapability` the JSON-RPC error -32021, and anything else a
generic message (the traceback goes to the log, never to the client). Each message ends with
what the table says reached the host, by the state the call stopped in.
"""

from __future__ import annotations

import logging

import anyio
import anyio.to_thread
from mcp import MCPError
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY, CallToolResult, InputRequiredResult, TextContent

from agent_as_model.adapters.backends.base import Suspension
from agent_as_model.adapters.dialects.media import Wanted
from agent_as_model.adapters.fetching import fetch_all
from agent_as_model.engine.machine import ASKED, STATE, fire, told, way_out
from agent_as_model.engine.offload import off_loop, release_later
from agent_as_model.errors import CallError, MissingCapability
from agent_as_model.states.commit import add_result_meta, commit_choices
from agent_as_model.states.record import CallRecord

log = logging.getLogger("agent_as_model")


async def drive(record: CallRecord) -> CallToolResult | InputRequiredResult:
    # The record is fired through the lookup derived from the table: nothing of a call is left
    # on a shared object (and no reference cycle for the collector).
    try:
        while not (state := STATE[record.state]).terminal:
            if state.fan_out is not None and state.fan_out(record):
                return await drive_choices(record)
            if state.exchange:
                # The route chosen before this state serves; the payload is None only on a proven
                # route (see Route.proven).
                route = record.route
                assert route is not None  # build, before every exchange, routed the call
                backend = route.backend
                outcome = await backend.exchange(record.built_payload, record.round_no, record.findings)
                if isinstance(outcome, Suspension):
                    fire(record, "suspend", outcome)
                    return outcome.result
                fire(record, "answer", outcome)
                continue
            assert state.then is not None  # the table gives every other live state its trigger
            try:
                if state.off_loop is not None and state.off_loop(record):
                    # A check against a caller's schema, or a large conversation: bounded, but
                    # long enough to stall every other request if it ran on the event loop.
                    try:
                        await off_loop(fire, record, state.then)
                    finally:
                        release_later()  # large work leaves a large heap behind, ended or not
                else:
                    fire(record, state.then)
            except Wanted as want:
                # Remote media to fetch (`serve --fetch-media`): the one place this server does
                # I/O on a caller's behalf, before anything is built; then the arguments are read
                # again with the bytes, as inline media (adapters/fetching.py).
                assert record.fetched is not None  # wanted only while fetching is on
                await fetch_all(want.wanted, record.limits, record.fetched)
                continue
            except CallError as err:
                # The table decides whether this may be tried again (a repair while
                # repair_attempts last): a guarded transition, not a decision of the driver's.
                if state.on_error is not None and fire(record, state.on_error, err):
                    continue
                raise
        # The only way to end without an error or a suspension is `commit`, which made the result.
        return record.result
    except CallError as err:
        message = err.message(record.tool, leave(record, err.kind, _who(record)))
        log.info("%s", message)
        return _told_by(record, error_result(message))
    except MissingCapability as err:
        raise MCPError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            err.message(record.tool, leave(record, "capability")),
            {"requiredCapabilities": err.required},
        ) from None
    except MCPError:  # -32021 from one of several completions (`drive_choices`): made already
        raise
    except anyio.get_cancelled_exc_class():
        # The client withdrew the request (notifications/cancelled), or its HTTP stream went
        # (http_guards.py): no answer goes anywhere, and the operator's log says so.
        log.info("%s: cancelled by the client in state %s", record.tool, record.state)
        release_later()  # what the call held is freed as it unwinds; the heap is trimmed after
        raise
    except Exception:
        # Our bug, not the caller's: the traceback goes to the log only.
        log.exception("internal error in %s (state %s)", record.tool, record.state)
        sent = leave(record, "fault", _who(record))
        return _told_by(
            record, error_result(f"{record.tool}: internal error in the server (see its log). {sent}")
        )


def _told_by(record: CallRecord, result: CallToolResult) -> CallToolResult:
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


async def drive_choices(record: CallRecord) -> CallToolResult | InputRequiredResult:
    """Several independent completions of one call (`n`): one record per completion, each from
    where this one stands (validated: the arguments are read once), walked side by side, so on
    the legacy era their sampling requests are in flight at once and on 2026-07-28 their input
    requests go in one round. Each is checked and repaired on its own; the first that fails
    fails the call, naming it."""
    n = record.request.n
    one = record.request._replace(n=1)
    choices = []
    for router in record.router.choices(n):
        choice = CallRecord(record.dialect, record.arguments, router, record.limits)
        choice.request = one
        choice.state = record.state  # each starts where the call stands: validated
        choices.append(choice)
    outcomes: list[CallToolResult | InputRequiredResult | MCPError | None] = [None] * n

    async def walk(index: int) -> None:
        try:
            outcomes[index] = await drive(choices[index])
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
            lead = f"{record.tool}: "
            return error_result(f"{lead}completion {index} of {n}: {text.removeprefix(lead)}")
    suspended = [o if isinstance(o, InputRequiredResult) else None for o in outcomes]
    if any(o is not None for o in suspended):
        return record.router.suspend(suspended)
    try:
        commit_choices(record, choices)
    except Exception:
        log.exception("internal error in %s joining %d completions", record.tool, n)
        # Every completion was answered: the table's text for a call past the host.
        return error_result(f"{record.tool}: internal error in the server (see its log). {ASKED}")
    return record.result


def _who(record: CallRecord) -> str | None:
    backend = record.backend
    return None if backend is None else backend.who


def leave(record: CallRecord, failure: str, who: str | None = None) -> str:
    """Take the table's way out for this kind of failure; returns what the caller is told about
    the host (or `who` the backend asked instead), decided by the table from where the call
    stopped and where it ended."""
    stopped = record.state
    trigger = way_out(stopped, failure)
    if trigger is not None:  # a call that has already ended has no way out left to take
        fire(record, trigger)
    return told(stopped, record.state, who)


def error_result(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)
