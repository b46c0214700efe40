"""The soak (`make soak`, not part of `make test`): garbage in, on every tool, on both eras.

The tools are read from the dialect registry (`DIALECTS`, plus `list_models`), so a new dialect
is soaked as soon as it is registered; the soak stops if the server lists a tool it does not
know. For each tool, hypothesis generates malformed arguments: random JSON bodies, the tool's
`EXAMPLE` with top-level parameters replaced by random JSON, and the `EXAMPLE` with one nested
value replaced or one nested key added (`contents[0].parts[0].text`, `generationConfig.topK`,
...), drawing names and enum values from the tool's own input schema. And garbage host answers:
empty content, wrong roles, images, tool calls offered or not, odd text, odd stop reasons and
model names, host errors, to valid bodies that carry an output contract (`output_schema`, a
persona, the product's own way of asking for JSON) or a tool definition in the product's shape.
Each call goes to the installed `agent-as-model serve` over real stdio, through the SDK
`Client`, and is counted as:

- ok: a result that is not an error;
- clear: an error that names what was wrong and says what reached the host (our message
  format), or the JSON-RPC -32021 for a host without sampling;
- opaque: any other error (an internal error, an SDK error text, an unexpected exception);
- hang: no answer within --hang seconds;
- dead: the server process ended or the connection broke.

The goal is 0 opaque, 0 hang, 0 dead, and the server's RSS flat: its VmRSS (read from /proc at
each checkpoint) grows by less than --rss-growth MiB over the second half of each era's calls.
Exit status 0 when the goal is met, 1 otherwise.

    .venv/bin/python benchmarks/soak.py [--calls 20000] [--eras both] [--seed N] [--json FILE]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from mcp import Client, MCPError
from mcp.client import ClientRequestContext
from mcp.client.stdio import StdioServerParameters
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ErrorData,
    ImageContent,
    SamplingCapability,
    SamplingToolsCapability,
    TextContent,
    ToolUseContent,
)

from agent_as_model.adapters.dialects import DIALECTS, Dialect
from agent_as_model.adapters.tools import models
from agent_as_model.commands.progress import Progress

COMMAND = Path(sys.executable).parent / "agent-as-model"
ERAS = ("legacy", "2026-07-28")
COMPLETIONS: tuple[str, ...] = tuple(DIALECTS)
TOOLS: tuple[str, ...] = (*COMPLETIONS, models.NAME)
CLEAR = re.compile(
    rf"^(?:{'|'.join(re.escape(tool) for tool in TOOLS)}): .+\. "
    r"(?:Nothing was sent to the host\.|The host was asked; its answer was not used\.)$",
    re.DOTALL,
)
# Flat RSS: VmRSS grows by less than this over the second half of an era's calls. Why the second
# half: the first takes the one-off growth that is no leak (the lazy imports, the bounded caches
# filling: 256 compiled validators are about 0.5 MiB, 512 compiled patterns, pymalloc arenas), and
# a leak keeps climbing, so the second half shows it. Why 2 MiB: with 10,000 calls per era (the
# default) that is about 400 bytes a call over the last 5,000, so a leak of a small object per
# call shows; a smaller line would flag one more pymalloc arena (1 MiB) or glibc keeping a freed
# large body. With far fewer calls (a smoke run) the line says little.
RSS_GROWTH_MIB = 2.0

# -- what the soak knows of each tool, read from its registration -------------------------------

_INTEGER_A = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
_EVIL = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a|a)+$"}}}
_TOOL_SCHEMA = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
# Contracts that any tool taking these parameters accepts.
_SHARED_CONTRACTS: tuple[dict[str, Any], ...] = (
    {"output_schema": _INTEGER_A},
    {"output_schema": _EVIL},
    {"persona": {"name": "p", "output_schema": {"type": "object"}}},
    {"output_schema": {"type": "object", "required": ["a"]}, "repair_attempts": 2},
)
# The products' own ways of asking for JSON. A dialect reads them with a function (its
# `native_output`), which cannot be enumerated, so they are written here; a new dialect is soaked
# with the shared contracts and its own tool shape without an entry.
_NATIVE_OUTPUT: dict[str, tuple[dict[str, Any], ...]] = {
    "chat_complete": (
        {"response_format": {"type": "json_schema", "json_schema": {"name": "o", "schema": _INTEGER_A}}},
        {"response_format": {"type": "json_object"}},
    ),
    "responses_create": ({"text": {"format": {"type": "json_schema", "name": "o", "schema": _INTEGER_A}}},),
    "gemini_generate_content": (
        {
            "generationConfig": {
                "responseMimeType": "application/json",
                "responseSchema": {
                    "type": "OBJECT",
                    "properties": {"a": {"type": "INTEGER"}},
                    "required": ["a"],
                },
            }
        },
        # snake_case inside camelCase, as the google-genai SDK mixes them
        {"generationConfig": {"response_mime_type": "application/json", "response_json_schema": _EVIL}},
        {"generationConfig": {"responseMimeType": "application/json"}},
    ),
}
# Top-level names no tool takes, beside every tool's names (another product's are foreign too).
_FOREIGN = ("", "stream_mode", "__proto__", "x" * 40)


@dataclass(frozen=True)
class Shape:
    name: str
    base: dict[str, Any]  # a valid body: the dialect's EXAMPLE
    parameters: tuple[str, ...]  # its top-level parameters
    words: tuple[str, ...]  # every property name of its input schema, at any depth
    enums: tuple[Any, ...]  # every enum value of its input schema: garbage that is nearly right
    contracts: tuple[dict[str, Any], ...]  # additions to `base` that make the host's answer matter


def _schema_words(schema: Any) -> tuple[set[str], list[Any]]:
    """The property names and enum values anywhere in a JSON Schema."""
    names: set[str] = set()
    enums: list[Any] = []
    nodes = [schema]
    while nodes:
        node = nodes.pop()
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                names.update(node["properties"])
            if isinstance(node.get("enum"), list):
                enums.extend(v for v in node["enum"] if v not in enums)
            nodes.extend(node.values())
        elif isinstance(node, list):
            nodes.extend(node)
    return names, enums


def _contracts(dialect: Dialect, parameters: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    shared = [c for c in _SHARED_CONTRACTS if set(c) <= set(parameters)]
    tools: list[dict[str, Any]] = []
    if dialect.tools is not None:  # a tool named "f" in the product's own shape: answers may call it
        written = [dialect.tools.write_tool("f", "a tool", _TOOL_SCHEMA)]
        tools.append({"tools": dialect.tools.group(written) if dialect.tools.group else written})
    return ({}, *shared, *tools, *_NATIVE_OUTPUT.get(dialect.NAME, ()))


def _shape(dialect: Dialect) -> Shape:
    names, enums = _schema_words(dialect.INPUT_SCHEMA)
    parameters = tuple(dialect.INPUT_SCHEMA.get("properties", {}))
    # Without an EXAMPLE, the conversation as one string: most dialects take it.
    base = dict(dialect.EXAMPLE) if dialect.EXAMPLE else {dialect.body.conversation: "q"}
    return Shape(
        dialect.NAME, base, parameters, tuple(sorted(names)), tuple(enums), _contracts(dialect, parameters)
    )


SHAPES: dict[str, Shape] = {
    **{name: _shape(dialect) for name, dialect in DIALECTS.items()},
    models.NAME: Shape(models.NAME, {}, (), (), (), ({},)),
}
ALL_PARAMETERS = tuple(sorted({p for shape in SHAPES.values() for p in shape.parameters} | set(_FOREIGN)))


def merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`base` with `extra` merged in, objects key by key (a contract's generationConfig keeps the
    EXAMPLE's temperature)."""
    out = copy.deepcopy(base)
    for key, value in copy.deepcopy(extra).items():
        out[key] = (
            merged(out[key], value) if isinstance(out.get(key), dict) and isinstance(value, dict) else value
        )
    return out


