"""Anthropic Messages shape (`messages_create`): request -> neutral, completion -> text.

Message content is a string or a list of blocks: `text`, and `tool_use` (assistant) /
`tool_result` (user), which map onto MCP's blocks of the same names (spec section 1.2). A user
message's tool results come first (as Anthropic requires); text after them becomes a user turn
of its own, because an MCP message with tool results holds only tool results.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects import common, contracts, hints, media, options, usage
from agent_as_model.adapters.dialects.dialect import Body, Dialect, Redaction
from agent_as_model.adapters.dialects.products.messages.writing import WRITING
from agent_as_model.adapters.dialects.turns import LEFT_OUT, Turns, call_id, input_object
from agent_as_model.adapters.tools import definitions, listing
from agent_as_model.errors import caller_error
from agent_as_model.neutral import (
    Completion,
    Media,
    OutputContract,
    Request,
    Text,
    ToolChoice,
    ToolResult,
    ToolSpec,
    ToolUse,
)
from agent_as_model.schemas import check_object_schema

if TYPE_CHECKING:
    from agent_as_model.neutral import ChoiceMode

NAME = "messages_create"
DESCRIPTION = (
    "Complete an Anthropic Messages-shaped request with the host agent's own model. "
    'result "text" (default): the completion text ({"text", "tool_calls"} JSON text for tool calls); '
    'result "object": a Message (content blocks text / tool_use, stop_reason, usage). system is a '
    "string or text blocks; content blocks: text, tool_use, tool_result. tools/tool_choice go to a "
    "host with sampling.tools, else per --host-without-tools (see _meta). output_schema or "
    "output_config.format: validated JSON text. Base64 image blocks, also in tool_result. "
    "No API key."
)

_ROLES = ("user", "assistant")
_TEXT_TYPES = ("text",)
_TEXT_KEYS = ("text",)
_TEXT_BLOCK_KEYS = ("type", "text", "cache_control", "citations")  # the last two: accepted, ignored
_HINTS = options.hints(
    "metadata",
    "top_p",
    "top_k",
    "thinking",
    "service_tier",
    "cache_control",
    "diagnostics",
    "inference_geo",
    "speed",
    "user_profile_id",
    "workspace_id",
)
_REFUSED = options.refusals("stream", "mcp_servers", "container")
_THINKING_KEYS = ("type", "budget_tokens", "display")


def _thinking(value: object, path: str) -> dict[str, Any]:
    """`thinking` ({type: enabled | disabled | adaptive | ..., budget_tokens, display}) as the
    `reasoning` hint, in Anthropic's own words."""
    given = common.require_object(value, path)
    common.reject_unknown(given, _THINKING_KEYS, path)
    read: dict[str, Any] = {"type": common.require_string(given.get("type"), f"{path}.type")}
    budget = given.get("budget_tokens")
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, int):
            raise caller_error(
                f"{path}.budget_tokens", f"expected an integer, got {common.type_name(budget)}"
            )
        read["budget_tokens"] = budget
    if given.get("display") is not None:
        read["display"] = common.require_string(given["display"], f"{path}.display")
    return read


