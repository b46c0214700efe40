"""The classes of hostile request, over stdio and HTTP: `bench_hostile.py` runs them.

Each class is tried the way an attacker would, black-box, against a real `agent-as-model serve`
(stdio) or `serve --http` (one worker) per era, while `list_models` is sent one after another on
another connection (over stdio, on the same one: stdio has only one). Every row is judged on four
judgements:

1. **wait**: the worst concurrent `list_models` is at most 100 ms over the baseline's median;
2. **ends**: the hostile call (or attack) ends as its class expects (a result or a clear error,
   one that says what was wrong and whether the host was asked; a closed connection; a host
   served), never a hang, a crash or an opaque internal error, and **within its bound**: the
   seconds the class's own limit gives it (a refusal by count at once, a schema check within its
   step budget, a half-sent request within its timeout, the next host at once after a flood). A
   request's bound is work the server does, so it is judged on the server's CPU time over the
   call (every thread; a loaded machine stretches the wall clock, not that); the transport's
   holds and the flood's next host are judged on the wall clock;
3. **CPU**: the server's CPU is idle (under 10 % over a 100 ms window) within 1 s of the end;
4. **RSS**: the server's RSS is back within 50 MB of what it was before the first row.

Over stdio the host is the server's only peer: the probe shares its connection and process, so
its waits include this process's own work (parsing what the server sends), and nobody else is
held; there judgement 1 is shown, and the classes must meet 2-4. The HTTP server runs with short
header and body timeouts (`HTTP_HOLDS`) so the transport attacks end within the run; the flood of
abandoned legacy handshakes has a server of its own with the default session flags.

`run_all(eras, commands)` runs every row against each command given (the server before a change
and after it, one after the other per transport and era), in one run.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import (
    CallToolResult,
    CreateMessageRequestParams,
    CreateMessageResult,
    SamplingCapability,
    SamplingToolsCapability,
    TextContent,
)

COMMAND = Path(sys.executable).parent / "agent-as-model"
OVER_BASELINE_MS = 100.0
IDLE_WITHIN_S = 1.0
IDLE_SHARE = 0.10  # of one CPU, over IDLE_WINDOW_S
IDLE_WINDOW_S = 0.1
RSS_WITHIN_MB = 50.0
BASELINE_CALLS = 30
GIVE_UP_S = 180.0
HALF_SENT = 1100  # past a common 1,024-descriptor limit
# When set, only the request classes whose label holds it run (no transport attacks, floods, or
# the client that never reads): one class before and after a change, in one short run.
ONLY: str | None = None
HANDSHAKES = 10_000  # abandoned legacy initializes: ten times the default --max-sessions
FLOODERS = 8  # connections the handshake flood is sent on at once
CONCURRENT = 1000  # calls sent at once over stdio
HOLD_S = 2.0  # the header and body timeouts of the HTTP server
HTTP_HOLDS = ("--header-timeout", str(HOLD_S), "--body-timeout", str(HOLD_S))
# The host's SSE event bound. The SDK client's default (1 MiB) refuses the legacy sampling request
# of a 2.9 MB conversation; the row would then measure the client's refusal (the server cancels
# the call: tests/test_http_holds.py) rather than the server carrying the whole round.
HOST_SSE_EVENT = 8 * 1024 * 1024
HOST_ASKED = "The host was asked; its answer was not used."
NOTHING_SENT = "Nothing was sent to the host."
CLEAR = ("result", "caller error", "host violation")
TIMED_OUT = "could not be checked in time"
# Bounds, in seconds of wall time from the call's start to its end, on 2 shared cores. A refusal by
# count or size reads next to nothing; a check within --schema-steps (50,000 steps, some 1.5 s of
# CPU at its costliest) or --schema-timeout (0.25 s of CPU) stops there; the margin is for what the
# wall clock adds on a loaded machine: the round trips, the transfer of a 3 MB body, a CPU to run on.
AT_ONCE_S = 1.0
SCHEMA_TIMEOUT_S = 0.25 + 0.75
SCHEMA_STEPS_S = 1.5 + 1.5


Q = [{"role": "user", "content": "q"}]


def said(n: int) -> list[dict[str, Any]]:
    """`n` plain messages, user and assistant in turn, a user's last."""
    return [{"role": "assistant" if (n - i) % 2 == 0 else "user", "content": "q"} for i in range(n)]


