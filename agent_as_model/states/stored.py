"""Stored responses (spec section 13, `serve --store`): the work of the states that read and keep
them, for a product whose API keeps responses (its `Dialect.storage` says what is read and kept).

The store's I/O is the driver's, in states of its own, as the host's is (`engine/stored_responses.py`):
before anything is sent, a `previous_response_id` naming a stored response is read, and its items
lead the input the call's arguments are read with (once); an id the store does not hold, a store
that cannot be reached or a value that fails authentication ends the call there, with nothing
sent. After the host answered, the response is stamped with its id and kept under it; a store
that fails then loses nothing: the answer is returned with a warning that it was not stored. On
2026-07-28 only the round that answers keeps anything, under the call's identity, so a repeated
retry finds its response kept already and returns that one: stored once. A continued call's
2026-07-28 state carries the stored response its chain was resolved against (`carry`): the
retry that brings the host's answer continues that, and does not read the store again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcp_types import CallToolResult

from agent_as_model.adapters.dialects.storage import Storage
from agent_as_model.errors import CallError
from agent_as_model.states.call import CallRecord
from agent_as_model.states.commit import add_warning, commit_result, tool_result
from agent_as_model.states.validate import put_fetched, validate_call


def _storage(record: CallRecord) -> Storage:
    storage = record.dialect.storage
    assert storage is not None  # a store is given to a record only for a product that keeps responses
    return storage


def keeps_responses(record: CallRecord) -> bool:
    """The server keeps responses, and this product's API keeps them."""
    return record.store is not None


def plan_store(record: CallRecord) -> None:
    """received -> store_planned: which stored response the call continues, and whether its own
    is kept (a caller error for a `store` or `previous_response_id` that is not one)."""
    record.storing = _storage(record).plan(record.arguments)


def reads_stored(record: CallRecord) -> bool:
    """The call continues a stored response that its state does not carry: the store is read."""
    storing = record.storing
    return storing is not None and storing.previous is not None and record.carried is None


def carries_stored(record: CallRecord) -> bool:
    """The call continues a stored response that its 2026-07-28 state carries."""
    storing = record.storing
    return storing is not None and storing.previous is not None and record.carried is not None


def continue_stored(record: CallRecord, stored: Mapping[str, Any]) -> None:
    """awaiting_store_read -> continued: the stored response's items lead the input the call's
    arguments are read with."""
    record.stored = stored
    record.given = record.arguments
    record.arguments = _storage(record).resolve(record.arguments, stored)


def continue_carried(record: CallRecord) -> None:
    """store_planned -> continued: the same, with what the call's state carried."""
    assert record.carried is not None  # the row's guard said so
    continue_stored(record, record.carried)


def validate_continued(record: CallRecord) -> None:
    """continued -> validated: the arguments read as any call's, an error naming the path as the
    caller wrote it (the stored items lead the input it reads)."""
    _as_written(record, validate_call)


def take_fetched(record: CallRecord, _: object = None) -> None:
    """awaiting_media -> validated: the fetched media put in the request (`validate.put_fetched`);
    for a continued call, an error naming the path as the caller wrote it."""
    if record.stored is None:
        put_fetched(record)
    else:
        _as_written(record, put_fetched)


def _as_written(record: CallRecord, work: Callable[[CallRecord], None]) -> None:
    try:
        work(record)
    except CallError as err:
        assert record.stored is not None  # continued
        path = _storage(record).caller_path(err.path, record.given, record.stored)
        if path == err.path:
            raise
        raise CallError(path, err.reason, err.kind, err.repair) from None


def stores_response(record: CallRecord) -> bool:
    """The call's response is kept (the call did not say `store: false`)."""
    storing = record.storing
    return storing is not None and storing.store


def stamps_response(record: CallRecord) -> bool:
    """The call's response is the product's stored kind, kept or not: it carries its id and the
    response it continues."""
    return record.storing is not None


def commit_stamped(record: CallRecord) -> None:
    """interpreted -> committed, or awaiting_store_write when it is kept: the result, the Response
    object with its id (the call's identity on 2026-07-28, so a repeated retry is the same
    response) and the response it continues; and what is kept under that id."""
    commit_result(record)
    storing, storage, result = record.storing, _storage(record), record.result
    assert storing is not None and result.structured_content is not None  # the product renders an object
    route = record.route  # an answered call was routed
    response = storage.stamp(result.structured_content, route and route.identity, storing.previous)
    record.result = _with(result, response)
    if storing.store:
        record.to_keep = storage.keep(record.arguments, response)


def take_kept(record: CallRecord, first: Mapping[str, Any] | None) -> None:
    """awaiting_store_write -> committed: kept; or kept already, by an earlier request of this
    call (a repeated 2026-07-28 retry), whose response is the one returned."""
    if first is not None:
        record.result = _with(record.result, _storage(record).retrieved(first))


def warn_unkept(record: CallRecord, why: str) -> None:
    """awaiting_store_write -> committed: the store failed; the answer is returned, saying so."""
    assert record.to_keep is not None  # kept only what was to be kept
    ident = record.to_keep["response"]["id"]
    add_warning(
        record.result,
        f"this response was not stored ({why}): it cannot be retrieved, and a call continuing it "
        f"with previous_response_id {ident} will be refused",
    )


def _with(result: CallToolResult, response: dict[str, Any]) -> CallToolResult:
    """The result with the Response object as stored, its metadata unchanged."""
    made = tool_result(response)
    made.meta = result.meta
    return made
