"""What callers' limits cost a call (spec section 17): the server's CPU per call over `serve --http`
with limits counted in this process's memory, in an SQLite file and in a real redis-server,
against the same server with the same named caller and no limits.

Why it measures what it measures:

* The question for the operator is what turning limits on adds to a call. So the yardstick is the
  same command, the same caller (one named token, so the door is the same), no limits; the same
  call (`generate`, a short prompt, an instant stand-in host); every figure is a ratio against it
  in the same run, so a busy machine moves all alike. A limited call does one admission (one
  check-and-count: a dictionary, one SQLite transaction in a worker thread, one Lua script) and
  one settlement (the place given back, the tokens added) whatever its era. The limits are set
  high enough that nothing is refused: a refusal is cheaper than a call.
* The method is `bench_calls.py`'s: the server's CPU from `/proc/<pid>/task/*/schedstat` (every
  thread: SQLite's work runs in worker threads), warm-up calls first, several repeats alternating
  the servers' order, the minimum over repeats as the reading (noise only adds time), the client
  and the servers pinned to different CPUs when there are two. Over HTTP the server's figure
  includes its HTTP stack (uvicorn, the SDK's transport), the same for every row.
* Redis runs as a real `redis-server` on a free port of 127.0.0.1 (skipped, and said, when the
  binary is absent). The agent-as-model figure counts the client side of each Redis command
  (encoding it, the socket calls); redis-server's own CPU per call is shown apart.

* The limit check alone (the first table): the gate's admission and settlement of one call,
  in this process, as `calls.py` makes them, with no server around them: this process's CPU (every
  thread's, `time.process_time`) and the wall time per call, the minimum over the repeats. It is
  the cost without the HTTP call's noise, which on a shared machine can be larger than the check:
  read the HTTP table's small differences with that in mind.

Run from the repository root: `python benchmarks/bench_callers.py` (`make bench-callers`).
`--calls` and `--repeats` change the sizes; `--gate-only` skips the servers.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack, suppress
from pathlib import Path

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_calls import ERAS, choose_cpus, cpu_ns, format_table, pin_process, stand_in_host  # noqa: E402

COMMAND = str(Path(sys.executable).parent / "agent-as-model")
TOKEN = "bench-caller-token-0123456789abcdef"
KEY = "bench-key-0123456789abcdef0123456789abcdef"
LIMITS = "requests-per-minute = 1_000_000_000\nconcurrent-calls = 1_000\ntokens-per-day = 1_000_000_000_000\n"
READY_WAIT = 60.0


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """`serve --http` with one named caller, its limits counted in `counters` (None: no limits)."""

    def __init__(self, label: str, counters: str | None, directory: Path) -> None:
        self.label = label
        self.port = free_port()
        config = directory / f"{label}.toml"
        digest = hashlib.sha256(TOKEN.encode()).hexdigest()
        limits = "" if counters is None else f'[limits]\n{LIMITS}counters = "{counters}"\n\n'
        config.write_text(f'{limits}[callers.bench]\ntoken-sha256 = "{digest}"\n')
        self.log = Path(tempfile.mkstemp(prefix="bench-callers-", suffix=".log")[1])
        env = {**os.environ, "AGENT_AS_MODEL_STATE_KEY": KEY}
        self.process = subprocess.Popen(
            [COMMAND, "serve", "--http", "--port", str(self.port), "--config", str(config)],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            env=env,
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def wait_ready(self) -> None:
        deadline = time.monotonic() + READY_WAIT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.label}: the server exited:\n{self.log.read_text()}")
            with suppress(httpx2.HTTPError):
                if httpx2.get(f"http://127.0.0.1:{self.port}/healthz", timeout=2).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"{self.label}: not ready after {READY_WAIT}s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.unlink(missing_ok=True)


class Redis:
    def __init__(self, directory: Path) -> None:
        binary = shutil.which("redis-server")
        assert binary is not None
        self.port = free_port()
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
            + ["--dir", str(directory)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port)
        deadline = time.monotonic() + READY_WAIT
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        client.close()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=20)


async def batch(client: Client, calls: int) -> None:
    for _ in range(calls):
        result = await client.call_tool("generate", {"prompt": "benchmark"})
        if result.is_error:
            raise RuntimeError(f"a call failed: {result.content}")


async def run_era(
    era: str, servers: Sequence[Server], redis: Redis | None, calls: int, repeats: int
) -> dict[str, tuple[float, float | None]]:
    """Each server's minimum CPU per call (µs) over the repeats, and redis-server's own."""
    best: dict[str, float] = {}
    redis_best: float | None = None
    async with AsyncExitStack() as stack:
        clients = {}
        for server in servers:
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
            )
            client = await stack.enter_async_context(
                Client(
                    streamable_http_client(server.url, http_client=http),
                    mode=era,
                    sampling_callback=stand_in_host,
                )
            )
            await batch(client, max(20, calls // 5))  # warm-up: imports, caches, the first admissions
            clients[server.label] = client
        for repeat in range(repeats):
            order = list(servers) if repeat % 2 == 0 else list(reversed(servers))
            for server in order:
                before = cpu_ns(server.process.pid)
                redis_before = None if redis is None else cpu_ns(redis.process.pid)
                await batch(clients[server.label], calls)
                used = (cpu_ns(server.process.pid) - before) / calls / 1e3
                best[server.label] = min(best.get(server.label, used), used)
                if redis is not None and server.label == "redis" and redis_before is not None:
                    own = (cpu_ns(redis.process.pid) - redis_before) / calls / 1e3
                    redis_best = own if redis_best is None else min(redis_best, own)
    return {label: (value, redis_best if label == "redis" else None) for label, value in best.items()}


async def gate_costs(
    kinds: Sequence[tuple[str, str | None]], calls: int, repeats: int, redis: Redis | None
) -> list[list[str]]:
    """Each counters' admission plus settlement of one call, in this process: CPU and wall µs."""
    from agent_as_model.adapters.callers import (
        CallerLimits,
        CallersSettings,
        Gate,
        Spent,
        Visit,
        open_counters,
    )

    limits = CallerLimits(1_000_000_000, 1_000, 1_000_000_000_000)
    lines: list[list[str]] = []
    for label, where in kinds:
        if where is None:
            continue
        gate = Gate(CallersSettings(defaults=limits, counters=where), open_counters(where))
        visit = Visit("bench")
        cpu = wall = own = float("inf")
        try:
            for repeat in range(repeats + 1):  # the first is the warm-up
                cpu_before, wall_before = time.process_time_ns(), time.perf_counter_ns()
                redis_before = cpu_ns(redis.process.pid) if redis is not None and label == "redis" else 0
                for _ in range(calls):
                    ticket = await gate.admit(visit)
                    await gate.settle("bench", ticket, Spent(30))
                if repeat:
                    cpu = min(cpu, (time.process_time_ns() - cpu_before) / calls / 1e3)
                    wall = min(wall, (time.perf_counter_ns() - wall_before) / calls / 1e3)
                    if redis is not None and label == "redis":
                        own = min(own, (cpu_ns(redis.process.pid) - redis_before) / calls / 1e3)
        finally:
            await gate.aclose()
        lines.append([label, f"{cpu:.1f}", f"{wall:.1f}", "" if own == float("inf") else f"{own:.1f}"])
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=200, help="calls per timed batch (default 200)")
    parser.add_argument("--repeats", type=int, default=5, help="timed batches per server (default 5)")
    parser.add_argument("--no-pin", action="store_true", help="do not pin the client and servers to CPUs")
    parser.add_argument("--gate-only", action="store_true", help="measure the limit check alone, no servers")
    options = parser.parse_args(argv)
    cpus = choose_cpus(not options.no_pin)
    if cpus is not None:
        os.sched_setaffinity(0, {cpus[0]})
    directory = Path(tempfile.mkdtemp(prefix="bench-callers-"))
    redis = Redis(directory) if shutil.which("redis-server") else None
    kinds: list[tuple[str, str | None]] = [("none", None), ("memory", "memory")]
    kinds.append(("sqlite", f"sqlite:{directory / 'counters.db'}"))
    if redis is not None:
        kinds.append(("redis", redis.url))
    else:
        print("redis-server is not installed: the Redis row is left out", file=sys.stderr)
    try:
        gate_lines = anyio.run(gate_costs, kinds, options.calls * 10, options.repeats, redis)
    except BaseException:
        if redis is not None:
            redis.stop()
        shutil.rmtree(directory, ignore_errors=True)
        raise
    print(
        f"The limit check alone (admit + settle), in-process, the minimum of {options.repeats} batches of "
        f"{options.calls * 10} calls:"
    )
    print(
        format_table(["limits counted in", "CPU µs/call", "wall µs/call", "redis-server µs/call"], gate_lines)
    )
    if options.gate_only:
        if redis is not None:
            redis.stop()
        shutil.rmtree(directory, ignore_errors=True)
        return 0
    servers = [Server(label, counters, directory) for label, counters in kinds]
    try:
        for server in servers:
            server.wait_ready()
            if cpus is not None:
                pin_process(server.process.pid, cpus[1])
        if redis is not None and cpus is not None:
            pin_process(redis.process.pid, cpus[1])
        lines: list[list[str]] = []
        for era in ERAS:
            found = anyio.run(run_era, era, servers, redis, options.calls, options.repeats)
            floor = found["none"][0]
            for label, (value, own) in found.items():
                extra = "" if own is None else f"{own:.1f}"
                lines.append(
                    [era, label, f"{value:.1f}", f"{value / floor:.3f}x", f"{value - floor:+.1f}", extra]
                )
    finally:
        for server in servers:
            server.stop()
        if redis is not None:
            redis.stop()
        shutil.rmtree(directory, ignore_errors=True)
    where = f"client on CPU {cpus[0]}, servers on CPU {cpus[1]}" if cpus else "not pinned"
    sizes = f"the minimum of {options.repeats} batches of {options.calls}"
    print(f"Server CPU per call over HTTP, {sizes} ({where}):")
    header = ["era", "limits counted in", "µs/call", "vs none", "µs added", "redis-server µs/call"]
    print(format_table(header, lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
