"""Callers' limits, the I/O (spec section 17): the admission the driver awaits in
`awaiting_admission`, and the settling of what the call spent when it ends (`calls.py`, whatever
way it ended). The work of the states around them is `states/admission.py`'s.

Both are shielded from cancellation: a client that goes while its call is being admitted or
settled cannot leave a place counted that nothing gives back (short of a process that dies, whose
places come back when their lease ends: `adapters/callers/gate.py`).
"""

from __future__ import annotations

from typing import Any

import anyio

from agent_as_model.adapters.callers import ANONYMOUS
from agent_as_model.states.admission import spent
from agent_as_model.states.call import CallRecord


async def admit(record: CallRecord) -> tuple[str, Any]:
    """awaiting_admission: the caller's limits checked and its use counted (`enter`), or the call
    refused (a caller error: the way out)."""
    gate = record.gate
    assert gate is not None  # admitted only on a server whose callers have limits
    with anyio.CancelScope(shield=True):
        ticket = await gate.admit(record.visit)
    return "enter", ticket


async def settle(record: CallRecord) -> None:
    """The call ended: its place given back, its tokens counted (nothing to do for a call that
    was refused and spent nothing)."""
    gate = record.gate
    if gate is None:
        return
    ticket = record.ticket
    used = spent(record)
    if ticket is None and not used.tokens:
        return
    visit = record.visit
    caller = ticket.caller if ticket is not None else ANONYMOUS if visit is None else visit.caller
    with anyio.CancelScope(shield=True):
        await gate.settle(caller, ticket, used)