# -- what hypothesis draws: bodies --------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
evil_schema = st.just(_EVIL)


def garbage(shape: Shape) -> st.SearchStrategy[Any]:
    nearly = [st.sampled_from(shape.enums)] if shape.enums else []
    return st.one_of(json_values, evil_schema, *nearly)


def replaced(shape: Shape) -> st.SearchStrategy[dict[str, Any]]:
    """The EXAMPLE with up to three top-level parameters (its own, or any tool's) set to garbage."""
    own = [st.sampled_from(shape.parameters)] if shape.parameters else []
    names = st.one_of(*own, st.sampled_from(ALL_PARAMETERS))
    changes = st.dictionaries(names, garbage(shape), min_size=1, max_size=3)
    return changes.map(lambda change: {**shape.base, **change})


def _paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every node under `value` (keys and indexes), `value` itself first."""
    yield at
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*at, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*at, index))


def _node(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


@st.composite
def mutated(draw: st.DrawFn, shape: Shape) -> dict[str, Any]:
    """A valid body with one nested value replaced, or one nested key added: reaches the readers
    of nested shapes (a content's parts, a config object) that top-level garbage never passes."""
    body = merged(shape.base, draw(st.sampled_from(shape.contracts)))
    paths = list(_paths(body))
    objects = [p for p in paths if isinstance(_node(body, p), dict)]
    names = (st.sampled_from(shape.words) | st.text(max_size=10)) if shape.words else st.text(max_size=10)
    # A copy of the garbage: a shared value (the evil schema) set inside itself would be a cycle.
    value = copy.deepcopy(draw(garbage(shape)))
    if len(paths) > 1 and draw(st.booleans()):
        path = draw(st.sampled_from(paths[1:]))
        _node(body, path[:-1])[path[-1]] = value
    else:
        _node(body, draw(st.sampled_from(objects)))[draw(names)] = value
    return body


def valid(shape: Shape) -> st.SearchStrategy[dict[str, Any]]:
    """Valid bodies, so the host's garbage answers are what is tested."""
    return st.sampled_from(shape.contracts).map(lambda contract: merged(shape.base, contract))


def bodies(shape: Shape) -> st.SearchStrategy[dict[str, Any]]:
    random_body = st.dictionaries(st.text(max_size=12), json_values, max_size=4)
    return st.one_of(replaced(shape), random_body, mutated(shape), valid(shape), valid(shape))


calls = st.sampled_from(TOOLS).flatmap(lambda tool: st.tuples(st.just(tool), bodies(SHAPES[tool])))

# -- what hypothesis draws: host answers --------------------------------------------------------

texts = st.text(max_size=40) | st.sampled_from(
    ['{"a": "' + "a" * 40 + 'b"}', '{"a": 1}', '{"x": 1}', "{}", "[1]", "```json\n{}\n```"]
)
# The renderers map these (finishReason, stop_reason, ...); the model name goes into the result.
stop_reasons = st.sampled_from([None, "endTurn", "stopSequence", "maxTokens", "toolUse", "refusal", ""])
model_names = st.sampled_from(["m", ""]) | st.text(max_size=12)
blocks = st.one_of(
    texts.map(lambda t: TextContent(type="text", text=t)),
    st.builds(
        lambda i, n, v: ToolUseContent(type="tool_use", id=i or "x", name=n or "t", input=v),
        st.text(max_size=8),
        st.sampled_from(["structured_output", "f", "unknown", ""]),  # "f" is the offered tool
        st.just({"x": 1}) | st.dictionaries(st.text(max_size=6), json_values, max_size=3),
    ),
    st.just(ImageContent(type="image", data="AAAA", mime_type="image/png")),
)


def _answer(role: str, content: Any, model: str, stop: str | None) -> CreateMessageResult:
    return CreateMessageResult(role=role, content=content, model=model, stop_reason=stop)  # type: ignore[arg-type]


assistant_texts = st.builds(
    _answer,
    st.just("assistant"),
    texts.map(lambda t: TextContent(type="text", text=t)),
    model_names,
    stop_reasons,
)
user_texts = st.builds(
    _answer, st.just("user"), texts.map(lambda t: TextContent(type="text", text=t)), model_names, stop_reasons
)
block_lists = st.builds(
    lambda b, m, s: CreateMessageResultWithTools(role="assistant", content=b, model=m, stop_reason=s),
    st.lists(blocks, max_size=3),
    model_names,
    stop_reasons,
)
host_errors = st.builds(lambda m: ErrorData(code=-1, message=m), st.text(max_size=20))
answers = st.one_of(assistant_texts, block_lists, user_texts, host_errors)


# -- one era ------------------------------------------------------------------------------------


@dataclass
class Tally:
    era: str
    calls: int  # the era's share of --calls
    counts: Counter[str] = field(default_factory=Counter)
    rss_kb: list[tuple[int, int]] = field(default_factory=list)  # (calls so far, VmRSS)
    opaque: list[str] = field(default_factory=list)

    @property
    def done(self) -> int:
        return sum(self.counts.values())

    def second_half_growth_kb(self) -> int | None:
        """VmRSS at the end minus at the checkpoint nearest half the calls; None without readings."""
        readings = [(n, kb) for n, kb in self.rss_kb if kb > 0]
        if len(readings) < 2:
            return None
        half = min(readings, key=lambda reading: abs(reading[0] - self.done / 2))
        return readings[-1][1] - half[1]

    def rss_flat(self, limit_mib: float) -> bool:
        growth = self.second_half_growth_kb()
        return growth is not None and growth < limit_mib * 1024

    def clean(self) -> bool:
        return not (self.counts["opaque"] or self.counts["hang"] or self.counts["dead"])


class Host:
    """The sampling side: answers each request with the garbage drawn for the current call."""

    def __init__(self) -> None:
        self.answer: Any = None

    async def __call__(self, context: ClientRequestContext, params: CreateMessageRequestParams) -> Any:
        return self.answer


async def call_once(client: Client, tool: str, arguments: dict[str, Any], hang: float) -> tuple[str, str]:
    try:
        with anyio.fail_after(hang):
            result = await client.call_tool(tool, arguments)
    except TimeoutError:
        return "hang", f"{tool}: no answer in {hang} s"
    except MCPError as err:
        if err.error.code == -32021:
            return "clear", ""
        return "opaque", f"{tool}: MCPError {err.error.code}: {err.error.message}"
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as err:
        return "dead", f"{tool}: {type(err).__name__}"
    except Exception as err:  # the client could not even read the result
        return "opaque", f"{tool}: {type(err).__name__}: {err}"
    if not result.is_error:
        return "ok", ""
    first = result.content[0] if result.content else None
    text = first.text if isinstance(first, TextContent) else ""
    if CLEAR.match(text) and "internal error" not in text:
        return "clear", ""
    return "opaque", text


def server_pid(before: set[int]) -> int | None:
    mine = os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in before:
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry.name}/cmdline", "rb") as cmdline:
                argv = cmdline.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == mine and b"agent-as-model" in argv:
            return int(entry.name)
    return None


