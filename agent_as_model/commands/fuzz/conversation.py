"""The fuzzer's own picture of a conversation, and what the cursor oracle makes of it.

A chain is kept as abstract units (a message, or an assistant turn with tool calls and their
results: `adapters/dialects/writing.py`), never as one dialect's request body: each registered
dialect's `writing` writes the same units in its product's shape (`render.py`), and they are read
into cursor transcript entries here. The expected cursors come from the project's pure cursor
functions (`agent_as_model.cursors`) applied to these entries, so they do not depend on how the
server under test reads a request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_as_model import cursors
from agent_as_model.adapters.dialects.writing import Call, Said, ToolTurn, Unit
from agent_as_model.errors import CallError
from agent_as_model.neutral import DEFAULT_MODEL, ToolUse


@dataclass(frozen=True)
class HostAnswer:
    """What the stand-in host answers one sampling request with."""

    text: str
    calls: tuple[Call, ...] = ()
    structured: dict[str, Any] | None = None  # answered through the structured-output tool

    def completion(self) -> str:
        """The text the tool must return as the completion (spec sections 3 and 4)."""
        if self.structured is not None:
            return json.dumps(self.structured, sort_keys=True)
        return cursors.completion_text(self.text, [ToolUse(c.id, c.name, c.input) for c in self.calls])

    def as_unit(self) -> Unit:
        """The assistant turn as the caller passes it back."""
        if self.calls:
            return ToolTurn(self.text, self.calls)
        return Said("assistant", self.completion())


def model_of(model: str | None) -> str:
    return DEFAULT_MODEL if model is None else model


def transcript(units: Sequence[Unit]) -> list[dict[str, str]]:
    """The cursor transcript entries of a conversation (docs/cursors.md)."""
    entries: list[dict[str, str]] = []
    for unit in units:
        if isinstance(unit, Said):
            entries.append(cursors.entry(unit.role, unit.text))
            continue
        uses = [ToolUse(c.id, c.name, c.input) for c in unit.calls]
        entries.append(cursors.assistant_entry(unit.text, uses))
        entries += [cursors.tool_result_entry(ident, text) for ident, text in unit.results]
    return entries


def result_cursor(model: str | None, tool: str, entries: Sequence[dict[str, str]], completion: str) -> str:
    """The cursor a call must return for this history and completion."""
    return cursors.result_cursor(model_of(model), tool, entries, completion)


def recomputed_previous(model: str | None, tool: str, entries: Sequence[dict[str, str]]) -> str | None:
    """The one `cur_` cursor this history verifies with (None: it has no assistant entry)."""
    cut = cursors.history_cut(entries)
    return cursors.mint(model_of(model), tool, cut) if cut else None


def refusal_message(
    model: str | None, tool: str, previous: str, entries: Sequence[dict[str, str]], has_history: bool = True
) -> str:
    """The error text this project's server gives for a `previous_response_id` that the history
    does not verify: used only to write the expected frame into a failure's recording."""
    try:
        read = cursors.read_previous(previous, tool, has_history)
        cursors.verify(read, model_of(model), tool, entries)
    except CallError as err:
        return err.message(tool)
    raise ValueError("this previous_response_id verifies; there is no refusal to describe")


__all__ = [
    "Call",
    "HostAnswer",
    "Said",
    "ToolTurn",
    "Unit",
    "model_of",
    "recomputed_previous",
    "refusal_message",
]
