"""Server-process cost per call and calls per second: agent-as-model against a minimal SDK floor.

Why it measures what it measures:

* The goal is about the cost of *our* code: agent-as-model's cost per call must stay within
  1.10x of a server that does the same sampling round trip and nothing else
  (`floor_server.py`, built on the same low-level `Server` + `RequestStateBoundary` layer). So
  both serve the same tools (`generate`, `chat_complete`) on both eras over real stdio, driven
  by the same SDK `Client` and the same trivial stand-in host. The SDK's own cost (transport,
  JSON-RPC, pydantic, the request-state seal) is in both and cancels out of the ratio.
* Only the server child's cost counts: the client and the host run in this process and are the
  same for both servers, so counting them would only dilute the ratio. The readings bracket a
  timed batch that follows a warm-up batch, so interpreter start-up, imports, the handshake and
  first-call work (the client's `tools/list`, lazy imports) are excluded.
* Two ways to read the cost:
  - CPU time (the default): on-CPU nanoseconds of every thread, from
    `/proc/<pid>/task/*/schedstat` (the tick-based user+system of `/proc/<pid>/stat` is 10 ms
    coarse, which at ~2 ms a call made a batch's reading jump by several percent). The machine
    is noisy, so every server of an era stays up for the whole era and the timed batches
    alternate between them (ours, floor, ... then the reverse order), several repeats. Noise on
    a CPU clock only ever adds time (a neighbour, cache and frequency effects), so the goal is
    judged on the *best* ratio, the minimum over the repeats of ours' CPU per call over the
    minimum of the floor's; the median of the per-repeat ratios of back-to-back batches and
    their spread are shown next to it. With two or more CPUs the client and the server are
    pinned to different CPUs: migrations and the two processes sharing a core are the largest
    noise source, and pinning treats every server alike.
  - Instructions (`--instructions`): every server runs under `valgrind --tool=callgrind
    --instr-atstart=no`; the warm-up runs uninstrumented, `callgrind_control -i on` switches
    instrumentation on right before a timed batch, and `--dump` then `-i off` right after it.
    The dump's total of executed instructions (Ir) for the same program and inputs does not
    depend on what else the machine is doing, so one repeat is a stable verdict where the CPU
    clock cannot resolve a few percent. It counts user-space instructions only (no kernel time,
    no cache misses): the costs both servers share in the kernel are left out, which makes the
    ratio somewhat stricter than a CPU-time ratio.
* A call on 2026-07-28 is one `Client.call_tool`: two `tools/call` requests (the
  `InputRequiredResult`, then the retry carrying the answer). Calls per second is wall clock for
  a batch, one call at a time: a latency figure that includes the client, not a throughput cap.

Run from the repository root: `python benchmarks/bench_calls.py [--instructions]` (`make bench`).
`--json FILE` writes every sample and the summary; `--check` exits 1 when a ratio is over the goal.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager, suppress
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import anyio
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.client.stdio import StdioServerParameters
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

from agent_as_model.commands.progress import Progress

HERE = Path(__file__).resolve().parent
GOAL = 1.05  # every tool, both eras (issue 12)
ERAS = ("legacy", "2026-07-28")
ANSWER_TEXT = "A short fixed answer."
CHAIN = "chat_complete 20-turn chain"
CHAIN_TURNS = 20
LONG_CHAIN = "chat_complete 200-turn chain"  # issue 28: the per-turn cost, ten times over
LONG_CHAIN_TURNS = 200


def cursor(transcript: Sequence[dict[str, str]]) -> str:
    """docs/cursors.md, computed here (not with the server's code): a chat_complete cursor."""
    text = json.dumps(
        {"model": "agent-default", "tool": "chat_complete", "transcript": list(transcript)},
        sort_keys=True,
        separators=(",", ":"),
    )
    return "cur_" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _chain(turns: int) -> tuple[dict[str, Any], str]:
    """A session-cursor chain of `turns` pairs: the history, its cursor, and what the next call returns."""
    history: list[dict[str, str]] = [{"role": "system", "content": "You are terse."}]
    for turn in range(turns):
        history += [
            {"role": "user", "content": f"Question {turn} about benchmarks?"},
            {"role": "assistant", "content": f"Answer {turn}, briefly."},
        ]
    messages = [*history, {"role": "user", "content": "One more question?"}]
    answered = [*messages, {"role": "assistant", "content": ANSWER_TEXT}]
    returned = json.dumps({"completion": ANSWER_TEXT, "response_id": cursor(answered)}, sort_keys=True)
    return {"messages": messages, "previous_response_id": cursor(history)}, returned


_CHAIN_ARGUMENTS, _CHAIN_RETURNED = _chain(CHAIN_TURNS)
_LONG_CHAIN_ARGUMENTS, _LONG_CHAIN_RETURNED = _chain(LONG_CHAIN_TURNS)
# label -> the arguments of its call. The label is the tool's name, except for the chain.
CALLS: dict[str, dict[str, Any]] = {
    "generate": {"prompt": "Write one line about benchmarks."},
    "chat_complete": {
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Write one line about benchmarks."},
        ]
    },
    # The floor verifies and mints the same cursor (floor_server.py), so the ratio is the cost of
    # our own code around the same cursor work.
    CHAIN: _CHAIN_ARGUMENTS,
    LONG_CHAIN: _LONG_CHAIN_ARGUMENTS,
}
# The same call asking for the product's object (issue 22): the floor ignores `result` and
# answers text, so its ratio against the floor over the text call's is object against text.
OBJECT = "chat_complete result: object"
CALLS[OBJECT] = {**CALLS["chat_complete"], "result": "object"}
TOOL_OF = {CHAIN: "chat_complete", LONG_CHAIN: "chat_complete", OBJECT: "chat_complete"}
RETURNED = {
    CHAIN: _CHAIN_RETURNED,
    LONG_CHAIN: _LONG_CHAIN_RETURNED,
}  # the text a call returns, when it is not ANSWER_TEXT


