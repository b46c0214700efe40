"""MCP tools as a product's tool definitions: the other direction of `definitions`.

`agent-as-model export-tools` lists an MCP server's tools and prints them through here, so an
application calling OpenAI or Anthropic can offer that server's tools to its model:

    chat        {type: "function", function: {name, description, parameters}}
    messages    {name, description, input_schema}
    responses   {type: "function", name, description, parameters, strict: false}

Names go through `names.host_name` (the product APIs take `[A-Za-z0-9_-]{1,64}`; MCP names may
hold dots and run to 128 characters), and `name_map` maps each changed name back to the MCP name
to call. Descriptions are bounded by `describe.host_description`; a tool without one gets no
`description` key. `strict` is left out on chat (its default there is false) and set to false on
Responses, where it defaults to true: strict mode needs every property required and
`additionalProperties: false`, which MCP schemas rarely are, and the API refuses the tool
otherwise. A tool's title, output schema and annotations have no place in these shapes and are
dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp_types import Tool

from agent_as_model.adapters.tools.describe import host_description
from agent_as_model.adapters.tools.listing import Native
from agent_as_model.adapters.tools.names import NameMap
from agent_as_model.errors import caller_error


def export_tools(tools: Sequence[Tool], native: Native) -> dict[str, Any]:
    """`{"format": native, "tools": [...], "name_map": {host name: MCP name}}`, in listing order.

    `name_map` holds the renamed tools only, and is always present (empty when none changed).
    Raises a `CallError` when two tools share a name, or two names map to one host name.
    """
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if tool.name in seen:
            raise caller_error(f"tools[{i}].name", f"the server lists tool {ascii(tool.name)} twice")
        seen.add(tool.name)
    names = NameMap((f"tools[{i}].name", tool.name) for i, tool in enumerate(tools))
    return {
        "format": native,
        "tools": [tool_definition(tool, native, names.to_host(tool.name)) for tool in tools],
        "name_map": dict(names.renamed()),
    }


def tool_definition(tool: Tool, native: Native, name: str) -> dict[str, Any]:
    """One MCP tool in `native`'s shape, under `name` (the host-safe name)."""
    described: dict[str, Any] = {"name": name}
    description = host_description(tool.description)
    if description is not None:
        described["description"] = description
    schema = dict(tool.input_schema)
    if native == "messages":
        return {**described, "input_schema": schema}
    if native == "chat":
        return {"type": "function", "function": {**described, "parameters": schema}}
    return {"type": "function", **described, "parameters": schema, "strict": False}
