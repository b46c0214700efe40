"""Memory over a long run: the server's resident set size (RSS) every 1,000 calls, on both eras.

The real server over stdio, driven by the SDK `Client` as `bench_calls.py` drives it (its stand-in
host, its calls: `generate`, `chat_complete` and the 20-turn cursor chain, in turn). RSS is read
from `/proc/<pid>/status` (`VmRSS`) after a warm-up and then every `--every` calls. A leak shows
as RSS that keeps climbing; flat means the calls leave nothing behind. Python's allocator keeps
freed arenas for reuse, so a few hundred KB of early growth that then stops is not a leak.

Run from the repository root: `python benchmarks/bench_memory.py [--calls 10000]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from itertools import cycle

import anyio
from bench_calls import CALLS, ERAS, CpuMeter, call_batch, connect, server_specs


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


async def run_era(era: str, calls: int, every: int, warmup: int) -> list[tuple[int, int]]:
    spec = next(s for s in server_specs(mcpserver_floor=False) if s.key == "ours")
    readings: list[tuple[int, int]] = []
    async with connect(spec, era, CpuMeter(), None) as (client, pid):
        for label in CALLS:
            await call_batch(client, label, warmup)
        readings.append((0, rss_kb(pid)))
        labels = cycle(CALLS)
        done = 0
        started = time.perf_counter()
        while done < calls:
            for _ in range(every):
                await call_batch(client, next(labels), 1)
            done += every
            readings.append((done, rss_kb(pid)))
            print(
                f"  {era:<10} {done:>6} calls  RSS {readings[-1][1]:>8,} KB"
                f"  ({time.perf_counter() - started:.0f} s)",
                file=sys.stderr,
            )
    return readings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--calls", type=int, default=10_000, help="calls per era after the warm-up (default 10000)"
    )
    parser.add_argument(
        "--every", type=int, default=1_000, help="read RSS every this many calls (default 1000)"
    )
    parser.add_argument(
        "--warmup", type=int, default=100, help="warm-up calls per kind before the first reading"
    )
    args = parser.parse_args()
    print(
        "Server RSS (KB) after the warm-up and every",
        args.every,
        "calls (generate, chat_complete, chain in turn):",
    )
    for era in ERAS:
        readings = anyio.run(run_era, era, args.calls, args.every, args.warmup)
        first, last = readings[0][1], readings[-1][1]
        half = readings[len(readings) // 2][1]
        print(f"{era}: " + ", ".join(f"{rss:,}" for _, rss in readings))
        print(
            f"  start {first:,} KB, after {readings[-1][0]:,} calls {last:,} KB ({last - first:+,} KB);"
            f" second half {last - half:+,} KB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
