"""A dialect's `tools` and `tool_choice`, in its native shapes or the seed's, into neutral form.

Every dialect takes the reference server's shape, `{name, description?, input_schema}`, and its
product's own, so an existing request body works unchanged (spec section 1.2):

    chat        {type: "function", function: {name, description?, parameters?, strict?}}
    messages    {name, description?, input_schema, type?: "custom", cache_control?, strict?}
    responses   {type: "function", name, description?, parameters?, strict?}

An item with a `type` (or, on chat, a `function`) is read as the native shape; one without is the
seed shape. OpenAI lets `parameters` be omitted: that is a tool without arguments, `{"type":
"object", "properties": {}}`. `strict` is accepted and ignored: MCP sampling has no strict mode, so
the host's model is held to the schema only as far as it honours it. `cache_control` is an
Anthropic prompt-caching hint with no MCP counterpart, likewise ignored. Tools that run on the
product's own servers (web search, file search, code execution, computer use ...) cannot be
forwarded to a host's model, and are refused by name.

Checks (before anything travels): `tools` is an array of objects; keys are known; a name is a
non-empty string, unique within the request; a description is a string or null; every schema is a
valid draft 2020-12 object schema (`schemas.check_object_schema`). Errors name the JSON path of
what the caller wrote, e.g. `tools[2].function.parameters.type`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.tools.listing import TOOL_CHOICE_SCHEMA, TOOLS_SCHEMA, Native
from agent_as_model.arguments import (
    path_of,
    reject_unknown,
    require_list,
    require_object,
    require_string,
    type_name,
)
from agent_as_model.errors import caller_error
from agent_as_model.neutral import ChoiceMode, ToolChoice, ToolSpec
from agent_as_model.schemas import check_object_schema

__all__ = ["TOOLS_SCHEMA", "TOOL_CHOICE_SCHEMA", "Native", "read_tool_choice", "read_tools"]

_SEED_KEYS = ("name", "description", "input_schema")
_MESSAGES_KEYS = (*_SEED_KEYS, "type", "cache_control", "strict")
_CHAT_KEYS = ("type", "function")
_FUNCTION_KEYS = ("name", "description", "parameters", "strict")
_RESPONSES_KEYS = ("type", *_FUNCTION_KEYS)

# How each dialect writes a tool, quoted in errors so the caller sees the accepted forms.
_FORMS: Mapping[Native, str] = {
    "chat": "{name, description, input_schema} or "
    "{type: 'function', function: {name, description, parameters}}",
    "messages": "{name, description, input_schema}",
    "responses": "{name, description, input_schema} or {type: 'function', name, description, parameters}",
}
_MODES: tuple[ChoiceMode, ...] = ("auto", "required", "none")
_CHOICE_FORMS: Mapping[Native, str] = {
    "chat": "'auto', 'required', 'none' or {type: 'function', function: {name}}",
    "messages": "'auto', 'required', 'none' or {type: 'auto'|'any'|'tool'|'none', name}",
    "responses": "'auto', 'required', 'none' or {type: 'function', name}",
}
_ANTHROPIC_MODES: Mapping[str, ChoiceMode] = {
    "auto": "auto",
    "any": "required",
    "tool": "required",
    "none": "none",
}


def read_tools(value: object, path: str, native: Native) -> tuple[ToolSpec, ...]:
    """The tools of a request, in order; null, absent (None) or `[]` is no tools."""
    if value is None:
        return ()
    specs: list[ToolSpec] = []
    seen: dict[str, str] = {}  # name -> the path it was first given at
    for i, item in enumerate(require_list(value, path)):
        spec, name_path = _read_tool(item, path_of(path, i), native)
        if spec.name in seen:
            raise caller_error(
                name_path, f"duplicate tool name {ascii(spec.name)} (also at {seen[spec.name]})"
            )
        seen[spec.name] = name_path
        specs.append(spec)
    return tuple(specs)


def read_tool_choice(
    value: object, path: str, native: Native, tools: tuple[ToolSpec, ...]
) -> ToolChoice | None:
    """How the model may use `tools`; null or absent (None) leaves it to the host (auto).

    `'auto'` and `'none'` with no tools mean what no tools means, and give None. `'required'` or a
    named tool without tools cannot be honoured: an error, as OpenAI gives. A named tool must be
    one of `tools`.
    """
    if value is None:
        return None
    if isinstance(value, str):
        choice, name_path = _mode(value, path, native), path
    else:
        choice, name_path = _read_choice_object(value, path, native)
    if not tools:
        if choice.name is None and choice.mode != "required":
            return None
        raise caller_error(path, f"{_described(choice)} needs tools, and none were given")
    if choice.name is not None and all(t.name != choice.name for t in tools):
        known = ", ".join(ascii(t.name) for t in tools)
        raise caller_error(
            name_path, f"names tool {ascii(choice.name)}, which is not among the tools ({known})"
        )
    return choice


def _read_tool(item: object, path: str, native: Native) -> tuple[ToolSpec, str]:
    obj = require_object(item, path)
    if native == "chat" and ("type" in obj or "function" in obj):
        return _read_chat_tool(obj, path)
    if native == "responses" and "type" in obj:
        return _read_responses_tool(obj, path)
    if native == "messages":
        _check_messages_type(obj, path)
        return _read_seed_tool(obj, path, _MESSAGES_KEYS, native)
    return _read_seed_tool(obj, path, _SEED_KEYS, native)


def _read_seed_tool(
    obj: Mapping[str, Any], path: str, keys: tuple[str, ...], native: Native
) -> tuple[ToolSpec, str]:
    _reject_unknown_key(obj, keys, path, f"a tool is {_FORMS[native]}")
    _check_strict(obj, path)
    name_path = path_of(path, "name")
    name = _name(obj.get("name"), name_path)
    description = _description(obj, path)
    schema_path = path_of(path, "input_schema")
    if obj.get("input_schema") is None:
        raise caller_error(schema_path, "is required (a JSON Schema with root type 'object')")
    spec = ToolSpec(name, description, check_object_schema(obj["input_schema"], schema_path))
    return spec, name_path


def _read_chat_tool(obj: Mapping[str, Any], path: str) -> tuple[ToolSpec, str]:
    _check_function_type(obj, path)
    function_path = path_of(path, "function")
    if "function" not in obj:
        raise caller_error(function_path, "is required: {name, description, parameters}")
    reject_unknown(obj, _CHAT_KEYS, path)
    function = require_object(obj["function"], function_path)
    reject_unknown(function, _FUNCTION_KEYS, function_path)
    return _read_function(function, function_path)


def _read_responses_tool(obj: Mapping[str, Any], path: str) -> tuple[ToolSpec, str]:
    _check_function_type(obj, path)
    _reject_unknown_key(obj, _RESPONSES_KEYS, path, f"a tool is {_FORMS['responses']}")
    return _read_function(obj, path)


def _read_function(obj: Mapping[str, Any], path: str) -> tuple[ToolSpec, str]:
    """The OpenAI function fields, shared by chat's `function` object and a Responses tool."""
    _check_strict(obj, path)
    name_path = path_of(path, "name")
    name = _name(obj.get("name"), name_path)
    description = _description(obj, path)
    parameters = obj.get("parameters")
    if parameters is None:  # OpenAI: omitted parameters describe a function without arguments
        schema: dict[str, Any] = {"type": "object", "properties": {}}
    else:
        schema = check_object_schema(parameters, path_of(path, "parameters"))
    return ToolSpec(name, description, schema), name_path


