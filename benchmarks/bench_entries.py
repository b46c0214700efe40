"""What a request's entries cost the other requests: the figure `--max-entries` is sized from.

One `serve --http` per era (its `--max-entries` raised out of the way), and a probe process that
sends `list_models` back to back on a connection of its own. For each kind of entry and each
count, one call of that many entries (answered by this process's host) while the probe runs; the
row is the worst wait of the probe over its baseline's median. Repeated, then a line through the
points per era and kind: milliseconds per 1,000 entries (the slope) and what a call costs
whatever its size (the intercept). A wait is wall time, which a loaded machine stretches; so each
count is also called once with the probe stopped, and the CPU time the server's event loop
thread spent on the call is read from /proc (`schedstat`, in nanoseconds): the time the call held
every other request, however busy the machine. docs/security.md states both; the default of
`--max-entries` is the count whose worst wait stays within the 100 ms line with room to spare.

Kinds (N entries as written, one each; `states/entries.py` weighs a tool call and a tool result
as `TOOL_ENTRY` each and counts values 20 to an entry): `plain` (chat messages of one text),
`calls` (one assistant message of N/2 tool calls and their N/2 results), `parts` (one message of N
text parts), `values` (one tool call whose arguments hold an array of N values).

    .venv/bin/python benchmarks/bench_entries.py [--counts 500,1000,2000,4000] [--repeats 3]
        [--kinds plain,calls,parts,values] [--eras legacy,2026-07-28] [--host-tools] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import anyio
import hostile_classes as hc


def plain(n: int) -> list[dict[str, Any]]:
    return hc.said(n)


def calls(n: int) -> list[dict[str, Any]]:
    return hc.tool_conversation(max(1, (n - 3) // 2))


def parts(n: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": "p"}] * (n - 1)}]


def values(n: int) -> list[dict[str, Any]]:
    call = {
        "id": "c0",
        "type": "function",
        "function": {"name": "f", "arguments": json.dumps({"a": [0] * (n - 5)})},
    }
    return [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "content": "r"},
    ]


KINDS = {"plain": plain, "calls": calls, "parts": parts, "values": values}
ROOM = ("--max-entries", "10000000")


async def sweep(
    era: str, kinds: list[str], counts: list[int], repeats: int, host_tools: bool
) -> list[dict[str, Any]]:
    server = hc.HttpServer(hc.COMMAND, (*hc.HTTP_HOLDS, *ROOM))
    host = hc.Host()
    probe: hc.ProbeProcess | None = None
    rows: list[dict[str, Any]] = []
    try:
        async with hc.connect("http", era, host, server, host_tools=host_tools) as client:
            await client.call_tool("list_models", {})
            probe = hc.ProbeProcess(f"{server.base}/mcp", era)
            run = hc.Run(server.process.pid, probe)
            run.base_ms = await probe.baseline()
            run.start_rss = hc.rss_mb(run.pid)
            for kind in kinds:
                for count in counts:
                    for _ in range(repeats):
                        request = hc.Request(
                            f"{kind} {count}", "chat_complete", {"messages": KINDS[kind](count)}
                        )
                        row = await hc.measured(run, hc.hostile_call(client, host, request))
                        over = (row["list_models_max_ms"] or 0.0) - run.base_ms
                        rows.append(
                            {"era": era, "kind": kind, "entries": count, "over_ms": over, "ends": row["ends"]}
                        )
                        line = f"{era:<10} {kind:<7} {count:>7}  worst wait {over:7.1f} ms"
                        print(f"{line} over {run.base_ms:.1f} ms", flush=True)
                    with probe.paused():
                        before = loop_cpu_ms(run.pid)
                        await client.call_tool("chat_complete", {"messages": KINDS[kind](count)})
                        held = loop_cpu_ms(run.pid) - before
                    rows.append({"era": era, "kind": kind, "entries": count, "loop_cpu_ms": held})
                    print(f"{era:<10} {kind:<7} {count:>7}  event loop CPU {held:7.1f} ms", flush=True)
    finally:
        if probe is not None:
            probe.stop()
        server.stop()
    return rows


def loop_cpu_ms(pid: int) -> float:
    """The CPU time the server's main thread (its event loop) has run, in milliseconds."""
    return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[0]) / 1e6


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """The least-squares line through (entries, ms): ms per 1,000 entries, and the intercept."""
    xs = [x / 1000 for x, _ in points]
    ys = [y for _, y in points]
    slope, intercept = statistics.linear_regression(xs, ys)
    return slope, intercept


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--counts", default="500,1000,2000,4000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--eras", default="legacy,2026-07-28")
    parser.add_argument(
        "--host-tools",
        action="store_true",
        help="the host declares sampling.tools: tool calls travel as tool_use blocks, not as text",
    )
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    kinds = args.kinds.split(",")
    rows: list[dict[str, Any]] = []
    for era in args.eras.split(","):
        rows += anyio.run(sweep, era, kinds, counts, args.repeats, args.host_tools)
    fits = []
    for measure, what in (
        ("over_ms", "the median of the worst waits over baseline"),
        ("loop_cpu_ms", "the event loop's CPU time of the call"),
    ):
        print(f"\n{what}, ms:")
        print(f"{'era':<10} {'kind':<7} " + " ".join(f"{c:>9}" for c in counts) + "   ms/1,000  intercept ms")
        for era in args.eras.split(","):
            for kind in kinds:
                mine = [r for r in rows if r["era"] == era and r["kind"] == kind and measure in r]
                medians = [statistics.median(r[measure] for r in mine if r["entries"] == c) for c in counts]
                slope, intercept = fit([(r["entries"], r[measure]) for r in mine])
                fits.append(
                    {
                        "era": era,
                        "kind": kind,
                        "measure": measure,
                        "ms_per_1000": slope,
                        "intercept_ms": intercept,
                    }
                )
                cells = " ".join(f"{m:>9.1f}" for m in medians)
                print(f"{era:<10} {kind:<7} {cells}   {slope:>8.1f}  {intercept:>12.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "fits": fits}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
