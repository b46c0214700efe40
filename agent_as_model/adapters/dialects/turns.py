"""Assembling neutral turns from a dialect's entries, tool calls and tool results included.

The product APIs spread one turn over several entries (chat: an assistant message, then one
`tool` message per result; responses: a message item, then `function_call` items, then
`function_call_output` items). MCP sampling wants one message per turn: the assistant's text and
tool_use blocks together, then one user message holding only tool_result blocks. `Turns` does
that merging, so every dialect gives the same neutral turns for the same conversation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from agent_as_model import cursors
from agent_as_model.adapters.dialects import media as media_parts
from agent_as_model.adapters.dialects.common import require_string, type_name
from agent_as_model.errors import CallError, caller_error
from agent_as_model.neutral import Block, Media, Text, ToolResult, ToolUse, Turn

if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    from agent_as_model.neutral import Role

    # Reads one entry of a conversation that is not the common one (`Turns.entries`): the entry, its
    # path, the turns.
    EntryReader = Callable[[object, str, "Turns"], None]
_TEXT_ROLES = ("user", "assistant")
_new = tuple.__new__  # Turn and Text made by tuple's own constructor (see `Turns.text`)
# What stands in for remote media the host cannot take while fetching is off (`Turns.unfetched`):
# left out wherever it would go.
LEFT_OUT = Media("image", "", "", "", 0, "")


# The paths of a conversation's first entries, "messages[0]", "messages[1]", ..., by key, made once
# as far as the longest conversation read so far and at most `PATH_BOUND` (about 60 kB a key):
# formatting each entry's path cost about as much as reading the entry. A longer conversation's
# paths are made for it.
PATH_BOUND = 1024
_PATHS: dict[str, list[str]] = {}


def entry_paths(key: str, n: int) -> list[str]:
    """At least the first `n` entry paths of `key` (a list shared by every call: never changed)."""
    known = _PATHS.get(key)
    if known is not None and len(known) >= n:
        return known
    if n > PATH_BOUND:
        return [f"{key}[{i}]" for i in range(n)]
    # A new list, not the old one extended: a reader in a worker thread may hold the old one.
    made = [f"{key}[{i}]" for i in range(max(n, 2 * len(known or ()), 64))]
    _PATHS[key] = made = made[:PATH_BOUND]
    return made


class Turns:
    def __init__(self) -> None:
        self.system: list[str] = []
        # A turn's blocks: a list, or for a turn of one text (`text`) a tuple, made a list only if
        # a call joins it (`tool_call`), so the common turn is not copied into a tuple later.
        self._turns: list[tuple[Role, list[Block] | tuple[Block, ...], str]] = []
        # What came in which order: a system piece (its role and text), a turn (its index) or a
        # tool result. The sampling request folds system pieces into one prompt and tool results
        # into one user turn; a cursor's transcript keeps each where the caller put it (spec 6).
        self._order: list[tuple[str, str] | int | ToolResult] = []
        # The assistant turn a tool call may still join: set by the entry right before (an
        # assistant message or another call), cleared by anything else, a system piece included.
        self._calls_join: int | None = None
        # The last turn, when it is a user turn holding only tool results (the one more results
        # join): kept, not found again, so reading n results is linear in n.
        self._results: list[Block] | None = None
        # Set by a product's reader whose tool calls are entries of their own, joining the
        # assistant message before them (responses' function_call items): see `open_assistant`.
        self.calls_are_items = False
        # The call's media parts, in order: `Request.media`, bounded by the limits.
        self.media_parts: list[Media] = []
        # Remote media (`serve --fetch-media`): None while fetching is off; else what the driver
        # fetched, by URL, and the URLs this reading met that it has not fetched yet.
        self.fetched: Mapping[str, media_parts.Fetched] | None = None
        self.wanted: list[tuple[str, str, tuple[str, ...]]] = []
        self.fetched_digests: list[str] = []  # `Request.fetched`
        # What stands in for each wanted URL's part until it is fetched, and its place among
        # `fetched_digests` (`take_fetched`).
        self._stand_ins: list[tuple[Media, int]] = []
        # Every turn so far is one text (`text`), every other entry a system piece (`fold`): the
        # common conversation, whose transcript is one comprehension (`transcript`).
        self._plain = True
        # Another model's reasoning passed back (its path, and what it is): left out (`left_out`).
        self.left: list[tuple[str, str]] = []
        # Parts the product's own API takes and the host cannot (`cannot`): raised at once, or
        # with `keeps_host_only` (a dialect of a product a provider may speak) kept for the router.
        self.keeps_host_only = False
        self.host_only: list[CallError] = []

    def fold(self, role: str, text: str) -> None:
        """A system or developer piece: it goes into the system prompt."""
        self.system.append(text)
        self._order.append((role, text))
        self._calls_join = None

    def text(self, role: Role, text: str, path: str) -> None:
        """A message of its own (a new turn), with one text block."""
        index = len(self._turns)
        self._calls_join = index if role == "assistant" else None
        self._results = None
        self._order.append(index)
        # Text(text) and its Turn, made by tuple's own constructor: the NamedTuple's generated
        # __new__ is a Python call, and this runs once per message. Made a Turn now, so a plain
        # conversation's turns are built as they are read (`build`).
        self._turns.append(tuple.__new__(Turn, (role, (tuple.__new__(Text, (text,)),), path)))

    def entries(self, entries: list[Any], key: str, read: EntryReader) -> None:
        """A conversation of role-and-content entries at `key` (chat's and Messages' `messages`):
        each common entry, {"role": "user" or "assistant", "content": ASCII text} and nothing
        else, is the turn `text` makes (valid as it is: no surrogate hides in ASCII); any other
        is the dialect's `read(entry, its path, self)`. The common entry is made here, in this
        one loop, without a call of the dialect's reader per entry."""
        turns, order = self._turns, self._order
        last: str | None = None  # the role of the last entry made here, until `read` reads one
        # The shared paths may run past the entries: zip stops at the last entry.
        for raw, path in zip(entries, entry_paths(key, len(entries)), strict=False):
            if type(raw) is dict and len(raw) == 2:
                role = raw.get("role")
                content = raw.get("content")
                if role in _TEXT_ROLES and type(content) is str and content.isascii():
                    order.append(len(turns))
                    turns.append(_new(Turn, (role, (_new(Text, (content,)),), path)))
                    last = role
                    continue
            if last is not None:
                self._after_text(last)
                last = None
            read(raw, path, self)
        if last is not None:
            self._after_text(last)

    def _after_text(self, role: str) -> None:
        """What `text` leaves set after its turn, for a run of turns `entries` made."""
        self._calls_join = len(self._turns) - 1 if role == "assistant" else None
        self._results = None

    def start(self, role: Role, path: str) -> None:
        """A message of its own whose blocks follow with `add`."""
        self._plain = False
        self._calls_join = None
        self._results = None
        self._order.append(len(self._turns))
        self._turns.append((role, [], path))

    def add(self, block: Block) -> None:
        """A block of the current turn (one `start` made)."""
        self._blocks(len(self._turns) - 1).append(block)

    def left_out(self, path: str, kind: str) -> None:
        """An item of another model's reasoning in the conversation (a Responses `reasoning` item,
        an Anthropic `thinking` block, a Gemini thought part): the host's model cannot read it, so
        it is neither sent nor in the cursor transcript, and nothing else changes (a call after it
        still joins the turn before it); the result's warnings name it (hints.left_out)."""
        self.left.append((path, kind))

    def cannot(self, path: str, reason: str) -> None:
        """A part at `path` that the product's own API takes and the host (MCP sampling) cannot:
        refused at once, or, when the reading keeps such refusals (`keeps_host_only`), kept for the
        router and left out of the neutral conversation. The router refuses the call unless a
        provider that speaks the product takes the body as written, so what is left out is
        never sent anywhere in its place."""
        err = caller_error(path, reason)
        if not self.keeps_host_only:
            raise err
        self.host_only.append(err)

    def unfetched(self, path: str) -> Media:
        """Remote media while fetching is off: a part the host cannot take (`cannot`), and what
        stands in for it, which `media` leaves out."""
        self.cannot(path, media_parts.REMOTE)
        return LEFT_OUT

    def media(self, part: Media, path: str) -> None:
        """An inline image or audio part of the current turn (`part.path` names it)."""
        if part is LEFT_OUT:
            return
        self.media_parts.append(part)
        self.add(part)

    def remote(self, url: str, path: str, allowed: tuple[str, ...]) -> Media:
        """An http(s) URL of media at `path`: a part the host cannot take while fetching is off
        (`unfetched`); else its fetched bytes, checked as inline ones are (a stand-in while they
        are still to be fetched, which `take_fetched` replaces)."""
        if self.fetched is None:
            return self.unfetched(path)
        got = self.fetched.get(url)
        if got is None:
            # Never sent: `take_fetched` puts the fetched part in its place.
            stand_in = Media("image", "", "", "", 0, path)
            self.wanted.append((url, path, allowed))
            self._stand_ins.append((stand_in, len(self.fetched_digests)))
            self.fetched_digests.append("")
            return stand_in
        part = _fetched_part(got, url, path, allowed)
        self.fetched_digests.append(part.digest)
        return part

    def take_fetched(self, fetched: Mapping[str, media_parts.Fetched]) -> None:
        """Each wanted URL's part, fetched now, in the place of what stood in for it, checked as
        inline media is, in the order the reading met them: the conversation is not read again."""
        parts: dict[int, Media] = {}
        for (url, path, allowed), (stand_in, at) in zip(self.wanted, self._stand_ins, strict=True):
            part = parts[id(stand_in)] = _fetched_part(fetched[url], url, path, allowed)
            self.fetched_digests[at] = part.digest
        self.wanted, self._stand_ins = [], []

        def put(block: Any) -> Any:
            if type(block) is Media:
                return parts.get(id(block), block)
            if type(block) is ToolResult and block.parts:
                return block._replace(parts=tuple(put(p) for p in block.parts))
            return block

        self.media_parts = [put(part) for part in self.media_parts]
        for _, blocks, _ in self._turns:
            if type(blocks) is list:  # a turn of one text (a tuple) holds no media
                blocks[:] = [put(block) for block in blocks]
        self._order = [put(item) if type(item) is ToolResult else item for item in self._order]

    def tool_call(self, call: ToolUse, path: str) -> None:
        """A call item joins the assistant turn right before it, or starts one."""
        if self._calls_join is None:
            self.start("assistant", path)
            self._calls_join = len(self._turns) - 1
        self._blocks(self._calls_join).append(call)

    def tool_result(self, result: ToolResult, path: str) -> None:
        """Results form one user turn holding only tool results, right after the calls; a system
        piece among them goes to the system prompt and does not split them."""
        self._plain = False
        if result.parts:  # its media count towards the call's bounds like any other
            self.media_parts.extend(p for p in result.parts if type(p) is Media and p is not LEFT_OUT)
        if self._results is None:
            self._results = []
            self._turns.append(("user", self._results, path))
        self._results.append(result)
        self._order.append(result)
        self._calls_join = None

    def _blocks(self, index: int) -> list[Block]:
        """The blocks of turn `index`, as a list that more blocks may join."""
        self._plain = False
        role, blocks, path = self._turns[index]
        if type(blocks) is tuple:
            blocks = list(blocks)
            self._turns[index] = (role, blocks, path)
        assert isinstance(blocks, list)
        return blocks

    @property
    def open_assistant(self) -> str | None:
        """The text of a trailing assistant message that a call item passed back after it would
        join, or None (always, unless the reader said `calls_are_items`)."""
        if not self.calls_are_items or self._calls_join is None or self._calls_join != len(self._turns) - 1:
            return None
        blocks = self._turns[self._calls_join][1]
        if any(type(b) is not Text for b in blocks):
            return None
        return "\n".join(b.text for b in blocks if isinstance(b, Text))

    @property
    def plain(self) -> bool:
        """Every turn so far is one text (`text`), every other entry a system piece (`fold`)."""
        return self._plain

    def build(self) -> list[Turn]:
        if self._plain:  # every turn a Turn of one text, as `text` made it
            return self._turns  # type: ignore[return-value]
        # Turn(role, blocks, path), by tuple's own constructor (see `text`): once per turn.
        return [
            tuple.__new__(Turn, (role, tuple(blocks), path)) for role, blocks, path in self._turns if blocks
        ]

    def transcript(self) -> tuple[dict[str, str], ...]:
        """The conversation as cursor transcript entries (docs/cursors.md), in the caller's order:
        system pieces in place; an assistant turn as one entry (the tool-call envelope when it
        called tools); each tool result as a `tool` entry; a user turn's text as one entry."""
        turns = self._turns
        if self._plain:
            # Each item a one-text turn's index or a system piece: `cursors.entry` of each, inline
            # (the loop below makes the same entries, at about twice the cost a turn).
            return tuple(
                [
                    {"role": turns[item][0], "content": turns[item][1][0][0]}  # the Text's text
                    if type(item) is int
                    else {"role": item[0], "content": item[1]}  # type: ignore[index]
                    for item in self._order
                ]
            )
        entries: list[dict[str, str]] = []
        for item in self._order:
            if isinstance(item, int):
                role, blocks, _ = turns[item]
                if len(blocks) == 1 and type(blocks[0]) is Text:
                    # The common turn, one text block: its entry is its text, whatever the role
                    # (an assistant entry without calls is its text too): `cursors.entry`, inline.
                    entries.append({"role": role, "content": blocks[0].text})
                    continue
                if any(type(b) is Media for b in blocks):
                    # A media part enters the transcript in its place, as its type and digest.
                    texts = media_parts.entry_text([b for b in blocks if isinstance(b, Text | Media)])
                else:
                    texts = "\n".join([b.text for b in blocks if type(b) is Text])
                if role == "assistant":
                    calls = [b for b in blocks if type(b) is ToolUse]
                    entries.append(cursors.assistant_entry(texts, calls))
                elif blocks:
                    entries.append(cursors.entry(role, texts))
            elif isinstance(item, ToolResult):
                content = media_parts.entry_text(item.parts) if item.parts else item.content
                entries.append(cursors.tool_result_entry(item.tool_use_id, content))
            else:  # a system piece: (role, text)
                entries.append(cursors.entry(*item))
        return tuple(entries)


