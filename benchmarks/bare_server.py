"""A bare SDK stdio server: the yardstick of `bench_startup.py`.

The least a server on the SDK's low-level layer does to answer `tools/list` over stdio: import
the SDK, build a `Server` with the `RequestStateBoundary` (the layer agent-as-model is built on),
list one tool. Nothing of ours, and none of the SDK's high-level `MCPServer`.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server import Server, ServerRequestContext
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.stdio import stdio_server
from mcp_types import ListToolsResult, Tool

NAME = "bare-sdk-server"
_TOOLS = ListToolsResult(tools=[Tool(name="generate", input_schema={"type": "object"})])


async def _list_tools(ctx: ServerRequestContext[Any], params: object) -> ListToolsResult:
    return _TOOLS


async def serve() -> None:
    server: Server[Any] = Server(NAME, on_list_tools=_list_tools)
    server.middleware.append(RequestStateBoundary(RequestStateSecurity.ephemeral(), default_audience=NAME))
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(serve)
