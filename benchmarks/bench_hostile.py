"""Does hostile input stall the server, or hold what it took? Every class, measured, one run.

`hostile_classes.py` holds the classes (large conversations, hostile schemas and answers, a 3 MB
repair round, calls at once over stdio, half-sent HTTP requests, a flood of abandoned legacy
handshakes) and judges every row on four judgements: the worst concurrent `list_models` within
100 ms of its baseline, the ending the class expects within its bound, the CPU idle within 1 s
after, the RSS within 50 MB of the start. Then two stdio rows of the wire itself: a client that
writes and never reads, and a frame of 100 MiB with no newline, each judged on what applies (every
request answered, the RSS, the CPU after; the frame's error reply and the next request's answer
within their bound).

`--against COMMAND` runs every row against that server too (the `agent-as-model` of a checkout
before a change), one after the other per transport and era, so the table holds both from one run.
The exit status is 1 when the server of this checkout misses any judgement of any row.

    .venv/bin/python benchmarks/bench_hostile.py [--against PATH] [--eras legacy,2026-07-28] [--json FILE]
        [--case TEXT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import hostile_classes
from hostile_classes import COMMAND, IDLE_WITHIN_S, RSS_WITHIN_MB, rss_mb, seconds_to_idle

ERAS = ("legacy", "2026-07-28")
FLOOD_MB = 100
FLOOD_WITHIN_S = 30.0  # 100 MiB written through a pipe and discarded as it streams in


async def flood(command: Path, max_frame: int | None) -> dict[str, Any]:
    """Send FLOOD_MB MiB with no newline, then a newline and a ping; the server's RSS before and
    after, the seconds from the first byte to the ping's answer, and the CPU after."""
    args = [str(command), "serve"] + ([] if max_frame is None else ["--max-frame", str(max_frame)])
    async with await anyio.open_process(args) as process:
        assert process.stdin is not None and process.stdout is not None
        ping = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n'
        await process.stdin.send(ping)  # wait until it serves, then read its RSS
        await _line(process)
        before = rss_mb(process.pid)
        began = time.perf_counter()
        chunk = b"a" * (1 << 20)
        for _ in range(FLOOD_MB):
            await process.stdin.send(chunk)
        await process.stdin.send(b"\n" + ping.replace(b"1", b"2"))
        replies = [await _line(process), await _line(process)]
        seconds = time.perf_counter() - began
        idle = await seconds_to_idle(process.pid)
        after = rss_mb(process.pid)
        process.terminate()
    row = {
        "max_frame": max_frame or "default",
        "rss_before_mb": before,
        "rss_after_mb": after,
        "seconds": seconds,
        "idle_after_s": idle,
        "replies": [json.loads(r).get("error", {}).get("code", "result") for r in replies],
    }
    row["misses"] = _flood_misses(row)
    return row


def _flood_misses(row: dict[str, Any]) -> list[str]:
    found = []
    if row["replies"] != [-32600, "result"]:
        found.append(f"replies {row['replies']}")
    if row["seconds"] > FLOOD_WITHIN_S:
        found.append(f"answered after {row['seconds']:.1f} s > {FLOOD_WITHIN_S:g} s")
    if row["idle_after_s"] > IDLE_WITHIN_S:
        found.append(f"CPU busy {row['idle_after_s']:.1f} s after")
    if row["rss_after_mb"] - row["rss_before_mb"] > RSS_WITHIN_MB:
        found.append(f"RSS +{row['rss_after_mb'] - row['rss_before_mb']:.0f} MB")
    return found


async def _line(process: Any) -> bytes:
    data = b""
    with anyio.fail_after(120):
        while not data.endswith(b"\n"):
            data += await process.stdout.receive(1)
    return data


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--against", type=Path, metavar="PATH", help="another agent-as-model command to run every row against"
    )
    parser.add_argument("--eras", default=",".join(ERAS), help="the eras to run (comma-separated)")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument(
        "--case", metavar="TEXT", help="only the request classes whose label holds TEXT, and no other rows"
    )
    args = parser.parse_args()
    hostile_classes.ONLY = args.case
    commands = [("after", COMMAND)]
    if args.against is not None:
        commands.insert(0, ("before", args.against))
    started = time.monotonic()
    rows, stalled, met = hostile_classes.run_all(tuple(args.eras.split(",")), commands)
    floods: list[dict[str, Any]] = []
    if args.case is None:
        print(
            f"\n{FLOOD_MB} MiB with no newline, then a newline and a ping (replies: the frame's, the ping's):"
        )
    for name, command in commands if args.case is None else []:
        for size in (None, 1 << 20):
            row = {**anyio.run(flood, command, size), "server": name}
            floods.append(row)
            verdict = "MISSED: " + "; ".join(row["misses"]) if row["misses"] else "met"
            print(
                f"  {name}: --max-frame {row['max_frame']}: server RSS {row['rss_before_mb']:.1f} -> "
                f"{row['rss_after_mb']:.1f} MiB, replies {row['replies']} after {row['seconds']:.1f} s, "
                f"idle {row['idle_after_s']:.2f} s after: {verdict}"
            )
            if name == "after":
                met = met and not row["misses"]
    verdict = "MET" if met else "NOT MET"
    print(f"{time.monotonic() - started:.0f} s; goal (the server of this checkout): {verdict}")
    if args.json:
        document = {"classes": rows, "never_reads": stalled, "flood": floods, "goal_met": met}
        Path(args.json).write_text(json.dumps(document, indent=2, default=str))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