def _check_function_type(obj: Mapping[str, Any], path: str) -> None:
    kind = obj.get("type")
    if kind == "function":
        return
    type_path = path_of(path, "type")
    if not isinstance(kind, str):
        raise caller_error(type_path, f"expected 'function', got {type_name(kind)}")
    raise caller_error(
        type_path,
        f"tool type {ascii(kind)} cannot be forwarded: only function tools reach the host's model "
        "(OpenAI's built-in tools run on OpenAI's servers; custom free-form tools have no MCP counterpart)",
    )


def _check_messages_type(obj: Mapping[str, Any], path: str) -> None:
    kind = obj.get("type")
    if kind is None or kind == "custom":
        return
    type_path = path_of(path, "type")
    if not isinstance(kind, str):
        raise caller_error(type_path, f"expected 'custom' or no type, got {type_name(kind)}")
    raise caller_error(
        type_path,
        f"Anthropic tool type {ascii(kind)} cannot be forwarded: server tools and Anthropic-defined tools "
        "(web search, code execution, bash, text editor, computer use ...) run on Anthropic's side; only "
        "custom tools {name, description, input_schema} reach the host's model",
    )


def _reject_unknown_key(obj: Mapping[str, Any], known: tuple[str, ...], path: str, hint: str) -> None:
    for key in obj:
        if key not in known:
            raise caller_error(path_of(path, key), f"unknown key {ascii(key)} ({hint})")


