"""Stored responses around a call (spec section 13, `serve --store`): read before, keep after.

The store's I/O is the engine's, like the host's: the dialect says what to read and keep
(`Dialect.storage`, pure), the call itself runs through the machine unchanged. Before anything is
sent: a `previous_response_id` naming a stored response is read and its items lead the input; an
id the store does not hold, a store that cannot be reached or a value that fails authentication
ends the call there, with nothing sent. After the host answered: the response is kept under its
id; a store that fails then loses nothing, the answer is returned with a warning that it was not
stored. On 2026-07-28 only the round that answers keeps anything, under the call's identity, so a
repeated retry finds its response kept already and returns that one: stored once.
A continued call's 2026-07-28 state carries the stored value its chain was resolved against
(`wrap`): the retry that brings the host's answer resolves against that, never the store again,
so a store that fails between the rounds loses nothing either.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import anyio.to_thread
from mcp_types import CallToolResult, InputRequiredResult

from agent_as_model.adapters.backends.base import Router
from agent_as_model.adapters.dialects import Dialect
from agent_as_model.adapters.dialects.parse import parse_request
from agent_as_model.adapters.dialects.storage import Storage
from agent_as_model.adapters.store import SealedStore, StoreUnavailable, Unreadable
from agent_as_model.adapters.tools.models import StaticTool
from agent_as_model.engine.driver import drive, error_result
from agent_as_model.errors import NOTHING_SENT, CallError, caller_error
from agent_as_model.limits import DEFAULT_LIMITS, Limits
from agent_as_model.states.commit import add_warning, tool_result
from agent_as_model.states.record import CallRecord

log = logging.getLogger("agent_as_model")

PARAMETER = "previous_response_id"
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


async def drive_kept(
    dialect: Dialect,
    storage: Storage,
    arguments: Mapping[str, Any],
    router: Router,
    keeper: SealedStore,
    limits: Limits = DEFAULT_LIMITS,
    carried: Mapping[str, Any] | None = None,
) -> CallToolResult | InputRequiredResult:
    """`carried`: the stored value a retry's state brought back (`unwrap`), used instead of
    reading the store again."""
    tool = dialect.NAME
    stored: Mapping[str, Any] | None = None
    try:
        keep = storage.plan(arguments)
        if keep is None:  # a cursor chain: the stateless alternative, the store stays out of it
            return await drive(CallRecord(dialect, arguments, router, limits))
        resolved = arguments
        if keep.previous is not None:
            # The caller's own arguments first, so an error names the caller's paths (the
            # resolved input counts the stored items first). Off the loop: it may check schemas.
            await anyio.to_thread.run_sync(parse_request, dialect, arguments)
            stored = carried if carried is not None else await _stored(keeper, keep.previous, PARAMETER)
            resolved = storage.resolve(arguments, stored)
    except CallError as err:
        return error_result(err.message(tool, NOTHING_SENT))
    record = CallRecord(dialect, resolved, router, limits)
    result = await drive(record)
    if isinstance(result, InputRequiredResult) and stored is not None:
        # Every round that asks, repair rounds too: the next retry must not need the store.
        return result.model_copy(update={"request_state": wrap(result.request_state, stored)})
    if not isinstance(result, CallToolResult) or result.is_error or result.structured_content is None:
        return result  # a round that asks, or an error: nothing to keep
    route = record.route  # an answered call was routed
    response = storage.stamp(result.structured_content, route and route.identity, keep.previous)
    if not keep.store:
        return _with(result, response)
    try:
        if await keeper.add(response["id"], storage.keep(resolved, response)):
            return _with(result, response)
        # Kept already: a repeated retry of the round that answered. The first answer is the one.
        first = await keeper.get(response["id"])
        if first is not None:
            return _with(result, storage.retrieved(first))
        raise StoreUnavailable(f"{keeper.where}: {response['id']} was kept and is gone")
    except (StoreUnavailable, Unreadable) as err:
        log.warning("%s: %s was not stored: %s", tool, response["id"], err)
        return _unkept(result, response, f"the store {err}")
    except Exception:  # our bug: the answer is still the caller's, the traceback the log's
        log.exception("%s: %s was not stored", tool, response["id"])
        return _unkept(result, response, "an internal error, see the server's log")


def _unkept(result: CallToolResult, response: dict[str, Any], why: str) -> CallToolResult:
    kept = _with(result, response)
    add_warning(
        kept,
        f"this response was not stored ({why}): it cannot be retrieved, and a call continuing it "
        f"with previous_response_id {response['id']} will be refused",
    )
    return kept


async def answer_stored_tool(
    tool: StaticTool, storage: Storage, arguments: Mapping[str, Any], keeper: SealedStore
) -> CallToolResult:
    """`responses_retrieve` and `responses_delete`: the store answers, no model is asked."""
    try:
        ident = storage.response_id(arguments)
        if tool is storage.tools[0]:
            return tool_result(storage.retrieved(await _stored(keeper, ident, "response_id")))
        if not await _reached(keeper.delete(ident)):
            raise _unknown(keeper, ident, "response_id")
        return tool_result(storage.deleted(ident))
    except CallError as err:
        return error_result(err.message(tool.NAME))


async def _stored(keeper: SealedStore, ident: str, path: str) -> dict[str, Any]:
    try:
        stored = await _reached(keeper.get(ident))
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


def _with(result: CallToolResult, response: dict[str, Any]) -> CallToolResult:
    """The result with the Response object as kept, its metadata unchanged."""
    made = tool_result(response)
    made.meta = result.meta
    return made