# What becomes of each hint (hints.py). Extended thinking travels as the reasoning hint; its
# blocks cannot come back, so only `disabled` is served as asked. `output_config.effort` is the
# same hint's effort (the parameter's format is the output contract, read by `_output_config`).
_FATES = hints.fates(
    *(name for name in _HINTS if name != "thinking"),
    thinking=hints.reasoning(
        _thinking,
        "no thinking block can come back: the host answers with its text and tool calls only",
        applied=lambda v: isinstance(v, dict) and v.get("type") == "disabled",
    ),
    **{"output_config.effort": hints.reasoning(hints.effort, hints.NO_REASONING)},
)
_STOP = options.StopParameter("stop_sequences")
_TOOL_FORMS = "{name, description, input_schema}"
_TOOL_KEYS = (*definitions.SEED_KEYS, "type", "cache_control", "strict")
_CHOICE_FORMS = "'auto', 'required', 'none' or {type: 'auto'|'any'|'tool'|'none', name}"
# Block types of the SDK's own Message content that a caller may pass back (docs/decisions.md).
# Thinking blocks are another model's reasoning: left out of an assistant turn, with a warning,
# each checked as the SDK writes it. Server tools ran on Anthropic's side and their blocks have
# no MCP form. Documents and search results are sources MCP sampling has no content for.
_REASONING_BLOCKS = {"thinking": ("type", "thinking", "signature"), "redacted_thinking": ("type", "data")}
_TEXT_INSTEAD = "put the text it holds in a text block"
_IMAGE_BLOCKS = ("image",)  # where a user message or a tool result carries images
_SERVER_BLOCKS = (
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "container_upload",
    "mcp_tool_use",
    "mcp_tool_result",
)
_ANTHROPIC_MODES: Mapping[str, ChoiceMode] = {
    "auto": "auto",
    "any": "required",
    "tool": "required",
    "none": "none",
}
# The persona's request object (spec section 5): these parameters, with their defaults.
_REQUEST_OBJECT = contracts.request_object_defaults("messages", "system")
_TEXT_BLOCKS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
        "required": ["type", "text"],
    },
}
_IMAGE_SOURCE = {
    "type": "object",
    "description": "{type: 'base64', media_type, data}, or {type: 'url', url} with serve --fetch-media.",
    "properties": {
        "type": {"enum": ["base64", "url"]},
        "media_type": {"type": "string"},
        "data": {"type": "string"},
        "url": {"type": "string"},
    },
    "required": ["type"],
}
_RESULT_BLOCKS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "type": {"enum": ["text", "image"]},
            "text": {"type": "string"},
            "source": _IMAGE_SOURCE,
        },
        "required": ["type"],
    },
}
_BLOCKS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "type": {"enum": ["text", "image", "tool_use", "tool_result"]},
            "text": {"type": "string"},
            "source": _IMAGE_SOURCE,
            "id": {"type": "string"},
            "name": {"type": "string"},
            "input": {"type": "object"},
            "tool_use_id": {"type": "string"},
            "content": {"anyOf": [{"type": "string"}, _RESULT_BLOCKS]},
            "is_error": {"type": "boolean"},
        },
        "required": ["type"],
    },
}

_TOOLS_SCHEMA = listing.tools_schema(  # the seed shape is Anthropic's own
    {
        "type": "object",
        "description": "An Anthropic custom tool {name, description, input_schema}; server tools "
        "(web search, code execution, ...) cannot be forwarded.",
        "properties": {
            "name": listing.NAME,
            "description": listing.DESCRIPTION,
            "input_schema": listing.SCHEMA,
            "type": {"const": "custom"},
            "cache_control": {"type": ["object", "null"], "description": "Accepted and ignored."},
            "strict": listing.STRICT,
        },
        "required": ["name", "input_schema"],
    }
)
_CHOICE_SCHEMA = listing.choice_schema(
    {
        "type": "object",
        "description": "Anthropic form: any = required; tool = the named tool. "
        "disable_parallel_tool_use: true allows one tool call at most.",
        "properties": {
            "type": {"enum": ["auto", "any", "tool", "none"]},
            "name": {"type": "string", "description": "With type tool only."},
            "disable_parallel_tool_use": {"type": "boolean"},
        },
        "required": ["type"],
    }
)

# The common body: the conversation and its limits only. It skips the readers of everything else.
_PLAIN = frozenset(["messages", "system", "model", "temperature", "max_tokens"])

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "messages": {
            "type": "array",
            "minItems": 1,
            "description": "Messages {role: user|assistant, content: a string or blocks: text, "
            "tool_use {id, name, input} (assistant), tool_result {tool_use_id, content, is_error} (user)}.",
            "items": {
                "type": "object",
                "properties": {
                    "role": {"type": "string", "enum": list(_ROLES)},
                    "content": {"anyOf": [{"type": "string"}, _BLOCKS]},
                },
                "required": ["role", "content"],
            },
        },
        "system": {
            "anyOf": [{"type": "string"}, _TEXT_BLOCKS],
            "description": "System prompt: a string or a list of text blocks (joined by newlines).",
        },
        "temperature": common.temperature_schema(1),
        "max_tokens": common.MAX_TOKENS_SCHEMA,
        "stop_sequences": options.stop_schema(_STOP),
        "output_config": {
            "type": "object",
            "properties": {
                "format": {
                    "type": ["object", "null"],
                    "properties": {"type": {"const": "json_schema"}, "schema": {"type": "object"}},
                    "required": ["type", "schema"],
                },
                "effort": {
                    "type": ["string", "null"],
                    "description": "Sent to the host as a reasoning hint (sampling metadata), named in "
                    "_meta warnings.",
                },
            },
            "description": "format {type: 'json_schema', schema}: structured output (as output_schema).",
        },
        "tools": _TOOLS_SCHEMA,
        "tool_choice": _CHOICE_SCHEMA,
        **options.hint_schemas(_HINTS, _FATES),
        **options.refused_schemas(_REFUSED),
    },
    "required": ["messages"],
    "additionalProperties": False,
}


