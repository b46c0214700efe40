"""The soak (`make soak`, not part of `make test`): garbage in, on every tool, on both eras.

Hypothesis generates malformed arguments for every tool (random JSON, and valid bodies with
parameters replaced by random JSON) and garbage host answers (empty content, wrong roles, images,
tool calls nobody offered, odd text, host errors). Each call goes to the installed
`agent-as-model serve` over real stdio, through the SDK `Client`, and is counted as:

- ok: a result that is not an error;
- clear: an error that names what was wrong and says what reached the host (our message
  format), or the JSON-RPC -32021 for a host without sampling;
- opaque: any other error (an internal error, an SDK error text, an unexpected exception);
- hang: no answer within --hang seconds;
- dead: the server process ended or the connection broke.

The goal is 0 opaque, 0 hang, 0 dead, and the server's RSS flat (it is read from /proc at
each checkpoint). Exit status 0 when the goal is met, 1 otherwise.

    .venv/bin/python benchmarks/soak.py [--calls 20000] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, Phase, given, settings
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

COMMAND = Path(sys.executable).parent / "agent-as-model"
ERAS = ("legacy", "2026-07-28")
TOOLS = ("chat_complete", "messages_create", "responses_create", "generate", "list_models")
CLEAR = re.compile(
    r"^(chat_complete|messages_create|responses_create|generate|list_models): .+\. "
    r"(Nothing was sent to the host\.|The host was asked; its answer was not used\.)$",
    re.DOTALL,
)
PARAMETERS = (
    "messages", "model", "temperature", "max_tokens", "output_schema", "tools", "tool_choice", "persona",
    "previous_response_id", "system", "input", "instructions", "prompt", "repair_attempts", "stop",
    "response_format", "text", "max_completion_tokens", "max_output_tokens", "stop_sequences", "stream",
)  # fmt: skip
BASE: dict[str, dict[str, Any]] = {
    "chat_complete": {"messages": [{"role": "user", "content": "q"}]},
    "messages_create": {"messages": [{"role": "user", "content": "q"}]},
    "responses_create": {"input": "q"},
    "generate": {"prompt": "q"},
    "list_models": {},
}

# -- what hypothesis draws -----------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
evil_schema = st.fixed_dictionaries(
    {"type": st.just("object"), "properties": st.just({"a": {"type": "string", "pattern": "^(a|a)+$"}})}
)
replaced = st.tuples(
    st.sampled_from(TOOLS),
    st.dictionaries(st.sampled_from(PARAMETERS), json_values | evil_schema, min_size=1, max_size=3),
).map(lambda pair: (pair[0], {**BASE[pair[0]], **pair[1]}))
random_body = st.tuples(
    st.sampled_from(TOOLS), st.dictionaries(st.text(max_size=12), json_values, max_size=4)
)
contracts = st.sampled_from(
    [
        {},
        {"output_schema": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}},
        {"output_schema": {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a|a)+$"}}}},
        {"persona": {"name": "p", "output_schema": {"type": "object"}}},
        {"output_schema": {"type": "object", "required": ["a"]}, "repair_attempts": 2},
    ]
)
# Valid bodies, so the host's garbage answers are what is tested.
valid = st.tuples(st.sampled_from(TOOLS), contracts).map(
    lambda pair: (
        pair[0],
        {**BASE[pair[0]], **(pair[1] if pair[0] not in ("generate", "list_models") else {})},
    )
)
calls = st.one_of(replaced, random_body, valid, valid)

texts = st.text(max_size=40) | st.sampled_from(
    ['{"a": "' + "a" * 40 + 'b"}', "{}", "[1]", "```json\n{}\n```"]
)
blocks = st.one_of(
    texts.map(lambda t: TextContent(type="text", text=t)),
    st.builds(
        lambda i, n, v: ToolUseContent(type="tool_use", id=i or "x", name=n or "t", input=v),
        st.text(max_size=8),
        st.sampled_from(["structured_output", "f", "unknown", ""]),
        st.dictionaries(st.text(max_size=6), json_values, max_size=3),
    ),
    st.just(ImageContent(type="image", data="AAAA", mime_type="image/png")),
)
answers = st.one_of(
    texts.map(
        lambda t: CreateMessageResult(role="assistant", content=TextContent(type="text", text=t), model="m")
    ),
    st.lists(blocks, max_size=3).map(
        lambda b: CreateMessageResultWithTools(role="assistant", content=b, model="m")  # type: ignore[arg-type]
    ),
    texts.map(
        lambda t: CreateMessageResult(role="user", content=TextContent(type="text", text=t), model="m")
    ),
    st.builds(lambda m: ErrorData(code=-1, message=m), st.text(max_size=20)),
)


# -- one era ------------------------------------------------------------------------------------


@dataclass
class Tally:
    era: str
    counts: Counter[str] = field(default_factory=Counter)
    rss_kb: list[tuple[int, int]] = field(default_factory=list)  # (calls so far, VmRSS)
    opaque: list[str] = field(default_factory=list)


class Host:
    """The sampling side: answers each request with the garbage drawn for the current call."""

    def __init__(self, era: str) -> None:
        self.era = era
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
    text = result.content[0].text if result.content and hasattr(result.content[0], "text") else ""
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


def soak_era(era: str, calls: int, hang: float) -> Tally:
    tally = Tally(era)
    host = Host(era)
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
        checkpoint = max(calls // 10, 1)

        @settings(
            max_examples=calls,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
            derandomize=False,
        )
        @given(call=calls_strategy(), answer=answers)
        def one(call: tuple[str, dict[str, Any]], answer: Any) -> None:
            done = sum(tally.counts.values())
            if done >= calls or tally.counts["dead"]:
                return
            if era != "legacy" and isinstance(answer, ErrorData):
                answer = CreateMessageResult(
                    role="assistant", content=TextContent(type="text", text=""), model="m"
                )
            host.answer = answer
            tool, arguments = call
            kind, detail = portal.call(call_once, client, tool, arguments, hang)
            tally.counts[kind] += 1
            if kind != "ok" and kind != "clear" and len(tally.opaque) < 20:
                tally.opaque.append(f"{kind}: {detail[:300]}")
            if (done + 1) % checkpoint == 0 or done == 0:
                tally.rss_kb.append((done + 1, rss_kb(pid)))

        one()
        while sum(tally.counts.values()) < calls and not tally.counts["dead"]:  # hypothesis may stop early
            one()
        tally.rss_kb.append((sum(tally.counts.values()), rss_kb(pid)))
    return tally


def calls_strategy() -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    return calls


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=20000, help="calls in all, split across the eras")
    parser.add_argument(
        "--hang", type=float, default=30.0, help="seconds without an answer that count as a hang"
    )
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    started = time.monotonic()
    tallies = [soak_era(era, args.calls // len(ERAS), args.hang) for era in ERAS]
    head = f"{'era':<11} {'calls':>6} {'ok':>6} {'clear':>6} {'opaque':>6} {'hang':>5} {'dead':>5}"
    print(f"{head}  RSS MiB (first → last)")
    met = True
    for tally in tallies:
        c = tally.counts
        rss = [kb for _, kb in tally.rss_kb if kb > 0]
        flat = f"{rss[0] / 1024:.1f} → {rss[-1] / 1024:.1f}" if rss else "n/a"
        print(
            f"{tally.era:<11} {sum(c.values()):>6} {c['ok']:>6} {c['clear']:>6} {c['opaque']:>6} "
            f"{c['hang']:>5} {c['dead']:>5}  {flat}"
        )
        met = met and not (c["opaque"] or c["hang"] or c["dead"])
        for line in tally.opaque:
            print(f"    {line}")
    print(
        f"{time.monotonic() - started:.0f} s; goal (0 opaque, 0 hang, 0 dead): {'MET' if met else 'NOT MET'}"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                [
                    {"era": t.era, "counts": dict(t.counts), "rss_kb": t.rss_kb, "opaque": t.opaque}
                    for t in tallies
                ],
                indent=2,
            )
        )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
