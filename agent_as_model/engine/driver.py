"""The async driver: walks one call record through the shared machine, awaiting the era's I/O.

This is also the edge where errors become what the client sees: a `CallError` becomes an
`isError` tool result, a `MissingCapability` the JSON-RPC error -32021, and anything else a
generic message (the traceback goes to the log, never to the client).
"""

from __future__ import annotations

import logging

from mcp import MCPError
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY, CallToolResult, InputRequiredResult, TextContent

from agent_as_model.adapters.backends.base import Backend, Suspension
from agent_as_model.engine.machine import MACHINE, SENT, WAY_OUT, fire
from agent_as_model.errors import CallError, MissingCapability
from agent_as_model.states.record import CallRecord

log = logging.getLogger("agent_as_model")


async def drive(record: CallRecord, era: Backend) -> CallToolResult | InputRequiredResult:
    # The record is fired through the shared machine's events and never attached to it, so no
    # call leaves anything on the machine (and no reference cycle for the collector to find).
    try:
        fire(record, "validate")
        fire(record, "build")
        fire(record, "dispatch")
        while True:
            assert record.payload is not None
            outcome = await era.exchange(record.payload, record.round_no)
            if isinstance(outcome, Suspension):
                fire(record, "suspend")
                return outcome.result
            fire(record, "answer", outcome)
            try:
                fire(record, "interpret")
            except CallError as err:
                # The table decides whether this answer may be repaired (repair_attempts left).
                if fire(record, "repair", err):
                    continue
                raise
            fire(record, "commit")
            assert record.result is not None
            return record.result
    except CallError as err:
        leave(record, err, err.kind)
        log.info("%s", err.message(record.tool))
        return error_result(err.message(record.tool))
    except MissingCapability as err:
        leave(record, err, "capability")
        raise MCPError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            err.message(record.tool),
            {"requiredCapabilities": err.required},
        ) from None
    except Exception as err:
        # Our bug, not the caller's: the traceback goes to the log only.
        sent = SENT.get(record.state, "The host was asked.")
        log.exception("internal error in %s (state %s)", record.tool, record.state)
        leave(record, err, "fault")
        return error_result(f"{record.tool}: internal error in the server (see its log). {sent}")


def leave(record: CallRecord, err: Exception, why: str) -> None:
    """Take the table's way out for this kind of failure, or fault when it is not legal here."""
    legal = MACHINE.get_triggers(record.state)
    trigger = WAY_OUT.get(why, "fault")
    if trigger not in legal:
        trigger = "fault"
    if trigger in legal:  # a terminal state has no way out left to take
        fire(record, trigger)


def error_result(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)