def _output_config(args: Mapping[str, Any]) -> OutputContract | None:
    """`output_config: {format: {type: "json_schema", schema}, effort}`, Anthropic's structured
    output: the format is the output contract; `effort` is a hint."""
    if args.get("output_config") is None:
        return None
    config = common.require_object(args["output_config"], "output_config")
    common.reject_unknown(config, ("format", "effort"), "output_config")
    if config.get("effort") is not None:
        common.require_string(config["effort"], "output_config.effort")  # a hint (`_FATES`)
    fmt = config.get("format")
    if fmt is None:
        return None
    fmt = common.require_object(fmt, "output_config.format")
    common.reject_unknown(fmt, ("type", "schema"), "output_config.format")
    if fmt.get("type") != "json_schema":
        raise caller_error(
            "output_config.format.type", f"expected 'json_schema', got {ascii(fmt.get('type'))}"
        )
    if "schema" not in fmt:
        raise caller_error("output_config.format.schema", "is required for a json_schema format")
    path = "output_config.format.schema"
    return OutputContract(check_object_schema(fmt["schema"], path), path)


def _read_conversation(args: Mapping[str, Any], turns: Turns) -> None:
    system = args.get("system")
    # Anthropic's system blocks join with a newline; the text is one system piece.
    if system is not None:
        turns.fold("system", common.text_of_content(system, "system", _TEXT_TYPES, _TEXT_KEYS, "\n"))
    _read_messages(common.require_list(args.get("messages"), "messages", non_empty=True), turns)


def _read_messages(messages: list[Any], turns: Turns) -> None:
    # The common message, {"role": "user" or "assistant", "content": ASCII text}, is the same
    # turn `_read_message` makes of it: `entries` makes it without the per-field checks.
    turns.entries(messages, "messages", _read_message)


def _read_message(raw: object, path: str, turns: Turns) -> None:
    message = common.require_object(raw, path)
    common.reject_unknown(message, ("role", "content"), path)
    role = message.get("role")
    if role == "system":
        raise caller_error(f"{path}.role", "'system' is not a message role here: pass it as 'system'")
    if role not in _ROLES:
        raise caller_error(f"{path}.role", f"expected one of {', '.join(_ROLES)}, got {role!r}")
    if "content" not in message:
        raise caller_error(f"{path}.content", "is required")
    content = message["content"]
    if isinstance(content, str):
        turns.text(role, common.require_unicode(content, f"{path}.content"), path)
    elif role == "assistant":
        _read_assistant(common.require_list(content, f"{path}.content"), path, turns)
    else:
        _read_user(common.require_list(content, f"{path}.content"), path, turns)


def _read_user(blocks: list[Any], path: str, turns: Turns) -> None:
    texts: list[str] = []
    images: list[tuple[int, Media, str]] = []  # an image, how many texts came before it, its path
    for j, raw in enumerate(blocks):
        where = f"{path}.content[{j}]"
        kind = _kind(raw, where)
        if kind == "tool_result":
            if texts or images:
                raise caller_error(where, "tool_result blocks must come before any text in a user message")
            turns.tool_result(_tool_result(raw, where, turns), path)
        elif kind == "image":
            images.append((len(texts), _image(raw, where, turns), where))
        elif not _kept(kind, where, turns, _USER_TAKES):
            texts.append(_text(raw, where, ("text",), _IMAGE_BLOCKS))
    if images:
        # Images in their place among the texts; texts between them join as before.
        turns.start("user", path)
        done = 0
        for before, image, where in images:
            if before > done:
                turns.add(Text("\n".join(texts[done:before])))
            done = before
            turns.media(image, where)
        if done < len(texts):
            turns.add(Text("\n".join(texts[done:])))
    elif texts or not blocks:
        turns.text("user", "\n".join(texts), path)


