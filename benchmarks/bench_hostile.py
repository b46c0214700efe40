"""Does a hostile schema stall the server? Issue 13 item 1's goal, measured over real stdio.

For each era, one `agent-as-model serve` child and one SDK `Client`. Each hostile call runs
while the same connection sends `list_models` one after another; the table shows how long those
`list_models` took (median and worst), against a baseline of `list_models` with nothing else
running, in the same process, and how long the hostile call itself took and how it ended.

Goal, judged per case and era: (1) every concurrent `list_models` answers within 100 ms, and
(2) the hostile call ends as the case expects: with the time-bound error (`--schema-timeout`),
within the bound plus `--margin` seconds of wall time. The bound counts the matching thread's
CPU time (the `regex` package's timeout), so the margin is there for what the wall clock adds:
the call's own round trips (the sampling request; two `tools/call` on 2026-07-28), compiling the
schema, and waiting for a CPU on a loaded machine. Exit status 1 when any case misses either part.

Two cases expect another ending. `^(a+)+$`, the issue's own pattern, is one the `regex` engine
matches without backtracking, so the check completes and the call ends with the pattern
violation (the host's answer does not match), also within the bound. A caller `output_schema` of
10,000 properties (about 450 KiB) has no pattern to run out of time: its call should answer
normally; only part (1) applies, its duration is shown and not judged. (That case checks that
checking a large schema runs off the event loop.)

    .venv/bin/python benchmarks/bench_hostile.py [--schema-timeout 0.25] [--margin 0.25] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, CreateMessageRequestParams, CreateMessageResult, TextContent

COMMAND = Path(sys.executable).parent / "agent-as-model"
ERAS = ("legacy", "2026-07-28")
GOAL_MS = 100.0
BASELINE_CALLS = 50
# The default margin over the bound. Outside the match, a hostile call here takes some 10-20 ms
# on an idle machine; the rest is for a busy one (2 shared cores), where the server waits for a
# CPU. It stays far below what an unbounded match took (48 s for the case).
MARGIN_S = 0.25
# A call still pending after this long is a stall, not a slow answer: the case ends there.
GIVE_UP_S = 120.0
TIMED_OUT = "could not be checked in time"
HOST_ASKED = "The host was asked; its answer was not used."

Ending = Literal["time-bound error", "violation", "answer"]


@dataclass(frozen=True)
class Case:
    label: str
    tool: str
    host_text: str  # what the host answers
    extra: dict[str, Any]  # the arguments beside the conversation
    ends: Ending  # how a server that meets the goal ends the call
    bounded: bool = True  # whether the call's duration is judged against the bound


def large_schema(properties: int = 10_000) -> dict[str, Any]:
    """A caller output_schema of `properties` string properties, about 46 bytes each in JSON."""
    each = {"type": "string", "maxLength": 64}
    return {"type": "object", "properties": {f"p{i:05d}": dict(each) for i in range(properties)}}


LARGE = large_schema()
LARGE_KIB = len(json.dumps(LARGE)) / 1024

# The cases: a pattern with catastrophic backtracking met by a host answer or by the
# caller's own arguments. `^(a+)+$` is the issue's; `^(a|a)+$` is one the `regex` engine cannot
# shortcut, so it runs into the bound. Then a caller schema that is large rather than clever.
CASES: list[Case] = [
    Case(
        "output_schema ^(a+)+$, host answers 29 a + b",
        "generate",
        '{"a": "' + "a" * 29 + 'b"}',
        {
            "persona": {
                "name": "p",
                "output_schema": {"type": "object", "properties": {"a": {"pattern": "^(a+)+$"}}},
            }
        },
        ends="violation",
    ),
    Case(
        "output_schema ^(a|a)+$, host answers 40 a + b",
        "chat_complete",
        '{"a": "' + "a" * 40 + 'b"}',
        {"output_schema": {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a|a)+$"}}}},
        ends="time-bound error",
    ),
    Case(
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
        ends="time-bound error",
    ),
    Case(
        f"output_schema of 10,000 properties ({LARGE_KIB:.0f} KiB)",
        "chat_complete",
        '{"p00000": "v", "p09999": "w"}',
        {"output_schema": LARGE},
        ends="answer",
        bounded=False,
    ),
]
BASE: dict[str, dict[str, Any]] = {
    "generate": {"prompt": "q"},
    "chat_complete": {"messages": [{"role": "user", "content": "q"}]},
}


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
        rows.append(_row(era, None, baseline, {}))
        for case in CASES:
            answer["text"] = case.host_text
            during, outcome = await _during(client, case)
            rows.append(_row(era, case, during, outcome))
    return rows


async def _during(client: Client, case: Case) -> tuple[list[float], dict[str, Any]]:
    """The hostile call, with `list_models` sent one after another until it has ended."""
    during: list[float] = []
    outcome: dict[str, Any] = {}

    async def hostile() -> None:
        start = time.perf_counter()
        try:
            with anyio.fail_after(GIVE_UP_S):
                result = await client.call_tool(case.tool, {**BASE[case.tool], **case.extra})
            outcome.update(_ending(result))
        except Exception as err:  # a stall, or a JSON-RPC error: an ending no case expects
            outcome.update(ends="raised", text=f"{type(err).__name__}: {err}")
        outcome["seconds"] = time.perf_counter() - start

    async with anyio.create_task_group() as tg:
        tg.start_soon(hostile)
        await anyio.sleep(0)
        while not outcome:
            during.append(await _timed(client, "list_models", {}))
    return during, outcome


def _ending(result: CallToolResult) -> dict[str, Any]:
    first = result.content[0] if result.content else None
    text = first.text if isinstance(first, TextContent) else ""
    if not result.is_error:
        ends = "answer"
    elif TIMED_OUT in text:
        ends = "time-bound error"
    elif text.endswith(HOST_ASKED):
        ends = "violation"
    else:
        ends = "other error"
    return {"ends": ends, "text": text}


async def _timed(client: Client, tool: str, arguments: dict[str, Any]) -> float:
    start = time.perf_counter()
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result
    return (time.perf_counter() - start) * 1000


def _row(era: str, case: Case | None, ms: list[float], outcome: dict[str, Any]) -> dict[str, Any]:
    return {
        "era": era,
        "case": "baseline: list_models alone" if case is None else case.label,
        "list_models_calls": len(ms),
        "list_models_median_ms": statistics.median(ms) if ms else None,
        "list_models_max_ms": max(ms) if ms else None,
        "expected_ending": None if case is None else case.ends,
        "bounded": case is not None and case.bounded,
        "hostile_seconds": outcome.get("seconds"),
        "hostile_ending": outcome.get("ends"),
        "hostile_result": outcome.get("text"),
    }


def judge(row: dict[str, Any], bound: float, margin: float) -> list[str]:
    """What a case misses of the goal (nothing for the baseline): [] when it meets both parts."""
    if row["expected_ending"] is None:
        return []
    misses = []
    if row["list_models_max_ms"] is not None and row["list_models_max_ms"] > GOAL_MS:
        misses.append(f"list_models {row['list_models_max_ms']:.0f} ms")
    if row["hostile_ending"] != row["expected_ending"]:
        misses.append(f"ended with {row['hostile_ending']}")
    if row["bounded"] and row["hostile_seconds"] > bound + margin:
        misses.append(f"{row['hostile_seconds']:.2f} s > {bound + margin:g} s")
    return misses


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


def print_table(rows: list[dict[str, Any]], bound: float, margin: float) -> bool:
    """The table, one verdict per case; whether every case meets the goal."""
    head = f"{'era':<11} {'case':<50} {'calls':>5} {'median ms':>10} {'max ms':>8} {'x base':>7}"
    print(f"{head} {'hostile s':>9}  {'ends':<16}  verdict")
    base: dict[str, float] = {}
    met = True
    for row in rows:
        if row["expected_ending"] is None:
            base[row["era"]] = row["list_models_max_ms"]
        misses = judge(row, bound, margin)
        met = met and not misses
        print(f"{_cells(row, base[row['era']])}  {_verdict(row, misses)}")
    print(
        f"goal: every concurrent list_models within {GOAL_MS:g} ms, and each hostile call ends as "
        f"expected (the time-bound error within {bound:g} + {margin:g} s): {'MET' if met else 'NOT MET'}"
    )
    return met


def _cells(row: dict[str, Any], base_ms: float) -> str:
    if row["list_models_calls"]:
        ms = (
            f"{row['list_models_median_ms']:>10.1f} {row['list_models_max_ms']:>8.1f} "
            f"{row['list_models_max_ms'] / base_ms:>6.2f}x"
        )
    else:  # the call ended before a list_models was sent
        ms = f"{'':>10} {'':>8} {'':>7}"
    seconds = "" if row["hostile_seconds"] is None else f"{row['hostile_seconds']:.2f}"
    return (
        f"{row['era']:<11} {row['case']:<50} {row['list_models_calls']:>5} {ms} {seconds:>9}  "
        f"{row['hostile_ending'] or '':<16}"
    )


def _verdict(row: dict[str, Any], misses: list[str]) -> str:
    if row["expected_ending"] is None:
        return ""
    if misses:
        return "MISSED: " + "; ".join(misses)
    return "met" if row["bounded"] else "met (duration not judged)"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--schema-timeout", type=float, default=0.25)
    parser.add_argument(
        "--margin", type=float, default=MARGIN_S, help="seconds of wall time allowed over the bound"
    )
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument(
        "--only",
        choices=("schemas", "classes"),
        help="run only issue 13's hostile schemas over stdio, or only issue 26's classes over stdio and HTTP",
    )
    args = parser.parse_args()
    started = time.monotonic()
    document: dict[str, Any] = {}
    met = True
    if args.only != "schemas":
        import hostile_classes

        print("issue 26: each class over stdio and HTTP (hostile_classes.py)")
        class_rows, stalled, met = hostile_classes.run_all(ERAS)
        document.update(classes=class_rows, never_reads=stalled)
        print()
    if args.only != "classes":
        met = schemas(args, document) and met
    print(f"{time.monotonic() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({**document, "goal_met": met}, indent=2))
    return 0 if met else 1


def schemas(args: argparse.Namespace, document: dict[str, Any]) -> bool:
    """Issue 13's hostile schemas over stdio, and a frame with no newline."""
    rows: list[dict[str, Any]] = []
    for era in ERAS:
        rows += anyio.run(run_era, era, args.schema_timeout)
    met = print_table(rows, args.schema_timeout, args.margin)
    print(f"\n{FLOOD_MB} MiB with no newline, then a newline and a ping (replies: the frame's, the ping's):")
    floods = [anyio.run(flood, size) for size in (None, 1 << 20)]
    for row in floods:
        print(
            f"  --max-frame {row['max_frame']}: server RSS {row['rss_before_mb']:.1f} MiB -> "
            f"{row['rss_after_mb']:.1f} MiB, replies {row['replies']}"
        )
    document.update(rows=rows, margin_s=args.margin, flood=floods)
    return met


if __name__ == "__main__":
    sys.exit(main())