def returned_ok(label: str, text: str | None) -> bool:
    if label == OBJECT and text is not None and text.startswith("{"):  # ours: a ChatCompletion
        return bool(json.loads(text)["choices"][0]["message"]["content"] == ANSWER_TEXT)
    return text == RETURNED.get(label, ANSWER_TEXT)


GOALS = {CHAIN: 1.10, LONG_CHAIN: 1.10}  # per label, when not GOAL
# Per mode: timed calls per batch, warm-up calls per tool, repeats. Under callgrind a call is
# 50-100x slower, and a count of instructions needs neither many calls nor many repeats.
DEFAULTS = {"cpu": (175, 30, 7), "instructions": (300, 30, 1)}


@dataclass(frozen=True)
class ServerSpec:
    key: str
    label: str
    command: str
    args: tuple[str, ...] = ()
    informational: bool = False

    @property
    def program(self) -> str:
        """The path that shows in the server's command line: the script, or the console script."""
        return self.args[0] if self.args else self.command


def server_specs(
    *, mcpserver_floor: bool, floor_stdio: str = "sdk", ours: Path | None = None
) -> list[ServerSpec]:
    # The installed console script, as a host runs it; it sits next to this venv's interpreter.
    # `ours`: another build's console script instead (an earlier commit installed in its own venv),
    # measured against the same floor in the same run.
    ours = ours or Path(sys.executable).parent / "agent-as-model"
    if not ours.exists():
        raise SystemExit(f"{ours} not found: run `make install` (or pip install -e .) in this venv first")
    floor = str(HERE / "floor_server.py")
    specs = [
        ServerSpec("ours", "agent-as-model", str(ours)),
        ServerSpec("floor", "floor (low-level Server)", sys.executable, (floor, "--stdio", floor_stdio)),
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
    cost: int  # the meter's raw reading for the batch: CPU nanoseconds, or instructions
    wall_seconds: float
    dump: str | None = None  # the callgrind dump the reading came from
    gc_cost: int | None = None  # the part of `cost` spent in the garbage collector (callgrind only)

    @property
    def per_call(self) -> float:
        return self.cost / self.calls

    @property
    def gc_per_call(self) -> float | None:
        return None if self.gc_cost is None else self.gc_cost / self.calls

    @property
    def per_call_without_gc(self) -> float:
        return (self.cost - (self.gc_cost or 0)) / self.calls

    @property
    def calls_per_second(self) -> float:
        return self.calls / self.wall_seconds


# -- the server child: found in /proc, measured from /proc ------------------------------------------


def child_pids() -> set[int]:
    """Live processes whose parent is this process: the stdio transport spawns the server directly
    (a console script's shebang execs the interpreter in place, and so does valgrind's launcher
    with the tool, which then runs the program in that same process), and exposes no pid itself."""
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


def pinned_cpu_meter(pin: bool) -> tuple[CpuMeter, tuple[int, int] | None, str]:
    """The CPU meter, with this process pinned to the first chosen CPU; the CPUs and a note saying
    where everything runs."""
    cpus = choose_cpus(pin)
    if cpus is not None:
        os.sched_setaffinity(0, {cpus[0]})
    where = f"client on CPU {cpus[0]}, server on CPU {cpus[1]}" if cpus else "not pinned"
    return CpuMeter(), cpus, where


def pin_process(pid: int, cpu: int) -> None:
    # Every thread that exists now; the ones started later inherit their creator's mask.
    for task in os.listdir(f"/proc/{pid}/task"):
        with suppress(ProcessLookupError):
            os.sched_setaffinity(int(task), {cpu})


# -- the meters: what a batch costs the server ------------------------------------------------------


class Meter(Protocol):
    mode: str  # "cpu" or "instructions"
    cost_unit: str  # the unit of a raw reading
    unit: str  # the unit of a per-call figure in the table
    scale: float  # raw reading / scale = table unit
    parallel: bool  # whether the servers' batches may run at the same time

    def params(self, spec: ServerSpec) -> StdioServerParameters: ...

    async def start(self, pid: int) -> None: ...

    async def stop(self, pid: int, label: str) -> tuple[int, str | None]:
        """The cost since `start`, and where the reading was kept (if anywhere)."""
        ...

    async def collector(self, dump: str | None) -> int | None:
        """The part of a batch's cost spent in the garbage collector, when the meter can tell."""
        ...


class CpuMeter:
    """On-CPU time of every thread of the server, from schedstat, in nanoseconds."""

    mode = "cpu"
    cost_unit = "ns"
    unit = "µs"
    scale = 1e3
    parallel = False  # the servers would compete for the CPUs

    def __init__(self) -> None:
        self._started: dict[int, int] = {}

    def params(self, spec: ServerSpec) -> StdioServerParameters:
        return StdioServerParameters(command=spec.command, args=list(spec.args), cwd=str(HERE.parent))

    async def start(self, pid: int) -> None:
        self._started[pid] = cpu_ns(pid)

    async def stop(self, pid: int, label: str) -> tuple[int, str | None]:
        return cpu_ns(pid) - self._started.pop(pid), None

    async def collector(self, dump: str | None) -> int | None:
        return None  # a CPU clock cannot tell the collector's share apart


class CallgrindMeter:
    """Instructions executed by the server (all threads, user space), counted by callgrind.

    The server runs under `valgrind --tool=callgrind --instr-atstart=no`, so start-up and the
    warm-up run uninstrumented. `callgrind_control` addresses the server by pid (through vgdb,
    which interrupts a server blocked reading its stdin): `-i on` before a batch, then `--dump`
    (which writes the counts since the last dump to a new file and zeroes them) and `-i off`.
    """

    mode = "instructions"
    cost_unit = "Ir"
    unit = "Ir"
    scale = 1.0
    # Instruction counts do not depend on what else runs, so the servers share the CPUs.
    parallel = True

    def __init__(self, out_dir: Path) -> None:
        valgrind, control = shutil.which("valgrind"), shutil.which("callgrind_control")
        if valgrind is None or control is None:
            raise SystemExit("--instructions needs valgrind and callgrind_control on PATH")
        self.valgrind, self.control, self.out_dir = valgrind, control, out_dir

    def params(self, spec: ServerSpec) -> StdioServerParameters:
        options = [
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={self.out_dir}/callgrind.out.%p",
            # Valgrind's own messages go to a file, not into the benchmark's stderr.
            f"--log-file={self.out_dir}/valgrind.%p.log",
        ]
        return StdioServerParameters(
            command=self.valgrind,
            args=[*options, spec.command, *spec.args],
            cwd=str(HERE.parent),
            # A fixed hash seed: the same dict and set layouts on every run.
            env={"PYTHONHASHSEED": "0"},
        )

    async def start(self, pid: int) -> None:
        await self._control(pid, "--instr=on")

    async def stop(self, pid: int, label: str) -> tuple[int, str | None]:
        before = set(self.out_dir.glob(f"callgrind.out.{pid}.*"))
        await self._control(pid, f"--dump={label}")
        await self._control(pid, "--instr=off")
        new = set(self.out_dir.glob(f"callgrind.out.{pid}.*")) - before
        if len(new) != 1:
            raise RuntimeError(f"expected one new callgrind dump of process {pid}, found {sorted(new)}")
        dump = new.pop()
        return read_dump_total(dump, label), str(dump)

    async def collector(self, dump: str | None) -> int | None:
        """The instructions the garbage collector ran in this dump: the inclusive cost of
        CPython's `gc_collect_main` (every collection, young or full, automatic or not, runs in it;
        finalizers and weakref callbacks it triggers included), as callgrind_annotate adds it up."""
        if dump is None:
            return None
        annotate = shutil.which("callgrind_annotate")
        if annotate is None:
            return None
        result = await anyio.run_process([annotate, "--inclusive=yes", dump], check=True)
        return read_collector(result.stdout.decode(errors="replace"))

    async def _control(self, pid: int, action: str) -> None:
        result = await anyio.run_process(
            [self.control, action, str(pid)], check=False, stderr=subprocess.STDOUT
        )
        output = result.stdout.decode(errors="replace")
        # callgrind_control applies the action to *every* callgrind run when the pid matches none:
        # make sure it addressed this one, and only this one.
        addressed = re.findall(r"^PID (\d+):", output, re.MULTILINE)
        if result.returncode != 0 or addressed != [str(pid)] or "OK." not in output:
            raise RuntimeError(f"callgrind_control {action} {pid} failed:\n{output}")


def read_dump_total(dump: Path, label: str) -> int:
    """The dump's total instruction count: its `totals:` line, the sum of the costs it lists (what
    callgrind_annotate's per-function figures add up to). Not its `summary:` line: callgrind 3.19
    works that one out from per-thread running counters, and for a threaded program (the SDK's
    stdio transport reads and writes in worker threads) it came out wrong from the second dump on."""
    text = dump.read_text(errors="replace")
    if f"Trigger: dump {label}" not in text:
        raise RuntimeError(f"{dump} is not the dump requested as {label!r}")
    found = re.search(r"^totals:\s+(\d+)", text, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no totals line in {dump}")
    return int(found.group(1))


def read_collector(annotated: str) -> int:
    """`gc_collect_main`'s inclusive Ir from `callgrind_annotate --inclusive=yes` (0: it never ran)."""
    found = re.search(r"^\s*([\d,]+)\s.*:gc_collect_main\b", annotated, re.MULTILINE)
    return int(found.group(1).replace(",", "")) if found else 0


async def spawned_server(before: set[int], spec: ServerSpec) -> list[int]:
    """The one new child running the server's program. Looked for again for a few seconds when
    it is not seen at once: on a loaded machine /proc has been seen to lag (a smoke run in
    `make test` failed once with none found, and passed alone)."""
    deadline = time.monotonic() + 5
    while True:
        spawned = [pid for pid in child_pids() - before if spec.program in command_line(pid)]
        if len(spawned) == 1 or time.monotonic() > deadline:
            break
        await anyio.sleep(0.05)
    if len(spawned) != 1:
        children = {pid: command_line(pid) for pid in child_pids() - before}
        raise RuntimeError(
            f"expected one new {spec.label} process, found {sorted(spawned)} (new children: {children})"
        )
    return spawned


@asynccontextmanager
async def connect(
    spec: ServerSpec, era: str, meter: Meter, server_cpu: int | None, **options: Any
) -> AsyncIterator[tuple[Client, int]]:
    """The server under `meter`, connected, and its pid. `options`: the SDK Client's own keywords
    (another host, `sampling_capabilities`; by default the stand-in host below)."""
    before = child_pids()
    options.setdefault("sampling_callback", stand_in_host)
    async with Client(meter.params(spec), mode=era, **options) as client:
        # New children of this process that run this server's program: exactly one, or we would
        # be measuring the wrong process.
        spawned = await spawned_server(before, spec)
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


async def call_batch(client: Client, label: str, calls: int) -> None:
    arguments = CALLS[label]
    tool = TOOL_OF.get(label, label)
    for _ in range(calls):
        result = await client.call_tool(tool, arguments)
        # Checked on the client side: cheap, and not counted in the server's CPU.
        text = (
            result.content[0].text if result.content and isinstance(result.content[0], TextContent) else None
        )
        if result.is_error or not returned_ok(label, text):
            raise RuntimeError(
                f"{tool} returned an unexpected result: {result.model_dump(exclude_none=True)}"
            )


async def measure(
    meter: Meter, server: tuple[ServerSpec, Client, int], tool: str, era: str, repeat: int, calls: int
) -> Sample:
    spec, client, pid = server
    await meter.start(pid)
    started = time.perf_counter()
    await call_batch(client, tool, calls)
    wall = time.perf_counter() - started
    cost, dump = await meter.stop(pid, f"{spec.key}-{tool.replace(' ', '_')}-{era}-r{repeat + 1}")
    return Sample(spec.key, tool, era, repeat, calls, cost, wall, dump, await meter.collector(dump))


async def run_era(
    specs: Sequence[ServerSpec],
    era: str,
    meter: Meter,
    calls: int,
    warmup: int,
    repeats: int,
    server_cpu: int | None,
) -> list[Sample]:
    """Every server stays up for the whole era and the timed batches alternate between them, so
    each pair of batches compared ran seconds apart on the same machine state. (When the meter
    allows it, as callgrind's does, the servers' batches run at the same time instead.)"""
    samples: list[Sample] = []
    # A counting line of timed batches on a terminal (stderr; nothing on a pipe). Drawn between
    # batches by this client process: the server's measured CPU does not see it.
    progress = Progress(
        repeats * len(specs) * len(CALLS), sys.stderr, label=f"  {era}", unit="batch", delay=0
    )

    async def measure_all_tools(server: tuple[ServerSpec, Client, int], repeat: int) -> None:
        for tool in CALLS:
            samples.append(await measure(meter, server, tool, era, repeat, calls))
            progress.update(len(samples), f"repeat {repeat + 1}/{repeats}")

    async with AsyncExitStack() as stack:
        servers: list[tuple[ServerSpec, Client, int]] = []
        for spec in specs:
            client, pid = await stack.enter_async_context(connect(spec, era, meter, server_cpu))
            servers.append((spec, client, pid))
        await _each(meter.parallel, [partial(_warm_up, client, warmup) for _, client, _ in servers])
        for repeat in range(repeats):
            # Alternate the order so a drifting machine (thermal, a neighbour) favours no server.
            order = servers if repeat % 2 == 0 else servers[::-1]
            await _each(meter.parallel, [partial(measure_all_tools, server, repeat) for server in order])
            mine = sorted(samples[-len(servers) * len(CALLS) :], key=lambda s: (s.tool, s.server))
            brief = "  ".join(f"{s.server} {s.tool} {s.per_call / meter.scale:,.0f}" for s in mine)
            progress.clear()
            print(f"  {era:<10} repeat {repeat + 1}/{repeats} {meter.unit}/call: {brief}", file=sys.stderr)
    return samples


async def _warm_up(client: Client, calls: int) -> None:
    for tool in CALLS:
        await call_batch(client, tool, calls)


async def _each(parallel: bool, jobs: Sequence[Callable[[], Coroutine[Any, Any, None]]]) -> None:
    """Run the jobs one after another, or all at the same time."""
    if not parallel:
        for job in jobs:
            await job()
        return
    async with anyio.create_task_group() as group:
        for job in jobs:
            group.start_soon(job)


async def run_all(
    specs: Sequence[ServerSpec], meter: Meter, calls: int, warmup: int, repeats: int, server_cpu: int | None
) -> list[Sample]:
    samples: list[Sample] = []
    for era in ERAS:
        samples.extend(await run_era(specs, era, meter, calls, warmup, repeats, server_cpu))
    return samples


# -- the summary ------------------------------------------------------------------------------------


@dataclass
class Row:
    tool: str
    era: str
    best: dict[str, float] = field(default_factory=dict)  # per server: min over repeats, per call
    median: dict[str, float] = field(default_factory=dict)  # per server: median over repeats, per call
    calls_per_second: dict[str, float] = field(default_factory=dict)  # per server: median
    ratio_best: float = 0.0  # best ours / best floor: the goal's column
    ratio_median: float = 0.0  # median over repeats of ours/floor, each pair measured back to back
    ratio_range: tuple[float, float] = (0.0, 0.0)
    ratio_vs_mcpserver: float | None = None  # best ours / best MCPServer floor
    # Instructions only: per server, the collector's Ir per call in the best batch, and the goal's
    # ratio with each server's collector share taken out (see benchmarks/README.md).
    gc: dict[str, float] = field(default_factory=dict)
    ratio_without_gc: float | None = None

    @property
    def goal(self) -> float:
        return GOALS.get(self.tool, GOAL)

    @property
    def judged(self) -> float:
        """The goal's ratio: without the collector when the meter tells its share apart."""
        return self.ratio_best if self.ratio_without_gc is None else self.ratio_without_gc

    @property
    def meets_goal(self) -> bool:
        return self.judged <= self.goal


def summarise(samples: Sequence[Sample], specs: Sequence[ServerSpec]) -> list[Row]:
    rows: list[Row] = []
    for era in ERAS:
        for tool in CALLS:
            row = Row(tool, era)
            per_server: dict[str, list[Sample]] = {}
            for spec in specs:
                mine = sorted(
                    (s for s in samples if s.server == spec.key and s.tool == tool and s.era == era),
                    key=lambda s: s.repeat,
                )
                per_server[spec.key] = mine
                row.best[spec.key] = min(s.per_call for s in mine)
                row.median[spec.key] = statistics.median(s.per_call for s in mine)
                row.calls_per_second[spec.key] = statistics.median(s.calls_per_second for s in mine)
            # Noise only ever adds cost, so the least costly batch of each server is the closest
            # to its own cost: the ratio of the minimums is the estimate least moved by the noise.
            row.ratio_best = _ratio(row.best["ours"], row.best["floor"])
            # Each repeat's two batches ran back to back: their ratio cancels the machine's drift.
            row.ratio_median, row.ratio_range = _paired(per_server["ours"], per_server["floor"])
            if "mcpserver" in per_server:
                row.ratio_vs_mcpserver = _ratio(row.best["ours"], row.best["mcpserver"])
            best = {key: min(mine, key=lambda s: s.per_call) for key, mine in per_server.items()}
            if all(s.gc_cost is not None for s in best.values()):
                row.gc = {key: s.gc_per_call or 0.0 for key, s in best.items()}
                without = {key: min(s.per_call_without_gc for s in mine) for key, mine in per_server.items()}
                row.ratio_without_gc = _ratio(without["ours"], without["floor"])
            rows.append(row)
    return rows


def _ratio(ours: float, other: float) -> float:
    return ours / other if other > 0 else float("nan")


def _paired(ours: Sequence[Sample], other: Sequence[Sample]) -> tuple[float, tuple[float, float]]:
    ratios = [o.per_call / f.per_call for o, f in zip(ours, other, strict=True) if f.cost > 0]
    if not ratios:
        return float("nan"), (float("nan"), float("nan"))
    return statistics.median(ratios), (min(ratios), max(ratios))


def render_tables(rows: Sequence[Row], specs: Sequence[ServerSpec], meter: Meter, repeats: int) -> str:
    """The goal's table, and with CPU time a second one of figures for information."""
    informational = any(s.informational for s in specs)
    cpu, spread = meter.mode == "cpu", repeats > 1
    unit = meter.unit

    def amount(row: Row, key: str) -> str:
        text = f"{row.best[key] / meter.scale:,.0f}"
        # With CPU time, the minimum (what the goal is judged on) and the median after it.
        return f"{text} ({row.median[key] / meter.scale:,.0f})" if cpu and spread else text

    collector = any(row.ratio_without_gc is not None for row in rows)
    header = ["tool", "era", f"ours {unit}/call", f"floor {unit}/call", "ours−floor", "ours/floor"]
    if collector:
        header += ["ours gc/call", "floor gc/call", "w/o gc"]
    header += ["goal", ""]
    if spread:
        header += ["median ratio", "(min–max)"]
    if informational and not cpu:
        header += [f"MCPServer {unit}/call", "ours/MCPServer"]
    goal_lines: list[list[str]] = []
    for row in rows:
        line = [
            row.tool,
            row.era,
            amount(row, "ours"),
            amount(row, "floor"),
            f"{(row.best['ours'] - row.best['floor']) / meter.scale:+,.0f}",
            f"{row.ratio_best:.3f}x",
        ]
        if collector:
            line += [f"{row.gc.get('ours', 0):,.0f}", f"{row.gc.get('floor', 0):,.0f}"]
            line += [f"{row.ratio_without_gc:.3f}x" if row.ratio_without_gc is not None else "-"]
        line += [f"{row.goal:.2f}x", "ok" if row.meets_goal else "OVER"]
        if spread:
            low, high = row.ratio_range
            line += [f"{row.ratio_median:.3f}x", f"{low:.2f}–{high:.2f}"]
        if informational and not cpu:
            line += [amount(row, "mcpserver"), f"{row.ratio_vs_mcpserver:.3f}x"]
        goal_lines.append(line)
    tables = [format_table(header, goal_lines)]
    if cpu:
        header = ["tool", "era", "ours calls/s", "floor calls/s"]
        if informational:
            header += [f"MCPServer {unit}/call", "ours/MCPServer"]
        lines: list[list[str]] = []
        for row in rows:
            line = [
                row.tool,
                row.era,
                f"{row.calls_per_second['ours']:,.0f}",
                f"{row.calls_per_second['floor']:,.0f}",
            ]
            if informational:
                line += [amount(row, "mcpserver"), f"{row.ratio_vs_mcpserver:.3f}x"]
            lines.append(line)
        about = "For information: wall-clock calls per second (medians, client included)"
        about += (
            "; the MCPServer floor's CPU per call, and min ours / min MCPServer." if informational else "."
        )
        tables.append(about + "\n" + format_table(header, lines))
    return "\n\n".join(tables)


def format_table(header: Sequence[str], lines: Sequence[Sequence[str]]) -> str:
    """Plain text columns: the first two to the left, the figures to the right."""
    everything = [header, *lines]
    widths = [max(len(line[i]) for line in everything) for i in range(len(header))]
    out = []
    for n, line in enumerate(everything):
        cells = [
            c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def explain(meter: Meter, repeats: int) -> list[str]:
    """The lines printed above the tables: what their figures are."""
    if meter.mode == "cpu":
        lines = [
            "Server-process CPU per call (user+system, all threads), µs: min (median) over the repeats.",
            "ours/floor = min ours / min floor, the goal's column: noise only adds time, so the minimum",
            "is the reading it moves least. median ratio: the median of the per-repeat ratios of",
            f"back-to-back batches, (min–max) their spread. Goal: ours/floor <= {GOAL:.2f}x.",
        ]
    else:
        lines = [
            "Server-process instructions per call (Ir: user space, all threads, counted by callgrind):",
            "the same for the same program and inputs however busy the machine is. gc/call: the",
            "garbage collector's share (gc_collect_main, inclusive); w/o gc: ours/floor with each",
            "server's collector share taken out, the goal's column (a collection landing in one batch",
            f"does not decide it). Goal: <= {GOAL:.2f}x the floor; the {CHAIN_TURNS}- and"
            f" {LONG_CHAIN_TURNS}-turn chains <= {GOALS[CHAIN]:.2f}x.",
        ]
    return [*lines, "One 2026-07-28 call is two tools/call requests (InputRequiredResult, then the retry)."]


def write_json(
    path: Path, settings: dict[str, Any], samples: Sequence[Sample], rows: Sequence[Row], meter: Meter
) -> None:
    document = {
        "goal_ratio": GOAL,
        "goal_ratios": GOALS,
        "goal_judged_on": "ratio_without_gc (instructions), ratio_best (cpu)",
        "settings": settings,
        "summary": [
            {
                "tool": r.tool,
                "era": r.era,
                f"{meter.cost_unit}_per_call_min": r.best,
                f"{meter.cost_unit}_per_call_median": r.median,
                "calls_per_second": r.calls_per_second,
                "ratio_best": r.ratio_best,
                "ratio_median": r.ratio_median,
                "ratio_range": list(r.ratio_range),
                "ratio_best_ours_mcpserver": r.ratio_vs_mcpserver,
                "gc_per_call": r.gc,
                "ratio_without_gc": r.ratio_without_gc,
                "meets_goal": r.meets_goal,
            }
            for r in rows
        ],
        "samples": [
            asdict(s) | {f"{meter.cost_unit}_per_call": s.per_call, "gc_per_call": s.gc_per_call}
            for s in samples
        ],
    }
    path.write_text(json.dumps(document, indent=2) + "\n")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    cpu, instructions = DEFAULTS["cpu"], DEFAULTS["instructions"]

    def default(n: int) -> str:
        if cpu[n] == instructions[n]:
            return f"(default {cpu[n]})"
        return f"(default {cpu[n]}; {instructions[n]} with --instructions)"

    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions under callgrind instead of timing CPU (deterministic, slower)",
    )
    parser.add_argument(
        "--calls",
        type=int,
        help=f"timed calls per (server, tool, era) batch {default(0)}",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        help=f"untimed calls per tool before the timed batches {default(1)}",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        help=f"interleaved timed batches of every configuration {default(2)}",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the samples and the summary here")
    parser.add_argument(
        "--callgrind-dir",
        type=Path,
        metavar="DIR",
        help="with --instructions: keep the callgrind dumps here (new or empty), e.g. for callgrind_annotate",
    )
    parser.add_argument(
        "--no-mcpserver-floor", action="store_true", help="skip the informational MCPServer-based floor"
    )
    parser.add_argument(
        "--ours",
        type=Path,
        metavar="COMMAND",
        help="the agent-as-model console script to measure (default: this venv's), e.g. an earlier "
        "commit installed in a venv of its own, for a before/after against the same floor",
    )
    parser.add_argument(
        "--floor-stdio",
        choices=("sdk", "ours"),
        default="sdk",
        help="the floor's stdio transport: the SDK's (default) or agent-as-model's own, which ours "
        "runs on (then the ratio leaves the transport out)",
    )
    parser.add_argument(
        "--no-pin", action="store_true", help="do not pin the client and the server to separate CPUs"
    )
    parser.add_argument(
        "--check", action="store_true", help=f"exit 1 when the goal's ours/floor is over {GOAL:.2f}x"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    mode = "instructions" if args.instructions else "cpu"
    calls, warmup, repeats = (
        default if given is None else given
        for given, default in zip((args.calls, args.warmup, args.repeats), DEFAULTS[mode], strict=True)
    )
    if calls < 1 or repeats < 1 or warmup < 0:
        raise SystemExit("--calls and --repeats must be at least 1, --warmup at least 0")
    if args.callgrind_dir and not args.instructions:
        raise SystemExit("--callgrind-dir goes with --instructions")
    specs = server_specs(
        mcpserver_floor=not args.no_mcpserver_floor, floor_stdio=args.floor_stdio, ours=args.ours
    )
    with ExitStack() as stack:
        meter: Meter
        if args.instructions:
            out_dir = args.callgrind_dir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
            if out_dir.exists() and any(out_dir.iterdir()):
                raise SystemExit(f"{out_dir} is not empty: give --callgrind-dir a new or empty directory")
            out_dir.mkdir(parents=True, exist_ok=True)
            meter = CallgrindMeter(out_dir.resolve())
            cpus = None
            where = "under callgrind, the servers side by side"
            where += f", dumps in {out_dir}" if args.callgrind_dir else ""
        else:
            meter, cpus, where = pinned_cpu_meter(not args.no_pin)
        print(
            f"{repeats} {'repeat' if meter.parallel else 'interleaved repeat'}{'s' * (repeats != 1)} x "
            f"{len(specs)} servers x {len(ERAS)} eras, "
            f"{calls} timed calls per tool after {warmup} warm-up calls; {where}",
            file=sys.stderr,
        )
        samples = anyio.run(run_all, specs, meter, calls, warmup, repeats, cpus[1] if cpus else None)
    rows = summarise(samples, specs)
    print()
    print("\n".join(explain(meter, repeats)))
    print()
    print(render_tables(rows, specs, meter, repeats))
    print()
    verdict = "met" if all(r.meets_goal for r in rows) else "NOT met"
    print(
        f"goal: ours <= {GOAL:.2f}x the floor on every tool and era, the chains <= {GOALS[CHAIN]:.2f}x"
        f" ({meter.mode}): {verdict}"
    )
    if args.json:
        settings = {
            "mode": meter.mode,
            "calls": calls,
            "warmup": warmup,
            "repeats": repeats,
            "cost": "schedstat ns" if meter.mode == "cpu" else "callgrind Ir",
            "cpus": os.cpu_count(),
            "client_cpu": cpus[0] if cpus else None,
            "server_cpu": cpus[1] if cpus else None,
            "python": sys.version.split()[0],
        }
        write_json(args.json, settings, samples, rows, meter)
        print(f"wrote {args.json}")
    return 1 if args.check and verdict != "met" else 0


if __name__ == "__main__":
    sys.exit(main())
