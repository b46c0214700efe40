"""Server cost per call of long cursor chains: `chat_complete` with an N-turn history passed back.

Why it measures what it measures:

* A session cursor is verified by recomputing it from the history the caller passes back
  (docs/cursors.md): the server builds the transcript, cuts it at its last assistant entry, dumps
  it canonically and hashes it. That work is linear in the history, and a chain's history only
  grows, so the question is what a long chain costs per call, and whether the cost per entry of
  history stays flat as the history grows.
* The yardstick is a **plain call** on the same server process: `chat_complete` with cursors off
  and a short history (a system and a user message, `bench_calls.py`'s call). Every figure is
  reported as a ratio against it, measured in the same run, so a slow or busy machine moves both
  alike.
* Each chain row `N turns + cursor` passes back N user/assistant pairs and a new user message
  with the `cur_` cursor of the pairs: a valid cursor, so the history is verified and the host is
  asked. A long history costs more than the cursor, though: the SDK parses the larger arguments,
  the dialect reads 2N+1 messages, the sampling request carries them to the host. So each chain
  row has a control, `N turns, cursors off`: the same messages without `previous_response_id`.
  The difference between the two is what the cursor itself costs (building the transcript,
  verifying the old cursor, minting the new one), and divided by the 2N entries verified it is the
  cursor's cost per entry of history. The control's own cost per entry shows how the rest of the
  call grows.
* Everything else is `bench_calls.py`'s method, reused from it: the real server over stdio, the
  server child's CPU from `/proc/<pid>/task/*/schedstat` (or, with `--instructions`, instructions
  counted by callgrind), a warm-up before timing, several repeats whose batches alternate order,
  and the minimum over the repeats as the reading (noise only adds time). With two or more CPUs
  the client and the server are pinned to different ones.
* On 2026-07-28 one call is two `tools/call` requests, and the retry replays the arguments: round
  one reads and verifies the history, and the retry, proven by its sealed state, takes round one's
  reading (issue 28) and only mints the next cursor.
* A long history allocates many objects, so Python's cyclic garbage collector runs more often and
  walks more: part of what a long chain costs is the collector's, and that part grows faster than
  the history. `--server-gc off` (or `frozen`) runs the same server with the collector disabled
  (or with the start-up heap frozen out of its reach), a diagnostic that separates the two.

Run from the repository root: `python benchmarks/bench_cursors.py [--instructions]`
(`make bench-cursors`). `--turns 10,100` picks the chain lengths, `--json FILE` writes the samples.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack, ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp_types import TextContent

from agent_as_model.commands.progress import Progress

# bench_calls.py sits next to this script: its meters, server lookup and stdio connection are the
# method this benchmark shares with it.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_calls import (  # noqa: E402
    ANSWER_TEXT,
    CALLS,
    ERAS,
    CallgrindMeter,
    Meter,
    Sample,
    ServerSpec,
    connect,
    format_table,
    pinned_cpu_meter,
    server_specs,
)

TOOL = "chat_complete"
MODEL = "agent-default"
TURNS = (10, 100, 1000)
# Per mode: timed plain calls per batch, the fewest calls of any batch, warm-up calls per kind of
# call, repeats. A chain of N turns gets fewer calls than the plain call (`calls_for`), but not
# too few: the cyclic garbage collector runs every so many allocations, and a long history
# allocates a lot, so a batch of two or three calls reads high or low depending on whether a
# full collection fell inside it. Under callgrind a call is 50-100x slower and a count needs
# fewer calls and repeats.
DEFAULTS = {"cpu": (100, 8, 3, 5), "instructions": (40, 5, 1, 1)}
# How the server's cyclic garbage collector runs (`--server-gc`): as shipped, or diagnostics that
# show how much of a long history's cost is the collector's. `frozen` moves everything imported at
# start-up out of the collector's reach (gc.freeze()), `off` disables it.
SERVER_GC = {
    "default": None,
    "frozen": "import gc, sys; from agent_as_model.commands.cli import main; gc.freeze(); sys.exit(main())",
    "off": "import gc, sys; gc.disable(); from agent_as_model.commands.cli import main; sys.exit(main())",
}


# -- the calls ------------------------------------------------------------------------------------------


def mint(transcript: Sequence[dict[str, str]]) -> str:
    """The cursor of docs/cursors.md, computed the way any caller would (nothing imported from the
    server: a disagreement shows up as an error result, not as a silently equal mistake)."""
    text = json.dumps(
        {"model": MODEL, "tool": TOOL, "transcript": list(transcript)}, sort_keys=True, separators=(",", ":")
    )
    return "cur_" + hashlib.sha256(text.encode()).hexdigest()


def history(turns: int) -> list[dict[str, str]]:
    """N user/assistant pairs of everyday length (30-40 characters each)."""
    pairs: list[dict[str, str]] = []
    for i in range(turns):
        pairs.append({"role": "user", "content": f"Question {i}: what number comes after {i}?"})
        pairs.append({"role": "assistant", "content": f"The number after {i} is {i + 1}."})
    return pairs


@dataclass(frozen=True)
class Config:
    """One kind of call in the table: what is sent, and what must come back."""

    key: str
    label: str
    turns: int  # user/assistant pairs in the history; 0 for the plain call
    arguments: dict[str, Any]
    expected: str  # the exact text the call must return

    @property
    def entries(self) -> int:
        """History entries a cursor verifies: the pairs (the new user message is after the cut)."""
        return 2 * self.turns


def plain_config() -> Config:
    return Config("plain", "plain call, cursors off", 0, CALLS[TOOL], ANSWER_TEXT)


def chain_configs(turns: int) -> tuple[Config, Config]:
    """The chain of `turns` with its valid cursor, and its control: the same messages, cursors off."""
    pairs = history(turns)
    messages = [*pairs, {"role": "user", "content": "And after that?"}]
    answered = [*messages, {"role": "assistant", "content": ANSWER_TEXT}]
    with_cursor = {"messages": messages, "previous_response_id": mint(pairs)}
    expected = json.dumps({"completion": ANSWER_TEXT, "response_id": mint(answered)}, sort_keys=True)
    return (
        Config(f"chain-{turns}", f"{turns} turns + cursor", turns, with_cursor, expected),
        Config(f"off-{turns}", f"{turns} turns, cursors off", turns, {"messages": messages}, ANSWER_TEXT),
    )


def calls_for(config: Config, plain_calls: int, min_calls: int) -> int:
    """Fewer calls for longer histories (a 100-turn call costs some 3-10x a plain one, a 1000-turn
    call some 30-100x): 10/N of the plain calls, and never fewer than `min_calls`."""
    if config.turns <= 10:
        return plain_calls
    return max(min_calls, round(plain_calls * 10 / config.turns))


async def call_batch(client: Client, config: Config, calls: int) -> None:
    for _ in range(calls):
        result = await client.call_tool(TOOL, config.arguments)
        # Checked on the client side: not counted in the server's CPU.
        text = (
            result.content[0].text if result.content and isinstance(result.content[0], TextContent) else None
        )
        if result.is_error or text != config.expected:
            raise RuntimeError(f"{config.label}: unexpected result {result.model_dump(exclude_none=True)}")


# -- the run --------------------------------------------------------------------------------------------


async def run_era(
    spec: ServerSpec,
    era: str,
    meter: Meter,
    configs: Sequence[Config],
    plain_calls: int,
    min_calls: int,
    warmup: int,
    repeats: int,
    server_cpu: int | None,
) -> list[Sample]:
    """One server process for the whole era; each repeat runs every configuration's batch, in an
    order that alternates from repeat to repeat so a drifting machine favours none of them."""
    samples: list[Sample] = []
    async with AsyncExitStack() as stack:
        client, pid = await stack.enter_async_context(connect(spec, era, meter, server_cpu))
        for config in configs:
            await call_batch(client, config, warmup)
        # A counting line of timed batches on a terminal only, drawn between batches (unmeasured).
        progress = Progress(repeats * len(configs), sys.stderr, label=f"  {era}", unit="batch", delay=0)
        for repeat in range(repeats):
            for config in configs if repeat % 2 == 0 else configs[::-1]:
                progress.update(len(samples), f"repeat {repeat + 1}/{repeats}, {config.label}")
                calls = calls_for(config, plain_calls, min_calls)
                await meter.start(pid)
                started = time.perf_counter()
                await call_batch(client, config, calls)
                wall = time.perf_counter() - started
                cost, dump = await meter.stop(pid, f"{config.key}-{era}-r{repeat + 1}")
                samples.append(Sample(spec.key, config.key, era, repeat, calls, cost, wall, dump))
            mine = samples[-len(configs) :]
            brief = "  ".join(
                f"{s.tool} {s.per_call / meter.scale:,.0f}" for s in sorted(mine, key=lambda s: s.tool)
            )
            progress.clear()
            print(f"  {era:<10} repeat {repeat + 1}/{repeats} {meter.unit}/call: {brief}", file=sys.stderr)
    return samples


# -- the summary ----------------------------------------------------------------------------------------


@dataclass
class Row:
    era: str
    config: str
    label: str
    turns: int
    entries: int
    best: float  # min over the repeats, per call (raw unit)
    median: float
    ratio: float  # best / best of the plain call of the same era
    cursor_cost: float | None = None  # best chain - best control, per call (chain rows)
    cursor_per_entry: float | None = None  # cursor_cost / entries
    marginal_per_entry: float | None = None  # (this chain - the previous chain) / (entries more)


def summarise(samples: Sequence[Sample], configs: Sequence[Config], eras: Sequence[str]) -> list[Row]:
    rows: list[Row] = []
    for era in eras:
        best: dict[str, float] = {}
        for config in configs:
            mine = [s.per_call for s in samples if s.era == era and s.tool == config.key]
            best[config.key] = min(mine)
            rows.append(
                Row(
                    era,
                    config.key,
                    config.label,
                    config.turns,
                    config.entries,
                    min(mine),
                    statistics.median(mine),
                    0.0,
                )
            )
        era_rows = [r for r in rows if r.era == era]
        previous: Row | None = None
        for row in era_rows:
            row.ratio = row.best / best["plain"] if best["plain"] > 0 else float("nan")
            if not row.config.startswith("chain-"):
                continue
            row.cursor_cost = row.best - best[f"off-{row.turns}"]
            row.cursor_per_entry = row.cursor_cost / row.entries
            if previous is not None:
                row.marginal_per_entry = (row.best - previous.best) / (row.entries - previous.entries)
            previous = row
    return rows


def render_table(rows: Sequence[Row], meter: Meter, repeats: int) -> str:
    unit, scale = meter.unit, meter.scale
    spread = meter.mode == "cpu" and repeats > 1

    def amount(value: float | None, *, signed: bool = False, fine: bool = False) -> str:
        if value is None:
            return ""
        digits = 2 if fine and meter.mode == "cpu" else 0  # µs per entry are small; Ir are not
        return f"{value / scale:{'+' if signed else ''},.{digits}f}"

    header = [
        "era",
        "call",
        "history entries",
        f"{unit}/call",
        "× plain",
        f"cursor {unit}/call",
        f"cursor {unit}/entry",
        f"marginal {unit}/entry",
    ]
    lines = []
    for row in rows:
        per_call = amount(row.best) + (f" ({amount(row.median)})" if spread else "")
        lines.append(
            [
                row.era,
                row.label,
                str(row.entries) if row.turns else "-",
                per_call,
                f"{row.ratio:.2f}x",
                amount(row.cursor_cost, signed=True),
                amount(row.cursor_per_entry, fine=True),
                amount(row.marginal_per_entry, fine=True),
            ]
        )
    return format_table(header, lines)


def explain(meter: Meter, repeats: int) -> list[str]:
    """The lines printed above the table: what its figures are."""
    unit = meter.unit
    median = " (median)" if repeats > 1 else ""
    what = (
        f"Server-process CPU per call (user+system, all threads), µs: min{median} over the repeats."
        if meter.mode == "cpu"
        else "Server-process instructions per call (Ir: user space, all threads, counted by callgrind)."
    )
    return [
        what,
        "× plain: the call's figure over the plain call's (cursors off, 2 messages): same server, same run.",
        "N turns + cursor: N user/assistant pairs and a new question, with the pairs' valid cur_ cursor.",
        "N turns, cursors off: the same messages without previous_response_id (the control).",
        f"cursor {unit}/call: the chain minus its control, what the cursor costs; cursor {unit}/entry: that",
        f"over the 2N entries verified; marginal {unit}/entry: the chain's growth per entry of history since",
        f"the shorter chain above it. {unit}/entry that stays flat from 100 to 1000 turns means linear.",
        "One 2026-07-28 call is two tools/call requests: round one reads and verifies the history,"
        " and the proven retry takes round one's reading.",
    ]


def write_json(path: Path, settings: dict[str, Any], samples: Sequence[Sample], rows: Sequence[Row]) -> None:
    document = {
        "settings": settings,
        "summary": [asdict(row) for row in rows],
        "samples": [asdict(s) | {"per_call": s.per_call} for s in samples],
    }
    path.write_text(json.dumps(document, indent=2) + "\n")


def _turns(text: str) -> tuple[int, ...]:
    try:
        turns = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers of turns, got {text!r}") from None
    if not turns or turns[0] < 1:
        raise argparse.ArgumentTypeError("every chain needs at least one turn")
    return turns


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    cpu, instructions = DEFAULTS["cpu"], DEFAULTS["instructions"]

    def default(n: int) -> str:
        return f"(default {cpu[n]}; {instructions[n]} with --instructions)"

    parser.add_argument("--instructions", action="store_true", help="count instructions under callgrind")
    parser.add_argument(
        "--turns",
        type=_turns,
        default=TURNS,
        help=f"chain lengths, comma-separated (default {','.join(map(str, TURNS))})",
    )
    parser.add_argument(
        "--calls",
        type=int,
        help=f"timed plain calls per batch; an N-turn chain gets 10/N of them {default(0)}",
    )
    parser.add_argument("--min-calls", type=int, help=f"the fewest timed calls of any batch {default(1)}")
    parser.add_argument("--warmup", type=int, help=f"untimed calls per kind of call {default(2)}")
    parser.add_argument("--repeats", type=int, help=f"repeats {default(3)}")
    parser.add_argument("--eras", default=",".join(ERAS), help=f"comma-separated (default {','.join(ERAS)})")
    parser.add_argument(
        "--server-gc",
        choices=sorted(SERVER_GC),
        default="default",
        help="diagnostic: run the server with its garbage collector frozen after start-up or off",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the samples and the summary here")
    parser.add_argument(
        "--no-pin", action="store_true", help="do not pin the client and the server to separate CPUs"
    )
    return parser


def server_spec(gc_mode: str) -> ServerSpec:
    """The installed server, as bench_calls.py runs it; or the same entry point with its garbage
    collector set up otherwise (the program then shows as `-c` in the process list)."""
    [ours] = [s for s in server_specs(mcpserver_floor=False) if s.key == "ours"]
    code = SERVER_GC[gc_mode]
    if code is None:
        return ours
    return ServerSpec("ours", f"agent-as-model, gc {gc_mode}", sys.executable, ("-c", code))


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    mode = "instructions" if args.instructions else "cpu"
    given = (args.calls, args.min_calls, args.warmup, args.repeats)
    plain_calls, min_calls, warmup, repeats = (
        default if value is None else value for value, default in zip(given, DEFAULTS[mode], strict=True)
    )
    if plain_calls < 1 or min_calls < 1 or repeats < 1 or warmup < 0:
        raise SystemExit("--calls, --min-calls and --repeats must be at least 1, --warmup at least 0")
    eras = [era.strip() for era in args.eras.split(",") if era.strip()]
    if not eras or any(era not in ERAS for era in eras):
        raise SystemExit(f"--eras takes {', '.join(ERAS)}")
    spec = server_spec(args.server_gc)
    configs = [plain_config()]
    for turns in args.turns:
        configs.extend(chain_configs(turns))
    with ExitStack() as stack:
        meter: Meter
        cpus = None
        if args.instructions:
            meter = CallgrindMeter(Path(stack.enter_context(tempfile.TemporaryDirectory())).resolve())
            where = "under callgrind"
        else:
            meter, cpus, where = pinned_cpu_meter(not args.no_pin)
        print(
            f"{spec.label}: {repeats} repeat{'s' * (repeats != 1)} x {len(configs)} kinds of call x "
            f"{len(eras)} era(s), {plain_calls} timed plain calls per batch (at least {min_calls}) "
            f"after {warmup} warm-up calls; {where}",
            file=sys.stderr,
        )

        async def run_all() -> list[Sample]:
            samples: list[Sample] = []
            server_cpu = cpus[1] if cpus else None
            for era in eras:
                samples += await run_era(
                    spec, era, meter, configs, plain_calls, min_calls, warmup, repeats, server_cpu
                )
            return samples

        samples = anyio.run(run_all)
    rows = summarise(samples, configs, eras)
    print()
    print("\n".join(explain(meter, repeats)))
    if args.server_gc != "default":
        print(f"The server ran with its garbage collector {args.server_gc}: a diagnostic, not as shipped.")
    print()
    print(render_table(rows, meter, repeats))
    if args.json:
        settings = {
            "mode": mode,
            "server_gc": args.server_gc,
            "turns": list(args.turns),
            "calls": {c.key: calls_for(c, plain_calls, min_calls) for c in configs},
            "warmup": warmup,
            "repeats": repeats,
            "eras": eras,
            "cost": "schedstat ns" if mode == "cpu" else "callgrind Ir",
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
        }
        write_json(args.json, settings, samples, rows)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
