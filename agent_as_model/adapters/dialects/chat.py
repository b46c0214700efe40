"""OpenAI Chat Completions shape (`chat_complete`): request -> neutral, completion -> text.

Roles: system and developer fold into the system prompt; user and assistant are turns; an
assistant's `tool_calls` become tool_use blocks of its turn and `tool` messages become the
tool_result blocks of the next user turn (spec section 1.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common as c
from agent_as_model.adapters.dialects import contracts
from agent_as_model.adapters.dialects import options as o
from agent_as_model.adapters.dialects.turns import Turns, arguments_object, call_id
from agent_as_model.adapters.tools.definitions import TOOL_CHOICE_SCHEMA, TOOLS_SCHEMA
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Completion, Request, Text, ToolResult, ToolUse

NAME = "chat_complete"
DESCRIPTION = (
    "Complete an OpenAI Chat Completions-shaped request with the host agent's own model; returns the "
    "completion text. system/developer messages become the system prompt; user, assistant (with "
    "tool_calls) and tool messages go in order. tools/tool_choice reach the host if it declared "
    'sampling.tools (else dropped, with a logged warning); tool calls return {"text", "tool_calls"} '
    "as JSON text. output_schema or response_format json_schema returns validated JSON text. "
    "Before MCP 2026-07-28: one sampling/createMessage request; from 2026-07-28: an "
    "InputRequiredResult carrying it, answered on the retry. Text only. No API key."
)

_ROLES = ("system", "developer", "user", "assistant", "tool")
_TEXT_TYPES = ("text",)
_TEXT_KEYS = ("text",)
_KEYS = {
    "system": ("role", "content", "name"),
    "developer": ("role", "content", "name"),
    "user": ("role", "content", "name"),
    "assistant": ("role", "content", "name", "tool_calls", "refusal"),
    "tool": ("role", "content", "tool_call_id"),
}
_KEY_SETS = {role: frozenset(keys) for role, keys in _KEYS.items()}
_HINTS = (
    "user",
    "metadata",
    "store",
    "seed",
    "top_p",
    "frequency_penalty",
    "presence_penalty",
    "logit_bias",
    "parallel_tool_calls",
    "service_tier",
    "stream_options",
    "reasoning_effort",
    "verbosity",
    "prompt_cache_key",
    "safety_identifier",
    "prediction",
)
_REFUSED = ("stream", "n", "logprobs", "top_logprobs", "modalities", "audio", "web_search_options")
_MAX_STOPS = 4  # the Chat Completions limit
# The persona's request object (spec section 5): these parameters, with their defaults.
_REQUEST_OBJECT = contracts.request_object_defaults("messages")

_TEXT_PARTS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
        "required": ["type", "text"],
    },
}

# The common body: the conversation and its limits only. It skips the readers of everything else.
_PLAIN = frozenset(["messages", "model", "temperature", "max_tokens"])

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "messages": {
            "type": "array",
            "minItems": 1,
            "description": "Chat messages {role, content}; role system, developer, user, assistant or tool; "
            "content a string or a list of {type: 'text', text} parts (null: assistant with tool_calls); "
            "assistant tool_calls [{id, type: 'function', function: {name, arguments}}]; tool messages "
            "{role: 'tool', tool_call_id, content}.",
            "items": {
                "type": "object",
                "properties": {
                    "role": {"type": "string", "enum": list(_ROLES)},
                    "content": {"anyOf": [{"type": "string"}, _TEXT_PARTS, {"type": "null"}]},
                    "name": {"type": "string", "description": "Accepted and ignored."},
                    "tool_calls": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "id": {"type": "string"},
                                "type": {"const": "function"},
                                "function": {
                                    "type": "object",
                                    "properties": {
                                        "name": {"type": "string"},
                                        "arguments": {"type": "string"},
                                    },
                                    "required": ["name", "arguments"],
                                },
                            },
                            "required": ["id", "function"],
                        },
                    },
                    "tool_call_id": {"type": "string"},
                    "refusal": {"type": "null"},
                },
                "required": ["role"],
            },
        },
        "model": c.MODEL_SCHEMA,
        "temperature": c.temperature_schema(2),
        "max_tokens": c.MAX_TOKENS_SCHEMA,
        "max_completion_tokens": {**c.MAX_TOKENS_SCHEMA, "description": "The same as max_tokens."},
        "stop": o.stop_schema(string_ok=True, max_items=_MAX_STOPS),
        "tools": TOOLS_SCHEMA["chat"],
        "tool_choice": TOOL_CHOICE_SCHEMA["chat"],
        "output_schema": o.OUTPUT_SCHEMA_SCHEMA,
        "response_format": o.format_schema(nested=True),
        "repair_attempts": o.REPAIR_SCHEMA,
        "persona": contracts.PERSONA_SCHEMA,
        "previous_response_id": contracts.PREVIOUS_SCHEMA,
        **o.hint_schemas(_HINTS),
        **o.refused_schemas(_REFUSED),
    },
    "required": ["messages"],
    "additionalProperties": False,
}


def parse(args: Mapping[str, Any]) -> Request:
    plain = args.keys() <= _PLAIN
    if not plain:
        c.reject_unknown(args, INPUT_SCHEMA["properties"])
        o.check_natives(args)
    messages = c.require_list(args.get("messages"), "messages", non_empty=True)
    turns = _read_messages(messages)
    extras: dict[str, Any] = {}
    if not plain:  # a plain body skips the readers of everything else: the common, hot path
        extras = o.conversation_extras(
            args,
            NAME,
            turns,
            native="chat",
            standard=_REQUEST_OBJECT,
            output_from="response_format",
            stop=("stop", True, _MAX_STOPS),
            max_tokens_alias="max_completion_tokens",
        )
    return c.conversation_request(NAME, args, turns.system, turns.build(), field_name="messages", **extras)


def _read_messages(messages: list[Any]) -> Turns:
    turns = Turns()
    for i, raw in enumerate(messages):
        path = f"messages[{i}]"
        message = c.require_object(raw, path)
        role = message.get("role")
        if role not in _ROLES:
            raise caller_error(f"{path}.role", f"expected one of {', '.join(_ROLES)}, got {role!r}")
        if not message.keys() <= _KEY_SETS[role]:
            c.reject_unknown(message, _KEYS[role], path)
        if role == "assistant":
            _read_assistant(message, path, turns)
            continue
        content = message.get("content")
        if type(content) is str and content.isascii():
            text = content  # the common case, valid as it is (no surrogate can hide in ASCII)
        elif content is None:
            raise caller_error(f"{path}.content", "is required")
        else:
            text = c.text_of_content(content, f"{path}.content", _TEXT_TYPES, _TEXT_KEYS, "\n")
        if role == "user":
            turns.text("user", text, path)
        elif role == "tool":
            ident = call_id(message.get("tool_call_id"), f"{path}.tool_call_id")
            turns.tool_result(ToolResult(ident, text), path)
        else:
            turns.fold(role, text)
    return turns


def _read_assistant(message: Mapping[str, Any], path: str, turns: Turns) -> None:
    if message.get("refusal") is not None:  # accepted as null only: its text would be dropped
        raise caller_error(
            f"{path}.refusal", "a refusal cannot be passed back as such: put its text in 'content'"
        )
    calls = message.get("tool_calls")
    calls = [] if calls is None else c.require_list(calls, f"{path}.tool_calls")
    if message.get("content") is None and not calls:
        raise caller_error(f"{path}.content", "is required (it may be null only with tool_calls)")
    turns.start("assistant", path)
    if message.get("content") is not None:
        text = _content(message, path)
        if text or not calls:  # an empty text beside tool calls says nothing: not sent
            turns.add(Text(text))
    for j, call in enumerate(calls):
        turns.add(_tool_call(call, f"{path}.tool_calls[{j}]"))


def _tool_call(raw: object, path: str) -> ToolUse:
    call = c.require_object(raw, path)
    c.reject_unknown(call, ("id", "type", "function"), path)
    if call.get("type", "function") != "function":
        raise caller_error(f"{path}.type", f"expected 'function', got {call.get('type')!r}")
    function = c.require_object(call.get("function"), f"{path}.function")
    c.reject_unknown(function, ("name", "arguments"), f"{path}.function")
    name = c.require_string(function.get("name"), f"{path}.function.name")
    if not name:
        raise caller_error(f"{path}.function.name", "must not be empty")
    arguments = arguments_object(function.get("arguments"), f"{path}.function.arguments")
    return ToolUse(call_id(call.get("id"), f"{path}.id"), name, arguments)


def _content(message: Mapping[str, Any], path: str) -> str:
    if "content" not in message or message["content"] is None:
        raise caller_error(f"{path}.content", "is required")
    return c.text_of_content(message["content"], f"{path}.content", _TEXT_TYPES, _TEXT_KEYS, "\n")


def render(completion: Completion, request: Request, cursor: str | None) -> str | dict[str, Any]:
    return c.text_result(completion, cursor)
