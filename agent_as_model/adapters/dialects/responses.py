"""OpenAI Responses shape (`responses_create`): request -> neutral, completion -> a Response object.

Input items: messages `{role, content}` (`type: "message"` or no type), `function_call` items
(joining the assistant turn before them) and `function_call_output` items (one user turn of tool
results), spec section 1.2. The result is a Response object whose output holds a message item
and one `function_call` item per tool call the host made.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common as c
from agent_as_model.adapters.dialects import contracts
from agent_as_model.adapters.dialects import options as o
from agent_as_model.adapters.dialects.turns import Turns, arguments_object, call_id
from agent_as_model.adapters.tools.definitions import TOOL_CHOICE_SCHEMA, TOOLS_SCHEMA
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Completion, Request, ToolResult, ToolUse

NAME = "responses_create"
DESCRIPTION = (
    "Complete an OpenAI Responses-shaped request with the host agent's own model; returns a Response "
    "object ({id: 'resp_…', object: 'response', model, output}). input is a string or items: "
    "messages {role, content}, function_call, function_call_output. instructions and system/developer "
    "items become the system prompt. tools/tool_choice reach the host if it declared sampling.tools; "
    "tool calls come back as function_call items. output_schema or text.format json_schema puts "
    "validated JSON text in output_text. Before MCP 2026-07-28: one sampling/createMessage request; "
    "from 2026-07-28: an InputRequiredResult carrying it, answered on the retry. Text only."
)

_ROLES = ("user", "assistant", "system", "developer")
# The real API names the text key `text`; the reference server used `input_text`. Both are accepted.
_TEXT_TYPES = ("input_text", "output_text", "text")
_TEXT_KEYS = ("text", "input_text")
_ITEM_KEYS = {
    "message": ("role", "content", "type", "id", "status"),
    "function_call": ("type", "call_id", "name", "arguments", "id", "status"),
    "function_call_output": ("type", "call_id", "output", "id", "status"),
}
_HINTS = (
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
)
_REFUSED = ("stream", "background", "top_logprobs", "conversation", "prompt")
# The persona's request object (spec section 5): these parameters, with their defaults.
_REQUEST_OBJECT = contracts.request_object_defaults("input", "instructions")

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
                            "type": {"enum": list(_ITEM_KEYS)},
                            "call_id": {"type": "string"},
                            "name": {"type": "string"},
                            "arguments": {"type": "string", "description": "JSON text of an object."},
                            "output": {"type": "string"},
                            "role": {"type": "string", "enum": list(_ROLES)},
                            "content": {
                                "anyOf": [
                                    {"type": "string"},
                                    {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "properties": {
                                                "type": {"enum": list(_TEXT_TYPES)},
                                                "text": {"type": "string"},
                                                "input_text": {"type": "string"},
                                            },
                                            "required": ["type"],
                                        },
                                    },
                                ]
                            },
                        },
                    },
                },
            ],
        },
        "instructions": {"type": "string", "description": "System prompt; leads system/developer items."},
        "model": c.MODEL_SCHEMA,
        "temperature": c.temperature_schema(2),
        "max_tokens": {
            **c.MAX_TOKENS_SCHEMA,
            "description": "Maximum tokens the host may generate (the Responses API's max_output_tokens).",
        },
        "max_output_tokens": {**c.MAX_TOKENS_SCHEMA, "description": "The same as max_tokens."},
        "tools": TOOLS_SCHEMA["responses"],
        "tool_choice": TOOL_CHOICE_SCHEMA["responses"],
        "output_schema": o.OUTPUT_SCHEMA_SCHEMA,
        "text": {
            "type": "object",
            "properties": {"format": o.format_schema(nested=False), "verbosity": {"type": "string"}},
            "description": "format: json_schema (as output_schema), json_object or text; verbosity: a hint.",
        },
        "repair_attempts": o.REPAIR_SCHEMA,
        "persona": contracts.PERSONA_SCHEMA,
        "previous_response_id": contracts.PREVIOUS_SCHEMA,
        **o.hint_schemas(_HINTS),
        **o.refused_schemas(_REFUSED),
    },
    "required": ["input"],
    "additionalProperties": False,
}


def parse(args: Mapping[str, Any]) -> Request:
    plain = args.keys() <= _PLAIN
    if not plain:
        c.reject_unknown(args, INPUT_SCHEMA["properties"])
        o.check_natives(args)
    if "input" not in args:
        raise caller_error("input", "is required")
    turns = Turns()
    instructions = args.get("instructions")
    if instructions is not None:
        turns.fold("system", c.require_string(instructions, "instructions"))
    raw_input = args["input"]
    if isinstance(raw_input, str):
        turns.text("user", c.require_unicode(raw_input, "input"), "input")
    else:
        _read_items(c.require_list(raw_input, "input", non_empty=True), turns)
    extras: dict[str, Any] = {}
    if not plain:  # a plain body skips the readers of everything else: the common, hot path
        extras = o.conversation_extras(
            args,
            NAME,
            turns,
            native="responses",
            standard=_REQUEST_OBJECT,
            output_from="text",
            max_tokens_alias="max_output_tokens",
            calls_join=True,
        )
    return c.conversation_request(NAME, args, turns.system, turns.build(), field_name="input", **extras)


def _read_items(items: list[Any], turns: Turns) -> None:
    for i, raw in enumerate(items):
        path = f"input[{i}]"
        item = c.require_object(raw, path)
        kind = item.get("type", "message")
        if not isinstance(kind, str) or kind not in _ITEM_KEYS:
            expected = ", ".join(repr(k) for k in _ITEM_KEYS)
            raise caller_error(f"{path}.type", f"unsupported item type {ascii(kind)} (expected {expected})")
        c.reject_unknown(item, _ITEM_KEYS[kind], path)
        if kind == "function_call":
            name = c.require_string(item.get("name"), f"{path}.name")
            if not name:
                raise caller_error(f"{path}.name", "must not be empty")
            arguments = arguments_object(item.get("arguments"), f"{path}.arguments")
            turns.tool_call(ToolUse(call_id(item.get("call_id"), f"{path}.call_id"), name, arguments), path)
        elif kind == "function_call_output":
            ident = call_id(item.get("call_id"), f"{path}.call_id")
            if "output" not in item:
                raise caller_error(f"{path}.output", "is required")
            output = c.text_of_content(item["output"], f"{path}.output", _TEXT_TYPES, _TEXT_KEYS, "\n")
            turns.tool_result(ToolResult(ident, output), path)
        else:
            _read_message(item, path, turns)


def _read_message(item: Mapping[str, Any], path: str, turns: Turns) -> None:
    role = item.get("role")
    if role not in _ROLES:
        raise caller_error(f"{path}.role", f"expected one of {', '.join(_ROLES)}, got {role!r}")
    if "content" not in item:
        raise caller_error(f"{path}.content", "is required")
    text = c.text_of_content(item["content"], f"{path}.content", _TEXT_TYPES, _TEXT_KEYS, "\n")
    if role in ("system", "developer"):
        turns.fold(role, text)
    else:
        turns.text(role, text, path)


def render(completion: Completion, request: Request, cursor: str | None) -> str | dict[str, Any]:
    # One random hex serves both ids, so a reader can tie the message item to its response.
    ident = uuid.uuid4().hex
    output: list[dict[str, Any]] = []
    if completion.text or not completion.tool_calls:  # with tool calls, an empty text has no item
        output.append(
            {
                "type": "message",
                "id": f"msg_{ident}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": completion.text, "annotations": []}],
            }
        )
    output.extend(
        {
            "type": "function_call",
            "id": f"fc_{call.id}",  # derived from the host's call id, as the reference does
            "call_id": call.id,
            "name": call.name,
            "arguments": json.dumps(call.input, sort_keys=True),
            "status": "completed",
        }
        for call in completion.tool_calls
    )
    return {
        "id": cursor or f"resp_{ident}",  # with cursors on, the id is the cursor (spec section 6)
        "object": "response",
        "status": "completed",
        "model": request.model,
        "output": output,
    }
