"""Stored responses (spec section 13, `serve --store`): the store's I/O, which the driver awaits in
the machine's states for it (`awaiting_store_read`, `awaiting_store_write`) as it awaits the
backend in `awaiting_host`; the requestState of a continued call; and the `responses_retrieve` /
`responses_delete` tools, which the store answers with no model asked.

What is read and kept, and what each outcome does to the call, is the states' (`states/stored.py`)
and the product's (`Dialect.storage`). A continued call's 2026-07-28 state carries the stored value
its chain was resolved against (`wrap`), so the retry that brings the host's answer does not read
the store again, and a store that fails between the rounds loses nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from mcp_types import CallToolResult

from agent_as_model import cursors, telemetry
from agent_as_model.adapters.dialects.storage import Storage
from agent_as_model.adapters.store import SealedStore, StoreUnavailable, Unreadable
from agent_as_model.adapters.tools.models import StaticTool
from agent_as_model.errors import CallError, caller_error
from agent_as_model.states.call import CallRecord
from agent_as_model.states.commit import error_result, tool_result

log = logging.getLogger("agent_as_model")

# A continued call's requestState, made by `wrap`. The SDK's RequestStateBoundary seals every
# state (encrypted, authenticated, bound to the tool and its arguments), so a state that comes
# back is one this server made for this very call: the stored value it carries can be trusted as
# the store's own. The marker leads the JSON, so telling ours from a backend's state is a prefix.
ENVELOPE = "agent-as-model/kept"
_COMPACT = (",", ":")
_ENVELOPE_PREFIX = json.dumps({"kind": ENVELOPE}, separators=_COMPACT)[:-1] + ","
STATE_PATH = "requestState"
# What a refused envelope's error says reached the host: it asked in an earlier round.
ANSWER_UNUSED = "The host's answer (inputResponses) was not used: call the tool again without requestState."


def wrap(inner: str | None, kept: Mapping[str, Any]) -> str:
    """A continued call's state: the backend's own (`inner`) and the stored value it resolved
    against. It grows with the stored chain."""
    return json.dumps({"kind": ENVELOPE, "v": 1, "inner": inner, "kept": kept}, separators=_COMPACT)


def unwrap(state: str | None) -> tuple[str | None, dict[str, Any]] | None:
    """The backend's state and the carried stored value, or None for a state that is not ours
    (a new chain's, a cursor chain's). A malformed envelope is a `CallError` naming requestState."""
    if state is None or not state.startswith(_ENVELOPE_PREFIX):
        return None
    try:
        envelope = json.loads(state)
    except ValueError:
        envelope = None
    if (
        not isinstance(envelope, dict)
        or envelope.get("v") != 1
        or not isinstance(envelope.get("inner"), str | None)
        or not isinstance(envelope.get("kept"), dict)
    ):
        raise caller_error(STATE_PATH, "this server's state for a continued stored call is malformed")
    return envelope["inner"], envelope["kept"]


async def read_stored(record: CallRecord) -> tuple[str, Any]:
    """awaiting_store_read: the stored response the call continues (a caller error, nothing sent,
    for one the store does not hold, cannot be reached for, or cannot authenticate)."""
    storing, store = record.storing, record.store
    assert storing is not None and storing.previous is not None and store is not None  # the guard's
    return "read", await _stored(store, storing.previous, cursors.PARAMETER, "read")


async def write_stored(record: CallRecord) -> tuple[str, Any]:
    """awaiting_store_write: the response kept under its id; or kept already by an earlier request
    of this call (`kept`, with that first one); or not kept, and why (`unkept`)."""
    value, store = record.to_keep, record.store
    assert value is not None and store is not None  # the guard's
    ident = value["response"]["id"]
    try:
        if await _counted("write", store.add(ident, value)):
            return "kept", None
        # Kept already: a repeated retry of the round that answered. The first answer is the one.
        first = await store.get(ident)
        if first is not None:
            return "kept", first
        raise StoreUnavailable(f"{store.where}: {ident} was kept and is gone")
    except (StoreUnavailable, Unreadable) as err:
        log.warning("%s: %s was not stored: %s", record.tool, ident, err)
        return "unkept", f"the store {err}"
    except Exception:  # our bug: the answer is still the caller's, the traceback the log's
        log.exception("%s: %s was not stored", record.tool, ident)
        return "unkept", "an internal error, see the server's log"


async def answer_stored_tool(
    tool: StaticTool, storage: Storage, arguments: Mapping[str, Any], keeper: SealedStore
) -> CallToolResult:
    """`responses_retrieve` and `responses_delete`: the store answers, no model is asked."""
    try:
        ident = storage.response_id(arguments)
        if tool is storage.tools[0]:
            return tool_result(storage.retrieved(await _stored(keeper, ident, "response_id", "retrieve")))
        if not await _reached(_counted("delete", keeper.delete(ident))):
            raise _unknown(keeper, ident, "response_id")
        return tool_result(storage.deleted(ident))
    except CallError as err:
        return error_result(err.message(tool.NAME))


async def _stored(keeper: SealedStore, ident: str, path: str, operation: str) -> dict[str, Any]:
    try:
        stored = await _reached(_counted(operation, keeper.get(ident)))
    except Unreadable as err:
        raise caller_error(
            path,
            f"the stored response {ident} cannot be read: {err} (it was sealed with another "
            "AGENT_AS_MODEL_STATE_KEY, or changed in the store), so it is not used",
        ) from None
    if stored is None:
        raise _unknown(keeper, ident, path)
    value: dict[str, Any] = stored
    return value


async def _counted(operation: str, work: Any) -> Any:
    """One operation on the store, counted in telemetry (`agent_as_model.store.operations`), with
    the failure's kind when it failed."""
    try:
        done = await work
    except (StoreUnavailable, Unreadable) as err:
        telemetry.store_operation(operation, type(err).__name__)
        raise
    telemetry.store_operation(operation)
    return done


async def _reached(operation: Any) -> Any:
    try:
        return await operation
    except StoreUnavailable as err:
        raise caller_error("", f"the response store cannot be reached ({err})") from None


def _unknown(keeper: SealedStore, ident: str, path: str) -> CallError:
    return caller_error(
        path,
        f"no stored response {ident}: it was never stored by this server (another server's id, or "
        f"created with store: false), it expired (responses live {keeper.ttl:g} s, --store-ttl), "
        "or it was deleted",
    )
