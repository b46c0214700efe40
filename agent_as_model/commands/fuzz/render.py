"""The tools the fuzzer can drive, from the dialect registry, and how it writes a conversation in
a tool's request shape and reads the completion and cursor back out of its result: each through
the dialect's own `writing` (adapters/dialects/writing.py), as a caller of that product would."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.writing import Reading, Unit, Unreadable, Writing


def fuzzable() -> tuple[str, ...]:
    """The registered tools that declare how to write their requests, in listing order."""
    return tuple(name for name, dialect in DIALECTS.items() if dialect.writing is not None)


def writing(tool: str) -> Writing:
    declared = DIALECTS[tool].writing
    assert declared is not None, f"{tool} declares no writing: it is not fuzzable"
    return declared


def has_history(tool: str) -> bool:
    """Whether the tool takes a conversation a `cur_` cursor can be checked against; a tool
    without one (a raw prompt) mints, but cannot continue."""
    return DIALECTS[tool].body.has_history


def takes(tool: str, argument: str) -> bool:
    """Whether the tool's input schema lists this argument (`tools`, `output_schema`)."""
    return argument in DIALECTS[tool].INPUT_SCHEMA.get("properties", {})


def fit(tool: str, units: Sequence[Unit]) -> list[Unit]:
    """The conversation less what the tool's product cannot write (a tool turn where it has none,
    a role it does not take): drawn once for every tool, then kept to what each can carry."""
    can = writing(tool)
    kept: list[Unit] = []
    for unit in units:
        if can.fits([*kept, unit]):
            kept.append(unit)
    return kept


def tool_definitions(tool: str, names: Sequence[str]) -> list[Any] | None:
    """Tools the host may call, each `{"type": "object"}`, in the tool's own product shape (its
    `ToolShape` writes them, as for `export-tools`); None when the tool takes no tools."""
    shape = DIALECTS[tool].tools
    if shape is None:
        return None
    written = [shape.write_tool(name, f"The {name} tool.", {"type": "object"}) for name in names]
    return written if shape.group is None else shape.group(written)


def render(tool: str, units: Sequence[Unit]) -> dict[str, Any]:
    """The request arguments that carry this conversation, in the tool's product shape."""
    return writing(tool).write(units, None)


def read_result(tool: str, text: str, structured: Any) -> tuple[str, str]:
    """(completion, cursor) of a successful result with cursors on; `Unreadable` otherwise."""
    read: Reading = writing(tool).read(text, structured)
    return read.completion, read.cursor


__all__ = [
    "Unreadable",
    "fit",
    "fuzzable",
    "has_history",
    "read_result",
    "render",
    "takes",
    "tool_definitions",
    "writing",
]