def tool_conversation(n: int) -> list[dict[str, Any]]:
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in range(n)
    ]
    results = [{"role": "tool", "tool_call_id": f"c{i}", "content": f"r{i}"} for i in reversed(range(n))]
    return [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *results,
    ]


def fan_out(depth: int) -> dict[str, Any]:
    """Each level refers twice to the next under oneOf: 2**depth paths in about 3 KB."""
    defs: dict[str, Any] = {
        f"d{i}": {"oneOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(depth)
    }
    defs[f"d{depth}"] = {"type": "integer"}
    return {"type": "object", "$defs": defs, "properties": {"prompt": {"$ref": "#/$defs/d0"}}}


def large_schema(properties: int = 10_000) -> dict[str, Any]:
    """A caller output_schema of `properties` string properties, about 46 bytes each in JSON."""
    each = {"type": "string", "maxLength": 64}
    return {"type": "object", "properties": {f"p{i:05d}": dict(each) for i in range(properties)}}


@dataclass(frozen=True)
class Request:
    label: str
    tool: str
    arguments: dict[str, Any]
    answers: tuple[str, ...] = ("done",)  # the host's answers, one a round (the last repeats)
    within_s: float = AT_ONCE_S  # the class's bound
    expect: tuple[str, ...] = CLEAR  # the endings it may have
    says: str = ""  # a text its result must hold, when the class has one ending only


# The 60,000 tool messages (3.3 MB): one call, answered 60,000 times.
ONE_CALL = {"role": "assistant", "content": None, "tool_calls": tool_conversation(1)[1]["tool_calls"]}
REPEATED = [{"role": "tool", "tool_call_id": "c0", "content": "r"}] * 60_000
UNIQUE_ITEMS = [{"role": "user", "content": f"x{i}", "n": i * 1.0} for i in range(6000)]
BAD_3MB = '{"a": "' + "x" * 3_000_000 + '"}'  # under the 4 MiB body a legacy host posts it in


def _schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


REQUESTS = [
    Request("100,000 plain messages (3.1 MB)", "chat_complete", {"messages": said(100_000)}),
    Request(
        "60,000 tool messages for one call (3.3 MB)", "chat_complete", {"messages": [*Q, ONE_CALL, *REPEATED]}
    ),
    Request(
        "20,000 tool calls and results (2.9 MB)", "chat_complete", {"messages": tool_conversation(20_000)}
    ),
    Request(
        "fence + 60,000 spaces under output_schema",
        "chat_complete",
        {"messages": Q, "output_schema": {"type": "object"}},
        answers=("```" + " " * 60_000,),
    ),
    Request(
        "persona.input_schema: 40 levels of $ref fan-out",
        "generate",
        {"prompt": "p", "persona": {"name": "p", "input_schema": fan_out(40)}},
        within_s=SCHEMA_STEPS_S,
    ),
    Request(
        "pattern (?:a{1000}){1000} in output_schema",
        "chat_complete",
        {"messages": Q, "output_schema": _schema({"a": {"type": "string", "pattern": "(?:a{1000}){1000}"}})},
    ),
    Request(
        "output_schema ^(a+)+$, host answers 29 a + b",
        "generate",
        {"prompt": "q", "persona": {"name": "p", "output_schema": _schema({"a": {"pattern": "^(a+)+$"}})}},
        answers=('{"a": "' + "a" * 29 + 'b"}',),
        within_s=SCHEMA_TIMEOUT_S,
        expect=("host violation",),
        says="does not match",
    ),
    Request(
        "output_schema ^(a|a)+$, host answers 40 a + b",
        "chat_complete",
        {"messages": Q, "output_schema": _schema({"a": {"type": "string", "pattern": "^(a|a)+$"}})},
        answers=('{"a": "' + "a" * 40 + 'b"}',),
        within_s=SCHEMA_TIMEOUT_S,
        expect=("host violation",),
        says=TIMED_OUT,
    ),
    Request(
        "persona.input_schema ^(a|a)+$, model = 40 a + b",
        "generate",
        {
            "prompt": "q",
            "model": "a" * 40 + "b",
            "persona": {"name": "p", "input_schema": _schema({"model": {"pattern": "^(a|a)+$"}})},
        },
        within_s=SCHEMA_TIMEOUT_S,
        expect=("caller error",),
        says=TIMED_OUT,
    ),
    Request(
        "output_schema of 10,000 properties (459 KiB)",
        "chat_complete",
        {"messages": Q, "output_schema": large_schema()},
        answers=('{"p00000": "v", "p09999": "w"}',),
        within_s=SCHEMA_STEPS_S,
        # Checking it against the draft's meta-schema spends --schema-steps (some 30 a property).
        expect=("caller error",),
        says="--schema-steps",
    ),
    Request(
        "uniqueItems over 6,000 items",
        "chat_complete",
        {"messages": Q, "output_schema": _schema({"m": {"type": "array", "uniqueItems": True}})},
        answers=(json.dumps({"m": UNIQUE_ITEMS}),),
        within_s=2 * AT_ONCE_S,
        expect=("result",),
    ),
    Request(
        "3 MB repair round",
        "chat_complete",
        {"messages": Q, "output_schema": _schema({"a": {"type": "integer"}}), "repair_attempts": 1},
        answers=(BAD_3MB, '{"a": 1}'),
        within_s=3 * AT_ONCE_S,
        expect=("result",),
    ),
]


# -- the server's process: CPU and RSS --------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def seconds_to_idle(pid: int) -> float:
    """From now until a window in which the server used under IDLE_SHARE of a CPU."""
    start = time.monotonic()
    while time.monotonic() - start < GIVE_UP_S:
        before = cpu_seconds(pid)
        await anyio.sleep(IDLE_WINDOW_S)
        if cpu_seconds(pid) - before < IDLE_SHARE * IDLE_WINDOW_S:
            return time.monotonic() - start - IDLE_WINDOW_S
    return float("inf")


def server_child() -> int:
    """The pid of this process's `agent-as-model` child (the stdio Client started it)."""
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[1] == me and b"agent-as-model" in cmdline:
                return int(entry.name)
    raise RuntimeError("no agent-as-model child")


# -- servers and clients ---------------------------------------------------------------------------


class HttpServer:
    def __init__(self, command: Path = COMMAND, args: tuple[str, ...] = HTTP_HOLDS) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.log = Path(tempfile.mkstemp(prefix="bench-hostile-", suffix=".log")[1])
        self.process = subprocess.Popen(
            [str(command), "serve", "--http", "--port", str(self.port), *args],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx2.get(f"{self.base}/healthz", timeout=2).status_code == 200:
                    return
            except httpx2.HTTPError:
                time.sleep(0.2)
        raise SystemExit(f"server not ready: {self.log.read_text()}")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.unlink(missing_ok=True)


class Host:
    """Answers each sampling request with the next of its answers (the last one repeats)."""

    def __init__(self) -> None:
        self.answers: tuple[str, ...] = ("done",)
        self.asked = 0

    def script(self, answers: tuple[str, ...]) -> None:
        self.answers, self.asked = answers, 0

    async def __call__(self, context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        text = self.answers[min(self.asked, len(self.answers) - 1)]
        self.asked += 1
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text), model="m")


@asynccontextmanager
async def connect(
    transport: str,
    era: str,
    host: Host,
    http: HttpServer | None,
    command: Path = COMMAND,
    *,
    host_tools: bool = False,
) -> AsyncIterator[Client]:
    """A host of `era`; `host_tools`: it declares `sampling.tools`, so tool calls travel to it as
    tool_use blocks (else as text)."""
    options: dict[str, Any] = {"mode": era, "sampling_callback": host}
    if host_tools:
        options["sampling_capabilities"] = SamplingCapability(tools=SamplingToolsCapability())
    if transport == "stdio":
        async with Client(StdioServerParameters(command=str(command), args=["serve"]), **options) as client:
            yield client
        return
    assert http is not None
    async with (
        httpx2.AsyncClient(timeout=httpx2.Timeout(60, read=GIVE_UP_S)) as session,
        Client(
            streamable_http_client(
                f"{http.base}/mcp", http_client=session, max_sse_event_size=HOST_SSE_EVENT
            ),
            **options,
        ) as client,
    ):
        yield client


async def timed_list_models(client: Client) -> float:
    start = time.perf_counter()
    result = await client.call_tool("list_models", {})
    assert not result.is_error, result
    return (time.perf_counter() - start) * 1000


def text_of(result: CallToolResult) -> str:
    first = result.content[0] if result.content else None
    return first.text if isinstance(first, TextContent) else ""


def ending(result: CallToolResult) -> str:
    text = text_of(result)
    if not result.is_error:
        return "result"
    if text.endswith(NOTHING_SENT):
        return "caller error"
    if text.endswith(HOST_ASKED):
        return "host violation"
    return "unclear error: " + text[:80]


# -- the probe: list_models, back to back -------------------------------------------------------


class SameConnection:
    """Over stdio the probe shares the hostile call's connection and process (stdio has one):
    its waits include this process's own work on the call (the legacy host parsing 60,000
    sampling messages), an over-estimate of the server's part."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def baseline(self) -> float:
        return statistics.median([await timed_list_models(self.client) for _ in range(BASELINE_CALLS)])

    async def during(self, outcome: dict[str, Any]) -> list[float]:
        waits = []
        while not outcome:
            waits.append(await timed_list_models(self.client))
        return waits

    @contextmanager
    def paused(self) -> Iterator[None]:
        yield  # it sends nothing once the hostile call has ended


class ProbeProcess:
    """Over HTTP the probe is a process of its own, a host of its own on its own connection, so
    nothing this process does delays it: each line it prints is a list_models's start and wait."""

    def __init__(self, url: str, era: str) -> None:
        self.samples: list[tuple[float, float]] = []
        self.process = subprocess.Popen(
            [sys.executable, __file__, "probe", url, era], stdout=subprocess.PIPE, text=True
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            began, ms = line.split()
            self.samples.append((float(began), float(ms)))

    async def baseline(self) -> float:
        deadline = time.monotonic() + GIVE_UP_S
        while len(self.samples) < 2 * BASELINE_CALLS and time.monotonic() < deadline:
            await anyio.sleep(0.1)
        return statistics.median(ms for _, ms in self.samples[BASELINE_CALLS:])  # after its warm-up

    async def during(self, outcome: dict[str, Any]) -> list[float]:
        began = time.time()
        while not outcome:
            await anyio.sleep(0.05)
        ended = time.time()
        await anyio.sleep(0.2)  # a list_models still in flight when the attack ended
        return [ms for start, ms in list(self.samples) if start <= ended and start + ms / 1000 >= began]

    @contextmanager
    def paused(self) -> Iterator[None]:
        self.process.send_signal(signal.SIGSTOP)
        try:
            yield
        finally:
            self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


async def probe_main(url: str, era: str) -> None:
    async with (
        httpx2.AsyncClient(timeout=httpx2.Timeout(60, read=GIVE_UP_S)) as session,
        Client(streamable_http_client(url, http_client=session), mode=era) as client,
    ):
        while True:
            began = time.time()
            ms = await timed_list_models(client)
            print(f"{began:.6f} {ms:.3f}", flush=True)


# -- one row ---------------------------------------------------------------------------------------


@dataclass
class Run:
    pid: int
    probe: SameConnection | ProbeProcess
    base_ms: float = 0.0
    start_rss: float = 0.0
    # Over stdio the host is the server's only peer: a wait holds no one else, so it is shown and
    # not judged (the probe shares the connection, and waits behind the call's own frames).
    judges_wait: bool = True


@dataclass(frozen=True)
class Expected:
    """What a row must end with: one of `endings`, holding `says`, within `within_s` seconds: of
    the server's CPU time on it when `on_cpu` (a class whose bound is work the server does, which
    a loaded machine stretches in wall time but not in CPU time), else of the wall clock (the
    transport's holds, whose bounds are timeouts)."""

    within_s: float
    endings: tuple[str, ...] = CLEAR
    says: str = ""
    on_cpu: bool = False


@dataclass
class Ended:
    """How an attack ended: its ending, the text it ended with, and the seconds judged against
    its bound when they are not the whole attack's (the host after a flood)."""

    how: str
    text: str = ""
    judged_s: float | None = None


@dataclass
class Attack:
    label: str
    run: Callable[[], Any]  # returns an Ended
    expected: Expected = field(default_factory=lambda: Expected(AT_ONCE_S))


async def measured(run: Run, attack: Attack) -> dict[str, Any]:
    """Run the attack while the probe sends list_models back to back; the row and its misses."""
    outcome: dict[str, Any] = {}

    cpu_before = cpu_seconds(run.pid)

    async def hostile() -> None:
        began = time.perf_counter()
        try:
            with anyio.fail_after(GIVE_UP_S):
                ended = await attack.run()
        except Exception as err:  # a stall or an error no class expects
            ended = Ended(f"raised {type(err).__name__}: {str(err)[:80]}")
        outcome.update(ended=ended, seconds=time.perf_counter() - began)

    during: list[float] = []

    async def probing() -> None:
        during.extend(await run.probe.during(outcome))

    async with anyio.create_task_group() as tg:
        tg.start_soon(probing)
        tg.start_soon(hostile)
    # Every thread of the server, the probe's calls meanwhile included (a few ms each).
    cpu = cpu_seconds(run.pid) - cpu_before
    with run.probe.paused():  # the probe's own calls would keep the server from ever idling
        idle = await seconds_to_idle(run.pid)
    await anyio.sleep(offload_trim_delay())  # the server trims its heap just after heavy work
    ended: Ended = outcome["ended"]
    row = {
        "case": attack.label,
        "list_models_calls": len(during),
        "list_models_max_ms": max(during) if during else None,
        "baseline_ms": run.base_ms,
        "seconds": outcome["seconds"] if ended.judged_s is None else ended.judged_s,
        "attack_s": outcome["seconds"],
        "cpu_s": cpu,
        "on_cpu": attack.expected.on_cpu,
        "ends": ended.how,
        "text": ended.text[:300],
        "within_s": attack.expected.within_s,
        "idle_after_s": idle,
        "rss_mb": rss_mb(run.pid),
        "rss_start_mb": run.start_rss,
    }
    row["misses"] = misses(row, attack.expected, run.judges_wait)
    return row


def offload_trim_delay() -> float:
    from agent_as_model.engine.offload import TRIM_DELAY

    return TRIM_DELAY * 2


def misses(row: dict[str, Any], expected: Expected, judges_wait: bool = True) -> list[str]:
    """What a row misses of the four judgements (three over stdio): [] when it meets them all."""
    found = []
    worst = row["list_models_max_ms"]
    if judges_wait and worst is not None and worst > row["baseline_ms"] + OVER_BASELINE_MS:
        found.append(f"wait {worst:.0f} ms")
    if row["ends"] not in expected.endings:
        found.append(f"ended: {row['ends'][:60]}")
    elif expected.says and expected.says not in row["text"]:
        found.append(f"ended without {expected.says!r}")
    if expected.on_cpu and row["cpu_s"] > expected.within_s:
        found.append(f"ended after {row['cpu_s']:.2f} s of CPU > {expected.within_s:g} s")
    if not expected.on_cpu and row["seconds"] > expected.within_s:
        found.append(f"ended after {row['seconds']:.2f} s > {expected.within_s:g} s")
    if row["idle_after_s"] > IDLE_WITHIN_S:
        found.append(f"CPU busy {row['idle_after_s']:.1f} s after")
    if row["rss_mb"] - row["rss_start_mb"] > RSS_WITHIN_MB:
        found.append(f"RSS +{row['rss_mb'] - row['rss_start_mb']:.0f} MB")
    return found


def hostile_call(client: Client, host: Host, request: Request) -> Attack:
    async def run() -> Ended:
        host.script(request.answers)
        result = await client.call_tool(request.tool, request.arguments)
        return Ended(ending(result), text_of(result))

    return Attack(request.label, run, Expected(request.within_s, request.expect, request.says, on_cpu=True))


def concurrent_calls(client: Client, host: Host) -> Attack:
    """CONCURRENT calls sent at once on the one connection; ends when every one is answered."""

    async def run() -> Ended:
        host.script(("done",))
        endings: list[str] = []

        async def one(i: int) -> None:
            endings.append(ending(await client.call_tool("generate", {"prompt": f"q{i}"})))

        async with anyio.create_task_group() as tg:
            for i in range(CONCURRENT):
                tg.start_soon(one, i)
        answered = endings.count("result")
        return Ended("result" if answered == CONCURRENT else f"{answered} of {CONCURRENT} answered")

    return Attack(f"{CONCURRENT:,} calls at once", run, Expected(30.0, ("result",)))


async def run_transport(transport: str, era: str, command: Path = COMMAND) -> list[dict[str, Any]]:
    http = HttpServer(command) if transport == "http" else None
    host = Host()
    rows: list[dict[str, Any]] = []
    probe: ProbeProcess | None = None
    try:
        async with connect(transport, era, host, http, command) as client:
            await client.call_tool("list_models", {})
            if http is None:
                run = Run(server_child(), SameConnection(client), judges_wait=False)
            else:
                probe = ProbeProcess(f"{http.base}/mcp", era)
                run = Run(http.process.pid, probe)
            run.base_ms = await run.probe.baseline()
            run.start_rss = rss_mb(run.pid)
            rows.append(
                {
                    "case": "baseline: list_models alone",
                    "baseline_ms": run.base_ms,
                    "rss_start_mb": run.start_rss,
                }
            )
            for request in REQUESTS:
                if ONLY is None or ONLY in request.label:
                    rows.append(await measured(run, hostile_call(client, host, request)))
            if ONLY is None and http is None:
                rows.append(await measured(run, concurrent_calls(client, host)))
            elif ONLY is None and http is not None:
                closed = Expected(HOLD_S + AT_ONCE_S, ("closed",))
                rows.append(
                    await measured(
                        run,
                        Attack(
                            f"{HALF_SENT:,} half-sent headers",
                            lambda: half_sent(http, HALF_SENT, body=False),
                            closed,
                        ),
                    )
                )
                rows.append(
                    await measured(
                        run, Attack("200 half-sent bodies", lambda: half_sent(http, 200, body=True), closed)
                    )
                )
    finally:
        if probe is not None:
            probe.stop()
        if http is not None:
            http.stop()
    for row in rows:
        row.update(transport=transport, era=era)
    return rows


# -- the transport attacks -------------------------------------------------------------------------


async def half_sent(http: HttpServer, count: int, *, body: bool) -> Ended:
    """`count` connections that send part of a request and stop; ends when the server has closed
    every one (its header or body timeout), "closed"."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, count + 512)), hard))
    head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if body:
        head += b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", http.port))
        sock.sendall(head)
        socks.append(sock)
    await anyio.to_thread.run_sync(lambda: [_read_to_close(sock) for sock in socks])
    return Ended("closed")


def _read_to_close(sock: socket.socket) -> None:
    sock.settimeout(GIVE_UP_S)
    with sock:
        try:
            while sock.recv(4096):
                pass
        except ConnectionResetError:
            pass


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "x", "version": "1"},
    },
}
SERVED_WITHIN_S = 30.0  # how long the next legacy host keeps trying after the flood


async def run_handshake_flood(command: Path = COMMAND) -> list[dict[str, Any]]:
    """HANDSHAKES abandoned legacy initializes against a server with the default session flags
    (--max-sessions 1000), on FLOODERS connections at once, then a legacy host: served on its
    first try ("served at once"), after some tries ("served after N s"), or not within
    SERVED_WITHIN_S ("locked out"). The bound is the host's, from the flood's end: the flood itself
    takes as long as the server takes to answer it. A 2026-07-28 probe (it opens no session)
    measures the wait meanwhile."""
    server = HttpServer(command, ())
    probe = ProbeProcess(f"{server.base}/mcp", "2026-07-28")
    rows: list[dict[str, Any]] = []
    try:
        run = Run(server.process.pid, probe)
        run.base_ms = await probe.baseline()
        run.start_rss = rss_mb(run.pid)
        rows.append(
            {"case": "baseline: list_models alone", "baseline_ms": run.base_ms, "rss_start_mb": run.start_rss}
        )

        async def flood() -> Ended:
            body = json.dumps(INITIALIZE).encode()
            head = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

            def post(count: int) -> None:
                conn = HTTPConnection("127.0.0.1", server.port, timeout=GIVE_UP_S)
                for _ in range(count):
                    conn.request("POST", "/mcp", body, head)
                    conn.getresponse().read()
                conn.close()

            async with anyio.create_task_group() as tg:
                for _ in range(FLOODERS):
                    tg.start_soon(anyio.to_thread.run_sync, post, HANDSHAKES // FLOODERS)
            return await next_host(server)

        expected = Expected(AT_ONCE_S, ("served at once",))
        rows.append(
            await measured(run, Attack(f"{HANDSHAKES:,} abandoned legacy handshakes", flood, expected))
        )
    finally:
        probe.stop()
        server.stop()
    for row in rows:
        row.update(transport="http", era="2026-07-28")
    return rows


async def next_host(http: HttpServer) -> Ended:
    host = Host()
    started = time.monotonic()
    tries = 0
    while time.monotonic() - started < SERVED_WITHIN_S:
        tries += 1
        try:
            async with connect("http", "legacy", host, http) as legacy:
                if ending(await legacy.call_tool("generate", {"prompt": "q"})) == "result":
                    took = time.monotonic() - started
                    how = "served at once" if tries == 1 else f"served after {took:.1f} s"
                    return Ended(how, judged_s=took)
        except Exception:  # 503 while abandoned sessions hold the table
            await anyio.sleep(0.5)
    return Ended("locked out", judged_s=time.monotonic() - started)


def never_reads(seconds: float = 10.0, requests: int = 2_000, command: Path = COMMAND) -> dict[str, Any]:
    """A stdio client that writes requests and never reads stdout: the server's RSS over the
    writing, then every answer once the client reads them all."""
    process = subprocess.Popen(
        [str(command), "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None and process.stdout is not None
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INITIALIZE["params"]}
    process.stdin.write(json.dumps(init).encode() + b"\n")
    process.stdin.flush()
    process.stdout.readline()
    process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    process.stdin.flush()
    time.sleep(0.5)
    start_rss = rss_mb(process.pid)
    written = [0]

    def writer() -> None:
        assert process.stdin is not None
        for n in range(1, requests + 1):
            line = {"jsonrpc": "2.0", "id": n, "method": "tools/list"}
            try:
                process.stdin.write(json.dumps(line).encode() + b"\n")
                process.stdin.flush()
            except (BrokenPipeError, ValueError):
                return
            written[0] = n

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    peak = start_rss
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.25)
        peak = max(peak, rss_mb(process.pid))
    stalled_at = written[0]
    # The client reads now: the server resumes reading, so the writer finishes; every request
    # is answered once (a watchdog ends the server if one never is).
    watchdog = threading.Timer(GIVE_UP_S, process.kill)
    watchdog.start()
    answered = 0
    began = time.monotonic()
    while answered < requests and process.stdout.readline():
        answered += 1
    drained = time.monotonic() - began
    watchdog.cancel()
    thread.join()
    cpu_idle = _idle_sync(process.pid)
    end_rss = rss_mb(process.pid)
    process.kill()
    process.wait()
    return {
        "written_while_not_read": stalled_at,
        "written": written[0],
        "answered": answered,
        "drained_s": drained,
        "rss_start_mb": start_rss,
        "rss_peak_mb": peak,
        "rss_end_mb": end_rss,
        "idle_after_s": cpu_idle,
    }


def _idle_sync(pid: int) -> float:
    return anyio.run(seconds_to_idle, pid)


if __name__ == "__main__" and sys.argv[1:2] == ["probe"]:
    anyio.run(probe_main, sys.argv[2], sys.argv[3])


# -- the table -------------------------------------------------------------------------------------


def print_rows(rows: list[dict[str, Any]]) -> bool:
    """The table, one row per class and server; whether every row meets all four judgements."""
    print(
        f"{'server':<7} {'transport':<9} {'era':<10} {'case':<46} {'calls':>5} {'max ms':>8} {'base':>6} "
        f"{'s':>7} {'cpu s':>6} {'bound':>5}  {'ends':<22} {'idle s':>6} {'RSS MB':>13}  verdict"
    )
    met = True
    for row in rows:
        where = f"{row.get('server', ''):<7} {row['transport']:<9} {row['era']:<10} {row['case'][:46]:<46}"
        if "misses" not in row:
            blank = f"{'':>5} {'':>8} {row['baseline_ms']:>6.1f} {'':>7} {'':>6} {'':>5}  {'':<22} {'':>6}"
            print(f"{where} {blank} {row['rss_start_mb']:>13.1f}")
            continue
        met = met and not row["misses"]
        peak = "" if row["list_models_max_ms"] is None else f"{row['list_models_max_ms']:.1f}"
        if row["transport"] == "stdio" and peak:
            peak = f"({peak})"  # shown, not judged: over stdio the host is the only peer
        rss = f"{row['rss_start_mb']:.0f} -> {row['rss_mb']:.0f}"
        verdict = "MISSED: " + "; ".join(row["misses"]) if row["misses"] else "met"
        print(
            f"{where} {row['list_models_calls']:>5} {peak:>8} {row['baseline_ms']:>6.1f} "
            f"{row['seconds']:>7.2f} {row['cpu_s']:>6.2f} {row['within_s']:>5g}  "
            f"{row['ends'][:22]:<22} {row['idle_after_s']:>6.2f} {rss:>13}  {verdict}",
            flush=True,
        )
    return met


def judge_never_reads(stalled: dict[str, Any]) -> list[str]:
    found = []
    if stalled["answered"] != stalled["written"]:
        found.append(f"{stalled['answered']} of {stalled['written']} answered")
    if stalled["rss_peak_mb"] - stalled["rss_start_mb"] > RSS_WITHIN_MB:
        found.append(f"RSS peak +{stalled['rss_peak_mb'] - stalled['rss_start_mb']:.0f} MB")
    if stalled["rss_end_mb"] - stalled["rss_start_mb"] > RSS_WITHIN_MB:
        found.append(f"RSS +{stalled['rss_end_mb'] - stalled['rss_start_mb']:.0f} MB after")
    if stalled["idle_after_s"] > IDLE_WITHIN_S:
        found.append(f"CPU busy {stalled['idle_after_s']:.1f} s after")
    return found


def run_all(
    eras: tuple[str, ...], commands: list[tuple[str, Path]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool]:
    """Every row against each (name, command), one after the other per transport and era; the rows,
    the stdio clients that never read, and whether the last command met every judgement."""
    rows: list[dict[str, Any]] = []
    for transport in ("stdio", "http"):
        for era in eras:
            for name, command in commands:
                made = anyio.run(run_transport, transport, era, command)
                rows += [{**row, "server": name} for row in made]
    for name, command in commands:
        if ONLY is None:
            rows += [{**row, "server": name} for row in anyio.run(run_handshake_flood, command)]
    print_rows(rows)
    last = commands[-1][0]
    met = all(not row.get("misses") for row in rows if row["server"] == last)
    stalled_rows: list[dict[str, Any]] = []
    for name, command in commands:
        if ONLY is not None:
            break
        stalled = never_reads(command=command)
        found = judge_never_reads(stalled)
        stalled_rows.append({**stalled, "server": name, "misses": found})
        print(
            f"{name}: stdio client that never reads (10 s): {stalled['written_while_not_read']} requests "
            f"written before the server stopped reading, RSS {stalled['rss_start_mb']:.0f} -> peak "
            f"{stalled['rss_peak_mb']:.0f} -> {stalled['rss_end_mb']:.0f} MB; once read, "
            f"{stalled['answered']} of {stalled['written']} answered in {stalled['drained_s']:.1f} s; "
            f"idle {stalled['idle_after_s']:.2f} s after: {'MISSED: ' + '; '.join(found) if found else 'met'}"
        )
        if name == last:
            met = met and not found
    return rows, stalled_rows, met
