"""`agent-as-model fuzz`: property-based fuzzing of session-cursor chains against any stdio server.

    agent-as-model fuzz [--against CMD] [--eras legacy,2026-07-28] [--examples N] [--seed S]
                        [--tools T,...] [--no-tool-turns] [--out DIR]

A hypothesis rule-based state machine (`machine.py`) drives chains through a stdio MCP server
(this one, in a subprocess, by default) with the SDK `Client` on each era asked, answering as a
stand-in host. The oracle is this project's pure cursor functions over the fuzzer's own picture of
the conversation (`conversation.py`). A failure is shrunk, reported, and kept as a recording that
`replay FILE --against CMD` reproduces (`recording.py`); the hypothesis example database under
`--out` makes the next run start with the known failures. docs/fuzzing.md tells the whole story.

hypothesis is the `[fuzz]` extra: this module only parses options, and says which extra to
install when hypothesis is missing.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from agent_as_model.commands.fuzz.status import UNREACHABLE

COMMAND = "fuzz"
ERAS = ("legacy", "2026-07-28")
DEFAULT_EXAMPLES = 100
DEFAULT_OUT = "fuzz-out"
DEFAULT_TIMEOUT = 30.0
MISSING_EXTRA = (
    "agent-as-model fuzz needs hypothesis, which comes with the fuzz extra: install this project "
    "with it (pip install '/path/to/checkout[fuzz]'), or pip install hypothesis beside it"
)


def _listed(allowed: tuple[str, ...], what: str):  # type: ignore[no-untyped-def]
    def parse(text: str) -> list[str]:
        chosen = [item.strip() for item in text.split(",") if item.strip()]
        unknown = [item for item in chosen if item not in allowed]
        if unknown or not chosen:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {', '.join(unknown) or '(none given)'}; choose from {','.join(allowed)}"
            )
        return list(dict.fromkeys(chosen))

    return parse


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


def _tools() -> tuple[str, ...]:
    """The registered tools that declare how to write their requests (the dialect registry)."""
    from agent_as_model.commands.fuzz.render import fuzzable

    return fuzzable()


def add_parser(commands: Any) -> None:
    tools = _tools()
    parser = commands.add_parser(
        COMMAND,
        help="property-based fuzzing of session-cursor chains against this or any stdio server",
        description=(
            "Drive cursor chains (start, continue, branch, anchor, tamper, generate) through a stdio MCP "
            "server with hypothesis, checking every cursor against this project's cursor functions. "
            "Exit status: 0 nothing failed, 1 a failure (shrunk, reported and recorded under --out), "
            "2 the server could not be started or spoken to. Needs the fuzz extra (hypothesis)."
        ),
    )
    parser.add_argument(
        "--against",
        metavar="CMD",
        help="the stdio server command to fuzz, split like a shell would (default: this server)",
    )
    parser.add_argument(
        "--eras",
        type=_listed(ERAS, "era"),
        default=list(ERAS),
        metavar="ERAS",
        help="comma-separated protocol eras (default: legacy,2026-07-28)",
    )
    parser.add_argument(
        "--examples",
        type=_positive,
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"how many hypothesis examples (default {DEFAULT_EXAMPLES})",
    )
    parser.add_argument("--seed", type=int, metavar="S", help="a fixed seed, for a repeatable run")
    parser.add_argument(
        "--tools",
        type=_listed(tools, "tool"),
        default=list(tools),
        metavar="TOOLS",
        help=f"comma-separated tools to fuzz, of {','.join(tools)} (default: all of them)",
    )
    parser.add_argument(
        "--no-tool-turns",
        dest="tool_turns",
        action="store_false",
        help="plain and structured answers only, for servers without native tool-call turns (the seed shape)",
    )
    parser.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"where failures and the hypothesis example database go (default ./{DEFAULT_OUT})",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"how long to wait for one call (default {DEFAULT_TIMEOUT:g})",
    )


def default_command() -> list[str]:
    """This server, started by the same Python."""
    return [sys.executable, "-m", "agent_as_model"]


def run(args: argparse.Namespace) -> int:
    try:
        import hypothesis  # noqa: F401 - only to say which extra is missing
    except ImportError:
        print(MISSING_EXTRA, file=sys.stderr)
        return UNREACHABLE
    from agent_as_model.commands.fuzz.runner import fuzz

    command = shlex.split(args.against) if args.against else default_command()
    return fuzz(
        command,
        eras=args.eras,
        examples=args.examples,
        seed=args.seed,
        tools=args.tools,
        out=args.out,
        timeout=args.timeout,
        tool_turns=args.tool_turns,
    )