def _image(block: Any, path: str, turns: Turns) -> Media:
    """An `image` block with a base64 source, or a url source (fetched with `serve --fetch-media`,
    else refused); a file source (Anthropic's Files API) is refused."""
    common.reject_unknown(block, ("type", "source", "cache_control"), path)
    source = common.require_object(block.get("source"), f"{path}.source")
    kind = source.get("type")
    if kind == "url" and turns.fetched is not None:
        common.reject_unknown(source, ("type", "url"), f"{path}.source")
        url = common.require_string(source.get("url"), f"{path}.source.url")
        if not media.is_remote(url):
            raise caller_error(f"{path}.source.url", "only http(s) URLs are fetched")
        return turns.remote(url, f"{path}.source.url", media.IMAGE_TYPES)
    if kind in ("url", "file"):  # Anthropic's API takes them; the host takes inline bytes only
        turns.cannot(f"{path}.source", f"a {kind!r} source: {media.REMOTE}")
        return LEFT_OUT
    if kind != "base64":
        raise caller_error(f"{path}.source.type", f"expected 'base64', got {ascii(kind)}")
    common.reject_unknown(source, ("type", "media_type", "data"), f"{path}.source")
    return media.inline(
        source.get("data"), source.get("media_type"), f"{path}.source.data", media.IMAGE_TYPES
    )


def _read_assistant(blocks: list[Any], path: str, turns: Turns) -> None:
    texts: list[str] = []
    calls: list[ToolUse] = []
    for j, raw in enumerate(blocks):
        where = f"{path}.content[{j}]"
        kind = _kind(raw, where)
        if kind == "tool_use":
            calls.append(_tool_use(raw, where, turns))
        elif isinstance(kind, str) and kind in _REASONING_BLOCKS:
            _reasoning_block(raw, kind, where)
            turns.left_out(where, f"{kind} blocks")
        elif not _kept(kind, where, turns, _SERVER_BLOCKS):
            texts.append(_text(raw, where, ("text",)))
    turns.start("assistant", path)
    if texts or not calls:
        turns.add(Text("\n".join(texts)))
    for call in calls:
        turns.add(call)


def _kind(raw: object, path: str) -> object:
    return common.require_object(raw, path).get("type")


def _text(raw: Any, path: str, allowed: tuple[str, ...], media_blocks: tuple[str, ...] = ()) -> str:
    """A text block; `media_blocks`: the block types that carry images where it stands."""
    if raw.get("type") in ("tool_use", "tool_result"):
        side = "an assistant" if raw["type"] == "tool_use" else "a user"
        raise caller_error(f"{path}.type", f"a {raw['type']} block belongs in {side} message")
    _refuse_sdk_block(raw.get("type"), path)
    text = common.text_of_part(raw, path, allowed, _TEXT_KEYS, media_blocks)
    common.reject_unknown(raw, _TEXT_BLOCK_KEYS, path)
    return text


def _reasoning_block(raw: Any, kind: str, path: str) -> None:
    """A thinking or redacted_thinking block passed back, checked as the SDK writes it."""
    keys = _REASONING_BLOCKS[kind]
    common.reject_unknown(raw, keys, path)
    for key in keys[1:]:
        common.require_string(raw.get(key), f"{path}.{key}")


def _refuse_sdk_block(kind: object, path: str) -> None:
    """The SDK's block types that are not text, named with the reason they cannot be passed on."""
    if isinstance(kind, str) and kind in _REASONING_BLOCKS:  # a type may be any JSON value
        raise caller_error(
            path,
            f"a {kind} block is the model's own reasoning and belongs in an assistant message (where "
            "it is left out of what the host's model sees); a user message cannot carry it",
        )
    reason = _not_carried(kind)
    if reason is not None:
        raise caller_error(path, reason)


# The SDK's blocks that Anthropic's API takes in a user message or a tool result and the host
# cannot (in an assistant message, the server tools' blocks: `_SERVER_BLOCKS`).
_USER_TAKES = ("document", "search_result")
# What stands in for a block left out of a tool result's content, so the paths after it are kept.
_NO_TEXT = {"type": "text", "text": ""}


def _kept(kind: object, path: str, turns: Turns, takes: Sequence[str]) -> bool:
    """Whether the block is one Anthropic's API `takes` where it stands and the host cannot: kept
    as a refusal for the host alone (`Turns.cannot`) and left out of the conversation."""
    if not isinstance(kind, str) or kind not in takes:
        return False
    reason = _not_carried(kind)
    assert reason is not None
    turns.cannot(path, reason)
    return True


