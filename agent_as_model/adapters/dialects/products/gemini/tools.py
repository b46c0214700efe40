"""Tool definitions: Tools of `functionDeclarations` (one Tool holds several), or the seed shape
{name, description, input_schema}; the one allowed function of a toolConfig (the config view reads
the rest of it); and how `export-tools` writes an MCP tool as a function declaration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common
from agent_as_model.adapters.dialects.products.gemini.keys import DECLARATION_KEYS, TOOL_FORMS, TOOL_KEYS
from agent_as_model.adapters.dialects.products.gemini.objects import Object
from agent_as_model.adapters.dialects.products.gemini.schema import json_schema
from agent_as_model.adapters.tools import definitions
from agent_as_model.errors import caller_error
from agent_as_model.neutral import ToolChoice, ToolSpec
from agent_as_model.schemas import check_object_schema


def entries(obj: Mapping[str, Any], path: str) -> list[tuple[Mapping[str, Any], str]]:
    """A Tool's function declarations, each with its path; a seed tool is itself."""
    if "name" in obj or "input_schema" in obj:
        return [(obj, path)]
    tool = Object(obj, path, TOOL_KEYS, f"a tool is {TOOL_FORMS} or {{name, description, input_schema}}")
    for name in tool:
        if name != "functionDeclarations":
            raise definitions.server_tool(
                tool.at(name),
                f"the built-in tool {name!r} cannot be forwarded: Google's built-in tools run on Google's "
                "side; only functionDeclarations reach the host's model",
            )
    where = tool.at("functionDeclarations")
    if tool.get("functionDeclarations") is None:
        raise caller_error(where, "is required (a tool is " + TOOL_FORMS + ")")
    declarations = common.require_list(tool.get("functionDeclarations"), where)
    return [
        (common.require_object(d, common.path_of(where, j)), common.path_of(where, j))
        for j, d in enumerate(declarations)
    ]


def read_tool(obj: Mapping[str, Any], path: str) -> tuple[ToolSpec, str]:
    if "input_schema" in obj:
        return definitions.read_seed_tool(obj, path, definitions.SEED_KEYS, TOOL_FORMS)
    declaration = Object(
        obj, path, DECLARATION_KEYS, "a function declaration is {name, description, parameters}"
    )
    name_path = declaration.at("name")
    name = definitions.tool_name(declaration.get("name"), name_path)
    description = declaration.get("description")
    if description is not None:
        common.require_string(description, declaration.at("description"))
    for hint in ("response", "responseJsonSchema"):  # the function's output: MCP's tools have no place for it
        if declaration.get(hint) is not None:
            common.require_object(declaration.get(hint), declaration.at(hint))
    if declaration.get("behavior") is not None:
        common.require_string(declaration.get("behavior"), declaration.at("behavior"))
    given = [key for key in ("parameters", "parametersJsonSchema") if key in declaration.values]
    if len(given) > 1:
        raise caller_error(declaration.at(given[1]), "and parameters are both given: give one")
    schema: dict[str, Any] = {"type": "object", "properties": {}}  # none: a function without arguments
    if given:
        where = declaration.at(given[0])
        value = declaration.get(given[0])
        schema = check_object_schema(json_schema(value, where) if given[0] == "parameters" else value, where)
    return ToolSpec(name, description, schema), name_path


def read_choice(value: Mapping[str, Any], path: str, kind: str) -> tuple[ToolChoice, str]:
    # Only the view's choice of one allowed function arrives here as an object.
    name_path = common.path_of(path, "name")
    return ToolChoice("required", definitions.tool_name(value.get("name"), name_path)), name_path


def write_tool(name: str, description: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    # parametersJsonSchema takes the MCP tool's JSON Schema as it is; `parameters` would need
    # Gemini's OpenAPI subset.
    declared: dict[str, Any] = {"name": name}
    if description is not None:
        declared["description"] = description
    return {**declared, "parametersJsonSchema": schema}


def group(declarations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # One Tool holding every declaration, as the SDK builds it from Python functions.
    return [{"functionDeclarations": declarations}] if declarations else []
