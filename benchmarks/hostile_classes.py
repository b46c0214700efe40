"""Issue 26's classes of hostile request, over stdio and HTTP: `bench_hostile.py` runs them.

Each class is tried the way an attacker would, black-box, against a real `agent-as-model serve`
(stdio) or `serve --http` (one worker) per era, while `list_models` is sent one after another on
another connection (over stdio, on the same one: stdio has only one). Judged per row:

1. the worst concurrent `list_models` is at most 100 ms over the baseline's median;
2. every hostile call ends with a result or a clear error (one that says what was wrong and
   whether the host was asked), never a hang, a crash or an opaque internal error;
3. the server's CPU is idle (under 10 % over a 100 ms window) within 1 s of the attack ending;
4. the server's RSS is back within 50 MB of what it was before the first case.

The transport attacks (a stdio client that never reads; half-sent HTTP headers and bodies;
abandoned legacy handshakes) are rows of their own, with the same four judgements where they
apply. The HTTP server runs with small holds (`HTTP_HOLDS`) so they end within the run.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, CreateMessageRequestParams, CreateMessageResult, TextContent

COMMAND = Path(sys.executable).parent / "agent-as-model"
OVER_BASELINE_MS = 100.0
IDLE_WITHIN_S = 1.0
IDLE_SHARE = 0.10  # of one CPU, over IDLE_WINDOW_S
IDLE_WINDOW_S = 0.1
RSS_WITHIN_MB = 50.0
BASELINE_CALLS = 30
GIVE_UP_S = 180.0
HALF_SENT = 1100  # the issue's count: past a common 1,024-descriptor limit
ABANDONED = 400
HTTP_HOLDS = (
    "--header-timeout",
    "2",
    "--body-timeout",
    "2",
    "--session-idle-timeout",
    "3",
    "--max-sessions",
    "200",
)
# The host's SSE event bound. The SDK client's default (1 MiB) refuses the legacy sampling request
# of the 2.9 MB conversation; the row would then measure the client's refusal (the server cancels
# the call: tests/test_http_holds.py) rather than the server carrying the whole round.
HOST_SSE_EVENT = 8 * 1024 * 1024
HOST_ASKED = "The host was asked; its answer was not used."
NOTHING_SENT = "Nothing was sent to the host."


Q = [{"role": "user", "content": "q"}]


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


@dataclass(frozen=True)
class Request:
    label: str
    tool: str
    arguments: dict[str, Any]
    host_text: str = "done"


# The issue's 60,000 tool messages (3.3 MB): one call, answered 60,000 times.
ONE_CALL = {"role": "assistant", "content": None, "tool_calls": tool_conversation(1)[1]["tool_calls"]}
REPEATED = [{"role": "tool", "tool_call_id": "c0", "content": "r"}] * 60_000
REQUESTS = [
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
        host_text="```" + " " * 60_000,
    ),
    Request(
        "persona.input_schema: 40 levels of $ref fan-out",
        "generate",
        {"prompt": "p", "persona": {"name": "p", "input_schema": fan_out(40)}},
    ),
    Request(
        "pattern (?:a{1000}){1000} in output_schema",
        "chat_complete",
        {
            "messages": Q,
            "output_schema": {
                "type": "object",
                "properties": {"a": {"type": "string", "pattern": "(?:a{1000}){1000}"}},
            },
        },
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
    def __init__(self) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.log = Path(tempfile.mkstemp(prefix="bench-hostile-", suffix=".log")[1])
        self.process = subprocess.Popen(
            [str(COMMAND), "serve", "--http", "--port", str(self.port), *HTTP_HOLDS],
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
    def __init__(self) -> None:
        self.text = "done"

    async def __call__(self, context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=self.text), model="m"
        )


@asynccontextmanager
async def connect(transport: str, era: str, host: Host, http: HttpServer | None) -> AsyncIterator[Client]:
    if transport == "stdio":
        async with Client(
            StdioServerParameters(command=str(COMMAND), args=["serve"]), mode=era, sampling_callback=host
        ) as client:
            yield client
        return
    assert http is not None
    async with (
        httpx2.AsyncClient(timeout=httpx2.Timeout(60, read=GIVE_UP_S)) as session,
        Client(
            streamable_http_client(
                f"{http.base}/mcp", http_client=session, max_sse_event_size=HOST_SSE_EVENT
            ),
            mode=era,
            sampling_callback=host,
        ) as client,
    ):
        yield client


async def timed_list_models(client: Client) -> float:
    start = time.perf_counter()
    result = await client.call_tool("list_models", {})
    assert not result.is_error, result
    return (time.perf_counter() - start) * 1000


def ending(result: CallToolResult) -> str:
    first = result.content[0] if result.content else None
    text = first.text if isinstance(first, TextContent) else ""
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


async def measured(run: Run, label: str, attack: Callable[[], Any]) -> dict[str, Any]:
    """Run `attack` (it returns its ending) while the probe sends list_models back to back."""
    outcome: dict[str, Any] = {}

    async def hostile() -> None:
        began = time.perf_counter()
        try:
            with anyio.fail_after(GIVE_UP_S):
                ends = await attack()
        except Exception as err:  # a stall or an error no class expects
            ends = f"raised {type(err).__name__}: {str(err)[:80]}"
        outcome.update(ends=ends, seconds=time.perf_counter() - began)

    during: list[float] = []

    async def probing() -> None:
        during.extend(await run.probe.during(outcome))

    async with anyio.create_task_group() as tg:
        tg.start_soon(probing)
        tg.start_soon(hostile)
    with run.probe.paused():  # the probe's own calls would keep the server from ever idling
        idle = await seconds_to_idle(run.pid)
    await anyio.sleep(offload_trim_delay())  # the server trims its heap just after heavy work
    row = {
        "case": label,
        "list_models_calls": len(during),
        "list_models_max_ms": max(during) if during else None,
        "baseline_ms": run.base_ms,
        "seconds": outcome["seconds"],
        "ends": outcome["ends"],
        "idle_after_s": idle,
        "rss_mb": rss_mb(run.pid),
        "rss_start_mb": run.start_rss,
    }
    row["misses"] = misses(row)
    return row


def offload_trim_delay() -> float:
    from agent_as_model.engine.offload import TRIM_DELAY

    return TRIM_DELAY * 2


def misses(row: dict[str, Any]) -> list[str]:
    found = []
    worst = row["list_models_max_ms"]
    if worst is not None and worst > row["baseline_ms"] + OVER_BASELINE_MS:
        found.append(f"list_models {worst:.0f} ms")
    if row["ends"] not in ("result", "caller error", "host violation", "closed", "answered after reaping"):
        found.append(f"ended: {row['ends']}")
    if row["idle_after_s"] > IDLE_WITHIN_S:
        found.append(f"CPU busy {row['idle_after_s']:.1f} s after")
    if row["rss_mb"] - row["rss_start_mb"] > RSS_WITHIN_MB:
        found.append(f"RSS +{row['rss_mb'] - row['rss_start_mb']:.0f} MB")
    return found


def hostile_call(client: Client, host: Host, request: Request) -> Callable[[], Any]:
    async def attack() -> str:
        host.text = request.host_text
        return ending(await client.call_tool(request.tool, request.arguments))

    return attack


async def run_transport(transport: str, era: str) -> list[dict[str, Any]]:
    http = HttpServer() if transport == "http" else None
    host = Host()
    rows: list[dict[str, Any]] = []
    probe: ProbeProcess | None = None
    try:
        async with connect(transport, era, host, http) as client:
            await client.call_tool("list_models", {})
            if http is None:
                run = Run(server_child(), SameConnection(client))
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
                rows.append(await measured(run, request.label, hostile_call(client, host, request)))
            if http is not None:
                rows.append(
                    await measured(
                        run, f"{HALF_SENT} half-sent headers", lambda: half_sent(http, HALF_SENT, body=False)
                    )
                )
                rows.append(
                    await measured(run, "200 half-sent bodies", lambda: half_sent(http, 200, body=True))
                )
                if era == "2026-07-28":  # the probe opens no session, so the full table does not stop it
                    rows.append(
                        await measured(
                            run, f"{ABANDONED} abandoned legacy handshakes", lambda: abandoned(http, host)
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


async def half_sent(http: HttpServer, count: int, *, body: bool) -> str:
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
    return "closed"


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


async def abandoned(http: HttpServer, host: Host) -> str:
    """ABANDONED initialize requests and nothing after; then a legacy host until it gets in."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx2.AsyncClient(timeout=60) as session:
        for _ in range(ABANDONED):
            await session.post(f"{http.base}/mcp", json=INITIALIZE, headers=headers)
    deadline = time.monotonic() + GIVE_UP_S
    while time.monotonic() < deadline:
        try:
            async with connect("http", "legacy", host, http) as legacy:
                if ending(await legacy.call_tool("list_models", {})) == "result":
                    return "answered after reaping"
        except Exception:  # 503 while the abandoned sessions hold the table
            await anyio.sleep(0.5)
    return "locked out"


