"""MCP tools as the wire carries them, kept for the tools a call repeats.

A product sends the same `tools` on every turn, and the server then sends the host the same MCP
`Tool` objects each time: they are kept with the reading they came from (`states/build.py`,
`_kept_forward`). A 2026-07-28 round one hands them to the SDK inside its `InputRequiredResult`,
which the SDK dumps to JSON-ready dicts before its own sieve, every tool on every round one: so a
repeated list's dumps are made once. `reserve` marks the kept tools, `dumped` makes their dumps on
the first round that sends them, keeps them beside those exact objects and gives them back for
those objects only (any other tools are dumped as the SDK would), so what reaches the wire is the
same either way (tests/test_tools_read_once.py). What it saves a call: benchmarks/README.md, "What
each cache, ContextVar and late import buys".

The dumps are shared, never changed: the SDK copies a result mapping and builds its wire form
anew from it (its sieve validates and dumps it again).
"""

from __future__ import annotations

from operator import is_
from typing import Any

from mcp_types import Tool

from agent_as_model.caches import BoundedCache

# As the kept forwards are bounded (states/build.py): one entry per kept list of tools, stated to
# hold what its forward is counted at.
DUMP_CACHE_SIZE = 1024
DUMP_CACHE_BYTES = 16 * 1024 * 1024
_DUMPS = BoundedCache(DUMP_CACHE_BYTES, DUMP_CACHE_SIZE)


def dump(tool: Tool) -> dict[str, Any]:
    """The tool's wire form, as the SDK dumps a result's models."""
    return tool.model_dump(by_alias=True, mode="json", exclude_none=True)


def reserve(tools: list[Tool], size: int) -> None:
    """Reserve these tools' place for their wire form; `size` is what they are counted at. The form
    is made on the first round that sends them (`dumped`), not here: a legacy call, or tools a
    caller does not repeat, never needs it."""
    if tools:
        _DUMPS.put(id(tools[0]), [tuple(tools), None], size)


def dumped(tools: list[Tool]) -> list[dict[str, Any]]:
    """The wire form kept for exactly these tool objects, in this order, or their dumps made now.
    One lookup for the list, keyed by its first tool, not one for each tool."""
    kept = _DUMPS.get(id(tools[0])) if tools else None
    # The entry holds its tools, so an id in it is never reused while it is kept; the objects
    # themselves say whether it is these tools' (a payload sends all of them or its own).
    if kept is None or len(kept[0]) != len(tools) or not all(map(is_, kept[0], tools)):
        return [dump(tool) for tool in tools]
    if kept[1] is None:  # the first round that sends them (two at once only make it twice)
        kept[1] = [dump(tool) for tool in tools]
    return list(kept[1])


def forget() -> None:
    """Empty the kept dumps (tests)."""
    _DUMPS.clear()
