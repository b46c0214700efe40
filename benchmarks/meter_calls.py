"""Where a call's excess over the floor goes, per Python function: bytecodes, not instructions.

callgrind (`bench_calls.py --instructions`) counts a whole process's instructions and, on Python
3.11, sees only C frames, so it says how much more a call costs, not in which Python function.
This script runs the same calls in-process through the real SDK `Client` (the memory transport,
both eras, the same stand-in host answer) against `build_server()` and against
`floor_server.py`'s low-level server, under `sys.settrace` with `f_trace_opcodes`, and counts
the bytecodes each function runs per call: exclusive (its own) and inclusive (its own and
everything it called while it ran; a coroutine counts while it is resumed). The client runs in
the same process and its part is the same for both servers except where the results differ, so
the difference per function is where our code's excess goes. Bytecodes are not instructions
(a C call inside one bytecode counts once), so read the ranking, not the ratio.

`.venv/bin/python benchmarks/meter_calls.py [--calls N] [--era legacy|2026-07-28] [--top K]
[--label generate|chat_complete|chain20|chain200|tools10] [--inclusive] [--against floor|plain]`

`tools10` is `bench_schema_calls.py`'s call repeating the same 10 tool definitions (its arguments
and its stand-in host, which declares `sampling.tools`). `--against plain` compares our server's
call with our own plain `chat_complete` of the same messages instead of with the floor: issue
28's goal for the 10 tools is a ratio to that plain call, so the difference is where the 10
definitions' cost goes.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import anyio
from mcp import Client
from mcp.client import ClientRequestContext
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench_calls  # noqa: E402  (the calls and their arguments, the same as the callgrind bench)
import bench_schema_calls  # noqa: E402
import floor_server  # noqa: E402
from mcp_types import SamplingCapability, SamplingToolsCapability  # noqa: E402

from agent_as_model.server import build_server  # noqa: E402

LABELS = {
    "generate": "generate",
    "chat_complete": "chat_complete",
    "chain20": bench_calls.CHAIN,
    "chain200": bench_calls.LONG_CHAIN,
    "tools10": bench_schema_calls.TEN_TOOLS,
}
# The labels of bench_schema_calls: its arguments, its host (which declares sampling.tools).
SCHEMA_LABELS = {"tools10": bench_schema_calls.TEN_TOOLS, "plain": bench_schema_calls.PLAIN}
_ANSWER = CreateMessageResult(
    role="assistant", content=TextContent(type="text", text=bench_calls.ANSWER_TEXT), model="stand-in-model"
)


async def stand_in_host(
    context: ClientRequestContext, params: CreateMessageRequestParams
) -> CreateMessageResult:
    return _ANSWER


def _key(code: Any) -> str:
    path = code.co_filename
    for marker in ("site-packages/", "agent_as_model/", "benchmarks/"):
        if marker in path:
            path = path[path.index(marker) :].removeprefix("site-packages/")
            break
    return f"{path}:{code.co_firstlineno}:{code.co_qualname}"


class Meter:
    """Counts per function; each thread has its own stack (the server's worker threads validate
    a call with tools, `engine/offload.py`), and nothing counts until `active` is set."""

    def __init__(self) -> None:
        self.own: Counter[str] = Counter()
        self.inclusive: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self.active = False
        self._stacks: dict[int, list[str]] = {}
        self._depths: dict[int, Counter[str]] = {}

    def _thread(self) -> tuple[list[str], Counter[str]]:
        ident = threading.get_ident()
        stack = self._stacks.get(ident)
        if stack is None:
            stack = self._stacks[ident] = []
            self._depths[ident] = Counter()
        return stack, self._depths[ident]

    def trace(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "call" and self.active:
            key = _key(frame.f_code)
            stack, depth = self._thread()
            stack.append(key)
            depth[key] += 1
            self.calls[key] += 1  # a coroutine's or generator's every resumption counts
            frame.f_trace_opcodes = True
            return self.local
        return None

    def local(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        stack, depth = self._thread()
        if event == "opcode":
            key = stack[-1] if stack else _key(frame.f_code)
            self.own[key] += 1
            for name in depth:  # once per function on the stack, however deep it recurs
                self.inclusive[name] += 1
        elif event == "return" and stack:
            key = stack.pop()
            depth[key] -= 1
            if not depth[key]:
                del depth[key]
        return self.local


async def run(server: Any, era: str, label: str, calls: int, warmup: int) -> Meter:
    schema_call = label in bench_schema_calls.CALLS
    if schema_call:
        arguments, tool = bench_schema_calls.CALLS[label], "chat_complete"
        host: dict[str, Any] = {
            "sampling_callback": bench_schema_calls.stand_in_host,
            "sampling_capabilities": SamplingCapability(tools=SamplingToolsCapability()),
        }
    else:
        arguments, tool = bench_calls.CALLS[label], bench_calls.TOOL_OF.get(label, label)
        host = {"sampling_callback": stand_in_host}
    meter = Meter()
    threading.settrace(meter.trace)  # the worker threads start during the warm-up, traced from then
    try:
        async with Client(server, mode=era, **host) as client:
            for _ in range(warmup):
                await client.call_tool(tool, arguments)
            meter.active = True
            sys.settrace(meter.trace)
            try:
                for _ in range(calls):
                    result = await client.call_tool(tool, arguments)
            finally:
                sys.settrace(None)
                meter.active = False
    finally:
        threading.settrace(None)  # type: ignore[arg-type]
    text = result.content[0].text if result.content else None  # type: ignore[union-attr]
    if (text != bench_calls.ANSWER_TEXT) if schema_call else not bench_calls.returned_ok(label, text):
        raise SystemExit(f"{label} on {era} returned {text!r}")
    return meter


def report(
    ours: Meter,
    floor: Meter,
    calls: int,
    top: int,
    inclusive: bool,
    by_calls: bool = False,
    base: str = "floor",
) -> str:
    ours_c = ours.inclusive if inclusive else ours.own
    floor_c = floor.inclusive if inclusive else floor.own
    total_o, total_f = sum(ours.own.values()) / calls, sum(floor.own.values()) / calls
    calls_o, calls_f = sum(ours.calls.values()) / calls, sum(floor.calls.values()) / calls
    lines = [
        f"bytecodes per call: ours {total_o:,.0f}, {base} {total_f:,.0f}, excess {total_o - total_f:,.0f}",
        f"Python frames entered per call: ours {calls_o:,.0f}, {base} {calls_f:,.0f}, "
        f"excess {calls_o - calls_f:,.0f}",
    ]
    diff = {k: (ours_c[k] - floor_c[k]) / calls for k in set(ours_c) | set(floor_c)}
    if by_calls:
        diff = {k: (ours.calls[k] - floor.calls[k]) / calls for k in set(ours.calls) | set(floor.calls)}
    lines.append(f"{'excess':>9} {'ours':>9} {base:>9} {'calls':>6}  function")
    for key, excess in sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:top]:
        lines.append(
            f"{excess:9,.0f} {ours_c[key] / calls:9,.0f} {floor_c[key] / calls:9,.0f} "
            f"{ours.calls[key] / calls:6.1f}  {key}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--era", choices=("legacy", "2026-07-28"), action="append")
    parser.add_argument("--label", choices=tuple(LABELS), action="append")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--inclusive", action="store_true", help="rank by inclusive counts")
    parser.add_argument("--by-calls", action="store_true", help="rank by the frames each function enters")
    parser.add_argument(
        "--against",
        choices=("floor", "plain"),
        default="floor",
        help="plain: our own plain chat_complete of bench_schema_calls (for tools10) instead of the floor",
    )
    args = parser.parse_args(argv)
    for era in args.era or ("legacy", "2026-07-28"):
        for name in args.label or ("generate", "chat_complete"):
            label = LABELS[name]
            ours = anyio.run(run, build_server(), era, label, args.calls, args.warmup)
            if args.against == "plain":
                base = anyio.run(run, build_server(), era, SCHEMA_LABELS["plain"], args.calls, args.warmup)
            else:
                base = anyio.run(
                    run, floor_server.build_lowlevel_server(), era, label, args.calls, args.warmup
                )
            print(f"== {name}, {era}, {args.calls} calls, against {args.against}")
            print(report(ours, base, args.calls, args.top, args.inclusive, args.by_calls, args.against))
    return 0


if __name__ == "__main__":
    sys.exit(main())
