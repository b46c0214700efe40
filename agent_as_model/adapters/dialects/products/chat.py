"""OpenAI Chat Completions shape (`chat_complete`): request -> neutral, completion -> text.

Roles: system and developer fold into the system prompt; user and assistant are turns; an
assistant's `tool_calls` become tool_use blocks of its turn and `tool` messages become the
tool_result blocks of the next user turn (spec section 1.2).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects import common, contracts, hints, media, options, usage
from agent_as_model.adapters.dialects.dialect import Body, Dialect, Redaction
from agent_as_model.adapters.dialects.turns import Turns, arguments_object, call_id
from agent_as_model.adapters.dialects.writing import (
    Said,
    Unit,
    Writing,
    arguments_text,
    read_text_result,
    text_parts,
)
from agent_as_model.adapters.tools import definitions, listing
from agent_as_model.errors import caller_error
from agent_as_model.neutral import (
    Completion,
    OutputContract,
    Request,
    Text,
    ToolChoice,
    ToolResult,
    ToolSpec,
    ToolUse,
)

if TYPE_CHECKING:  # only for annotations: importing random costs start-up time
    import random

NAME = "chat_complete"
DESCRIPTION = (
    "Complete an OpenAI Chat Completions-shaped request with the host agent's own model. "
    'result "text" (default): the completion text ({"text", "tool_calls"} JSON text for tool calls); '
    'result "object": a ChatCompletion (choices[].message content / tool_calls, finish_reason, usage), '
    "n > 1 for that many choices. system/developer messages are the system prompt. tools/tool_choice go "
    "to a host with sampling.tools, else per --host-without-tools (see _meta). output_schema or "
    "response_format json_schema: validated JSON text. Inline images and audio taken. No API key."
)

_ROLES = ("system", "developer", "user", "assistant", "tool")
_TEXT_TYPES = ("text",)
_TEXT_KEYS = ("text",)
_KEYS = {
    "system": ("role", "content", "name"),
    "developer": ("role", "content", "name"),
    "user": ("role", "content", "name"),
    # What the SDK's ChatCompletionMessage dumps (`annotations`, `audio`, `function_call`), so a
    # response message passed back as it came works (docs/decisions.md).
    "assistant": (
        "role",
        "content",
        "name",
        "tool_calls",
        "refusal",
        "annotations",
        "audio",
        "function_call",
    ),
    "tool": ("role", "content", "tool_call_id"),
}
_KEY_SETS = {role: frozenset(keys) for role, keys in _KEYS.items()}
_HINTS = options.hints(
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
    "prompt_cache_retention",
    "prompt_cache_options",
)
# What becomes of each (hints.py): `metadata` and `service_tier` are echoed in the ChatCompletion,
# and metadata is only ever read back; the service tier is still not applied.
_FATES = hints.fates(*(name for name in _HINTS if name != "metadata"), metadata=hints.ECHOED_METADATA)
_ECHO = ("metadata", "service_tier")
_REFUSED: dict[str, options.Refusal] = {
    **options.refusals(
        "stream", "logprobs", "top_logprobs", "modalities", "audio", "web_search_options", "moderation"
    ),
    # The deprecated function-calling parameters: their successors do the same job.
    # Not read here, and still taken by the Chat Completions API: a provider of it gets them as written.
    "functions": options.HostOnly(
        lambda v: (
            "the deprecated 'functions' parameter is not taken: pass the functions as "
            "tools [{type: 'function', function: {name, description, parameters}}]"
        )
    ),
    "function_call": options.HostOnly(
        lambda v: (
            "the deprecated 'function_call' parameter is not taken: use tool_choice "
            "('auto', 'none', 'required' or {type: 'function', function: {name}})"
        )
    ),
}
_STOP = options.StopParameter("stop", string_ok=True, max_items=4)  # the Chat Completions limit
# The persona's request object (spec section 5): these parameters, with their defaults.
_REQUEST_OBJECT = contracts.request_object_defaults("messages")

_TOOL_FORMS = (
    "{name, description, input_schema} or {type: 'function', function: {name, description, parameters}}"
)
_CHOICE_FORMS = "'auto', 'required', 'none' or {type: 'function', function: {name}}"

_TEXT_PARTS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "type": {"enum": ["text", "image_url", "input_audio"]},
            "text": {"type": "string"},
            "image_url": {
                "type": "object",
                "description": "A data: URL (an http(s) URL only with serve --fetch-media); detail ignored.",
                "properties": {"url": {"type": "string"}, "detail": {"type": "string"}},
                "required": ["url"],
            },
            "input_audio": {
                "type": "object",
                "properties": {"data": {"type": "string"}, "format": {"enum": ["wav", "mp3"]}},
                "required": ["data", "format"],
            },
        },
        "required": ["type"],
    },
}

_TOOLS_SCHEMA = listing.tools_schema(
    {
        "type": "object",
        "description": "A Chat Completions function tool.",
        "properties": {
            "type": {"const": "function"},
            "function": {
                "type": "object",
                "properties": {
                    "name": listing.NAME,
                    "description": listing.DESCRIPTION,
                    "parameters": listing.PARAMETERS,
                    "strict": listing.STRICT,
                },
                "required": ["name"],
            },
        },
        "required": ["type", "function"],
    },
    listing.SEED_TOOL,
)
_CHOICE_SCHEMA = listing.choice_schema(
    {
        "type": "object",
        "description": "Call this function.",
        "properties": {
            "type": {"const": "function"},
            "function": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        },
        "required": ["type", "function"],
    }
)

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
                    "annotations": {"type": ["array", "null"], "description": "Accepted and ignored."},
                    "audio": {"type": "null"},
                    "function_call": {"type": "null", "description": "Deprecated: use tool_calls."},
                },
                "required": ["role"],
            },
        },
        "temperature": common.temperature_schema(2),
        "max_tokens": common.MAX_TOKENS_SCHEMA,
        "max_completion_tokens": {**common.MAX_TOKENS_SCHEMA, "description": "The same as max_tokens."},
        "stop": options.stop_schema(_STOP),
        "tools": _TOOLS_SCHEMA,
        "tool_choice": _CHOICE_SCHEMA,
        "response_format": options.format_schema(nested=True),
        "n": {
            "type": "integer",
            "minimum": 1,
            "default": 1,
            "description": "How many independent completions (choices); above 1 needs result 'object'.",
        },
        **options.hint_schemas(_HINTS, _FATES),
        **options.refused_schemas(_REFUSED),
        "functions": {"type": "null", "description": "Deprecated by OpenAI: pass tools instead."},
        "function_call": {"type": "null", "description": "Deprecated by OpenAI: pass tool_choice instead."},
    },
    "required": ["messages"],
    "additionalProperties": False,
}


def _read_conversation(args: Mapping[str, Any], turns: Turns) -> None:
    # The common message, {"role": "user" or "assistant", "content": ASCII text} and nothing
    # else, is the same turn `_read_message` makes of it: `entries` makes it without its
    # per-field checks and error paths.
    turns.entries(
        common.require_list(args.get("messages"), "messages", non_empty=True), "messages", _read_message
    )


def _response_format(args: Mapping[str, Any]) -> OutputContract | None:
    value = args.get("response_format")
    return None if value is None else options.format_contract(value, "response_format", nested="json_schema")


def _read_message(raw: object, path: str, turns: Turns) -> None:
    message = raw if type(raw) is dict else common.require_object(raw, path)
    role = message.get("role")
    if role not in _ROLES:
        raise caller_error(f"{path}.role", f"expected one of {', '.join(_ROLES)}, got {role!r}")
    if not message.keys() <= _KEY_SETS[role]:
        common.reject_unknown(message, _KEYS[role], path)
    if role == "assistant":
        _read_assistant(message, path, turns)
        return
    content = message.get("content")
    if type(content) is str and content.isascii():
        text = content  # the common case, valid as it is (no surrogate can hide in ASCII)
    elif role == "user" and type(content) is list and any(_is_media(part) for part in content):
        _read_media_message(content, f"{path}.content", turns, path)
        return
    elif content is None:
        raise caller_error(f"{path}.content", "is required")
    else:
        media_parts = _MEDIA_PARTS if role == "user" else ()
        text = common.text_of_content(
            content, f"{path}.content", _TEXT_TYPES, _TEXT_KEYS, "\n", media_parts, turns.cannot
        )
    if role == "user":
        turns.text("user", text, path)
    elif role == "tool":
        ident = call_id(message.get("tool_call_id"), f"{path}.tool_call_id")
        turns.tool_result(ToolResult(ident, text), path)
    else:
        turns.fold(role, text)


_MEDIA_PARTS = ("image_url", "input_audio")


def _is_media(part: object) -> bool:
    return type(part) is dict and part.get("type") in _MEDIA_PARTS


def _read_media_message(parts: list[Any], path: str, turns: Turns, turn_path: str) -> None:
    """A user message with images (`image_url`, a data: URL; `detail` accepted and ignored) or
    audio (`input_audio`, wav or mp3): each part in its place."""
    turns.start("user", turn_path)
    for j, part in enumerate(parts):
        where = f"{path}[{j}]"
        kind = part.get("type") if type(part) is dict else None
        if kind == "image_url":
            common.reject_unknown(part, ("type", "image_url"), where)
            image = common.require_object(part.get("image_url"), f"{where}.image_url")
            common.reject_unknown(image, ("url", "detail"), f"{where}.image_url")
            url = f"{where}.image_url.url"
            turns.media(media.data_url(image.get("url"), url, media.IMAGE_TYPES, turns.remote), url)
        elif kind == "input_audio":
            common.reject_unknown(part, ("type", "input_audio"), where)
            audio = common.require_object(part.get("input_audio"), f"{where}.input_audio")
            common.reject_unknown(audio, ("data", "format"), f"{where}.input_audio")
            fmt = audio.get("format")
            if fmt not in media.AUDIO_FORMATS:
                raise caller_error(
                    f"{where}.input_audio.format", f"expected 'wav' or 'mp3', got {ascii(fmt)}"
                )
            data = f"{where}.input_audio.data"
            turns.media(
                media.inline(audio.get("data"), media.AUDIO_FORMATS[fmt], data, media.AUDIO_TYPES), data
            )
        else:
            text = common.text_of_part(part, where, _TEXT_TYPES, _TEXT_KEYS, _MEDIA_PARTS, turns.cannot)
            turns.add(Text(text))


_CHECKED_ASSISTANT_KEYS = ("tool_calls", "refusal", "audio", "function_call", "annotations")


def _read_assistant(message: Mapping[str, Any], path: str, turns: Turns) -> None:
    content = message.get("content")
    # Plain: none of the fields beside the text that need a check of their own is given.
    plain = all(message.get(key) is None for key in _CHECKED_ASSISTANT_KEYS)
    if plain and type(content) is str and content.isascii():
        # The common turn passed back: one text, valid as it is (no surrogate hides in ASCII).
        # The same turn the general path below makes, without its per-field error paths.
        turns.text("assistant", content, path)
        return
    # A refusal or an audio answer passed back: OpenAI's API takes them, the host cannot (its
    # text would be dropped; it takes no audio answer), so each is the host's alone to refuse.
    kept = False
    if message.get("refusal") is not None:
        turns.cannot(f"{path}.refusal", "a refusal cannot be passed back as such: put its text in 'content'")
        kept = True
    if message.get("audio") is not None:
        turns.cannot(
            f"{path}.audio",
            "an audio answer cannot be passed back (the host takes text): put its transcript in 'content'",
        )
        kept = True
    if message.get("function_call") is not None:
        raise caller_error(
            f"{path}.function_call",
            "the deprecated function_call cannot be passed back: pass the call in tool_calls "
            "[{id, type: 'function', function: {name, arguments}}]",
        )
    annotations = message.get("annotations")
    if annotations is not None:  # url citations of the answer: accepted, checked, not sent
        common.require_list(annotations, f"{path}.annotations")
    calls = message.get("tool_calls")
    calls = [] if calls is None else common.require_list(calls, f"{path}.tool_calls")
    if message.get("content") is None and not calls:
        if kept:  # nothing but what the host cannot take: left out
            return
        raise caller_error(f"{path}.content", "is required (it may be null only with tool_calls)")
    turns.start("assistant", path)
    if message.get("content") is not None:
        text = _content(message, path)
        if text or not calls:  # an empty text beside tool calls says nothing: not sent
            turns.add(Text(text))
    for j, call in enumerate(calls):
        turns.add(_tool_call(call, f"{path}.tool_calls[{j}]"))


def _tool_call(raw: object, path: str) -> ToolUse:
    call = common.require_object(raw, path)
    common.reject_unknown(call, ("id", "type", "function"), path)
    if call.get("type", "function") != "function":
        raise caller_error(f"{path}.type", f"expected 'function', got {call.get('type')!r}")
    function = common.require_object(call.get("function"), f"{path}.function")
    common.reject_unknown(function, ("name", "arguments"), f"{path}.function")
    name = common.require_string(function.get("name"), f"{path}.function.name")
    if not name:
        raise caller_error(f"{path}.function.name", "must not be empty")
    arguments = arguments_object(function.get("arguments"), f"{path}.function.arguments")
    return ToolUse(call_id(call.get("id"), f"{path}.id"), name, arguments)


def _content(message: Mapping[str, Any], path: str) -> str:
    if "content" not in message or message["content"] is None:
        raise caller_error(f"{path}.content", "is required")
    return common.text_of_content(message["content"], f"{path}.content", _TEXT_TYPES, _TEXT_KEYS, "\n")


# -- tool definitions and tool_choice: {type: "function", function: {...}} or the seed shape ------


def _read_tool(obj: Mapping[str, Any], path: str) -> tuple[ToolSpec, str]:
    if "type" not in obj and "function" not in obj:
        return definitions.read_seed_tool(obj, path, definitions.SEED_KEYS, _TOOL_FORMS)
    definitions.check_function_type(obj, path)
    function_path = f"{path}.function"
    if "function" not in obj:
        raise caller_error(function_path, "is required: {name, description, parameters}")
    common.reject_unknown(obj, ("type", "function"), path)
    function = common.require_object(obj["function"], function_path)
    common.reject_unknown(function, definitions.FUNCTION_KEYS, function_path)
    return definitions.read_function(function, function_path)


def _read_choice(value: Mapping[str, Any], path: str, kind: str) -> tuple[ToolChoice, str]:
    definitions.check_function_choice_type(kind, path, _CHOICE_FORMS)
    function_path = f"{path}.function"
    if "function" not in value:
        raise caller_error(function_path, "is required: {name}")
    common.reject_unknown(value, ("type", "function"), path)
    function = common.require_object(value["function"], function_path)
    common.reject_unknown(function, ("name",), function_path)
    name_path = f"{function_path}.name"
    return ToolChoice("required", definitions.tool_name(function.get("name"), name_path)), name_path


def _write_tool(name: str, description: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    # `strict` is left out: it defaults to false on Chat Completions, and strict mode needs every
    # property required and `additionalProperties: false`, which MCP schemas rarely are.
    described: dict[str, Any] = {"name": name}
    if description is not None:
        described["description"] = description
    return {"type": "function", "function": {**described, "parameters": schema}}


# `finish_reason` of a Chat Completions choice: a stop sequence is a `stop` there too.
_FINISH = common.stop_vocabulary(
    end_turn="stop", stop_sequence="stop", max_tokens="length", tool_use="tool_calls"
)


def _describe(completion: Completion) -> dict[str, Any]:
    return common.result_meta(completion, "finish_reason", _FINISH)


def _render_object(completion: Completion, request: Request, cursor: str | None) -> dict[str, Any]:
    return _render_choices((completion,), request, cursor)


def _render_choices(
    completions: Sequence[Completion], request: Request, cursor: str | None
) -> dict[str, Any]:
    """A Chat Completions `ChatCompletion` (`result: "object"`; tests validate each one as the
    SDK's type), one choice per completion (`n`). Tool calls are `message.tool_calls` with
    JSON-text arguments, structured output the message's JSON `content`, as the API puts them."""
    counted = usage.joint_usage(completions, request)
    first = completions[0]
    return {
        "id": cursor or f"chatcmpl-{os.urandom(16).hex()}",  # with cursors on, the cursor (spec section 10)
        "object": "chat.completion",
        "created": int(time.time()),
        "model": first.model or request.model,  # the model that answered
        "choices": [_choice(completion, i) for i, completion in enumerate(completions)],
        "usage": {
            "prompt_tokens": counted.input_tokens,
            "completion_tokens": counted.output_tokens,
            "total_tokens": counted.input_tokens + counted.output_tokens,
        },
        **request.echo,  # `metadata` and `service_tier`, as the API echoes them: as sent
    }


def _choice(completion: Completion, index: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": completion.text, "refusal": None}
    if completion.tool_calls:
        if not completion.text:  # the API's content beside tool calls alone
            message["content"] = None
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.input, sort_keys=True)},
            }
            for call in completion.tool_calls
        ]
    return {
        "index": index,
        "message": message,
        "finish_reason": common.stop_word(completion, _FINISH),
        "logprobs": None,
    }


