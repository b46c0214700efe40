"""Session cursors: the canonical form, minting and verification (spec section 6). Pure functions.

The server keeps no state. A caller who wants to continue a conversation passes the history back
together with the cursor of the previous turn, and the server recomputes that cursor from the
history: a tamper-evident commitment, never a lookup key.

    cursor = "cur_" + sha256_hex(utf8(canonical({"model": m, "tool": t, "transcript": T})))

`canonical` is Python's `json.dumps(obj, sort_keys=True, separators=(",", ":"))` with the default
`ensure_ascii=True`: the reference server is Python, and a caller must be able to recompute a
cursor with one line of any language, so the form is pinned to that call byte for byte
(`tests/vectors/cursors.json` holds vectors produced by an independent JavaScript implementation).

A transcript `T` is a list of entries `{"role", "content"}` (a tool result also carries
`tool_call_id`). Each tool builds its transcript from its own request shape (docs/cursors.md);
this module only sees the entries.

`previous_response_id` takes three forms, read by `read_previous`:

- `""`: start a chain (nothing to verify);
- `"cur_" + 64 lowercase hex`: continue; `verify` recomputes the cursor of the history cut at its
  last assistant entry and fails loud on mismatch;
- `"resp_…"`: a Responses id, anchor a new chain at the history passed (an opaque Responses id
  commits to nothing, so there is nothing to verify). This server mints `resp_` and 32 lowercase
  hex digits; the Responses API's own ids are longer, and any `resp_` id of letters and digits is
  taken, so a caller that passes one gets the true answer: a server without a store anchors the
  chain at the history passed (the result says so when none was), one with a store looks it up
  (and says it never stored it).

Absent or `null` means cursors are off (`read_previous` returns None) and every result keeps its
default shape. Verification is linear in the size of the history: one scan for the cut, one
canonical dump, one sha256.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.arguments import json_text, type_name
from agent_as_model.errors import caller_error
from agent_as_model.neutral import ToolUse
from agent_as_model.records import Record

if TYPE_CHECKING:
    from agent_as_model.neutral import ChainForm

PARAMETER = "previous_response_id"
CURSOR_PREFIX = "cur_"
ANCHOR_PREFIX = "resp_"
CURSOR_HEX_DIGITS = 64  # a sha256 hexdigest
ANCHOR_HEX_DIGITS = 32  # a uuid4().hex, as the Responses ids are minted
# A Responses id minted elsewhere (the Responses API's are `resp_` and 48 hex digits): letters and
# digits after the prefix, at most this many.
FOREIGN_ID_LIMIT = 200
_ID_CHARACTERS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")

# Exactly what we mint and nothing else: lowercase hex only. A cursor is compared byte for byte,
# so a caller who changed its case (or trimmed or padded it) has mangled it; saying so beats
# guessing what was meant. A set, not a regular expression: nothing is compiled at import, which
# start-up would pay for (the recordings' patterns for these forms are in
# commands/transcripts/minted.py).
_LOWER_HEX = frozenset("0123456789abcdef")


def _is_minted(value: str, prefix: str, digits: int) -> bool:
    return (
        len(value) == len(prefix) + digits
        and value.startswith(prefix)
        and _LOWER_HEX.issuperset(value[len(prefix) :])
    )


ACCEPTED_FORMS = (
    f'"" (start a chain), "{CURSOR_PREFIX}" + {CURSOR_HEX_DIGITS} lowercase hex digits '
    f'(continue the chain of that turn), or "{ANCHOR_PREFIX}" + letters and digits '
    "(a Responses id: anchor a new chain at the history passed)"
)

Entry = Mapping[str, str]
if TYPE_CHECKING:
    Form = ChainForm  # the three forms of previous_response_id (neutral.py names them for Chain)


def canonical(obj: object) -> str:
    """The canonical JSON text of `obj`, exactly as the reference computes it."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def mint(model: str, tool: str, transcript: Sequence[Entry]) -> str:
    """The cursor committing to `transcript` under this model alias and tool."""
    # The canonical text is ASCII (ensure_ascii), so the UTF-8 step never meets a lone surrogate.
    text = canonical({"model": model, "tool": tool, "transcript": list(transcript)})
    return CURSOR_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