def rss_kb(pid: int | None) -> int:
    if pid is None:
        return -1
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def check_listing(portal: BlockingPortal, client: Client) -> None:
    """Stop when the server lists a tool the soak does not draw calls for (or misses one)."""
    listed = {tool.name for tool in portal.call(client.list_tools).tools}
    if listed != set(TOOLS):
        raise SystemExit(
            f"the server lists {sorted(listed)}, the soak knows {sorted(TOOLS)}: "
            "is a dialect registered outside agent_as_model.adapters.dialects.DIALECTS?"
        )


def warm_up(portal: BlockingPortal, client: Client, host: Host) -> None:
    """One valid call per tool and contract, not counted: the lazy imports (jsonschema, regex) and
    first-use allocations land before the first RSS reading, not in the soak's growth."""
    host.answer = CreateMessageResult(
        role="assistant", content=TextContent(type="text", text='{"a": 1}'), model="m"
    )
    for shape in SHAPES.values():
        for contract in shape.contracts:
            portal.call(call_once, client, shape.name, merged(shape.base, contract), 30.0)


def soak_era(era: str, calls: int, hang: float, seed_value: int | None) -> Tally:
    tally = Tally(era, calls)
    host = Host()
    params = StdioServerParameters(command=str(COMMAND), args=["serve", "--host-timeout", str(hang / 2)])
    before = {int(p) for p in os.listdir("/proc") if p.isdigit()}
    client_cm = Client(
        params,
        mode=era,
        sampling_callback=host,
        sampling_capabilities=SamplingCapability(tools=SamplingToolsCapability()),
    )
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(client_cm) as client:
        pid = server_pid(before)
        print(f"{era}: server pid {pid}", file=sys.stderr)
        check_listing(portal, client)
        warm_up(portal, client, host)
        tally.rss_kb.append((0, rss_kb(pid)))

        def call(tool: str, arguments: dict[str, Any]) -> tuple[str, str]:
            return portal.call(call_once, client, tool, arguments, hang)

        progress = Progress(calls, sys.stderr, label=f"soak {era}", unit="call", delay=0)  # a terminal only
        run = one_example(tally, host, call, lambda: rss_kb(pid), seed_value, progress)
        while tally.done < calls and not tally.counts["dead"]:  # hypothesis may stop early
            run()
        progress.clear()
        tally.rss_kb.append((tally.done, rss_kb(pid)))
    return tally


