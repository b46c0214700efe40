"""Server-process CPU per call and calls per second: agent-as-model against a minimal SDK floor.

Why it measures what it measures:

* The goal is about the cost of *our* code: agent-as-model's CPU per call must stay within
  1.10x of a server that does the same sampling round trip and nothing else
  (`floor_server.py`, built on the same low-level `Server` + `RequestStateBoundary` layer). So
  both serve the same tools (`generate`, `chat_complete`) on both eras over real stdio, driven
  by the same SDK `Client` and the same trivial stand-in host. The SDK's own cost (transport,
  JSON-RPC, pydantic, the request-state seal) is in both and cancels out of the ratio.
* Only the server child's CPU counts (on-CPU time of every thread, in nanoseconds, from
  `/proc/<pid>/task/*/schedstat`; the tick-based user+system of `/proc/<pid>/stat` is 10 ms
  coarse, which at ~2 ms a call made a batch's reading jump by several percent): the
  client and the host run in this process and are the same for both servers, so counting them
  would only dilute the ratio. The readings bracket a timed batch that follows a warm-up batch,
  so interpreter start-up, imports, the handshake and first-call work (the client's
  `tools/list`, lazy imports) are excluded.
* The machine is noisy, so:
  every server of an era stays up for the whole era and the timed batches alternate between
  them (ours, floor, ... then the reverse order), several repeats; CPU per call is the median
  of the repeats, and the ratio is the median of the per-repeat ratios of back-to-back batches,
  which cancels slow drift of the machine. With two or more CPUs the client and the server are
  pinned to different CPUs: migrations and the two processes sharing a core are the largest
  noise source, and pinning treats every server alike.
* A call on 2026-07-28 is one `Client.call_tool`: two `tools/call` requests (the
  `InputRequiredResult`, then the retry carrying the answer). Calls per second is wall clock for
  a batch, one call at a time: a latency figure that includes the client, not a throughput cap.

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
from contextlib import AsyncExitStack, asynccontextmanager, suppress
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


@dataclass(frozen=True)
class ServerSpec:
    key: str
    label: str
    command: str
    args: tuple[str, ...] = ()
    informational: bool = False

    def params(self) -> StdioServerParameters:
        return StdioServerParameters(command=self.command, args=list(self.args), cwd=str(HERE.parent))

    @property
    def program(self) -> str:
        """The path that shows in the server's command line: the script, or the console script."""
        return self.args[0] if self.args else self.command


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
    cpu_ns: int
    wall_seconds: float

    @property
    def cpu_us_per_call(self) -> float:
        return self.cpu_ns / 1e3 / self.calls

    @property
    def calls_per_second(self) -> float:
        return self.calls / self.wall_seconds


# -- the server child: found in /proc, measured from /proc ------------------------------------------


def child_pids() -> set[int]:
    """Live processes whose parent is this process: the stdio transport spawns the server directly
    (a console script's shebang execs the interpreter in place), and exposes no pid itself."""
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


