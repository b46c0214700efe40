"""This server with its session cursors deliberately broken, for the fuzzer's tests to catch.

    python -m tests.broken_cursor_servers separators   # mints (and verifies) over json.dumps with
                                                       # its default separators, not the canonical ones
    python -m tests.broken_cursor_servers tampered     # accepts any history with any cur_ cursor
    python -m tests.broken_cursor_servers tool-turn    # leaves tool results out of what a cursor commits to
    python -m tests.broken_cursor_servers whole-turn   # leaves whole tool turns out: the assistant's
                                                       # tool calls as well as their results
    python -m tests.broken_cursor_servers exits        # exits in the middle of its fourth answered call
    python -m tests.broken_cursor_servers stalls       # stops answering in the middle of its fourth call

Each is the real server (`build_server()`) with one function of `agent_as_model.cursors` replaced
in this process only, so every other byte it says is what the real server says. Each is a server
someone could plausibly write: consistent with itself, wrong against the contract. The last two
keep the contract but stop being reachable mid-run, as a crashing or wedged server does.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Sequence

import anyio

from agent_as_model import cursors

MODES = ("separators", "tampered", "tool-turn", "whole-turn", "exits", "stalls")
ANSWERS_BEFORE_LOSS = 3  # a few good answers first: the fuzzer has spoken to it when it goes
_mint = cursors.mint
_result_cursor = cursors.result_cursor


def _spaced_canonical(obj: object) -> str:
    return json.dumps(obj, sort_keys=True)


def _accept_anything(*_args: object) -> None:
    return None


def _mint_without_tool_results(model: str, tool: str, transcript: Sequence[cursors.Entry]) -> str:
    return _mint(model, tool, [entry for entry in transcript if entry.get("role") != "tool"])


def _is_tool_call_turn(entry: cursors.Entry) -> bool:
    """An assistant entry holding the tool-call envelope (a plain text that merely looks like one
    is dropped too: this server is wrong either way)."""
    if entry.get("role") != "assistant":
        return False
    try:
        content = json.loads(entry.get("content", ""))
    except ValueError:
        return False
    return isinstance(content, dict) and sorted(content) == ["text", "tool_calls"]


def _mint_without_tool_turns(model: str, tool: str, transcript: Sequence[cursors.Entry]) -> str:
    kept = [e for e in transcript if e.get("role") != "tool" and not _is_tool_call_turn(e)]
    return _mint(model, tool, kept)


def _lost_after(
    answers: int, lose: Callable[[], None]
) -> Callable[[str, str, Sequence[cursors.Entry], str], str]:
    """`cursors.result_cursor`, which runs once per answered call, until `answers` calls were
    answered; then `lose()` in the middle of the next one, before its result is written."""
    made = 0

    def result_cursor(model: str, tool: str, history: Sequence[cursors.Entry], completion: str) -> str:
        nonlocal made
        made += 1
        if made > answers:
            lose()
        return _result_cursor(model, tool, history, completion)

    return result_cursor


def _exit() -> None:
    os._exit(0)  # at once, with no reply: a crash as the client sees it


def _stall() -> None:
    time.sleep(3600)  # the event loop stops with it: nothing more is read or answered


def break_cursors(mode: str) -> None:
    if mode == "separators":
        cursors.canonical = _spaced_canonical
    elif mode == "tampered":
        cursors.verify = _accept_anything  # type: ignore[assignment]
    elif mode == "tool-turn":
        cursors.mint = _mint_without_tool_results
    elif mode == "whole-turn":
        cursors.mint = _mint_without_tool_turns
    else:
        lose = _exit if mode == "exits" else _stall
        cursors.result_cursor = _lost_after(ANSWERS_BEFORE_LOSS, lose)


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
