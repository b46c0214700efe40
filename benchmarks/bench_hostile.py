"""Does a hostile schema stall the server? Issue 13 item 1's goal, measured over real stdio.

For each era, one `agent-as-model serve` child and one SDK `Client`. Each hostile call runs
while the same connection sends `list_models` one after another; the table shows how long those
`list_models` took (median and worst), against a baseline of `list_models` with nothing else
running, in the same process, and how long the hostile call itself took and how it ended.

Goal: during every hostile call a concurrent `list_models` answers within 100 ms, and the
hostile call ends with the time-bound error. The bound counts CPU time (the `regex` package's
timeout), so on a loaded machine the hostile call's wall time may exceed `--schema-timeout`.

    .venv/bin/python benchmarks/bench_hostile.py [--schema-timeout 0.25] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

COMMAND = Path(sys.executable).parent / "agent-as-model"
ERAS = ("legacy", "2026-07-28")
GOAL_MS = 100.0
BASELINE_CALLS = 50

# The cases: a pattern with catastrophic backtracking met by a host answer or by the
# caller's own arguments. `^(a+)+$` is the issue's; `^(a|a)+$` is one the `regex` engine cannot
# shortcut, so it runs into the bound.
CASES: list[tuple[str, str, str, dict[str, Any]]] = [
    (
        "output_schema ^(a+)+$, host answers 29 a + b",
        "generate",
        '{"a": "' + "a" * 29 + 'b"}',
        {
            "persona": {
                "name": "p",
                "output_schema": {"type": "object", "properties": {"a": {"pattern": "^(a+)+$"}}},
            }
        },
    ),
    (
        "output_schema ^(a|a)+$, host answers 40 a + b",
        "chat_complete",
        '{"a": "' + "a" * 40 + 'b"}',
        {"output_schema": {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a|a)+$"}}}},
    ),
    (
        "persona.input_schema ^(a|a)+$, model = 40 a + b",
        "generate",
        "unused",
        {
            "model": "a" * 40 + "b",
            "persona": {
                "name": "p",
                "input_schema": {"type": "object", "properties": {"model": {"pattern": "^(a|a)+$"}}},
            },
        },
    ),
]
BASE = {"generate": {"prompt": "q"}, "chat_complete": {"messages": [{"role": "user", "content": "q"}]}}


async def run_era(era: str, schema_timeout: float) -> list[dict[str, Any]]:
    answer = {"text": "unused"}

    async def host(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=answer["text"]), model="m"
        )

    params = StdioServerParameters(
        command=str(COMMAND), args=["serve", "--schema-timeout", str(schema_timeout)]
    )
    rows: list[dict[str, Any]] = []
    async with Client(params, mode=era, sampling_callback=host) as client:
        await client.call_tool("list_models", {})  # warm-up
        baseline = [await _timed(client, "list_models", {}) for _ in range(BASELINE_CALLS)]
        rows.append(_row(era, "baseline: list_models alone", baseline, None, None))
        for label, tool, text, extra in CASES:
            answer["text"] = text
            during: list[float] = []
            outcome: dict[str, Any] = {}

            async def hostile(
                tool: str = tool, extra: dict[str, Any] = extra, outcome: dict[str, Any] = outcome
            ) -> None:
                start = time.perf_counter()
                result = await client.call_tool(tool, {**BASE[tool], **extra})
                outcome["seconds"] = time.perf_counter() - start
                outcome["text"] = result.content[0].text if result.content else ""
                outcome["is_error"] = result.is_error

            async with anyio.create_task_group() as tg:
                tg.start_soon(hostile)
                await anyio.sleep(0)
                while not outcome:
                    during.append(await _timed(client, "list_models", {}))
            rows.append(_row(era, label, during, outcome["seconds"], outcome["text"]))
    return rows


async def _timed(client: Client, tool: str, arguments: dict[str, Any]) -> float:
    start = time.perf_counter()
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result
    return (time.perf_counter() - start) * 1000


def _row(era: str, label: str, ms: list[float], seconds: float | None, text: str | None) -> dict[str, Any]:
    return {
        "era": era,
        "case": label,
        "list_models_calls": len(ms),
        "list_models_median_ms": statistics.median(ms),
        "list_models_max_ms": max(ms),
        "hostile_seconds": seconds,
        "hostile_result": text,
        "timed_out": text is not None and "could not be checked in time" in text,
    }


# -- a frame with no newline: memory stays bounded -------------------------------------------------

FLOOD_MB = 100


async def flood(max_frame: int | None) -> dict[str, Any]:
    """Send FLOOD_MB MiB with no newline, then a newline and a ping; the server's RSS before and after."""
    args = [str(COMMAND), "serve"] + ([] if max_frame is None else ["--max-frame", str(max_frame)])
    async with await anyio.open_process(args) as process:
        assert process.stdin is not None and process.stdout is not None
        ping = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n'
        await process.stdin.send(ping)  # wait until it serves, then read its RSS
        await _line(process)
        before = _rss_kb(process.pid)
        chunk = b"a" * (1 << 20)
        for _ in range(FLOOD_MB):
            await process.stdin.send(chunk)
        await process.stdin.send(b"\n" + ping.replace(b"1", b"2"))
        replies = [await _line(process), await _line(process)]
        after = _rss_kb(process.pid)
        process.terminate()
    return {
        "max_frame": max_frame or "default",
        "rss_before_mb": before / 1024,
        "rss_after_mb": after / 1024,
        "replies": [json.loads(r).get("error", {}).get("code", "result") for r in replies],
    }


async def _line(process: Any) -> bytes:
    data = b""
    with anyio.fail_after(120):
        while not data.endswith(b"\n"):
            data += await process.stdout.receive(1)
    return data


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--schema-timeout", type=float, default=0.25)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for era in ERAS:
        rows += anyio.run(run_era, era, args.schema_timeout)
    head = f"{'era':<11} {'case':<50} {'calls':>5} {'median ms':>10} {'max ms':>8} {'x base':>7}"
    print(f"{head} {'hostile s':>9}  ends")
    base: dict[str, float] = {}
    ok = True
    for row in rows:
        if row["hostile_seconds"] is None:
            base[row["era"]] = row["list_models_max_ms"]
        ratio = row["list_models_max_ms"] / base[row["era"]]
        ends = (
            "" if row["hostile_result"] is None else ("time-bound error" if row["timed_out"] else "checked")
        )
        seconds = "" if row["hostile_seconds"] is None else f"{row['hostile_seconds']:.2f}"
        print(
            f"{row['era']:<11} {row['case']:<50} {row['list_models_calls']:>5} "
            f"{row['list_models_median_ms']:>10.1f} "
            f"{row['list_models_max_ms']:>8.1f} {ratio:>6.2f}x {seconds:>9}  {ends}"
        )
        ok = ok and row["list_models_max_ms"] <= GOAL_MS
    print(f"goal: every concurrent list_models within {GOAL_MS:g} ms: {'MET' if ok else 'NOT MET'}")
    print(f"\n{FLOOD_MB} MiB with no newline, then a newline and a ping (replies: the frame's, the ping's):")
    floods = [anyio.run(flood, size) for size in (None, 1 << 20)]
    for row in floods:
        print(
            f"  --max-frame {row['max_frame']}: server RSS {row['rss_before_mb']:.1f} MiB -> "
            f"{row['rss_after_mb']:.1f} MiB, replies {row['replies']}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "goal_met": ok, "flood": floods}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