def entry(role: str, content: str) -> dict[str, str]:
    """A transcript entry: system, developer, user or assistant text."""
    return {"role": role, "content": content}


def tool_result_entry(tool_call_id: str, content: str) -> dict[str, str]:
    """A tool result, whichever request shape carried it (chat tool message, tool_result block,
    function_call_output item)."""
    return {"role": "tool", "tool_call_id": tool_call_id, "content": content}


def tool_calls_envelope(text: str, calls: Sequence[ToolUse]) -> dict[str, Any]:
    """The tool-call envelope of spec section 4, as an object: what a text tool returns (as
    sorted-key JSON text, and as structuredContent) when the host's model calls tools."""
    return {
        "text": text,
        "tool_calls": [{"id": call.id, "input": call.input, "name": call.name} for call in calls],
    }


def tool_calls_text(text: str, calls: Sequence[ToolUse]) -> str:
    """The envelope's text: what a text tool returns, and the content of that assistant turn's
    transcript entry.

    Default separators (", " and ": "), not the canonical ones: this is result text, and the
    cursor commits to the text the caller received.
    """
    return json_text(tool_calls_envelope(text, calls))


def completion_text(text: str, calls: Sequence[ToolUse]) -> str:
    """The text a tool returns as the completion: the answer's text, or the tool-call envelope
    when the host's model called tools. The last transcript entry commits to exactly this."""
    return tool_calls_text(text, calls) if calls else text


def assistant_entry(text: str, calls: Sequence[ToolUse] = ()) -> dict[str, str]:
    """The one entry of an assistant turn: its text, or the tool-call envelope if it called tools.

    Every request shape of the same turn (chat `tool_calls`, messages `tool_use` blocks, responses
    message + `function_call` items) reads into the same `text` and `calls`, so into this entry.
    """
    return entry("assistant", tool_calls_text(text, calls) if calls else text)


class Previous(Record):
    """A `previous_response_id` that was read and found well formed.

    `form` is "start" (`""`), "continue" (a `cur_` cursor) or "anchor" (a `resp_` id); `value` is
    the string as given.
    """

    form: Form
    value: str


def previous_of(args: Mapping[str, Any], tool: str, has_history: bool = True) -> Previous | None:
    """The `previous_response_id` of a call's arguments, read (`read_previous`): the one place
    the parameter is read from a call, for a cursor chain and for a stored response alike."""
    return read_previous(args.get(PARAMETER), tool, has_history)


