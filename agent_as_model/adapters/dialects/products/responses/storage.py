"""The Responses API's stored responses, as this product means them (spec section 13): which
calls are stored, how a `previous_response_id` is resolved into the conversation, what is kept,
and the `responses_retrieve` / `responses_delete` tools. Pure: the call machine reads and writes
the store in states of its own (`states/stored.py`), and only when the operator configured one.

- A call is stored unless `store: false`. A cursor chain (`previous_response_id` `""` or `cur_`)
  is the stateless alternative and is neither read nor stored (docs/decisions.md).
- `previous_response_id: "resp_…"` names a stored response: its input items and its output items
  lead this call's input, as the API does. `instructions` are the call's own: never carried over.
- What is kept under the response's id: the resolved input items (the stored chain plus this
  call's input) and the Response object, so the chain is one read however long it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model import cursors
from agent_as_model.adapters.dialects.storage import Keep, Storage
from agent_as_model.adapters.tools.models import StaticTool
from agent_as_model.arguments import reject_unknown, require_string
from agent_as_model.errors import caller_error

TOOL = "responses_create"
STORE = "store"
RESPONSE_ID = "response_id"


def plan(args: Mapping[str, Any]) -> Keep | None:
    """What to read and keep for this call; None for a cursor chain (the store stays out of it)."""
    flag = args.get(STORE)
    if flag is not None and not isinstance(flag, bool):
        raise caller_error(STORE, f"expected a boolean, got {type(flag).__name__}")
    previous = cursors.previous_of(args, TOOL)
    if previous is not None and previous.form != "anchor":
        return None
    return Keep(None if previous is None else previous.value, flag is not False)


def resolve(args: Mapping[str, Any], stored: Mapping[str, Any]) -> dict[str, Any]:
    """This call's arguments with the stored chain leading its input, and no previous_response_id
    (the chain is in the input now: nothing is left for a cursor to anchor). An input that is no
    string nor a non-empty list stays as the caller wrote it, for the reading to refuse."""
    resolved = {key: value for key, value in args.items() if key != cursors.PARAMETER}
    given = args.get("input")
    if isinstance(given, str) or (isinstance(given, list) and given):
        resolved["input"] = [*stored["input"], *_as_input(stored["response"]["output"]), *_items(given)]
    return resolved


def caller_path(path: str, args: Mapping[str, Any], stored: Mapping[str, Any]) -> str:
    """A path into the resolved input (`resolve`) as the caller wrote it: the stored items lead
    it, so the caller's item i is the resolved item after them, and a string input the one item
    there. A path anywhere else is the caller's as it is."""
    lead = len(stored["input"]) + len(stored["response"]["output"])
    if not path.startswith("input[") or "]" not in path:
        return path
    index, rest = path[len("input[") :].split("]", 1)
    if not index.isdigit() or int(index) < lead:
        return path
    if isinstance(args.get("input"), str):
        return "input"
    return f"input[{int(index) - lead}]{rest}"


def keep(resolved: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    """The value stored under the response's id."""
    return {"input": _items(resolved["input"]), "response": dict(response)}


def stamp(response: Mapping[str, Any], ident: str | None, previous: str | None) -> dict[str, Any]:
    """The Response object as stored: its `previous_response_id`, and when the call has an identity
    of its own (a 2026-07-28 call's, sealed in its requestState, so a repeated retry is the same
    response), the ids made of it (one hex serves the response and its message item)."""
    stamped = dict(response)
    stamped["previous_response_id"] = previous
    if ident is not None:
        stamped["id"] = f"{cursors.ANCHOR_PREFIX}{ident}"
        stamped["output"] = [
            {**item, "id": f"msg_{ident}"} if item.get("type") == "message" else item
            for item in response["output"]
        ]
    return stamped


def retrieved(stored: Mapping[str, Any]) -> dict[str, Any]:
    return dict(stored["response"])


def deleted(ident: str) -> dict[str, Any]:
    """What the API answers to a delete."""
    return {"id": ident, "object": "response", "deleted": True}


def response_id(args: Mapping[str, Any]) -> str:
    """The `response_id` of a retrieve or delete call: a minted Responses id."""
    reject_unknown(args, (RESPONSE_ID,))
    value = require_string(args.get(RESPONSE_ID), RESPONSE_ID)
    previous = cursors.read_previous(value, TOOL)
    if previous is None or previous.form != "anchor":
        raise caller_error(
            RESPONSE_ID, f"expected a Responses id, '{cursors.ANCHOR_PREFIX}' and letters and digits"
        )
    return value


def _items(given: object) -> list[Any]:
    """The input as items: a string input is one user message."""
    if isinstance(given, str):
        return [{"role": "user", "content": given}]
    assert isinstance(given, list)  # the input was read before (a string or a list of items)
    return list(given)


def _as_input(output: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A response's output items as they are passed back: messages and function calls, as the
    Responses API's own `output` items read as input."""
    return [dict(item) for item in output]


_ID_SCHEMA = {
    "type": "object",
    "properties": {RESPONSE_ID: {"type": "string", "description": "The id of a stored response (resp_…)."}},
    "required": [RESPONSE_ID],
    "additionalProperties": False,
}
RETRIEVE = StaticTool(
    NAME="responses_retrieve",
    DESCRIPTION=(
        "Retrieve a response that responses_create stored (this server was started with --store): "
        "the Response object, as the Responses API returns it. Needs no sampling."
    ),
    INPUT_SCHEMA=_ID_SCHEMA,
)
DELETE = StaticTool(
    NAME="responses_delete",
    DESCRIPTION=(
        "Delete a response that responses_create stored: it can no longer be retrieved nor continued "
        "with previous_response_id. Needs no sampling."
    ),
    INPUT_SCHEMA=_ID_SCHEMA,
)


def history_not_passed(previous: str) -> str:
    return (
        f"previous_response_id: {previous} is a Responses id, but this server stores no responses "
        "for this call and the input passed back no earlier assistant turn: the host saw only this "
        "call's input, not the conversation before it. Pass the earlier turns in the input, or "
        f"call {TOOL} on a server started with --store (README: Stored responses)"
    )


STORAGE = Storage(
    plan=plan,
    resolve=resolve,
    caller_path=caller_path,
    keep=keep,
    stamp=stamp,
    retrieved=retrieved,
    deleted=deleted,
    response_id=response_id,
    tools=(RETRIEVE, DELETE),
    asks_to_keep=lambda args: args.get(STORE) is True,
    history_not_passed=history_not_passed,
)
