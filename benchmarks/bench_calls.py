"""Server-process CPU per call and calls per second, agent-as-model against a minimal SDK floor.

Why this measures what it measures:

* The goal is about the cost of *our* code: CPU per call of agent-as-model must stay within
  1.10x of a server that does the same sampling round trip and nothing else
  (`floor_server.py`, built on the same low-level `Server` + `RequestStateBoundary` layer). So
  both run the same tools (`generate`, `chat_complete`) on both eras, over real stdio, driven
  by the same SDK `Client` and the same trivial stand-in host.
* Only the server child's CPU counts (user + system from `/proc/<pid>/stat`, all its threads):
  the client, the host callback and the pipes' other end run in this process and are the same
  for both, so they would only dilute the ratio. Readings are taken around a timed batch that
  follows a warm-up batch, so interpreter start-up, imports, the handshake and first-call
  caches (the client's `tools/list`, lazy imports, pydantic schema builds) are excluded.
* The machine is noisy and the tick clock is coarse (`SC_CLK_TCK`, usually 10 ms), so every
  configuration runs several times, interleaved (ours, floor, ... then the reverse order), and
  the medians are reported. A call on 2026-07-28 is one logical `Client.call_tool`: two
  `tools/call` requests (`InputRequiredResult`, then the retry with the answer).
* Calls per second is wall clock for the batch, one call at a time: a latency figure that
  includes the client, not a throughput ceiling.

Run from the repository root: `python benchmarks/bench_calls.py` (`make bench`). `--json FILE`
writes every sample and the summary; `--check` exits 1 when a ratio is over the goal.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.client.stdio import StdioServerParameters
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

HERE = Path(__file__).resolve().parent
GOAL = 1.10
ERAS = ("legacy", "2026-07-28")
ANSWER_TEXT = "A short fixed answer."
CALLS: dict[str, dict[str, Any]] = {
    "generate": {"prompt": "Write one line about benchmarks."},
    "chat_complete": {
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Write one line about benchmarks."},
        ]
    },
}
CLK_TCK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ServerSpec:
    key: str
    label: str
    command: str
    args: tuple[str, ...] = ()
    informational: bool = False

    def params(self) -> StdioServerParameters:
        return StdioServerParameters(command=self.command, args=list(self.args), cwd=str(HERE.parent))


def server_specs(*, mcpserver_floor: bool) -> list[ServerSpec]:
    # The installed console script, as a host runs it; it sits next to this venv's interpreter.
    ours = Path(sys.executable).parent / "agent-as-model"
    if not ours.exists():
        raise SystemExit(f"{ours} not found: run `make install` (or pip install -e .) in this venv first")
    floor = str(HERE / "floor_server.py")
    specs = [
        ServerSpec("ours", "agent-as-model", str(ours)),
        ServerSpec("floor", "floor (low-level Server)", sys.executable, (floor,)),
    ]
    if mcpserver_floor:
        specs.append(ServerSpec("mcpserver", "MCPServer floor", sys.executable, (floor, "--mcpserver"), True))
    return specs


@dataclass
class Sample:
    server: str
    tool: str
    era: str
    repeat: int
    calls: int
    cpu_ticks: int
    wall_seconds: float

    @property
    def cpu_us_per_call(self) -> float:
        return self.cpu_ticks / CLK_TCK / self.calls * 1e6

    @property
    def calls_per_second(self) -> float:
        return self.calls / self.wall_seconds


# -- the server child: found in /proc, measured from /proc ------------------------------------------


def child_pids() -> set[int]:
    """Live processes whose parent is this process (the stdio transport spawns the server directly)."""
    me = os.getpid()
    found: set[int] = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        # fields[0] is the state (field 3 of stat), fields[1] the parent pid (field 4).
        if fields is not None and fields[0] != "Z" and int(fields[1]) == me:
            found.add(int(entry.name))
    return found


def cpu_ticks(pid: int) -> int:
    """User + system time of every thread of `pid`, in clock ticks (stat fields 14 and 15)."""
    fields = _stat_fields(pid)
    if fields is None:
        raise RuntimeError(f"server process {pid} is gone")
    return int(fields[11]) + int(fields[12])


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # The command name (field 2) is in parentheses and may contain spaces or ')'.
    return text[text.rindex(")") + 2 :].split()


@asynccontextmanager
async def connect(spec: ServerSpec, era: str) -> AsyncIterator[tuple[Client, int]]:
    before = child_pids()
    async with Client(spec.params(), mode=era, sampling_callback=stand_in_host) as client:
        spawned = child_pids() - before
        if len(spawned) != 1:
            raise RuntimeError(f"expected one new server process for {spec.label}, found {sorted(spawned)}")
        yield client, spawned.pop()


# -- the host: a trivial stand-in, the same for every server ---------------------------------------

_ANSWER = CreateMessageResult(
    role="assistant", content=TextContent(type="text", text=ANSWER_TEXT), model="stand-in-model"
)


async def stand_in_host(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
    return _ANSWER


# -- one batch, one configuration, the whole interleaved run -----------------------------------------


async def call_batch(client: Client, tool: str, calls: int) -> None:
    arguments = CALLS[tool]
    for _ in range(calls):
        result = await client.call_tool(tool, arguments)
        # Checked on the client side: cheap, and not counted in the server's CPU.
        text = result.content[0].text if result.content and isinstance(result.content[0], TextContent) else None
        if result.is_error or text != ANSWER_TEXT:
            raise RuntimeError(f"{tool} returned an unexpected result: {result.model_dump(exclude_none=True)}")


async def run_configuration(spec: ServerSpec, era: str, repeat: int, calls: int, warmup: int) -> list[Sample]:
    samples: list[Sample] = []
    async with connect(spec, era) as (client, pid):
        for tool in CALLS:
            await call_batch(client, tool, warmup)
        for tool in CALLS:
            ticks_before = cpu_ticks(pid)
            started = time.perf_counter()
            await call_batch(client, tool, calls)
            wall = time.perf_counter() - started
            samples.append(Sample(spec.key, tool, era, repeat, calls, cpu_ticks(pid) - ticks_before, wall))
    return samples


async def run_all(specs: Sequence[ServerSpec], calls: int, warmup: int, repeats: int) -> list[Sample]:
    samples: list[Sample] = []
    for repeat in range(repeats):
        # Alternate the order so a drifting machine (thermal, a neighbour) favours no server.
        order = list(specs) if repeat % 2 == 0 else list(reversed(specs))
        for era in ERAS:
            for spec in order:
                got = await run_configuration(spec, era, repeat, calls, warmup)
                samples.extend(got)
                brief = ", ".join(f"{s.tool} {s.cpu_us_per_call:,.0f} µs" for s in got)
                print(f"  repeat {repeat + 1}/{repeats}  {era:<10}  {spec.label:<24} {brief}", file=sys.stderr)
    return samples


# -- the summary ------------------------------------------------------------------------------------


@dataclass
class Row:
    tool: str
    era: str
    cpu_us: dict[str, float] = field(default_factory=dict)
    calls_per_second: dict[str, float] = field(default_factory=dict)
    ratio: float = 0.0
    ratio_range: tuple[float, float] = (0.0, 0.0)
    ratio_vs_mcpserver: float | None = None

    @property
    def meets_goal(self) -> bool:
        return self.ratio <= GOAL


def summarise(samples: Sequence[Sample], specs: Sequence[ServerSpec]) -> list[Row]:
    rows: list[Row] = []
    for era in ERAS:
        for tool in CALLS:
            row = Row(tool, era)
            per_server: dict[str, list[Sample]] = {}
            for spec in specs:
                mine = [s for s in samples if s.server == spec.key and s.tool == tool and s.era == era]
                per_server[spec.key] = mine
                row.cpu_us[spec.key] = statistics.median(s.cpu_us_per_call for s in mine)
                row.calls_per_second[spec.key] = statistics.median(s.calls_per_second for s in mine)
            row.ratio = row.cpu_us["ours"] / row.cpu_us["floor"]
            # The spread of the ratio repeat by repeat (each pair ran back to back): how noisy it was.
            paired = [
                o.cpu_us_per_call / f.cpu_us_per_call
                for o, f in zip(per_server["ours"], per_server["floor"], strict=True)
                if f.cpu_ticks
            ]
            row.ratio_range = (min(paired), max(paired)) if paired else (0.0, 0.0)
            if "mcpserver" in row.cpu_us:
                row.ratio_vs_mcpserver = row.cpu_us["ours"] / row.cpu_us["mcpserver"]
            rows.append(row)
    return rows


def render_table(rows: Sequence[Row], specs: Sequence[ServerSpec]) -> str:
    informational = any(s.informational for s in specs)
    header = [
        "tool",
        "era",
        "ours µs/call",
        "floor µs/call",
        "ours/floor",
        "(min–max)",
        "goal",
        "ours calls/s",
        "floor calls/s",
    ]
    if informational:
        header += ["MCPServer µs/call", "ours/MCPServer"]
    lines = [header]
    for row in rows:
        low, high = row.ratio_range
        line = [
            row.tool,
            row.era,
            f"{row.cpu_us['ours']:,.0f}",
            f"{row.cpu_us['floor']:,.0f}",
            f"{row.ratio:.2f}x",
            f"{low:.2f}–{high:.2f}",
            "ok" if row.meets_goal else f"OVER {GOAL:.2f}x",
            f"{row.calls_per_second['ours']:,.0f}",
            f"{row.calls_per_second['floor']:,.0f}",
        ]
        if informational:
            line += [f"{row.cpu_us['mcpserver']:,.0f}", f"{row.ratio_vs_mcpserver:.2f}x"]
        lines.append(line)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = []
    for n, line in enumerate(lines):
        cells = [c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def write_json(path: Path, args: argparse.Namespace, samples: Sequence[Sample], rows: Sequence[Row]) -> None:
    document = {
        "goal_ratio": GOAL,
        "settings": {
            "calls": args.calls,
            "warmup": args.warmup,
            "repeats": args.repeats,
            "clk_tck": CLK_TCK,
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
        },
        "summary": [
            {
                "tool": r.tool,
                "era": r.era,
                "cpu_us_per_call": r.cpu_us,
                "calls_per_second": r.calls_per_second,
                "ratio_ours_floor": r.ratio,
                "ratio_range": list(r.ratio_range),
                "ratio_ours_mcpserver": r.ratio_vs_mcpserver,
                "meets_goal": r.meets_goal,
            }
            for r in rows
        ],
        "samples": [asdict(s) | {"cpu_us_per_call": s.cpu_us_per_call} for s in samples],
    }
    path.write_text(json.dumps(document, indent=2) + "\n")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=300, help="timed calls per (server, tool, era) batch")
    parser.add_argument("--warmup", type=int, default=30, help="untimed calls per tool before the timed batches")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved runs of every configuration")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the samples and the summary here")
    parser.add_argument(
        "--no-mcpserver-floor", action="store_true", help="skip the informational MCPServer-based floor"
    )
    parser.add_argument("--check", action="store_true", help=f"exit 1 when ours/floor is over {GOAL:.2f}x")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.calls < 1 or args.repeats < 1 or args.warmup < 0:
        raise SystemExit("--calls and --repeats must be at least 1, --warmup at least 0")
    specs = server_specs(mcpserver_floor=not args.no_mcpserver_floor)
    print(
        f"{args.repeats} interleaved repeats x {len(specs)} servers x {len(ERAS)} eras, "
        f"{args.calls} timed calls per tool after {args.warmup} warm-up calls (tick {1e3 / CLK_TCK:g} ms)",
        file=sys.stderr,
    )
    samples = anyio.run(run_all, specs, args.calls, args.warmup, args.repeats)
    rows = summarise(samples, specs)
    print()
    print("Server-process CPU per call (user+system, median of repeats) and wall-clock calls per second")
    print(render_table(rows, specs))
    print()
    verdict = "met" if all(r.meets_goal for r in rows) else "NOT met"
    print(f"goal: ours <= {GOAL:.2f}x the floor on every tool and era: {verdict}")
    if args.json:
        write_json(args.json, args, samples, rows)
        print(f"wrote {args.json}")
    return 1 if args.check and verdict != "met" else 0


if __name__ == "__main__":
    sys.exit(main())