def _not_carried(kind: object) -> str | None:
    """Why a block of the SDK that is not text cannot reach the host, or None for any other."""
    if kind == "document":
        return (
            f"a document block is not carried: MCP sampling has content for text, images and audio "
            f"only, and none for a document (PDF or text source); {_TEXT_INSTEAD}"
        )
    if kind == "search_result":
        return (
            "a search_result block is not carried: MCP sampling has no content for a search result "
            f"and its citations; {_TEXT_INSTEAD}"
        )
    if isinstance(kind, str) and kind in _SERVER_BLOCKS:
        return (
            f"a {kind} block belongs to a server tool that ran on Anthropic's side: server tools "
            "cannot be forwarded, so their calls and results cannot be passed to the host's model; "
            "remove the block (or put what it found in a text block)"
        )
    return None


def _tool_use(block: Any, path: str, turns: Turns) -> ToolUse:
    common.reject_unknown(
        block, ("type", "id", "name", "input", "cache_control", "caller", "toolset_name"), path
    )
    caller = block.get("caller")
    if caller is not None and common.require_object(caller, f"{path}.caller").get("type") != "direct":
        turns.cannot(
            f"{path}.caller",
            "a call made by a server tool (code execution) cannot be passed back: only direct calls "
            "reach the host's model",
        )
    _no_toolset(block, path, turns)
    name = common.require_string(block.get("name"), f"{path}.name")
    if not name:
        raise caller_error(f"{path}.name", "must not be empty")
    return ToolUse(
        call_id(block.get("id"), f"{path}.id"), name, input_object(block.get("input"), f"{path}.input")
    )


def _no_toolset(block: Any, path: str, turns: Turns) -> None:
    if block.get("toolset_name") is not None:
        turns.cannot(
            f"{path}.toolset_name",
            "tools of an MCP toolset run on Anthropic's side (mcp_servers) and cannot be passed back",
        )


def _tool_result(block: Any, path: str, turns: Turns) -> ToolResult:
    common.reject_unknown(
        block, ("type", "tool_use_id", "content", "is_error", "cache_control", "toolset_name"), path
    )
    _no_toolset(block, path, turns)
    ident = call_id(block.get("tool_use_id"), f"{path}.tool_use_id")
    content = block.get("content")
    if content is None:  # null is absent: an empty result
        content = ""
    parts: tuple[Text | Media, ...] = ()
    if type(content) is list and any(type(b) is dict and b.get("type") == "image" for b in content):
        # Images in a tool result, each in its place among the texts.
        read: list[Text | Media] = []
        for j, raw in enumerate(content):
            where = f"{path}.content[{j}]"
            if _kind(raw, where) == "image":
                read.append(_image(raw, where, turns))
            elif _kept(raw.get("type"), where, turns, _USER_TAKES):
                continue
            else:
                read.append(Text(_text(raw, where, _TEXT_TYPES, _IMAGE_BLOCKS)))
        parts = tuple(read)
        text = "\n".join(p.text for p in parts if isinstance(p, Text))
    else:
        if isinstance(content, list):  # a document or a search result is told as such
            blocks: list[Any] = []
            for j, raw in enumerate(content):
                kind = raw.get("type") if isinstance(raw, dict) else None
                if _kept(kind, f"{path}.content[{j}]", turns, _USER_TAKES):
                    raw = _NO_TEXT  # left out, the paths of the blocks after it kept
                else:
                    _refuse_sdk_block(kind, f"{path}.content[{j}]")
                blocks.append(raw)
            content = blocks
        text = common.text_of_content(
            content, f"{path}.content", _TEXT_TYPES, _TEXT_KEYS, "\n", _IMAGE_BLOCKS
        )
    is_error = block.get("is_error")
    if is_error is None:  # null is absent
        is_error = False
    if not isinstance(is_error, bool):
        raise caller_error(f"{path}.is_error", f"expected a boolean, got {common.type_name(is_error)}")
    return ToolResult(ident, text, is_error, parts)


# -- tool definitions and tool_choice: Anthropic's own shape is the seed shape -----------------


def _read_tool(obj: Mapping[str, Any], path: str) -> tuple[ToolSpec, str]:
    kind = obj.get("type")
    if kind is not None and kind != "custom":
        type_path = f"{path}.type"
        if not isinstance(kind, str):
            raise caller_error(type_path, f"expected 'custom' or no type, got {common.type_name(kind)}")
        raise definitions.server_tool(
            type_path,
            f"Anthropic tool type {ascii(kind)} cannot be forwarded: server tools and Anthropic-defined "
            "tools (web search, code execution, bash, text editor, computer use ...) run on Anthropic's "
            "side; only custom tools {name, description, input_schema} reach the host's model",
        )
    return definitions.read_seed_tool(obj, path, _TOOL_KEYS, _TOOL_FORMS)


