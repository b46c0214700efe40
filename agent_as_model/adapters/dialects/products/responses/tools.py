"""Tool definitions `{type: "function", name, ...}` or the seed shape, a tool_choice naming a
function, and how `export-tools` writes an MCP tool as a Responses function tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common
from agent_as_model.adapters.dialects.products.responses.keys import CHOICE_FORMS, TOOL_FORMS, TOOL_KEYS
from agent_as_model.adapters.tools import definitions
from agent_as_model.neutral import ToolChoice, ToolSpec


def read_tool(obj: Mapping[str, Any], path: str) -> tuple[ToolSpec, str]:
    if "type" not in obj:
        return definitions.read_seed_tool(obj, path, definitions.SEED_KEYS, TOOL_FORMS)
    definitions.check_function_type(obj, path)
    definitions.reject_unknown_key(obj, TOOL_KEYS, path, f"a tool is {TOOL_FORMS}")
    return definitions.read_function(obj, path)


def read_choice(value: Mapping[str, Any], path: str, kind: str) -> tuple[ToolChoice, str]:
    definitions.check_function_choice_type(kind, path, CHOICE_FORMS)
    common.reject_unknown(value, ("type", "name"), path)
    name_path = f"{path}.name"
    return ToolChoice("required", definitions.tool_name(value.get("name"), name_path)), name_path


def write_tool(name: str, description: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    # `strict` is set to false: it defaults to true on Responses, and strict mode needs every
    # property required and `additionalProperties: false`, which MCP schemas rarely are (the API
    # refuses the tool otherwise).
    described: dict[str, Any] = {"name": name}
    if description is not None:
        described["description"] = description
    return {"type": "function", **described, "parameters": schema, "strict": False}
