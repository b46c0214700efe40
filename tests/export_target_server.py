"""A small MCP server for `export-tools` tests, run as `python tests/export_target_server.py`.

Three tools over stdio, listed two per page (so the export must follow the cursor): one whose
name fits the product APIs, one with a dot and one with a space (both renamed), and one with a
description past the 1024-character bound.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp_types import ListToolsResult, PaginatedRequestParams, Tool

LONG_DESCRIPTION = (
    "Search the documents. " + "Every word of this sentence is padding to pass the bound. " * 30
)
PAGE_SIZE = 2

TOOLS = [
    Tool(
        name="add",
        description="Add two integers.",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    ),
    Tool(
        name="weather.get",
        description="The weather in a city.",
        input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    ),
    Tool(name="search docs", description=LONG_DESCRIPTION, input_schema={"type": "object"}),
]


async def list_tools(
    ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
) -> ListToolsResult:
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = start + PAGE_SIZE
    return ListToolsResult(tools=TOOLS[start:end], next_cursor=str(end) if end < len(TOOLS) else None)


async def main() -> None:
    server: Server[Any] = Server("export-target", on_list_tools=list_tools)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