def _name(value: object, path: str) -> str:
    if value is None:
        raise caller_error(path, "is required")
    name = require_string(value, path)
    if not name:
        raise caller_error(path, "must not be empty")
    return name


def _description(obj: Mapping[str, Any], path: str) -> str | None:
    value = obj.get("description")
    if value is None:
        return None
    return require_string(value, path_of(path, "description"))


def _check_strict(obj: Mapping[str, Any], path: str) -> None:
    """`strict` must be what the product takes (a boolean), though MCP has nothing to pass it to."""
    value = obj.get("strict")
    if value is not None and not isinstance(value, bool):
        raise caller_error(path_of(path, "strict"), f"expected a boolean, got {type_name(value)}")


def _mode(value: str, path: str, native: Native) -> ToolChoice:
    for mode in _MODES:
        if value == mode:
            return ToolChoice(mode)
    raise caller_error(path, f"expected {_CHOICE_FORMS[native]}, got {ascii(value)}")


def _read_choice_object(value: object, path: str, native: Native) -> tuple[ToolChoice, str]:
    if not isinstance(value, dict):
        raise caller_error(path, f"expected {_CHOICE_FORMS[native]}, got {type_name(value)}")
    kind = value.get("type")
    type_path = path_of(path, "type")
    if not isinstance(kind, str):
        raise caller_error(type_path, f"expected a string, got {type_name(kind)}")
    if native == "messages":
        return _read_anthropic_choice(value, path, kind)
    if kind == "allowed_tools":
        raise caller_error(
            type_path,
            "'allowed_tools' is not supported: MCP sampling cannot restrict a tool list per call; "
            "pass only the allowed tools in tools instead",
        )
    if kind != "function":
        raise caller_error(
            type_path,
            f"tool choice type {ascii(kind)} cannot be honoured: only function tools reach the host's model "
            f"(expected {_CHOICE_FORMS[native]})",
        )
    if native == "chat":
        function_path = path_of(path, "function")
        if "function" not in value:
            raise caller_error(function_path, "is required: {name}")
        reject_unknown(value, ("type", "function"), path)
        function = require_object(value["function"], function_path)
        reject_unknown(function, ("name",), function_path)
        name_path = path_of(function_path, "name")
        return ToolChoice("required", _name(function.get("name"), name_path)), name_path
    reject_unknown(value, ("type", "name"), path)
    name_path = path_of(path, "name")
    return ToolChoice("required", _name(value.get("name"), name_path)), name_path


def _read_anthropic_choice(value: Mapping[str, Any], path: str, kind: str) -> tuple[ToolChoice, str]:
    """`{type: auto|any|tool|none, name?, disable_parallel_tool_use?}`; `any` is MCP's `required`.

    `disable_parallel_tool_use` is accepted and ignored: MCP sampling has no such switch, and the
    host's model decides how many tools it calls.
    """
    mode = _ANTHROPIC_MODES.get(kind)
    if mode is None:
        raise caller_error(
            path_of(path, "type"), f"expected 'auto', 'any', 'tool' or 'none', got {ascii(kind)}"
        )
    reject_unknown(value, ("type", "name", "disable_parallel_tool_use"), path)
    parallel = value.get("disable_parallel_tool_use")
    if parallel is not None and not isinstance(parallel, bool):
        raise caller_error(
            path_of(path, "disable_parallel_tool_use"), f"expected a boolean, got {type_name(parallel)}"
        )
    name_path = path_of(path, "name")
    if kind == "tool":
        return ToolChoice(mode, _name(value.get("name"), name_path)), name_path
    if value.get("name") is not None:
        raise caller_error(name_path, f"is only taken with type 'tool', not {ascii(kind)}")
    return ToolChoice(mode), name_path


def _described(choice: ToolChoice) -> str:
    return f"a choice naming tool {ascii(choice.name)}" if choice.name is not None else repr(choice.mode)
