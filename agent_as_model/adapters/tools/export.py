"""MCP tools as a product's tool definitions: the other direction of `definitions`.

`agent-as-model export-tools` lists an MCP server's tools and prints them through here, in the
shape the chosen dialect's `ToolShape.write_tool` writes (grouped by its `group`, for a product
whose `tools` entries each hold several definitions), so an application calling that product can
offer that server's tools to its model.

Names go through `names.host_name` (the product APIs take `[A-Za-z0-9_-]{1,64}`; MCP names may
hold dots and run to 128 characters), and `name_map` maps each changed name back to the MCP name
to call. Descriptions are bounded by `describe.host_description`; a tool without one gets no
`description` key. A tool's title, output schema and annotations have no place in the product
shapes and are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp_types import Tool

from agent_as_model.adapters.tools.definitions import ToolShape
from agent_as_model.adapters.tools.describe import host_description
from agent_as_model.adapters.tools.names import NameMap
from agent_as_model.errors import caller_error


def export_tools(tools: Sequence[Tool], shape: ToolShape) -> dict[str, Any]:
    """`{"format": shape.format, "tools": [...], "name_map": {host name: MCP name}}`, in listing order.

    `name_map` holds the renamed tools only, and is always present (empty when none changed).
    Raises a `CallError` when two tools share a name, or two names map to one host name.
    """
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if tool.name in seen:
            raise caller_error(f"tools[{i}].name", f"the server lists tool {ascii(tool.name)} twice")
        seen.add(tool.name)
    names = NameMap((f"tools[{i}].name", tool.name) for i, tool in enumerate(tools))
    written = [
        shape.write_tool(
            names.to_host(tool.name), host_description(tool.description), dict(tool.input_schema)
        )
        for tool in tools
    ]
    return {
        "format": shape.format,
        "tools": written if shape.group is None else shape.group(written),
        "name_map": dict(names.renamed()),
    }
