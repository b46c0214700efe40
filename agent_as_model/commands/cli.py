"""`agent-as-model`: serve over stdio (the default, what hosts run) and the newcomer's demo."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

import anyio

from agent_as_model import __version__
from agent_as_model.commands import export_tools
from agent_as_model.commands import http as http_serve
from agent_as_model.commands.transcripts import command as transcripts

LOG_LEVEL_ENV = "AGENT_AS_MODEL_LOG_LEVEL"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    http_serve.add_options(serve)
    commands.add_parser(
        "demo",
        help="run every tool on both protocol eras against a built-in stand-in host and show the exchange",
    )
    export_tools.add_parser(commands)
    transcripts.add_replay_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    transcripts.check_record_options(parser, args)
    http_settings = http_serve.settings_from_args(parser, args)
    _configure_logging()
    if args.command == export_tools.COMMAND:
        return export_tools.run(args)
    if args.command == "demo":
        from agent_as_model.commands.demo import run_demo

        return anyio.run(run_demo)
    if args.command == "replay":
        return transcripts.run_replay(args)
    if http_settings is not None:
        return http_serve.serve(http_settings)
    if getattr(args, "record", None):
        return transcripts.run_serve_recorded(args)
    anyio.run(serve_stdio)
    return 0


async def serve_stdio() -> None:
    from mcp.server.stdio import stdio_server

    from agent_as_model.server import build_server

    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _configure_logging() -> None:
    # stdout carries protocol frames only; every log line goes to stderr.
    level = os.environ.get(LOG_LEVEL_ENV, "WARNING").upper()
    logging.basicConfig(
        stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
