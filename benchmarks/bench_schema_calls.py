"""What a caller's schemas cost per call: a plain `chat_complete` against the same call offering 10
tool definitions, against one asking for a 1,000-property `response_format` schema, and against one
whose schema holds 5 patterns the answer's values are matched against, both eras (issue 28's goals:
10 tools <= 1.5x the plain call, the 1,000-property schema <= 1/10 of its cost before the schema
cache; the patterned schema shows what the compiled patterns' cache buys).

Why it measures what it measures: the same calls repeated, as a product sends its tools and its
schema on every turn. The host declares `sampling.tools` (so tools travel, and the output contract
goes as the one required tool, which the stand-in host calls with `{}`, valid against the wide
schema since it requires nothing). Only the server child counts, read by `bench_calls`' meters
(CPU time, or instructions under callgrind with `--instructions`, the verdict to trust). `--before
COMMAND` measures a second build's console script in the same run (e.g. the main checkout's venv),
so the before/after ratio is of two servers on the same machine state.

Run from the repository root: `python benchmarks/bench_schema_calls.py [--instructions]
[--before PATH]`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client import ClientRequestContext
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    SamplingCapability,
    SamplingToolsCapability,
    TextContent,
    ToolUseContent,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_calls import (  # noqa: E402  (a sibling script, not a package)
    CallgrindMeter,
    Meter,
    ServerSpec,
    connect,
    pinned_cpu_meter,
)

ERAS = ("legacy", "2026-07-28")
ANSWER_TEXT = "A short fixed answer."
MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Write one line about benchmarks."},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": f"lookup_{n}",
            "description": f"Looks up fact number {n} about a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city's name."},
                    "days": {"type": "integer", "minimum": 1, "maximum": 14},
                    "units": {"enum": ["metric", "imperial"]},
                },
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    }
    for n in range(10)
]
WIDE = {
    "type": "object",
    "properties": {f"field_{n}": {"type": "string", "description": f"Field {n}."} for n in range(1000)},
}
# Five patterns, each matched against a value of every answer (the host fills every property).
PATTERNED = {
    "type": "object",
    "properties": {
        f"code_{n}": {"type": "string", "pattern": f"^[a-z]{{2}}-[0-9]{{{n + 1}}}$"} for n in range(5)
    },
    "required": [f"code_{n}" for n in range(5)],
}
PATTERNED_ANSWER = {f"code_{n}": "ab-" + "7" * (n + 1) for n in range(5)}
PLAIN, TEN_TOOLS, WIDE_SCHEMA, PATTERNS = "plain", "10 tools", "1,000-property schema", "5-pattern schema"
CALLS: dict[str, dict[str, Any]] = {
    PLAIN: {"messages": MESSAGES},
    TEN_TOOLS: {"messages": MESSAGES, "tools": TOOLS},
    WIDE_SCHEMA: {
        "messages": MESSAGES,
        "response_format": {"type": "json_schema", "json_schema": {"name": "wide", "schema": WIDE}},
    },
    PATTERNS: {
        "messages": MESSAGES,
        "response_format": {"type": "json_schema", "json_schema": {"name": "codes", "schema": PATTERNED}},
    },
}
DEFAULTS = {"cpu": (30, 3, 5), "instructions": (6, 2, 1)}  # calls, warm-up calls, repeats


async def stand_in_host(
    context: ClientRequestContext, params: CreateMessageRequestParams
) -> CreateMessageResult | CreateMessageResultWithTools:
    choice = params.tool_choice
    if params.tools and choice is not None and choice.mode == "required" and len(params.tools) == 1:
        # The output contract as the one required tool: call it with `{}`, or with every code the
        # patterned schema requires.
        wanted = "code_0" in params.tools[0].input_schema.get("properties", {})
        answer = dict(PATTERNED_ANSWER) if wanted else {}
        call = ToolUseContent(type="tool_use", id="call_1", name=params.tools[0].name, input=answer)
        return CreateMessageResultWithTools(
            role="assistant", content=[call], model="stand-in-model", stop_reason="toolUse"
        )
    return CreateMessageResult(
        role="assistant", content=TextContent(type="text", text=ANSWER_TEXT), model="stand-in-model"
    )


async def batch(client: Client, label: str, calls: int) -> None:
    for _ in range(calls):
        result = await client.call_tool("chat_complete", CALLS[label])
        if result.is_error:
            raise RuntimeError(f"{label}: {result.model_dump(exclude_none=True)}")


async def run(
    specs: Sequence[ServerSpec], meter: Meter, calls: int, warmup: int, repeats: int, cpu: int | None
) -> dict[tuple[str, str, str], list[float]]:
    """Per (server, era, label), the cost per call of each repeat."""
    costs: dict[tuple[str, str, str], list[float]] = {}
    for era in ERAS:
        for spec in specs:
            tools = SamplingCapability(tools=SamplingToolsCapability())
            async with connect(
                spec, era, meter, cpu, sampling_callback=stand_in_host, sampling_capabilities=tools
            ) as (client, pid):
                for label in CALLS:
                    await batch(client, label, warmup)
                for repeat in range(repeats):
                    for label in CALLS if repeat % 2 == 0 else list(CALLS)[::-1]:
                        await meter.start(pid)
                        await batch(client, label, calls)
                        cost, _ = await meter.stop(
                            pid, f"{spec.key}-{era}-{label.replace(' ', '_')}-{repeat}"
                        )
                        costs.setdefault((spec.key, era, label), []).append(cost / calls)
                        print(
                            f"  {spec.key} {era} {label}: {cost / calls / meter.scale:,.0f} {meter.unit}",
                            file=sys.stderr,
                        )
    return costs


def args_before(specs: Sequence[ServerSpec]) -> bool:
    return any(spec.key == "before" for spec in specs)


def table(costs: dict[tuple[str, str, str], list[float]], specs: Sequence[ServerSpec], meter: Meter) -> str:
    lines = [f"| server | era | call | {meter.unit} per call (best) | x plain |", "|---|---|---|--:|--:|"]
    for spec in specs:
        for era in ERAS:
            plain = min(costs[(spec.key, era, PLAIN)])
            for label in CALLS:
                best = min(costs[(spec.key, era, label)])
                lines.append(
                    f"| {spec.key} | {era} | {label} | {best / meter.scale:,.0f} | {best / plain:.2f}x |"
                )
    if args_before(specs):
        lines += ["", "| era | call | after / before |", "|---|---|--:|"]
        for era in ERAS:
            for label in CALLS:
                after = min(costs[("after", era, label)])
                before = min(costs[("before", era, label)])
                lines.append(f"| {era} | {label} | {after / before:.3f}x |")
    keys = {spec.key for spec in specs}
    if "floor" in keys:
        ours = "after" if "after" in keys else "ours"
        lines += ["", f"| era | call | {ours} / floor (floor on our stdio) |", "|---|---|--:|"]
        for era in ERAS:
            for label in CALLS:
                ratio = min(costs[(ours, era, label)]) / min(costs[("floor", era, label)])
                lines.append(f"| {era} | {label} | {ratio:.3f}x |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instructions", action="store_true", help="count instructions under callgrind")
    parser.add_argument("--calls", type=int, help="timed calls per batch")
    parser.add_argument("--repeats", type=int, help="batches of every call")
    parser.add_argument(
        "--before", type=Path, metavar="COMMAND", help="another build's agent-as-model to measure alongside"
    )
    parser.add_argument(
        "--ours",
        type=Path,
        metavar="COMMAND",
        help="measure this build's agent-as-model instead of this venv's",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also the floor (floor_server.py), which ignores tools and schemas: the SDK's share of "
        "carrying the larger arguments",
    )
    parser.add_argument("--no-pin", action="store_true", help="do not pin the client and the server")
    parser.add_argument(
        "--callgrind-dir",
        type=Path,
        metavar="DIR",
        help="with --instructions: keep the callgrind dumps in DIR (new or empty), one per batch, "
        "named by server, era and call, for callgrind_annotate",
    )
    parser.add_argument(
        "--tools-only", action="store_true", help="only the plain call and the 10 tools (not the schemas)"
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=list(CALLS),
        help="only this call beside the plain one (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.callgrind_dir and not args.instructions:
        raise SystemExit("--callgrind-dir goes with --instructions")
    if args.tools_only:
        del CALLS[WIDE_SCHEMA], CALLS[PATTERNS]
    if args.only:
        for label in list(CALLS):
            if label != PLAIN and label not in args.only:
                del CALLS[label]
    mode = "instructions" if args.instructions else "cpu"
    calls, warmup, repeats = DEFAULTS[mode]
    calls, repeats = args.calls or calls, args.repeats or repeats
    ours = args.ours or Path(sys.executable).parent / "agent-as-model"
    specs = [ServerSpec("after" if args.before else "ours", "agent-as-model", str(ours))]
    if args.before:
        specs.insert(0, ServerSpec("before", "agent-as-model (before)", str(args.before)))
    if args.floor:
        floor = str(Path(__file__).resolve().parent / "floor_server.py")
        specs.append(
            ServerSpec("floor", "floor (low-level Server)", sys.executable, (floor, "--stdio", "ours"))
        )
    with ExitStack() as stack:
        meter: Meter
        cpu = None
        if args.instructions:
            out_dir = args.callgrind_dir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
            out_dir.mkdir(parents=True, exist_ok=True)
            if any(out_dir.iterdir()):
                raise SystemExit(f"{out_dir} is not empty: give --callgrind-dir a new or empty directory")
            meter = CallgrindMeter(out_dir)
        else:
            meter, cpus, _ = pinned_cpu_meter(not args.no_pin)
            cpu = cpus[1] if cpus else None
        costs = anyio.run(run, specs, meter, calls, warmup, repeats, cpu)
    print(table(costs, specs, meter))
    spread = {k: max(v) / min(v) for k, v in costs.items() if len(v) > 1}
    if spread:
        worst, median = max(spread.values()), statistics.median(spread.values())
        print(f"\nspread across repeats (max/min): worst {worst:.2f}x, median {median:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
