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
[--label generate|chat_complete|chain20|chain200] [--inclusive]`
"""

from __future__ import annotations

import argparse
import sys
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
import floor_server  # noqa: E402

from agent_as_model.server import build_server  # noqa: E402

LABELS = {
    "generate": "generate",
    "chat_complete": "chat_complete",
    "chain20": bench_calls.CHAIN,
    "chain200": bench_calls.LONG_CHAIN,
}
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
    def __init__(self) -> None:
        self.own: Counter[str] = Counter()
        self.inclusive: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self._stack: list[str] = []
        self._depth: Counter[str] = Counter()

    def trace(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "call":
            key = _key(frame.f_code)
            self._stack.append(key)
            self._depth[key] += 1
            self.calls[key] += 1  # a coroutine's or generator's every resumption counts
            frame.f_trace_opcodes = True
            return self.local
        return None

    def local(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "opcode":
            key = self._stack[-1] if self._stack else _key(frame.f_code)
            self.own[key] += 1
            for name in self._depth:  # once per function on the stack, however deep it recurs
                self.inclusive[name] += 1
        elif event == "return" and self._stack:
            key = self._stack.pop()
            self._depth[key] -= 1
            if not self._depth[key]:
                del self._depth[key]
        return self.local


async def run(server: Any, era: str, label: str, calls: int, warmup: int) -> Meter:
    arguments = bench_calls.CALLS[label]
    tool = bench_calls.TOOL_OF.get(label, label)
    meter = Meter()
    async with Client(server, mode=era, sampling_callback=stand_in_host) as client:
        for _ in range(warmup):
            await client.call_tool(tool, arguments)
        sys.settrace(meter.trace)
        try:
            for _ in range(calls):
                result = await client.call_tool(tool, arguments)
        finally:
            sys.settrace(None)
        text = result.content[0].text if result.content else None  # type: ignore[union-attr]
        if not bench_calls.returned_ok(label, text):
            raise SystemExit(f"{label} on {era} returned {text!r}")
    return meter


def report(ours: Meter, floor: Meter, calls: int, top: int, inclusive: bool, by_calls: bool = False) -> str:
    ours_c = ours.inclusive if inclusive else ours.own
    floor_c = floor.inclusive if inclusive else floor.own
    total_o, total_f = sum(ours.own.values()) / calls, sum(floor.own.values()) / calls
    calls_o, calls_f = sum(ours.calls.values()) / calls, sum(floor.calls.values()) / calls
    lines = [
        f"bytecodes per call: ours {total_o:,.0f}, floor {total_f:,.0f}, excess {total_o - total_f:,.0f}",
        f"Python frames entered per call: ours {calls_o:,.0f}, floor {calls_f:,.0f}, "
        f"excess {calls_o - calls_f:,.0f}",
    ]
    diff = {k: (ours_c[k] - floor_c[k]) / calls for k in set(ours_c) | set(floor_c)}
    if by_calls:
        diff = {k: (ours.calls[k] - floor.calls[k]) / calls for k in set(ours.calls) | set(floor.calls)}
    lines.append(f"{'excess':>9} {'ours':>9} {'floor':>9} {'calls':>6}  function")
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
    args = parser.parse_args(argv)
    for era in args.era or ("legacy", "2026-07-28"):
        for name in args.label or ("generate", "chat_complete"):
            label = LABELS[name]
            ours = anyio.run(run, build_server(), era, label, args.calls, args.warmup)
            floor = anyio.run(run, floor_server.build_lowlevel_server(), era, label, args.calls, args.warmup)
            print(f"== {name}, {era}, {args.calls} calls")
            print(report(ours, floor, args.calls, args.top, args.inclusive, args.by_calls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
