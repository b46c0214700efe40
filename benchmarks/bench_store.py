"""What a response store costs (issue 23, item 8): server CPU per `responses_create` call with
`--store sqlite:` and `--store redis://` against the same server with no store, and a chain of
100 stored turns continued one call at a time.

Why it measures what it measures:

* The question for the operator is what turning the store on adds to a call. So the yardstick is
  the same command with no store, the same call (`responses_create`, a short string input), in
  the same run; every figure is a ratio against it, so a busy machine moves both alike. A stored
  call does one sealed write (the plain call) and, continued, one sealed read before it.
* A chain's history only grows, and a stored chain is one read however long it is (the stored
  value holds the resolved items), so the question for a long chain is whether a call's cost
  stays linear in its history. The control is the stateless way to hold the same conversation:
  the caller passes the whole history back as `input` to a server with no store. Each chain call
  is measured by itself, and the table shows buckets of calls (turns 1-10, 41-50, 91-100): the
  stored call's cost over the passed-back call's, bucket by bucket. Flat means linear (the
  passed-back call is linear in its history: the dialect reads every item, the payload carries
  them); a ratio that climbs would mean the store adds more than linear work.
* The method is `bench_calls.py`'s: the installed command over stdio, the server child's CPU from
  `/proc/<pid>/task/*/schedstat`, warm-up calls first, several repeats alternating the servers'
  order, the minimum over repeats as the reading (noise only adds time), client and server pinned
  to different CPUs when there are two. On 2026-07-28 a call is two requests and the store is read
  on each (the chain is resolved before round one, and again on the retry).
* Redis runs as a real `redis-server` on a free port of 127.0.0.1 (skipped, and said, when the
  binary is absent); its figures include the loopback round trip to it.

Run from the repository root: `python benchmarks/bench_store.py` (`make bench-store`).
`--calls`, `--repeats` and `--turns` change the sizes.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_calls import ERAS, ServerSpec, connect, cpu_ns, format_table, pinned_cpu_meter  # noqa: E402

TOOL = "responses_create"
COMMAND = str(Path(sys.executable).parent / "agent-as-model")
BUCKETS = ((1, 10), (41, 50), (91, 100))


def spec(key: str, *store: str) -> ServerSpec:
    args = ("serve", *(("--store", store[0]) if store else ()))
    return ServerSpec(key, key, COMMAND, args)


@contextmanager
def redis_server() -> Iterator[str | None]:
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        import redis

        client = redis.Redis(port=port)
        for _ in range(600):
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait()


async def _call(client: Client, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(TOOL, arguments)
    if result.is_error or result.structured_content is None:
        raise RuntimeError(f"unexpected result: {result.model_dump(exclude_none=True)}")
    return result.structured_content


async def plain_cost(client: Client, pid: int, calls: int) -> float:
    """Server CPU per plain call, in µs."""
    started = cpu_ns(pid)
    for _ in range(calls):
        await _call(client, {"input": "Name one prime number."})
    return (cpu_ns(pid) - started) / calls / 1e3


async def chain_costs(client: Client, pid: int, turns: int, stored: bool) -> list[float]:
    """Server CPU of each call of a chain, in µs: continued by id (stored) or passed back whole."""
    costs: list[float] = []
    previous: str | None = None
    history: list[dict[str, Any]] = []
    for turn in range(turns):
        said = {"role": "user", "content": f"Question {turn}: what number comes after {turn}?"}
        if stored:
            arguments: dict[str, Any] = {"input": [said]}
            if previous is not None:
                arguments["previous_response_id"] = previous
        else:
            arguments = {"input": [*history, said], "store": False}
        started = cpu_ns(pid)
        response = await _call(client, arguments)
        costs.append((cpu_ns(pid) - started) / 1e3)
        previous = response["id"]
        history += [said, {"role": "assistant", "content": response["output"][0]["content"][0]["text"]}]
    return costs


async def run(calls: int, repeats: int, turns: int, pin: bool) -> str:
    meter, cpus, where = pinned_cpu_meter(pin)
    server_cpu = cpus[1] if cpus else None
    lines: list[str] = [f"{calls} calls per batch, {repeats} repeats, minimum per figure; {where}", ""]
    with tempfile.TemporaryDirectory() as tmp, redis_server() as redis_url:
        specs = [spec("no store"), spec("sqlite", f"sqlite:{tmp}/r.db")]
        if redis_url is not None:
            specs.append(spec("redis", redis_url))
        else:
            lines.append("redis-server not found: the Redis rows are left out")
        plain_rows: list[list[str]] = []
        chain_rows: list[list[str]] = []
        for era in ERAS:
            best: dict[str, float] = {}
            chains: dict[str, list[float]] = {}
            async with AsyncExitStack() as stack:
                connected = [
                    await stack.enter_async_context(connect(s, era, meter, server_cpu)) for s in specs
                ]
                for client, pid in connected:
                    await plain_cost(client, pid, max(5, calls // 5))  # warm-up
                for repeat in range(repeats):
                    order = list(zip(specs, connected, strict=True))
                    for s, (client, pid) in order if repeat % 2 == 0 else order[::-1]:
                        cost = await plain_cost(client, pid, calls)
                        best[s.key] = min(best.get(s.key, cost), cost)
                # The chain: stored on sqlite, against the history passed back to the server with no store.
                (bare, bare_pid), (kept, kept_pid) = connected[0], connected[1]
                for _ in range(repeats):
                    for key, client, pid, stored in (
                        ("stored", kept, kept_pid, True),
                        ("passed", bare, bare_pid, False),
                    ):
                        costs = await chain_costs(client, pid, turns, stored)
                        chains[key] = [min(a, b) for a, b in zip(chains.get(key, costs), costs, strict=True)]
            base = best["no store"]
            for s in specs:
                plain_rows.append([era, s.key, f"{best[s.key]:.0f}", f"{best[s.key] / base:.2f}"])
            for low, high in BUCKETS:
                if high > turns:
                    continue
                mean = {k: sum(v[low - 1 : high]) / (high - low + 1) for k, v in chains.items()}
                chain_rows.append(
                    [
                        era,
                        f"{low}-{high}",
                        f"{mean['stored']:.0f}",
                        f"{mean['passed']:.0f}",
                        f"{mean['stored'] / mean['passed']:.2f}",
                    ]
                )
    lines.append(format_table(["era", "store", "µs/call", "vs no store"], plain_rows))
    lines.append("")
    lines.append(f"A chain of {turns} turns, each call by itself (sqlite store vs the history passed back):")
    lines.append(format_table(["era", "turns", "stored µs", "passed back µs", "stored / passed"], chain_rows))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--no-pin", action="store_true")
    args = parser.parse_args(argv)
    print(anyio.run(run, args.calls, args.repeats, args.turns, not args.no_pin))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