# The caller's side, for the fuzzer, the property tests and the soak (`Writing`, writing.py).
# How a Chat Completions caller writes a conversation as `messages` (`chat_complete`'s `Writing`).
#
# Each message keeps its role; an assistant turn that called tools is one message with
# `tool_calls` (its `content` null or `""` when it has no text), and each result a `tool` message.


def write_request(units: Sequence[Unit], vary: random.Random | None = None) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for unit in units:
        if isinstance(unit, Said):
            messages.append({"role": unit.role, "content": text_parts(unit.text, vary)})
            continue
        empty = vary.choice((None, "")) if vary is not None else None
        calls = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": arguments_text(c.input, vary)},
            }
            for c in unit.calls
        ]
        messages.append({"role": "assistant", "content": unit.text or empty, "tool_calls": calls})
        messages += [{"role": "tool", "tool_call_id": ident, "content": text} for ident, text in unit.results]
    return {"messages": messages}


WRITING = Writing(write_request, read_text_result, roles=("system", "developer", "user", "assistant"))


DIALECT = Dialect(
    NAME=NAME,
    PRODUCT="chat",
    DESCRIPTION=DESCRIPTION,
    INPUT_SCHEMA=INPUT_SCHEMA,
    body=Body(
        conversation="messages",
        turn_noun="message",
        plain=_PLAIN,
        request_object=_REQUEST_OBJECT,
        text_arguments=("messages",),
        max_tokens_alias="max_completion_tokens",
        stop=_STOP,
        native_output=_response_format,
        parallel_calls="parallel_tool_calls",
        hints=_HINTS,
        fates=_FATES,
        refused=_REFUSED,
        echo=_ECHO,
        choices="n",
    ),
    read_conversation=_read_conversation,
    render=common.text_result,
    render_object=_render_object,
    render_choices=_render_choices,
    # The response object of `result: "object"`: its keys, and the words the server writes in it.
    redaction=Redaction(
        result_keys=frozenset(["id", "object", "created", "model", "choices", "usage"]),
        echoed=frozenset(_ECHO),
        structural=frozenset(["finish_reason"]),
    ),
    EXAMPLE={
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Explain MCP sampling in one line."},
        ],
        "temperature": 0.2,
        "max_tokens": 200,
    },
    describe=_describe,
    tools=definitions.ToolShape(
        format="chat",
        read_tool=_read_tool,
        read_choice=_read_choice,
        write_tool=_write_tool,
        forms=_TOOL_FORMS,
        choice_forms=_CHOICE_FORMS,
        tools_schema=_TOOLS_SCHEMA,
        choice_schema=_CHOICE_SCHEMA,
    ),
    writing=WRITING,
)
