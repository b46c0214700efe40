"""OpenAI Responses shape (`responses_create`): request -> neutral, completion -> a Response object.

Input items: messages `{role, content}` (`type: "message"` or no type), `function_call` items
(joining the assistant turn before them) and `function_call_output` items (one user turn of tool
results), spec section 1.2. The result is a Response object whose output holds a message item
and one `function_call` item per tool call the host made.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects import common, contracts, media, options, usage
from agent_as_model.adapters.dialects.dialect import Body, Dialect
from agent_as_model.adapters.dialects.products.responses import storage
from agent_as_model.adapters.dialects.turns import Turns, arguments_object, call_id
from agent_as_model.adapters.dialects.writing import (
    Reading,
    Said,
    Unit,
    Unreadable,
    Writing,
    arguments_text,
    completion,
    leading_system,
    read_object,
    text_parts,
)
from agent_as_model.adapters.tools import definitions, listing
from agent_as_model.arguments import json_text
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

if TYPE_CHECKING:  # only for annotations: importing random costs start-up time
    import random

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

_ROLES = ("user", "assistant", "system", "developer")
# The real API names the text key `text`; the reference server used `input_text`. Both are accepted.
_TEXT_TYPES = ("input_text", "output_text", "text")
_TEXT_KEYS = ("text", "input_text")
# A message's content parts and a function_call_output's output parts, as listed.
_PARTS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "type": {"enum": [*_TEXT_TYPES, "input_image"]},
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
# The keys of the SDK's own item types (output items dumped and passed back as input): `phase`,
# `async` (`async_` in a pydantic dump), `caller` and `namespace` are accepted when null, or with
# a value that changes nothing (`_check_item_extras`).
_ITEM_KEYS = {
    "message": ("role", "content", "type", "id", "status", "phase"),
    "function_call": (
        "type",
        "call_id",
        "name",
        "arguments",
        "id",
        "status",
        "async",
        "async_",
        "caller",
        "namespace",
    ),
    "function_call_output": ("type", "call_id", "output", "id", "status", "caller", "name", "namespace"),
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
)
_REFUSED = options.refusals("stream", "background", "top_logprobs", "conversation", "prompt", "moderation")
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
                            "type": {"enum": list(_ITEM_KEYS)},
                            "call_id": {"type": "string"},
                            "name": {"type": "string"},
                            "arguments": {"type": "string", "description": "JSON text of an object."},
                            "output": {"anyOf": [{"type": "string"}, _PARTS]},
                            "role": {"type": "string", "enum": list(_ROLES)},
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
        **options.hint_schemas(_HINTS),
        **options.refused_schemas(_REFUSED),
    },
    "required": ["input"],
    "additionalProperties": False,
}


def _read_conversation(args: Mapping[str, Any], turns: Turns) -> None:
    if "input" not in args:
        raise caller_error("input", "is required")
    # function_call items passed back join the assistant message item right before them, so a
    # cursor over an answer of calls alone is minted as that joined entry (states/commit.py).
    turns.calls_are_items = True
    instructions = args.get("instructions")
    if instructions is not None:
        turns.fold("system", common.require_string(instructions, "instructions"))
    raw_input = args["input"]
    if isinstance(raw_input, str):
        turns.text("user", common.require_unicode(raw_input, "input"), "input")
    else:
        _read_items(common.require_list(raw_input, "input", non_empty=True), turns)


def _text_format(args: Mapping[str, Any]) -> OutputContract | None:
    """`text: {format, verbosity}`: the format may ask for JSON; verbosity is a hint."""
    if args.get("text") is None:
        return None
    text = common.require_object(args["text"], "text")
    common.reject_unknown(text, ("format", "verbosity"), "text")
    if text.get("verbosity") is not None:
        common.require_string(text["verbosity"], "text.verbosity")  # a hint: checked, then ignored
    if text.get("format") is None:
        return None
    return options.format_contract(text["format"], "text.format", nested=None)


def _read_items(items: list[Any], turns: Turns) -> None:
    for i, raw in enumerate(items):
        path = f"input[{i}]"
        item = common.require_object(raw, path)
        kind = item.get("type", "message")
        _refuse_sdk_item(kind, path)
        if not isinstance(kind, str) or kind not in _ITEM_KEYS:
            expected = ", ".join(repr(k) for k in _ITEM_KEYS)
            raise caller_error(f"{path}.type", f"unsupported item type {ascii(kind)} (expected {expected})")
        common.reject_unknown(item, _ITEM_KEYS[kind], path)
        _check_item_extras(item, path)
        if kind == "function_call":
            name = common.require_string(item.get("name"), f"{path}.name")
            if not name:
                raise caller_error(f"{path}.name", "must not be empty")
            arguments = arguments_object(item.get("arguments"), f"{path}.arguments")
            turns.tool_call(ToolUse(call_id(item.get("call_id"), f"{path}.call_id"), name, arguments), path)
        elif kind == "function_call_output":
            ident = call_id(item.get("call_id"), f"{path}.call_id")
            if "output" not in item:
                raise caller_error(f"{path}.output", "is required")
            turns.tool_result(_call_output(ident, item["output"], f"{path}.output", turns), path)
        else:
            _read_message(item, path, turns)


def _call_output(ident: str, output: object, path: str, turns: Turns) -> ToolResult:
    """A function's output: text, or a list of parts; `input_image` parts (issue 24) keep their
    place among the texts."""
    if type(output) is not list or not any(_is_image(part) for part in output):
        return ToolResult(ident, common.text_of_content(output, path, _TEXT_TYPES, _TEXT_KEYS, "\n"))
    parts = tuple(_image_or_text(part, f"{path}[{j}]", turns) for j, part in enumerate(output))
    return ToolResult(ident, "\n".join(p.text for p in parts if isinstance(p, Text)), parts=parts)


def _refuse_sdk_item(kind: object, path: str) -> None:
    """Output item types of the SDK's Response that are not messages or function calls, named with
    the reason they cannot be passed back (docs/decisions.md)."""
    if kind == "reasoning":
        raise caller_error(
            path,
            "a reasoning item (the model's own reasoning, often encrypted) cannot be passed to the host's "
            "model: it takes messages and function calls only; remove the item",
        )
    if kind == "item_reference":
        raise caller_error(
            path,
            "an item reference points at an item stored on OpenAI's servers, and this server keeps "
            "none: pass the item itself",
        )
    if kind == "compaction":
        raise caller_error(
            path,
            "a compaction item is the API's encrypted summary of earlier turns and cannot be read "
            "here: pass the turns themselves",
        )
    if isinstance(kind, str) and kind in _TOOL_ITEMS:
        raise caller_error(
            path,
            f"a {kind} item belongs to a built-in or custom tool: only function tools reach the host's "
            "model, so only function_call and function_call_output items can be passed back",
        )


# The SDK's output and input item types of the built-in tools (web search, computer use, MCP,
# shell, ...) and of custom (free-form) tools.
_TOOL_ITEMS = frozenset(
    [
        "file_search_call",
        "web_search_call",
        "computer_call",
        "computer_call_output",
        "tool_search_call",
        "tool_search_output",
        "image_generation_call",
        "code_interpreter_call",
        "local_shell_call",
        "local_shell_call_output",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "custom_tool_call",
        "custom_tool_call_output",
        "program",
        "program_output",
    ]
)


def _refuse_refusal(content: object, path: str) -> None:
    """A refusal part of an output message: its text would otherwise be dropped (chat decides the
    same for a message's `refusal`)."""
    for j, part in enumerate(content if isinstance(content, list) else ()):
        if isinstance(part, dict) and part.get("type") == "refusal":
            raise caller_error(
                common.path_of(path, j),
                "a refusal part cannot be passed back as such: put its text in an output_text part",
            )


def _check_item_extras(item: Mapping[str, Any], path: str) -> None:
    """The SDK's extra item fields: informational ones are ignored, ones whose value would change
    what the call means are refused when set."""
    if item.get("namespace") is not None:
        raise caller_error(
            f"{path}.namespace",
            "namespaced tools cannot be passed back: only plain function tools reach the host",
        )
    caller = item.get("caller")
    if caller is not None and common.require_object(caller, f"{path}.caller").get("type") != "direct":
        raise caller_error(
            f"{path}.caller",
            "a call made by a program cannot be passed back: only direct calls reach the host",
        )
    for key in ("phase", "async", "async_"):  # hints about how the answer was produced
        value = item.get(key)
        if value is not None and not isinstance(value, str | bool):
            raise caller_error(
                f"{path}.{key}", f"expected a string or boolean, got {common.type_name(value)}"
            )


def _read_message(item: Mapping[str, Any], path: str, turns: Turns) -> None:
    role = item.get("role")
    if role not in _ROLES:
        raise caller_error(f"{path}.role", f"expected one of {', '.join(_ROLES)}, got {role!r}")
    if "content" not in item:
        raise caller_error(f"{path}.content", "is required")
    _refuse_refusal(item["content"], f"{path}.content")
    content = item["content"]
    if role == "user" and type(content) is list and any(_is_image(part) for part in content):
        _read_images(content, f"{path}.content", turns, path)
        return
    text = common.text_of_content(item["content"], f"{path}.content", _TEXT_TYPES, _TEXT_KEYS, "\n")
    if role in ("system", "developer"):
        turns.fold(role, text)
    else:
        turns.text(role, text, path)


def _is_image(part: object) -> bool:
    return type(part) is dict and part.get("type") == "input_image"


def _read_images(parts: list[Any], path: str, turns: Turns, turn_path: str) -> None:
    """A user message with `input_image` parts (a data: URL; `detail` accepted and ignored), each
    in its place (issue 24); a file id or an http(s) URL is remote media, refused."""
    turns.start("user", turn_path)
    for j, part in enumerate(parts):
        read = _image_or_text(part, f"{path}[{j}]", turns)
        if type(read) is Media:
            turns.media(read, read.path)
        else:
            turns.add(read)


def _image_or_text(part: Any, where: str, turns: Turns) -> Text | Media:
    if not _is_image(part):
        return Text(common.text_of_part(part, where, _TEXT_TYPES, _TEXT_KEYS))
    common.reject_unknown(part, ("type", "image_url", "file_id", "detail"), where)
    if part.get("file_id") is not None:
        raise caller_error(f"{where}.file_id", f"a file id: {media.REMOTE}")
    url = f"{where}.image_url"
    return media.data_url(part.get("image_url"), url, media.IMAGE_TYPES, turns.remote)


def _render(completion: Completion, request: Request, cursor: str | None) -> str | dict[str, Any]:
    """The Response object: what `openai.types.responses.Response` requires, with the request's
    tool settings echoed as the API does, and `status: "incomplete"` when the answer was cut at
    the token limit (tests validate every one against the SDK type)."""
    # One random hex serves both ids, so a reader can tie the message item to its response.
    ident = uuid.uuid4().hex
    status = _status(completion)
    output: list[dict[str, Any]] = []
    if completion.text or not completion.tool_calls:  # with tool calls, an empty text has no item
        output.append(
            {
                "type": "message",
                "id": f"msg_{ident}",
                "status": status,
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
            "arguments": json_text(call.input),
            "status": "completed",
        }
        for call in completion.tool_calls
    )
    echo = request.echo
    counted = usage.usage_of(completion, request)
    response: dict[str, Any] = {
        "id": cursor or f"resp_{ident}",  # with cursors on, the id is the cursor (spec section 6)
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": completion.model or request.model,  # the model that answered (spec section 10)
        "output": output,
        # The request's settings, as the API echoes them: as the caller sent them.
        "instructions": echo.get("instructions"),
        "parallel_tool_calls": request.single_call is None,
        "tool_choice": _choice(request.tool_choice),
        "tools": [
            _tool_echo(tool, sent)
            for tool, sent in zip(request.tools, _sent_tools(echo, request), strict=True)
        ],
        "temperature": request.temperature,
        "max_output_tokens": echo.get("max_output_tokens", echo.get("max_tokens")),
        "usage": {
            "input_tokens": counted.input_tokens,
            # Nothing is cached and no reasoning is reported through MCP: none of either.
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": counted.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": counted.input_tokens + counted.output_tokens,
        },
    }
    if "text" in echo:
        response["text"] = echo["text"]
    if status == "incomplete":
        response["incomplete_details"] = _INCOMPLETE
    return response


def _sent_tools(echo: Mapping[str, Any], request: Request) -> list[Any]:
    """The tool definitions as sent, one for each tool read (each entry is one tool)."""
    sent = echo.get("tools")
    return sent if isinstance(sent, list) and len(sent) == len(request.tools) else [None] * len(request.tools)


# The Responses API's words for an answer cut at the token limit.
_INCOMPLETE = {"reason": "max_output_tokens"}


def _status(completion: Completion) -> str:
    # Tool calls are whole even when the host also says it hit the limit: the caller can run them.
    if completion.stop_reason == "maxTokens" and not completion.tool_calls:
        return "incomplete"
    return "completed"


def _choice(choice: ToolChoice | None) -> str | dict[str, Any]:
    if choice is None:
        return "auto"
    if choice.name is not None:
        return {"type": "function", "name": choice.name}
    return choice.mode


def _tool_echo(tool: ToolSpec, given: Any) -> dict[str, Any]:
    """A Responses function tool as the caller sent it (`strict` included); one sent in the seed
    shape {name, description, input_schema} as the function tool it stands for."""
    if isinstance(given, dict) and given.get("type") == "function":
        return given
    echoed: dict[str, Any] = {"type": "function", "name": tool.name, "parameters": tool.input_schema}
    echoed["strict"] = False  # the seed shape has no strict mode
    if tool.description is not None:
        echoed["description"] = tool.description
    return echoed


def _describe(completion: Completion) -> dict[str, Any]:
    """The result metadata: the Response's own `status` (and `incomplete_details`) beside the model."""
    meta: dict[str, Any] = {"model": completion.model, "status": _status(completion)}
    if meta["status"] == "incomplete":
        meta["incomplete_details"] = dict(_INCOMPLETE)
    return meta


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


# The caller's side, for the fuzzer, the property tests and the soak (`Writing`, writing.py).
# How an OpenAI Responses caller writes a conversation as `input` items, and reads a Response
# (`responses_create`'s `Writing`).
#
# A leading system message may become `instructions`; a lone user message may be a string input;
# an assistant turn that called tools is its message item (when it has text) and `function_call`
# items, its results `function_call_output` items. The `function_call` items join an assistant
# message item right before them (docs/cursors.md), so a turn without text after an assistant
# message gets an empty message item of its own.


def write_request(units: Sequence[Unit], vary: random.Random | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {}
    system, rest = leading_system(units)
    if system is not None and (vary is None or vary.random() < 0.5):
        args["instructions"] = system
    else:
        rest = list(units)
    lone = len(rest) == 1 and isinstance(rest[0], Said) and rest[0].role == "user"
    if lone and vary is not None and vary.random() < 0.5:
        return {**args, "input": rest[0].text}  # a string input: one user entry
    items: list[dict[str, Any]] = []
    for index, unit in enumerate(rest):
        if isinstance(unit, Said):
            part_type = vary.choice(("input_text", "text")) if vary is not None else "input_text"
            item: dict[str, Any] = {"role": unit.role, "content": text_parts(unit.text, vary, part_type)}
            if vary is not None and vary.random() < 0.5:
                item["type"] = "message"
            items.append(item)
            continue
        before = rest[index - 1] if index else None
        if unit.text or (isinstance(before, Said) and before.role == "assistant"):
            items.append({"type": "message", "role": "assistant", "content": unit.text})
        for call in unit.calls:
            item = {
                "type": "function_call",
                "call_id": call.id,
                "name": call.name,
                "arguments": arguments_text(call.input, vary),
            }
            if vary is not None and vary.random() < 0.5:
                item["id"] = f"fc_{index}"
            items.append(item)
        items += [
            {"type": "function_call_output", "call_id": ident, "output": text} for ident, text in unit.results
        ]
    return {**args, "input": items}


def read_result(text: str, structured: Any) -> Reading:
    """The output's text (or the tool-call envelope when it holds function calls) and its `id`."""
    body = read_object(text)
    try:
        output = body["output"]
        said = [p["text"] for i in output if i["type"] == "message" for p in i["content"]]
        made = [
            (i["call_id"], i["name"], json.loads(i["arguments"]))
            for i in output
            if i["type"] == "function_call"
        ]
        cursor = str(body["id"])
    except (KeyError, TypeError, ValueError) as err:
        raise Unreadable(f"not a Responses object with output items: {err!r}") from err
    return Reading(completion("\n".join(said), made), cursor)


WRITING = Writing(write_request, read_result, roles=("system", "developer", "user", "assistant"))


DIALECT = Dialect(
    NAME=NAME,
    DESCRIPTION=DESCRIPTION,
    INPUT_SCHEMA=INPUT_SCHEMA,
    body=Body(
        conversation="input",
        turn_noun="item",
        plain=_PLAIN,
        request_object=_REQUEST_OBJECT,
        text_arguments=("input", "instructions"),
        max_tokens_alias="max_output_tokens",
        native_output=_text_format,
        parallel_calls="parallel_tool_calls",
        hints=_HINTS,
        refused=_REFUSED,
        echo=("instructions", "text", "tools", "max_output_tokens", "max_tokens"),
    ),
    read_conversation=_read_conversation,
    render=_render,
    render_object=_render,
    EXAMPLE={"instructions": "Be brief.", "input": "Name one prime number."},
    describe=_describe,
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
