"""What is wrong with a JSON-RPC frame the SDK would not take, and who must hear of it: shared by
the stdio reader (`stdio.py`) and the HTTP guard (`http/guards.py`).

The SDK parses a frame with pydantic and, when that fails, drops it (stdio) or answers a bare
"Validation error" (HTTP); a request whose id is not a string or an integer (`1.5`, `true`,
`{}`) it even takes for a notification, so its sender waits for ever. Here such a frame is read
again with Python's own parser, which takes what pydantic refuses (a lone surrogate, an
integer thousands of digits long) so the error can say what it was, where, and under the
request's id when it has one. Only frames that already failed (or look like a request with a
bad id) pay for that second parse.

A *response* (a host's answer to a sampling request) is never answered, as JSON-RPC says; but
when its id can be read, the request it answers is known, so `for_the_server` turns it into the
error reply that ends that request at once, rather than at `--host-timeout`.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pydantic_core

from agent_as_model.arguments import MAX_DIGITS, path_of
from agent_as_model.errors import QUOTE_LIMIT, quoted
from agent_as_model.records import Record

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
PREFIX = {PARSE_ERROR: "Parse error", INVALID_REQUEST: "Invalid Request", INVALID_PARAMS: "Invalid params"}


class Verdict(Record):
    """Why a frame was refused: the JSON-RPC code and reason, the id to answer under (None: null),
    whether the frame was a response or a notification (neither is ever answered on stdio), and
    whether the SDK misreads it (takes it for a notification, or refuses it without naming the
    field)."""

    code: int
    reason: str
    ident: int | str | None = None
    response: bool = False
    misread: bool = False
    notification: bool = False

    def message(self) -> str:
        return f"{PREFIX[self.code]}: {self.reason}"

    def reply(self) -> types.JSONRPCError:
        error = types.ErrorData(code=self.code, message=self.message())
        return types.JSONRPCError(jsonrpc="2.0", id=self.ident, error=error)  # type: ignore[arg-type]


def parse(frame: bytes) -> types.JSONRPCMessage | Verdict:
    """The message in `frame` as the SDK reads it, or why it is not one the server may take."""
    # Parsed first, then validated, as the SDK's HTTP transport does: the same message, and for a
    # frame of megabytes about a fifth of the event loop's time of pydantic's `validate_json`
    # through the message union (which reads the JSON once per member it tries).
    try:
        value = pydantic_core.from_json(frame)
        message = types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValueError as err:  # not JSON (pydantic-core's ValueError), or pydantic's ValidationError
        return diagnose(frame, err)
    # A key may be written with escapes (`"\u0069d"` is "id"): a notification holding any is read
    # again too (notifications are few and short, so this costs little).
    if isinstance(message, types.JSONRPCNotification) and (b'"id"' in frame or b"\\u" in frame):
        verdict = _bad_id(frame)
        if verdict is not None:
            return verdict
    return message


def for_the_server(verdict: Verdict) -> types.JSONRPCError | None:
    """For an unreadable response whose id could be read: the error reply the server's waiting
    request gets in its place (the sampling backend knows it by `data[UNREADABLE]`)."""
    if not verdict.response or verdict.ident is None:
        return None
    # Here, not at the top: a host's answer is only awaited by a call, which has imported the
    # backends; serving starts without them (benchmarks/README.md, "Start-up").
    from agent_as_model.adapters.backends.sampling import UNREADABLE

    reason = f"the host's answer could not be read: {verdict.reason}"
    error = types.ErrorData(code=verdict.code, message=reason, data={UNREADABLE: reason})
    return types.JSONRPCError(jsonrpc="2.0", id=verdict.ident, error=error)


class _Long:
    """An integer literal too long to read, kept as its length so the error can say so."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _int(text: str) -> int | _Long:
    digits = len(text.lstrip("-"))
    return _Long(digits) if digits > MAX_DIGITS else int(text)