def read_previous(value: object, tool: str, has_history: bool = True) -> Previous | None:
    """Read the raw `previous_response_id` argument of `tool`; None means cursors are off.

    Absent and `null` are the same (as for every optional parameter here). Anything but the
    three minted forms is a caller error, and so is a `cur_` cursor on a tool without a history
    channel (`generate`, whose dialect says so): there would be nothing to verify it against, and
    skipping the check silently would defeat its purpose.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise caller_error(PARAMETER, f"expected a string: {ACCEPTED_FORMS}; got {type_name(value)}")
    if value == "":
        return Previous("start", value)
    if _is_minted(value, CURSOR_PREFIX, CURSOR_HEX_DIGITS):
        if not has_history:
            raise caller_error(
                PARAMETER,
                f"a {CURSOR_PREFIX} cursor continues a chain, but {tool} has no history channel to "
                'verify it against (the prompt is the whole request); pass "" to mint a cursor for '
                "this prompt and its completion",
            )
        return Previous("continue", value)
    if _is_responses_id(value):  # this server's (`resp_` + 32 lowercase hex) among them
        return Previous("anchor", value)
    raise caller_error(PARAMETER, f"{_what_is_wrong(value)}; expected {ACCEPTED_FORMS}")


def _is_responses_id(value: str) -> bool:
    """A Responses id, whoever minted it: `resp_` and letters and digits (bounded)."""
    tail = value[len(ANCHOR_PREFIX) :]
    return (
        value.startswith(ANCHOR_PREFIX)
        and 0 < len(tail) <= FOREIGN_ID_LIMIT
        and _ID_CHARACTERS.issuperset(tail)
    )


def history_cut(history: Sequence[Entry]) -> list[Entry]:
    """The history through its last assistant entry: what the previous turn's cursor commits to.

    Entries after it (the new user turn, tool results) arrived after that cursor was minted.
    A history with no assistant entry cuts to nothing.
    """
    for index in range(len(history) - 1, -1, -1):
        if history[index].get("role") == "assistant":
            return list(history[: index + 1])
    return []


def verify(previous: Previous | None, model: str, tool: str, history: Sequence[Entry]) -> None:
    """Check a `cur_` cursor against the history passed back; start, anchor and off pass.

    The error reads like every other in this server: "expected" is what `previous_response_id`
    would have to be for this history (the recomputed cursor), "received" is what it was.
    """
    if previous is None or previous.form != "continue":
        return
    cut = history_cut(history)
    if not cut:
        raise caller_error(
            PARAMETER,
            f"received the {CURSOR_PREFIX} cursor {previous.value}, which continues a chain, but the "
            "history passed back has no assistant entry to verify it against: pass the history "
            'through the turn that cursor came from, or "" to start a new chain',
        )
    expected = mint(model, tool, cut)
    if expected != previous.value:
        raise caller_error(
            PARAMETER,
            f"does not match the history passed back: expected {expected} (the cursor of model "
            f"{ascii(model)}, tool {tool} and the {len(cut)} history entries through the last assistant "
            f"entry), received {previous.value}. The history was changed since that cursor was minted "
            "(an edited, added, dropped or reordered entry, another model or tool), or the cursor "
            "belongs to another turn",
        )


def result_cursor(model: str, tool: str, history: Sequence[Entry], completion: str) -> str:
    """The cursor a call returns: the history it was given plus the completion it returns."""
    return mint(model, tool, [*history, entry("assistant", completion)])


def _what_is_wrong(value: str) -> str:
    """Name the first thing that keeps `value` from being a minted form, so a caller can fix it."""
    shown = _shown(value)
    if value.startswith(ANCHOR_PREFIX):
        tail = value[len(ANCHOR_PREFIX) :]
        if not tail:
            return f"got {shown}: a {ANCHOR_PREFIX} Responses id has letters and digits after the prefix"
        if len(tail) > FOREIGN_ID_LIMIT:
            return (
                f"got {shown}: a {ANCHOR_PREFIX} Responses id is at most {FOREIGN_ID_LIMIT} characters "
                "after the prefix"
            )
        return f"got {shown}: a {ANCHOR_PREFIX} Responses id holds only letters and digits after the prefix"
    if value.startswith(CURSOR_PREFIX):
        tail = value[len(CURSOR_PREFIX) :]
        if len(tail) != CURSOR_HEX_DIGITS:
            return (
                f"got {shown}: a {CURSOR_PREFIX} cursor has {CURSOR_HEX_DIGITS} hex digits, not {len(tail)}"
            )
        if _LOWER_HEX.issuperset(tail.lower()):
            return f"got {shown}: the hex digits must be lowercase, exactly as minted"
        return f"got {shown}: a {CURSOR_PREFIX} cursor holds only hex digits after the prefix"
    return f"got {shown}: not one of the accepted forms"


def _shown(value: str) -> str:
    # The value is echoed ASCII-safe and bounded: an error message is not the place for a megabyte.
    return ascii(value) if len(value) <= 80 else ascii(value[:80]) + f"... ({len(value)} characters)"
