"""`agent-as-model export-tools`: any MCP server's tools as OpenAI or Anthropic tool definitions.

    agent-as-model export-tools --server "npx -y @modelcontextprotocol/server-everything" --format responses

starts the server command over stdio, lists all its tools (every page), and prints one JSON
document to stdout: `{"format", "tools", "name_map"}` (see `adapters.tools.export`). It connects
with the initialize handshake (`mode="legacy"`), which every MCP server answers, old or new.
Logs, and the server's own stderr, go to stderr. A failure (the command does not start, exits,
or does not speak MCP; no answer in time) is one line on stderr and exit status 1, never a
traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import shlex
import sys
from typing import Any

import anyio
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters
from mcp_types import CONNECTION_CLOSED, Tool

from agent_as_model.adapters.dialects import tool_shapes
from agent_as_model.adapters.tools.export import export_tools
from agent_as_model.errors import CallError

COMMAND = "export-tools"
DEFAULT_TIMEOUT = 60.0  # an `npx -y` server may download itself before it answers
MAX_PAGES = 1000  # a server whose cursors never end is a bug; stop rather than loop forever


class ExportFailed(Exception):
    """Why the export could not be made, in words for the person who ran the command."""


def add_parser(commands: Any) -> None:
    """Register the subcommand on `cli`'s subparsers."""
    formats = list(tool_shapes())  # every registered product that takes tools: the help cannot go stale
    parser = commands.add_parser(
        COMMAND,
        help="print an MCP server's tools as tool definitions of a product API "
        f"(--format {'|'.join(formats)})",
        description="Start an MCP server over stdio, list all its tools, and print them as tool definitions "
        f"of the chosen API ({', '.join(formats)}): JSON {{format, tools, name_map}} on stdout, where "
        "name_map maps each renamed tool (names outside [A-Za-z0-9_-]{1,64}) back to its MCP name.",
    )
    parser.add_argument(
        "--server",
        required=True,
        metavar="CMD",
        help='the server command line, split like a shell would (e.g. "python server.py --flag")',
    )
    parser.add_argument(
        "--format", choices=formats, default=formats[0], help=f"the tool shape (default: {formats[0]})"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"give up when the server has not listed its tools by then (default: {DEFAULT_TIMEOUT:g})",
    )


def run(args: argparse.Namespace) -> int:
    """The subcommand: 0 with the JSON on stdout, 1 with one line on stderr."""
    _quiet_tracebacks()
    try:
        document = anyio.run(export_from_server, args.server, args.format, args.timeout)
    except ExportFailed as err:
        print(f"agent-as-model {COMMAND}: {err}", file=sys.stderr)
        return 1
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    sys.stdout.buffer.write(text.encode("utf-8"))  # JSON is UTF-8 whatever the terminal's locale
    sys.stdout.flush()
    return 0


async def export_from_server(server: str, shape_format: str, timeout: float) -> dict[str, Any]:
    """List the tools of the server that the command line `server` starts, as tools of that `--format`."""
    tools: list[Tool] = await _list_server_tools(server, timeout)
    try:
        return export_tools(tools, tool_shapes()[shape_format])  # argparse checked the choice
    except CallError as err:
        raise ExportFailed(f"{err.path}: {err.reason}") from None


async def _list_server_tools(server: str, timeout: float) -> list[Any]:
    command = _split(server)
    params = StdioServerParameters(command=command[0], args=command[1:])
    shown = server.strip()  # as the person wrote it
    try:
        with anyio.fail_after(timeout):
            # No response cache: one listing, read once.
            async with Client(params, mode="legacy", cache=None) as client:
                return await _all_pages(client)
    except ExportFailed:
        raise
    except Exception as group:  # the SDK wraps transport failures in exception groups
        err = _root_cause(group)
        if isinstance(err, TimeoutError):
            raise ExportFailed(f"{shown!r} did not list its tools within {timeout:g} seconds") from None
        if isinstance(err, FileNotFoundError):
            raise ExportFailed(f"cannot start {shown!r}: command not found") from None
        if isinstance(err, OSError):
            raise ExportFailed(f"cannot start {shown!r}: {err.strerror or err}") from None
        if isinstance(err, MCPError) and err.error.code == CONNECTION_CLOSED:
            raise ExportFailed(
                f"{shown!r} closed the connection before listing its tools: it exited, or it is not an "
                "MCP server over stdio (its stderr, above, may say why)"
            ) from None
        if isinstance(err, MCPError):
            raise ExportFailed(
                f"{shown!r} answered with JSON-RPC error {err.error.code} ({err.error.message}): "
                "it is not an MCP server over stdio, or it failed"
            ) from None
        raise ExportFailed(f"{shown!r} failed: {type(err).__name__}: {err}") from None


async def _all_pages(client: Any) -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools
        if cursor in seen:
            raise ExportFailed(f"the server's tools/list returned cursor {cursor!r} twice (pagination loops)")
        seen.add(cursor)
    raise ExportFailed(f"the server's tools/list did not end within {MAX_PAGES} pages")


def _split(server: str) -> list[str]:
    try:
        command = shlex.split(server)
    except ValueError as err:
        raise ExportFailed(f"--server: cannot split {server!r}: {err}") from None
    if not command:
        raise ExportFailed("--server: the command is empty")
    return command


def _root_cause(error: BaseException) -> BaseException:
    """The first leaf of nested exception groups (anyio task groups wrap each failure)."""
    inner = getattr(error, "exceptions", None)
    while inner:
        error = inner[0]
        inner = getattr(error, "exceptions", None)
    return error


class _NoTraceback(logging.Filter):
    """The SDK logs a traceback when a server writes a non-JSON line; one line says it all here."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.name.startswith("mcp"):
            kind = record.exc_info[0].__name__ if record.exc_info[0] else "error"
            record.msg, record.args = f"{record.getMessage()} ({kind})", None
            record.exc_info, record.exc_text = None, None
        return True


def _quiet_tracebacks() -> None:
    for handler in logging.getLogger().handlers:
        handler.addFilter(_NoTraceback())
