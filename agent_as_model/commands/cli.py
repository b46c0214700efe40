"""`agent-as-model`: serve over stdio (the default, what hosts run), the newcomer's demo, and the
subcommands (export-tools, replay, fuzz)."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import anyio

from agent_as_model import __version__
from agent_as_model.commands import export_tools, fuzz
from agent_as_model.commands import http as http_serve
from agent_as_model.commands.limit_options import add_limit_options, limits_of
from agent_as_model.commands.provider_options import add_provider_options, provider_settings
from agent_as_model.commands.transcripts import command as transcripts
from agent_as_model.errors import StartupError
from agent_as_model.limits import DEFAULT_LIMITS, Limits

LOG_LEVEL_ENV = "AGENT_AS_MODEL_LOG_LEVEL"
_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# The exit status of a start-up error (a bad flag, environment variable or path): argparse's own.
STARTUP_FAILED = 2


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors as one line (its default prints the usage first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(STARTUP_FAILED, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="agent-as-model",
        description=(
            "An MCP server where the connected agent is the model: OpenAI- and Anthropic-shaped tools "
            "answered by the host's own model through MCP sampling (before 2026-07-28) or multi-round-trip "
            "requests (2026-07-28). With no command it serves MCP over stdio."
        ),
    )
    parser.add_argument("--version", action="version", version=f"agent-as-model {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = commands.add_parser(
        "serve", help="serve MCP over stdio (the default; logs go to stderr), or over HTTP with --http"
    )
    transcripts.add_record_options(serve)
    add_provider_options(serve)
    add_limit_options(serve)
    http_serve.add_options(serve)
    commands.add_parser(
        "demo",
        help="run every tool on both protocol eras against a built-in stand-in host and show the exchange",
    )
    export_tools.add_parser(commands)
    transcripts.add_replay_command(commands)
    fuzz.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    transcripts.check_record_options(parser, args)
    try:
        _configure_logging()
        if args.command in (None, "serve"):
            from agent_as_model.server import state_security

            state_security()  # a bad sealing key is found now, not on the first 2026-07-28 call
        http_settings = http_serve.settings_from_args(parser, args)
        return _run(parser, args, http_settings)
    except StartupError as err:
        print(f"agent-as-model: {err}", file=sys.stderr)
        return STARTUP_FAILED


def _run(
    parser: argparse.ArgumentParser, args: argparse.Namespace, http_settings: http_serve.HttpSettings | None
) -> int:
    if args.command == export_tools.COMMAND:
        return export_tools.run(args)
    if args.command == "demo":
        from agent_as_model.commands.demo import run_demo

        return anyio.run(run_demo)
    if args.command == "replay":
        return transcripts.run_replay(args)
    if args.command == fuzz.COMMAND:
        return fuzz.run(args)
    settings = provider_settings(parser, args)  # None (the default): no provider, no key read
    if http_settings is not None:
        if settings is not None:
            from agent_as_model.adapters.backends import ProviderUnavailable, connect

            try:  # the SDK and its key, checked here: in a worker it would be a traceback
                connect(settings)
            except ProviderUnavailable as err:
                print(f"agent-as-model: {err}", file=sys.stderr)
                return STARTUP_FAILED
        return http_serve.serve(http_settings, settings, limits_of(args))
    if getattr(args, "record", None):
        return transcripts.run_serve_recorded(args, settings, limits_of(args))
    from agent_as_model.adapters.backends import ProviderUnavailable
    from agent_as_model.server import build_server

    limits = limits_of(args)
    try:
        server = build_server(provider=settings, limits=limits)
    except ProviderUnavailable as err:
        print(f"agent-as-model: {err}", file=sys.stderr)
        return 2
    anyio.run(serve_stdio, server, limits)
    return 0


async def serve_stdio(server: Any, limits: Limits = DEFAULT_LIMITS) -> None:
    from agent_as_model.commands import stdio

    freeze_heap()
    await stdio.serve_stdio(server, max_frame=limits.max_frame)


def freeze_heap() -> None:
    """Move everything start-up made (the SDK, pydantic's models, the dialects: about 88k objects)
    out of the collector's reach: it lives as long as the process, and without this every full
    collection walks it all again (about 34M instructions; the SDK leaves reference cycles on each
    2026-07-28 request, so one lands every 1-2k calls). Frozen, a full collection costs about 2k.
    No `gc.collect()` first: start-up leaves little garbage, and a collection here would cost
    start-up about as much as the one it saves."""
    gc.freeze()


def _configure_logging() -> None:
    # stdout carries protocol frames only; every log line goes to stderr.
    level = os.environ.get(LOG_LEVEL_ENV, "WARNING").upper()
    if not isinstance(logging.getLevelName(level), int):
        raise StartupError(f"{LOG_LEVEL_ENV}: unknown log level {level!r} (use {', '.join(_LEVELS)})")
    logging.basicConfig(
        stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
