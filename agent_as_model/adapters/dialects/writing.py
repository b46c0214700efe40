"""How a caller writes a product's request from a neutral conversation, and reads its result.

The fuzzer (`agent-as-model fuzz`), the property tests and the soak draw conversations as the
units below, never as one product's body: each dialect's `Writing` (the `writing` of its
`Dialect`) writes them in its product's request shape, and reads the completion and the cursor
back out of a result, as a caller of that product would. So a registered dialect is fuzzed and
property-tested with no other change. This is plain code: the drawing (hypothesis) stays in
the fuzzer and the tests.

The units are what the cursor transcript is made of (docs/cursors.md): a message of text, or an
assistant turn that called tools with the caller's result for each call. A writer may be given a
`random.Random` (`vary`): it then picks among the spellings its product takes for the same
conversation (a string or a list of text parts, the spacing of an `arguments` string, ...), all
of which a cursor must not see; without one it writes the plainest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.cursors import completion_text
from agent_as_model.neutral import ToolUse
from agent_as_model.records import Record

if TYPE_CHECKING:  # only for annotations: importing random costs start-up time
    import random


class Said(Record):
    """One message of text: `system`, `developer`, `user` or `assistant`."""

    role: str
    text: str


class Call(Record):
    id: str
    name: str
    input: dict[str, Any]


class ToolTurn(Record):
    """An assistant turn that called tools, then the caller's result for each call."""

    text: str
    calls: tuple[Call, ...]
    results: tuple[tuple[str, str], ...] = ()  # (call id, result text), empty until the caller ran them


Unit = Said | ToolTurn


class Unreadable(Exception):
    """A result that does not have the shape the contract gives it with cursors on."""


class Reading(Record):
    """What a caller reads out of a successful result with cursors on."""

    completion: str  # the text, the structured output's JSON text, or the tool-call envelope
    cursor: str


if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    # The request arguments that carry the conversation (the conversation key, and the leading system
    # text where the product takes it apart); never the limits, tools or extensions.
    Writer = Callable[[Sequence[Unit], "random.Random | None"], dict[str, Any]]
    # (result text, structuredContent) -> Reading, or Unreadable.
    Reader = Callable[[str, Any], Reading]


class Writing(Record):
    """What a dialect declares of its product's requests and results, for the fuzzer and tests.

    `roles` are the roles a `Said` may take anywhere in the conversation; `leading_system` says a
    `system` message may open it (some products take the system text only as a parameter before
    the conversation); `tool_turns` says the product writes tool-call turns and their results.
    `write` raises ValueError for a conversation outside those (`fits` tells beforehand).
    """

    write: Writer
    read: Reader
    roles: tuple[str, ...] = ("user", "assistant")
    leading_system: bool = True
    tool_turns: bool = True

    def fits(self, units: Sequence[Unit]) -> bool:
        """Whether `write` can write this conversation."""
        for index, unit in enumerate(units):
            if isinstance(unit, ToolTurn):
                if not self.tool_turns:
                    return False
            elif unit.role not in self.roles and not (
                index == 0 and unit.role == "system" and self.leading_system
            ):
                return False
        return True


def leading_system(units: Sequence[Unit]) -> tuple[str | None, list[Unit]]:
    """The text of a leading system message, and the rest."""
    first = units[0] if units else None
    if isinstance(first, Said) and first.role == "system":
        return first.text, list(units[1:])
    return None, list(units)


def text_parts(text: str, vary: random.Random | None, part_type: str = "text") -> Any:
    """A text as a string, or (varied) as text parts that join back to it with newlines."""
    if vary is None or vary.random() < 0.5:
        return text
    return [{"type": part_type, "text": piece} for piece in text.split("\n")]


def arguments_text(given: dict[str, Any], vary: random.Random | None) -> str:
    """A JSON `arguments` string: how it is spaced or escaped must not matter."""
    if vary is None:
        return json.dumps(given)
    return json.dumps(
        given,
        separators=vary.choice(((",", ":"), (", ", ": "))),
        indent=vary.choice((None, 1)),
        ensure_ascii=vary.random() < 0.5,
        sort_keys=vary.random() < 0.5,
    )


def refuse(what: str) -> ValueError:
    return ValueError(f"this product cannot write {what}")


def read_object(text: str) -> dict[str, Any]:
    try:
        body = json.loads(text)
    except ValueError as err:
        raise Unreadable(f"the result text is not JSON: {text[:200]!r}") from err
    if not isinstance(body, dict):
        raise Unreadable(f"the result text is not a JSON object: {text[:200]!r}")
    return body


def read_text_result(text: str, structured: Any) -> Reading:
    """A text tool's result with cursors on: `{"completion", "response_id"}` (spec section 6)."""
    body = read_object(text)
    if sorted(body) != ["completion", "response_id"]:
        raise Unreadable(f"expected the keys completion and response_id, got {sorted(body)}")
    return Reading(str(body["completion"]), str(body["response_id"]))


def completion(text: str, calls: Sequence[tuple[str, str, Any]]) -> str:
    """The completion a caller reads from a turn of text and tool calls (id, name, input): the
    text, or the tool-call envelope of spec section 4 when it holds calls."""
    return completion_text(text, [ToolUse(ident, name, given) for ident, name, given in calls])