def call_id(value: object, path: str) -> str:
    ident = require_string(value, path)
    if not ident:
        raise caller_error(path, "must not be empty")
    return ident


def arguments_object(value: object, path: str) -> dict[str, Any]:
    """A tool call's `arguments`: JSON text of an object, as OpenAI writes it."""
    text = require_string(value, path)
    try:
        parsed = json.loads(text)
    except ValueError as err:
        where = (
            f"line {err.lineno} column {err.colno}: {err.msg}"
            if isinstance(err, json.JSONDecodeError)
            else ""
        )
        raise caller_error(path, f"is not JSON text ({where})") from None
    if not isinstance(parsed, dict):
        raise caller_error(path, f"must be the JSON text of an object, got {type_name(parsed)}")
    return parsed


def input_object(value: object, path: str) -> dict[str, Any]:
    """A tool call's `input`: a JSON object, as Anthropic writes it."""
    if not isinstance(value, dict):
        raise caller_error(path, f"expected an object, got {type_name(value)}")
    return value


def _fetched_part(got: media_parts.Fetched, url: str, path: str, allowed: tuple[str, ...]) -> Media:
    try:
        return media_parts.inline(got.data, got.mime_type, path, allowed)
    except CallError as err:
        raise caller_error(path, f"the media fetched from {ascii(url)}: {err.reason}") from None