def command_line(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return [arg.decode(errors="replace") for arg in cmdline.read().split(b"\0") if arg]
    except (FileNotFoundError, ProcessLookupError):
        return []


def cpu_ns(pid: int) -> int:
    """Time on CPU of every thread of `pid`, in nanoseconds (the first field of each schedstat)."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/schedstat") as schedstat:
                    total += int(schedstat.read().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                continue  # a thread that ended between the listing and the read
    except (FileNotFoundError, ProcessLookupError):
        raise RuntimeError(f"server process {pid} is gone") from None
    return total


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # The command name (field 2) is in parentheses and may contain spaces or ')'.
    return text[text.rindex(")") + 2 :].split()


def choose_cpus(enabled: bool) -> tuple[int, int] | None:
    """One CPU for this process (client and host), another for the server under test, or None."""
    allowed = sorted(os.sched_getaffinity(0))
    if not enabled or len(allowed) < 2:
        return None
    return allowed[0], allowed[1]


def pin_process(pid: int, cpu: int) -> None:
    # Every thread that exists now; the ones started later inherit their creator's mask.
    for task in os.listdir(f"/proc/{pid}/task"):
        with suppress(ProcessLookupError):
            os.sched_setaffinity(int(task), {cpu})


@asynccontextmanager
async def connect(spec: ServerSpec, era: str, server_cpu: int | None) -> AsyncIterator[tuple[Client, int]]:
    before = child_pids()
    async with Client(spec.params(), mode=era, sampling_callback=stand_in_host) as client:
        # New children of this process that run this server's program: exactly one, or we would
        # be measuring the wrong process.
        spawned = [pid for pid in child_pids() - before if spec.program in command_line(pid)]
        if len(spawned) != 1:
            raise RuntimeError(f"expected one new {spec.label} process, found {sorted(spawned)}")
        pid = spawned[0]
        if server_cpu is not None:
            pin_process(pid, server_cpu)
        yield client, pid


# -- the host: a trivial stand-in, the same for every server ---------------------------------------

_ANSWER = CreateMessageResult(
    role="assistant", content=TextContent(type="text", text=ANSWER_TEXT), model="stand-in-model"
)


async def stand_in_host(
    context: ClientRequestContext, params: CreateMessageRequestParams
) -> CreateMessageResult:
    return _ANSWER


# -- one batch, one configuration, the whole interleaved run -----------------------------------------


async def call_batch(client: Client, tool: str, calls: int) -> None:
    arguments = CALLS[tool]
    for _ in range(calls):
        result = await client.call_tool(tool, arguments)
        # Checked on the client side: cheap, and not counted in the server's CPU.
        text = (
            result.content[0].text if result.content and isinstance(result.content[0], TextContent) else None
        )
        if result.is_error or text != ANSWER_TEXT:
            raise RuntimeError(
                f"{tool} returned an unexpected result: {result.model_dump(exclude_none=True)}"
            )


async def run_era(
    specs: Sequence[ServerSpec], era: str, calls: int, warmup: int, repeats: int, server_cpu: int | None
) -> list[Sample]:
    """Every server stays up for the whole era and the timed batches alternate between them, so
    each pair of batches compared ran seconds apart on the same machine state."""
    samples: list[Sample] = []
    async with AsyncExitStack() as stack:
        servers: list[tuple[ServerSpec, Client, int]] = []
        for spec in specs:
            client, pid = await stack.enter_async_context(connect(spec, era, server_cpu))
            for tool in CALLS:
                await call_batch(client, tool, warmup)
            servers.append((spec, client, pid))
        for repeat in range(repeats):
            # Alternate the order so a drifting machine (thermal, a neighbour) favours no server.
            order = servers if repeat % 2 == 0 else servers[::-1]
            for spec, client, pid in order:
                for tool in CALLS:
                    ns_before = cpu_ns(pid)
                    started = time.perf_counter()
                    await call_batch(client, tool, calls)
                    wall = time.perf_counter() - started
                    samples.append(Sample(spec.key, tool, era, repeat, calls, cpu_ns(pid) - ns_before, wall))
            mine = samples[-len(servers) * len(CALLS) :]
            brief = "  ".join(
                f"{s.server} {s.tool} {s.cpu_us_per_call:,.0f}" for s in sorted(mine, key=lambda s: s.tool)
            )
            print(f"  {era:<10} repeat {repeat + 1}/{repeats} µs/call: {brief}", file=sys.stderr)
    return samples


async def run_all(
    specs: Sequence[ServerSpec], calls: int, warmup: int, repeats: int, server_cpu: int | None
) -> list[Sample]:
    samples: list[Sample] = []
    for era in ERAS:
        samples.extend(await run_era(specs, era, calls, warmup, repeats, server_cpu))
    return samples


# -- the summary ------------------------------------------------------------------------------------


@dataclass
class Row:
    tool: str
    era: str
    cpu_us: dict[str, float] = field(default_factory=dict)
    calls_per_second: dict[str, float] = field(default_factory=dict)
    ratio: float = 0.0  # median over repeats of ours/floor, each pair measured back to back
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
            # Each repeat's two batches ran back to back: their ratio cancels the machine's drift,
            # which the ratio of the two medians would not.
            row.ratio, row.ratio_range = _paired(per_server["ours"], per_server["floor"])
            if "mcpserver" in per_server:
                row.ratio_vs_mcpserver, _ = _paired(per_server["ours"], per_server["mcpserver"])
            rows.append(row)
    return rows


def _paired(ours: Sequence[Sample], other: Sequence[Sample]) -> tuple[float, tuple[float, float]]:
    ratios = [o.cpu_us_per_call / f.cpu_us_per_call for o, f in zip(ours, other, strict=True) if f.cpu_ns > 0]
    if not ratios:
        return float("nan"), (float("nan"), float("nan"))
    return statistics.median(ratios), (min(ratios), max(ratios))


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
        cells = [
            c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def write_json(path: Path, settings: dict[str, Any], samples: Sequence[Sample], rows: Sequence[Row]) -> None:
    document = {
        "goal_ratio": GOAL,
        "settings": settings,
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
    parser.add_argument("--calls", type=int, default=175, help="timed calls per (server, tool, era) batch")
    parser.add_argument(
        "--warmup", type=int, default=30, help="untimed calls per tool before the timed batches"
    )
    parser.add_argument(
        "--repeats", type=int, default=7, help="interleaved timed batches of every configuration"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the samples and the summary here")
    parser.add_argument(
        "--no-mcpserver-floor", action="store_true", help="skip the informational MCPServer-based floor"
    )
    parser.add_argument(
        "--no-pin", action="store_true", help="do not pin the client and the server to separate CPUs"
    )
    parser.add_argument("--check", action="store_true", help=f"exit 1 when ours/floor is over {GOAL:.2f}x")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.calls < 1 or args.repeats < 1 or args.warmup < 0:
        raise SystemExit("--calls and --repeats must be at least 1, --warmup at least 0")
    specs = server_specs(mcpserver_floor=not args.no_mcpserver_floor)
    cpus = choose_cpus(not args.no_pin)
    if cpus is not None:
        os.sched_setaffinity(0, {cpus[0]})
    pinned = f"client on CPU {cpus[0]}, server on CPU {cpus[1]}" if cpus else "not pinned"
    print(
        f"{args.repeats} interleaved repeats x {len(specs)} servers x {len(ERAS)} eras, "
        f"{args.calls} timed calls per tool after {args.warmup} warm-up calls; {pinned}",
        file=sys.stderr,
    )
    samples = anyio.run(run_all, specs, args.calls, args.warmup, args.repeats, cpus[1] if cpus else None)
    rows = summarise(samples, specs)
    print()
    print(
        "Server-process CPU per call (user+system) and wall-clock calls per second: medians of the repeats;"
    )
    print("ours/floor: the median of the ratios of back-to-back batches, (min–max) their spread.")
    print("One 2026-07-28 call is two tools/call requests (InputRequiredResult, then the retry).")
    print(render_table(rows, specs))
    print()
    verdict = "met" if all(r.meets_goal for r in rows) else "NOT met"
    print(f"goal: ours <= {GOAL:.2f}x the floor on every tool and era: {verdict}")
    if args.json:
        settings = {
            "calls": args.calls,
            "warmup": args.warmup,
            "repeats": args.repeats,
            "cpu_clock": "schedstat ns",
            "cpus": os.cpu_count(),
            "client_cpu": cpus[0] if cpus else None,
            "server_cpu": cpus[1] if cpus else None,
            "python": sys.version.split()[0],
        }
        write_json(args.json, settings, samples, rows)
        print(f"wrote {args.json}")
    return 1 if args.check and verdict != "met" else 0


if __name__ == "__main__":
    sys.exit(main())