def _read_choice(value: Mapping[str, Any], path: str, kind: str) -> tuple[ToolChoice, str]:
    """`{type: auto|any|tool|none, name?, disable_parallel_tool_use?}`; `any` is MCP's `required`.

    `disable_parallel_tool_use: true` allows one tool call at most. MCP sampling has no such
    switch, so the host's model is told in the system prompt and the answer is kept to it.
    """
    mode = _ANTHROPIC_MODES.get(kind)
    if mode is None:
        raise caller_error(f"{path}.type", f"expected 'auto', 'any', 'tool' or 'none', got {ascii(kind)}")
    common.reject_unknown(value, ("type", "name", "disable_parallel_tool_use"), path)
    disable = value.get("disable_parallel_tool_use")
    if disable is not None and not isinstance(disable, bool):
        raise caller_error(
            f"{path}.disable_parallel_tool_use", f"expected a boolean, got {common.type_name(disable)}"
        )
    name_path = f"{path}.name"
    single = f"{path}.disable_parallel_tool_use" if disable is True else None
    if kind == "tool":
        name = definitions.tool_name(value.get("name"), name_path)
        return ToolChoice(mode, name, single_call=single), name_path
    if value.get("name") is not None:
        raise caller_error(name_path, f"is only taken with type 'tool', not {ascii(kind)}")
    return ToolChoice(mode, single_call=single), name_path


def _write_tool(name: str, description: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    described: dict[str, Any] = {"name": name}
    if description is not None:
        described["description"] = description
    return {**described, "input_schema": schema}


# `stop_reason` of an Anthropic Message.
_STOP_REASONS = common.stop_vocabulary(
    end_turn="end_turn", stop_sequence="stop_sequence", max_tokens="max_tokens", tool_use="tool_use"
)


def _describe(completion: Completion) -> dict[str, Any]:
    return common.result_meta(completion, "stop_reason", _STOP_REASONS)


def _render_object(completion: Completion, request: Request, cursor: str | None) -> dict[str, Any]:
    """An Anthropic `Message` (`result: "object"`; tests validate each one as the SDK's type):
    text and `tool_use` blocks, structured output as the text block's JSON. `stop_sequence` is
    null: MCP's stopReason says a stop sequence ended the answer, not which (docs/decisions.md)."""
    counted = usage.usage_of(completion, request)
    content: list[dict[str, Any]] = []
    if completion.text or not completion.tool_calls:  # with tool calls, an empty text has no block
        content.append({"type": "text", "text": completion.text})
    content.extend(
        {"type": "tool_use", "id": call.id, "name": call.name, "input": call.input}
        for call in completion.tool_calls
    )
    return {
        "id": cursor or f"msg_{os.urandom(16).hex()}",  # with cursors on, the cursor (spec section 10)
        "type": "message",
        "role": "assistant",
        "content": content,
        "model": completion.model or request.model,  # the model that answered
        "stop_reason": common.stop_word(completion, _STOP_REASONS),
        "stop_sequence": None,
        "usage": {"input_tokens": counted.input_tokens, "output_tokens": counted.output_tokens},
    }


DIALECT = Dialect(
    NAME=NAME,
    PRODUCT="messages",
    DESCRIPTION=DESCRIPTION,
    INPUT_SCHEMA=INPUT_SCHEMA,
    body=Body(
        conversation="messages",
        turn_noun="message",
        plain=_PLAIN,
        request_object=_REQUEST_OBJECT,
        text_arguments=("messages", "system"),
        max_temperature=1.0,
        stop=_STOP,
        native_output=_output_config,
        hints=_HINTS,
        fates=_FATES,
        refused=_REFUSED,
    ),
    read_conversation=_read_conversation,
    render=common.text_result,
    render_object=_render_object,
    # The response object of `result: "object"`: its keys, and the words the server writes in it.
    redaction=Redaction(
        result_keys=frozenset(
            ["id", "type", "role", "content", "model", "stop_reason", "stop_sequence", "usage"]
        ),
        structural=frozenset(["stop_reason"]),
    ),
    EXAMPLE={"system": "Answer in French.", "messages": [{"role": "user", "content": "Say hello."}]},
    describe=_describe,
    tools=definitions.ToolShape(
        format="messages",
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