def never_reads(seconds: float = 10.0, requests: int = 2_000) -> dict[str, Any]:
    """A stdio client that writes requests and never reads stdout: the server's RSS over the
    writing, then every answer once the client reads them all."""
    process = subprocess.Popen(
        [str(COMMAND), "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
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
    while answered < requests and process.stdout.readline():
        answered += 1
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
        "rss_start_mb": start_rss,
        "rss_peak_mb": peak,
        "rss_end_mb": end_rss,
        "idle_after_s": cpu_idle,
    }


def _idle_sync(pid: int) -> float:
    return anyio.run(seconds_to_idle, pid)


if __name__ == "__main__" and sys.argv[1:2] == ["probe"]:
    anyio.run(probe_main, sys.argv[2], sys.argv[3])


def print_rows(rows: list[dict[str, Any]]) -> bool:
    """The table; whether every row meets all four judgements."""
    print(
        f"{'transport':<9} {'era':<10} {'case':<48} {'calls':>5} {'max ms':>8} {'base':>6} {'s':>7}  "
        f"{'ends':<22} {'idle s':>6} {'RSS MB':>13}  verdict"
    )
    met = True
    for row in rows:
        where = f"{row['transport']:<9} {row['era']:<10} {row['case']:<48}"
        if "misses" not in row:
            blank = f"{'':>5} {'':>8} {row['baseline_ms']:>6.1f} {'':>7}  {'':<22} {'':>6}"
            print(f"{where} {blank} {row['rss_start_mb']:>13.1f}")
            continue
        met = met and not row["misses"]
        peak = "" if row["list_models_max_ms"] is None else f"{row['list_models_max_ms']:.1f}"
        rss = f"{row['rss_start_mb']:.0f} -> {row['rss_mb']:.0f}"
        verdict = "MISSED: " + "; ".join(row["misses"]) if row["misses"] else "met"
        print(
            f"{where} {row['list_models_calls']:>5} {peak:>8} {row['baseline_ms']:>6.1f} "
            f"{row['seconds']:>7.2f}  "
            f"{row['ends'][:22]:<22} {row['idle_after_s']:>6.2f} {rss:>13}  {verdict}"
        )
    return met


def run_all(eras: tuple[str, ...]) -> tuple[list[dict[str, Any]], dict[str, Any], bool]:
    rows: list[dict[str, Any]] = []
    for transport in ("stdio", "http"):
        for era in eras:
            rows += anyio.run(run_transport, transport, era)
    met = print_rows(rows)
    stalled = never_reads()
    grew = stalled["rss_peak_mb"] - stalled["rss_start_mb"]
    back = stalled["rss_end_mb"] - stalled["rss_start_mb"]
    ok = (
        stalled["answered"] == stalled["written"]
        and grew <= RSS_WITHIN_MB
        and back <= RSS_WITHIN_MB
        and stalled["idle_after_s"] <= IDLE_WITHIN_S
    )
    print(
        f"stdio client that never reads (10 s): {stalled['written_while_not_read']} requests written "
        f"before the server stopped reading, RSS {stalled['rss_start_mb']:.0f} -> peak "
        f"{stalled['rss_peak_mb']:.0f} -> "
        f"{stalled['rss_end_mb']:.0f} MB; once read, {stalled['answered']} of {stalled['written']} answered; "
        f"idle {stalled['idle_after_s']:.2f} s after: {'met' if ok else 'MISSED'}"
    )
    return rows, stalled, met and ok
