"""Run the corpus through a real server and say how each entry came back.

Each entry's body goes to its tool as written by the SDK, on a server whose results are the
products' objects (`serve --result object`), from a host that declares `sampling.tools` and
answers from the entry's script. What came back is read as a caller reads it: an error is
`refused`; a result whose `_meta["agent-as-model/result"].warnings` names something is `hinted`;
anything else `faithful`. Every object is validated as its SDK's own type, and `problems` lists
every way the entry's expectation was not met.

`python -m tests.corpus.run --command PATH` runs it over stdio against any installed
`agent-as-model` (another checkout's, for the counts before a change), on both eras, and prints
the counts; the tests run it in-process and over stdio with this checkout's command.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, NamedTuple

from anthropic.types import Message
from google.genai.types import GenerateContentResponse
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.client.stdio import StdioServerParameters
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ErrorData,
    SamplingCapability,
    SamplingToolsCapability,
)
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from tests.corpus.entries import ENTRIES, HINTS_KEY, Entry

META = "agent-as-model/result"
NOTHING_SENT = "Nothing was sent to the host."
OBJECTS: dict[str, Any] = {
    "chat_complete": ChatCompletion,
    "messages_create": Message,
    "responses_create": Response,
    "gemini_generate_content": GenerateContentResponse,
}


class Outcome(NamedTuple):
    entry: Entry
    observed: str  # faithful | hinted | refused
    problems: tuple[str, ...]  # how the expectation was not met; empty when it was
    warnings: tuple[str, ...] = ()
    error: str = ""


class Host:
    """The sampling side, answering each entry from its own script; keeps what it was sent."""

    def __init__(self) -> None:
        self.answers: tuple[Any, ...] = ()
        self.seen: list[CreateMessageRequestParams] = []

    def start(self, entry: Entry) -> None:
        self.answers, self.seen = entry.answers, []

    async def __call__(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | CreateMessageResultWithTools | ErrorData:
        self.seen.append(params)
        # `n` asks its completions side by side: each takes the next answer of the script.
        return self.answers[min(len(self.seen), len(self.answers)) - 1]

    def wires(self) -> list[dict[str, Any]]:
        return [p.model_dump(by_alias=True, mode="json", exclude_none=True) for p in self.seen]


CAPABILITIES = SamplingCapability(tools=SamplingToolsCapability())


@asynccontextmanager
async def connected(era: str, server: Any, host: Host) -> AsyncIterator[Client]:
    async with Client(server, mode=era, sampling_callback=host, sampling_capabilities=CAPABILITIES) as client:
        yield client


def stdio(command: str) -> StdioServerParameters:
    return StdioServerParameters(command=command, args=["serve", "--result", "object"])


async def run(client: Client, host: Host, entries: Sequence[Entry] = ENTRIES) -> list[Outcome]:
    return [await run_entry(client, host, entry) for entry in entries]


async def run_entry(client: Client, host: Host, entry: Entry) -> Outcome:
    host.start(entry)
    body = entry.body()
    result = await client.call_tool(entry.tool, body)
    text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
    if result.is_error:
        return Outcome(entry, "refused", tuple(_refusal_problems(entry, text, host)), error=text)
    meta = (result.meta or {}).get(META, {})
    warnings = tuple(meta.get("warnings", ()))
    observed = "hinted" if warnings else "faithful"
    problems = list(_served_problems(entry, observed, warnings))
    try:
        obj = json.loads(text)
        OBJECTS[entry.tool].model_validate(obj)
        wires = host.wires()
        if entry.hints is not None:
            sent = wires[0].get("metadata", {}).get(HINTS_KEY)
            if sent != dict(entry.hints):
                problems.append(f"the host was sent the hints {sent!r}, not {dict(entry.hints)!r}")
        if entry.check is not None:
            entry.check(obj, wires)
    except Exception as err:  # every failed check is a problem of the entry, told by its message
        problems.append(f"{type(err).__name__}: {err}")
    return Outcome(entry, observed, tuple(problems), warnings)


def _refusal_problems(entry: Entry, text: str, host: Host) -> list[str]:
    if entry.expect != "refused":
        return [f"refused: {text}"]
    problems = []
    path = entry.named[0]
    if not text.startswith(f"{entry.tool}: {path}: "):
        problems.append(f"the refusal does not name {path}: {text}")
    if entry.says not in text:
        problems.append(f"the refusal does not say {entry.says!r}: {text}")
    if not text.endswith(NOTHING_SENT) or host.seen:
        problems.append(f"something was sent to the host: {text}")
    return problems


def _served_problems(entry: Entry, observed: str, warnings: tuple[str, ...]) -> list[str]:
    if entry.expect == "refused":
        return [f"served, where it must be refused naming {entry.named[0]}"]
    if entry.expect == "faithful":
        return [f"warned, where it is served faithfully: {list(warnings)}"] if warnings else []
    if not warnings:
        return [f"served without a warning naming {', '.join(entry.named)}"]
    problems = [f"no warning names {path}" for path in entry.named if not _named(path, warnings)]
    if entry.says and not any(entry.says in w for w in warnings):
        problems.append(f"no warning says {entry.says!r}: {list(warnings)}")
    return problems


def _named(path: str, warnings: tuple[str, ...]) -> bool:
    """A warning names a path when it starts with it (or lists it among the paths it starts with)."""
    return any(w.split(": ", 1)[0].split(", ").count(path) for w in warnings)


def counts(outcomes: Sequence[Outcome]) -> dict[str, int]:
    """How many came back faithful, hinted and refused; and, of them, how many as they must."""
    tally = Counter(o.observed for o in outcomes)
    silent = sum(1 for o in outcomes if o.entry.expect == "hinted" and o.observed == "faithful")
    wrongly = sum(1 for o in outcomes if o.entry.expect != "refused" and o.observed == "refused")
    return {
        "entries": len(outcomes),
        "faithful": tally["faithful"],
        "hinted": tally["hinted"],
        "refused": tally["refused"],
        "as expected": sum(1 for o in outcomes if not o.problems),
        "served without the warning it needs": silent,
        "refused though it can be served": wrongly,
    }


async def _main(command: str, verbose: bool) -> int:
    failed = 0
    for era in ("legacy", "2026-07-28"):
        host = Host()
        async with connected(era, stdio(command), host) as client:
            outcomes = await run(client, host)
        print(f"{era}: {json.dumps(counts(outcomes))}")
        for outcome in outcomes:
            if outcome.problems:
                failed += 1
                if verbose:
                    print(f"  {outcome.entry.name} [{outcome.entry.expect} -> {outcome.observed}]")
                    for problem in outcome.problems:
                        print(f"    {problem[:300]}")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--command", required=True, help="the agent-as-model command to run over stdio")
    parser.add_argument("--verbose", action="store_true", help="list every entry that missed its mark")
    args = parser.parse_args(argv)
    return asyncio.run(_main(args.command, args.verbose))


if __name__ == "__main__":
    sys.exit(main())
