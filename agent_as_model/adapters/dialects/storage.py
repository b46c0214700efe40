"""What a product that keeps responses declares (`Dialect.storage`, `serve --store`): the pure steps
of the call machine's states that read or write the store (`states/stored.py`), and the tools that
read and delete what was kept. Each product's own meaning of them (which calls are kept, how a
stored response continues a conversation, what is kept) lives in its product; the driver does the
store's I/O in the states for it (`engine/stored_responses.py`), and only when the operator
configured a store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent_as_model.adapters.tools.models import StaticTool
from agent_as_model.records import Record

Stored = Mapping[str, Any]


class Keep(Record):
    """What the store does for one call: `previous`, the stored response whose items lead the
    input (None: none); `store`, whether this response is kept."""

    previous: str | None
    store: bool


class Storage(Record):
    """A product's stored responses, each field one pure step (in the order the engine runs them),
    and its retrieve and delete tools (in that order).

    `plan(arguments)`: what to read and keep for this call, None when the store stays out of it;
    `resolve(arguments, stored)`: the arguments with the stored response leading the conversation;
    `caller_path(path, arguments, stored)`: a path into the resolved arguments as the caller wrote
    it (an error names it); `keep(resolved, response)`: the value stored under the response's id;
    `stamp(response, identity, previous)`: the response object as stored (its ids made of the
    call's identity, when it has one); `retrieved(stored)` and `deleted(id)`: what the retrieve and
    delete tools answer; `response_id(arguments)`: the id those tools were given;
    `asks_to_keep(arguments)`: whether the call asked in so many words for its response to be kept
    (a server without a store says it kept nothing); `history_not_passed(previous)`: what a call
    is told that continued `previous`, an id of this product's responses, when nothing was stored
    for it and its input passed back no earlier turn (the host saw only this call's input)."""

    plan: Callable[[Stored], Keep | None]
    resolve: Callable[[Stored, Stored], dict[str, Any]]
    caller_path: Callable[[str, Stored, Stored], str]
    keep: Callable[[Stored, Stored], dict[str, Any]]
    stamp: Callable[[Stored, str | None, str | None], dict[str, Any]]
    retrieved: Callable[[Stored], dict[str, Any]]
    deleted: Callable[[str], dict[str, Any]]
    response_id: Callable[[Stored], str]
    tools: tuple[StaticTool, StaticTool]
    asks_to_keep: Callable[[Stored], bool]
    history_not_passed: Callable[[str], str]