def diagnose(frame: bytes, err: Exception | None = None) -> Verdict:
    try:
        value = json.loads(frame, parse_int=_int)
    except RecursionError:
        return Verdict(PARSE_ERROR, "the JSON is nested too deeply to parse")
    except ValueError:  # JSONDecodeError, and UnicodeDecodeError for bytes that are not UTF-8
        return Verdict(PARSE_ERROR, "the line is not JSON")
    if err is None:
        said: list[str] = []
    elif hasattr(err, "errors"):  # pydantic's ValidationError: a reason per field
        said = [str(e.get("msg", "")) for e in err.errors()]
    else:  # pydantic-core's parser: one reason
        said = [str(err)]
    if any("recursion limit" in reason for reason in said):
        return _about(
            value, INVALID_REQUEST, "the message is nested deeper than the server's JSON parser takes"
        )
    if isinstance(value, list):
        return Verdict(INVALID_REQUEST, "a batch (a JSON array) is not supported: send one message a line")
    if not isinstance(value, dict):
        return Verdict(INVALID_REQUEST, f"expected a JSON-RPC message object, got {_kind(value)}")
    bad = _bad_value(value)
    if bad is not None:
        where, what = bad
        # The path is built from the peer's own keys: bounded, so the reason stays within a
        # quote's length when the sampling backend quotes it (a key may be a megabyte long).
        where = quoted(where, QUOTE_LIMIT // 2)
        code = INVALID_PARAMS if where.startswith("params") else INVALID_REQUEST
        # A notification (a method, no id) is never answered, as JSON-RPC says: only logged.
        notification = isinstance(value.get("method"), str) and "id" not in value
        return _about(value, code, f"{where}: {what}")._replace(misread=True, notification=notification)
    if value.get("jsonrpc") != "2.0":
        return _about(value, INVALID_REQUEST, 'a JSON-RPC message must have "jsonrpc": "2.0"')
    id_problem = _id_problem(value)
    if id_problem is not None and "method" in value:
        return Verdict(INVALID_REQUEST, id_problem, misread=True)
    if not isinstance(value.get("method"), str) and "result" not in value and "error" not in value:
        return _about(value, INVALID_REQUEST, "the message has no method (and is not a response)")
    if _is_response(value):
        return _about(value, INVALID_REQUEST, _response_problem(value))
    return _about(
        value, INVALID_REQUEST, "the message is not a valid JSON-RPC request, notification or response"
    )


def _bad_id(frame: bytes) -> Verdict | None:
    try:
        value = json.loads(frame, parse_int=_int)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict) and "id" in value:
        problem = _id_problem(value)
        if problem is not None:
            return Verdict(INVALID_REQUEST, problem, misread=True)
    return None


def _id_problem(value: dict[str, Any]) -> str | None:
    if "id" not in value or _usable_id(value) is not None:
        return None
    return (
        f"the request's id is {_kind(value['id'])}: an id must be a string or an integer "
        "(a message without an id is a notification)"
    )


def _about(value: dict[str, Any] | Any, code: int, reason: str) -> Verdict:
    response = isinstance(value, dict) and _is_response(value)
    return Verdict(code, reason, _usable_id(value), response)


def _is_response(value: dict[str, Any]) -> bool:
    return "method" not in value and ("result" in value or "error" in value)


def _response_problem(value: dict[str, Any]) -> str:
    if "result" in value and not isinstance(value["result"], dict):
        return f"result is {_kind(value['result'])}, expected an object"
    if "error" in value and not isinstance(value["error"], dict):
        return f"error is {_kind(value['error'])}, expected an object"
    return "the response is not a valid JSON-RPC response"


def _bad_value(value: object) -> tuple[str, str] | None:
    """The first string holding a lone surrogate, or integer too long to read: its path and what."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _Long):
            return (
                path or "the message",
                f"an integer of {item.digits} digits (at most {MAX_DIGITS} are read)",
            )
        if isinstance(item, str):
            lone = _lone_surrogate(item)
            if lone is not None:
                return path or "the message", f"a lone surrogate (U+{lone:04X}) is not Unicode text"
        elif isinstance(item, dict):
            for key, sub in reversed(list(item.items())):
                lone = _lone_surrogate(key)
                if lone is not None:
                    return path or "the message", f"a key holds a lone surrogate (U+{lone:04X})"
                stack.append((path_of(path, key), sub))
        elif isinstance(item, list):
            stack.extend((path_of(path, i), sub) for i, sub in reversed(list(enumerate(item))))
    return None


def _lone_surrogate(text: str) -> int | None:
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return ord(text[err.start])
    return None


def _usable_id(value: Any) -> int | str | None:
    ident = value.get("id") if isinstance(value, dict) else None
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        return None
    if isinstance(ident, str) and _lone_surrogate(ident) is not None:
        return None
    return ident


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float | _Long):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
