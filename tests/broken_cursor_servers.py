"""This server with its session cursors deliberately broken, for the fuzzer's tests to catch.

    python -m tests.broken_cursor_servers separators   # mints (and verifies) over json.dumps with
                                                       # its default separators, not the canonical ones
    python -m tests.broken_cursor_servers tampered     # accepts any history with any cur_ cursor
    python -m tests.broken_cursor_servers tool-turn    # leaves tool results out of what a cursor commits to

Each is the real server (`build_server()`) with one function of `agent_as_model.cursors` replaced
in this process only, so every other byte it says is what the real server says. Each is a server
someone could plausibly write: consistent with itself, wrong against the contract.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

import anyio

from agent_as_model import cursors

MODES = ("separators", "tampered", "tool-turn")
_mint = cursors.mint


def _spaced_canonical(obj: object) -> str:
    return json.dumps(obj, sort_keys=True)


def _accept_anything(*_args: object) -> None:
    return None


def _mint_without_tool_results(model: str, tool: str, transcript: Sequence[cursors.Entry]) -> str:
    return _mint(model, tool, [entry for entry in transcript if entry.get("role") != "tool"])


def break_cursors(mode: str) -> None:
    if mode == "separators":
        cursors.canonical = _spaced_canonical
    elif mode == "tampered":
        cursors.verify = _accept_anything  # type: ignore[assignment]
    else:
        cursors.mint = _mint_without_tool_results


async def serve() -> None:
    from mcp.server.stdio import stdio_server

    from agent_as_model.server import build_server

    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        sys.exit(f"usage: python -m tests.broken_cursor_servers {'|'.join(MODES)}")
    break_cursors(sys.argv[1])
    anyio.run(serve)
