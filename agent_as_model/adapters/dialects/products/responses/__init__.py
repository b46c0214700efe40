"""OpenAI Responses shape (`responses_create`): request -> neutral, completion -> a Response object.

Input items: messages `{role, content}` (`type: "message"` or no type), `function_call` items
(joining the assistant turn before them) and `function_call_output` items (one user turn of tool
results), spec section 1.2. The result is a Response object whose output holds a message item
and one `function_call` item per tool call the host made.

This module declares the product: its name, description and listed input schema, the body's
hints and refusals, its function tools and tool_choice, and the `Dialect`. The rest is a module
a concern: `request` (the input), `render` (the Response object), `writing` (the caller's side,
for the fuzzer and the property tests) and `storage` (what a server started with `--store` keeps).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common, contracts, hints, options
from agent_as_model.adapters.dialects.dialect import Body, Dialect
from agent_as_model.adapters.dialects.products.responses import storage
from agent_as_model.adapters.dialects.products.responses.render import ECHOED, describe, render
from agent_as_model.adapters.dialects.products.responses.request import (
    ITEM_KEYS,
    ROLES,
    TEXT_TYPES,
    read_conversation,
    read_text_format,
)
from agent_as_model.adapters.dialects.products.responses.writing import WRITING
from agent_as_model.adapters.tools import definitions, listing
from agent_as_model.neutral import ToolChoice, ToolSpec

NAME = "responses_create"
DESCRIPTION = (
    "Complete an OpenAI Responses-shaped request with the host agent's own model; returns a Response "
    "object ({id: 'resp_…', object: 'response', model, output}). input is a string or items: "
    "messages {role, content}, function_call, function_call_output. instructions and system/developer "
    "items become the system prompt. tools/tool_choice go to a host with sampling.tools, else per "
    "--host-without-tools (see _meta); "
    "tool calls come back as function_call items. output_schema or text.format json_schema puts "
    "validated JSON text in output_text. Text and data: URL images."
)

# A message's content parts and a function_call_output's output parts, as listed.
_PARTS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "type": {"enum": [*TEXT_TYPES, "input_image"]},
            "text": {"type": "string"},
            "input_text": {"type": "string"},
            "image_url": {
                "type": "string",
                "description": "A data: URL (an http(s) URL only with serve --fetch-media).",
            },
            "detail": {"type": "string"},
        },
        "required": ["type"],
    },
}
_HINTS = options.hints(
    "user",
    "metadata",
    "store",
    "top_p",
    "parallel_tool_calls",
    "service_tier",
    "stream_options",
    "reasoning",
    "prompt_cache_key",
    "safety_identifier",
    "truncation",
    "max_tool_calls",
    "include",
    "prompt_cache_retention",
    "prompt_cache_options",
    "access_programs",
    "background_options",
    "context_management",
    "image",
    "background",
)
# What becomes of each (hints.py). The Response echoes `metadata`, which is all it is for; `store`
# is honoured by a server started with --store, and a server without one says so when a call
# asks for it (states/commit.py); `text.verbosity` is the verbosity hint.
_FATES = hints.fates(
    *(name for name in _HINTS if name not in ("metadata", "store")),
    metadata=hints.ECHOED_METADATA,
    store=hints.KEPT,
    **{"text.verbosity": hints.FATES["verbosity"]},
)
_REFUSED = options.refusals("stream", "top_logprobs", "conversation", "prompt", "moderation")
_TOOL_FORMS = "{name, description, input_schema} or {type: 'function', name, description, parameters}"
_TOOL_KEYS = ("type", *definitions.FUNCTION_KEYS)
_CHOICE_FORMS = "'auto', 'required', 'none' or {type: 'function', name}"
# The persona's request object (spec section 5): these parameters, with their defaults.
_REQUEST_OBJECT = contracts.request_object_defaults("input", "instructions")

_TOOLS_SCHEMA = listing.tools_schema(
    {
        "type": "object",
        "description": "A Responses function tool; built-in tools (web_search, file_search, ...) "
        "cannot be forwarded.",
        "properties": {
            "type": {"const": "function"},
            "name": listing.NAME,
            "description": listing.DESCRIPTION,
            "parameters": listing.PARAMETERS,
            "strict": listing.STRICT,
        },
        "required": ["type", "name"],
    },
    listing.SEED_TOOL,
)
_CHOICE_SCHEMA = listing.choice_schema(
    {
        "type": "object",
        "description": "Call this function.",
        "properties": {"type": {"const": "function"}, "name": {"type": "string"}},
        "required": ["type", "name"],
    }
)

# The common body: the conversation and its limits only. It skips the readers of everything else.
_PLAIN = frozenset(["input", "instructions", "model", "temperature", "max_tokens"])

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "input": {
            "description": "A string (one user message) or a list of items: messages {role, content} "
            "(role user, assistant, system or developer; content a string or text parts "
            "{type: 'input_text'|'output_text'|'text', text or input_text}), function_call items "
            "{type, call_id, name, arguments} and function_call_output items {type, call_id, output}.",
            "anyOf": [
                {"type": "string"},
                {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "type": {"enum": list(ITEM_KEYS)},
                            "call_id": {"type": "string"},
                            "name": {"type": "string"},
                            "arguments": {"type": "string", "description": "JSON text of an object."},
                            "output": {"anyOf": [{"type": "string"}, _PARTS]},
                            "role": {"type": "string", "enum": list(ROLES)},
                            "content": {"anyOf": [{"type": "string"}, _PARTS]},
                        },
                    },
                },
            ],
        },
        "instructions": {"type": "string", "description": "System prompt; leads system/developer items."},
        "temperature": common.temperature_schema(2),
        "max_tokens": {
            **common.MAX_TOKENS_SCHEMA,
            "description": "Maximum tokens the host may generate (the Responses API's max_output_tokens).",
        },
        "max_output_tokens": {**common.MAX_TOKENS_SCHEMA, "description": "The same as max_tokens."},
        "tools": _TOOLS_SCHEMA,
        "tool_choice": _CHOICE_SCHEMA,
        "text": {
            "type": "object",
            "properties": {"format": options.format_schema(nested=False), "verbosity": {"type": "string"}},
            "description": "format: json_schema (as output_schema), json_object or text; verbosity: a hint.",
        },
        **options.hint_schemas(_HINTS, _FATES),
        **options.refused_schemas(_REFUSED),
    },
    "required": ["input"],
    "additionalProperties": False,
}


# -- tool definitions and tool_choice: {type: "function", name, ...} or the seed shape ----------


def _read_tool(obj: Mapping[str, Any], path: str) -> tuple[ToolSpec, str]:
    if "type" not in obj:
        return definitions.read_seed_tool(obj, path, definitions.SEED_KEYS, _TOOL_FORMS)
    definitions.check_function_type(obj, path)
    definitions.reject_unknown_key(obj, _TOOL_KEYS, path, f"a tool is {_TOOL_FORMS}")
    return definitions.read_function(obj, path)


def _read_choice(value: Mapping[str, Any], path: str, kind: str) -> tuple[ToolChoice, str]:
    definitions.check_function_choice_type(kind, path, _CHOICE_FORMS)
    common.reject_unknown(value, ("type", "name"), path)
    name_path = f"{path}.name"
    return ToolChoice("required", definitions.tool_name(value.get("name"), name_path)), name_path


def _write_tool(name: str, description: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    # `strict` is set to false: it defaults to true on Responses, and strict mode needs every
    # property required and `additionalProperties: false`, which MCP schemas rarely are (the API
    # refuses the tool otherwise).
    described: dict[str, Any] = {"name": name}
    if description is not None:
        described["description"] = description
    return {"type": "function", **described, "parameters": schema, "strict": False}


DIALECT = Dialect(
    NAME=NAME,
    PRODUCT="responses",
    DESCRIPTION=DESCRIPTION,
    INPUT_SCHEMA=INPUT_SCHEMA,
    body=Body(
        conversation="input",
        turn_noun="item",
        plain=_PLAIN,
        request_object=_REQUEST_OBJECT,
        text_arguments=("input", "instructions"),
        max_tokens_alias="max_output_tokens",
        native_output=read_text_format,
        parallel_calls="parallel_tool_calls",
        hints=_HINTS,
        fates=_FATES,
        refused=_REFUSED,
        echo=("instructions", "text", "tools", "max_output_tokens", "max_tokens", *ECHOED),
    ),
    read_conversation=read_conversation,
    render=render,
    render_object=render,
    EXAMPLE={"instructions": "Be brief.", "input": "Name one prime number."},
    describe=describe,
    tools=definitions.ToolShape(
        format="responses",
        read_tool=_read_tool,
        read_choice=_read_choice,
        write_tool=_write_tool,
        forms=_TOOL_FORMS,
        choice_forms=_CHOICE_FORMS,
        tools_schema=_TOOLS_SCHEMA,
        choice_schema=_CHOICE_SCHEMA,
    ),
    writing=WRITING,
    storage=storage.STORAGE,
)