def one_example(
    tally: Tally,
    host: Host,
    call: Callable[[str, dict[str, Any]], tuple[str, str]],
    read_rss: Callable[[], int],
    seed_value: int | None,
    progress: Progress | None = None,
) -> Callable[[], None]:
    """The hypothesis test that makes one call per example and counts it in `tally`."""
    checkpoint = max(tally.calls // 10, 1)

    @settings(
        max_examples=tally.calls,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        derandomize=False,
    )
    @given(drawn=calls, answer=answers)
    def one(drawn: tuple[str, dict[str, Any]], answer: Any) -> None:
        if tally.done >= tally.calls or tally.counts["dead"]:
            return
        if tally.era != "legacy" and isinstance(answer, ErrorData):  # no host errors on 2026-07-28
            answer = CreateMessageResult(
                role="assistant", content=TextContent(type="text", text=""), model="m"
            )
        host.answer = answer
        kind, detail = call(*drawn)
        tally.counts[kind] += 1
        if kind not in ("ok", "clear") and len(tally.opaque) < 20:
            tally.opaque.append(f"{kind}: {detail[:300]}")
        if tally.done % checkpoint == 0:
            tally.rss_kb.append((tally.done, read_rss()))
        if progress is not None:
            problems = tally.done - tally.counts["ok"] - tally.counts["clear"]
            progress.update(tally.done, f"{problems} opaque/hang/dead")

    test: Callable[[], None] = one  # type: ignore[assignment]  # `given` supplies the arguments
    return seed(seed_value)(test) if seed_value is not None else test


# -- the report ---------------------------------------------------------------------------------


def rss_cell(tally: Tally) -> str:
    readings = [kb for _, kb in tally.rss_kb if kb > 0]
    growth = tally.second_half_growth_kb()
    if not readings or growth is None:
        return "n/a"
    return f"{readings[0] / 1024:.1f} → {readings[-1] / 1024:.1f} ({growth:+,d} KiB)"


def report(tallies: list[Tally], limit_mib: float, seconds: float) -> bool:
    """Print the table and the verdict; whether the goal is met."""
    head = f"{'era':<11} {'calls':>6} {'ok':>6} {'clear':>6} {'opaque':>6} {'hang':>5} {'dead':>5}"
    print(f"{head}  RSS MiB first → last (second half)")
    for tally in tallies:
        c = tally.counts
        print(
            f"{tally.era:<11} {tally.done:>6} {c['ok']:>6} {c['clear']:>6} {c['opaque']:>6} "
            f"{c['hang']:>5} {c['dead']:>5}  {rss_cell(tally)}"
        )
        for line in tally.opaque:
            print(f"    {line}")
    clean = all(t.clean() for t in tallies)
    flat = all(t.rss_flat(limit_mib) for t in tallies)
    print(
        f"{seconds:.0f} s; goal (0 opaque, 0 hang, 0 dead; RSS growth over each era's second half "
        f"< {limit_mib:g} MiB): {'MET' if clean and flat else 'NOT MET'}"
        + ("" if flat else " (RSS not flat)")
    )
    return clean and flat


def summary(tallies: list[Tally], limit_mib: float, seconds: float, met: bool) -> dict[str, Any]:
    return {
        "goal_met": met,
        "seconds": seconds,
        "rss_growth_limit_mib": limit_mib,
        "tools": list(TOOLS),
        "eras": [
            {
                "era": t.era,
                "counts": {kind: t.counts[kind] for kind in ("ok", "clear", "opaque", "hang", "dead")},
                "calls": t.done,
                "rss_kb": t.rss_kb,
                "second_half_growth_kb": t.second_half_growth_kb(),
                "rss_flat": t.rss_flat(limit_mib),
                "opaque": t.opaque,
            }
            for t in tallies
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=20000, help="calls in all, split across the eras")
    parser.add_argument(
        "--hang", type=float, default=30.0, help="seconds without an answer that count as a hang"
    )
    parser.add_argument(
        "--rss-growth", type=float, default=RSS_GROWTH_MIB, metavar="MIB",
        help="the most VmRSS may grow over an era's second half and still count as flat",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, help="hypothesis seed (default: a random one)")
    parser.add_argument("--eras", choices=("both", *ERAS), default="both", help="soak one era only")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    started = time.monotonic()
    eras = ERAS if args.eras == "both" else (args.eras,)
    tallies = [soak_era(era, args.calls // len(eras), args.hang, args.seed) for era in eras]
    seconds = time.monotonic() - started
    met = report(tallies, args.rss_growth, seconds)
    if args.json:
        Path(args.json).write_text(json.dumps(summary(tallies, args.rss_growth, seconds, met), indent=2))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
