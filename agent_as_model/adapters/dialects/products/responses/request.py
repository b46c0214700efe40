"""The input of a Responses request -> neutral turns: a string, or items: messages `{role,
content}` (`type: "message"` or no type), `function_call` items (joining the assistant turn
before them) and `function_call_output` items (one user turn of tool results), spec section 1.2;
`instructions` leads the system prompt. `read_text_format` reads `text.format`, the product's
own way to ask for JSON. A `reasoning` item (another model's reasoning) is left out of the
turns, with a warning; the other item types of the SDK that cannot be passed back are refused
with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common, media, options
from agent_as_model.adapters.dialects.turns import LEFT_OUT, Turns, arguments_object, call_id
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Media, OutputContract, Text, ToolResult, ToolUse

ROLES = ("user", "assistant", "system", "developer")
# The real API names the text key `text`; the reference server used `input_text`. Both are accepted.
TEXT_TYPES = ("input_text", "output_text", "text")
_TEXT_KEYS = ("text", "input_text")
_IMAGES = ("input_image",)  # where a user message or a function's output carries images
# The keys of the SDK's own item types (output items dumped and passed back as input): `phase`,
# `async` (`async_` in a pydantic dump), `caller` and `namespace` are accepted when null, or with
# a value that changes nothing (`_check_item_extras`).
ITEM_KEYS = {
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


def read_conversation(args: Mapping[str, Any], turns: Turns) -> None:
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


def read_text_format(args: Mapping[str, Any]) -> OutputContract | None:
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
        if kind == "reasoning":
            _reasoning_item(item, path, turns)
            continue
        reason = _sdk_item(kind)
        if reason is not None:  # OpenAI's API takes the item; the host cannot
            turns.cannot(path, reason)
            continue
        if not isinstance(kind, str) or kind not in ITEM_KEYS:
            expected = ", ".join(repr(k) for k in ITEM_KEYS)
            raise caller_error(f"{path}.type", f"unsupported item type {ascii(kind)} (expected {expected})")
        common.reject_unknown(item, ITEM_KEYS[kind], path)
        _check_item_extras(item, path, turns)
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
    """A function's output: text, or a list of parts; `input_image` parts keep their place among the texts."""
    if type(output) is not list or not any(_is_image(part) for part in output):
        text = common.text_of_content(output, path, TEXT_TYPES, _TEXT_KEYS, "\n", _IMAGES, turns.cannot)
        return ToolResult(ident, text)
    parts = tuple(_image_or_text(part, f"{path}[{j}]", turns) for j, part in enumerate(output))
    return ToolResult(ident, "\n".join(p.text for p in parts if isinstance(p, Text)), parts=parts)


# A reasoning item as the SDK writes it (an output item passed back, or a ResponseReasoningItemParam).
_REASONING_KEYS = ("type", "id", "summary", "content", "encrypted_content", "status")


def _reasoning_item(item: Mapping[str, Any], path: str, turns: Turns) -> None:
    """A reasoning item: another model's reasoning, left out of what the host sees (with a
    warning); a call after it still joins the assistant turn before it."""
    common.reject_unknown(item, _REASONING_KEYS, path)
    for key in ("summary", "content"):
        if item.get(key) is not None:
            common.require_list(item[key], f"{path}.{key}")
    turns.left_out(path, "reasoning items")


def _sdk_item(kind: object) -> str | None:
    """Why an item type of the SDK that is not a message or a function call cannot be passed back
    to the host (docs/decisions.md), or None for any other."""
    if kind == "item_reference":
        return (
            "an item reference points at an item stored on OpenAI's servers, and this server keeps "
            "none: pass the item itself"
        )
    if kind == "compaction":
        return (
            "a compaction item is the API's encrypted summary of earlier turns and cannot be read "
            "here: pass the turns themselves"
        )
    if kind == "compaction_trigger":
        return (
            "a compaction_trigger item asks OpenAI's service to compact the context; nothing compacts "
            "it here and the whole input is always sent: remove the item"
        )
    if kind == "additional_tools":
        return (
            "an additional_tools item offers tools added in the middle of the conversation; MCP sampling "
            "offers one tool list for the whole request: pass these tools in 'tools'"
        )
    if kind == "configuration_update":
        return (
            "a configuration_update item changes the settings of later responses on OpenAI's side; here "
            "each call carries its own: give reasoning and text as this call's parameters"
        )
    if isinstance(kind, str) and kind in _TOOL_ITEMS:
        return (
            f"a {kind} item belongs to a built-in or custom tool: only function tools reach the host's "
            "model, so only function_call and function_call_output items can be passed back"
        )
    return None


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


def _refusals_left_out(content: object, path: str, turns: Turns) -> object:
    """The content with its refusal parts (of an output message) left out, each a refusal for the
    host alone: its text would otherwise be dropped (chat decides the same for a message's
    `refusal`), and OpenAI's API takes it."""
    if not isinstance(content, list) or not any(
        isinstance(part, dict) and part.get("type") == "refusal" for part in content
    ):
        return content
    read: list[object] = []
    for j, part in enumerate(content):
        if isinstance(part, dict) and part.get("type") == "refusal":
            turns.cannot(
                common.path_of(path, j),
                "a refusal part cannot be passed back as such: put its text in an output_text part",
            )
            part = _NO_TEXT  # left out, the paths of the parts after it kept
        read.append(part)
    return read


_NO_TEXT = {"type": "output_text", "text": ""}


def _check_item_extras(item: Mapping[str, Any], path: str, turns: Turns) -> None:
    """The SDK's extra item fields: informational ones are ignored, ones whose value would change
    what the call means are refused when set."""
    if item.get("namespace") is not None:
        turns.cannot(
            f"{path}.namespace",
            "namespaced tools cannot be passed back: only plain function tools reach the host",
        )
    caller = item.get("caller")
    if caller is not None and common.require_object(caller, f"{path}.caller").get("type") != "direct":
        turns.cannot(
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
    if role not in ROLES:
        raise caller_error(f"{path}.role", f"expected one of {', '.join(ROLES)}, got {role!r}")
    if "content" not in item:
        raise caller_error(f"{path}.content", "is required")
    content = _refusals_left_out(item["content"], f"{path}.content", turns)
    if role == "user" and type(content) is list and any(_is_image(part) for part in content):
        _read_images(content, f"{path}.content", turns, path)
        return
    media_parts = _IMAGES if role == "user" else ()
    text = common.text_of_content(
        content, f"{path}.content", TEXT_TYPES, _TEXT_KEYS, "\n", media_parts, turns.cannot
    )
    if role in ("system", "developer"):
        turns.fold(role, text)
    else:
        turns.text(role, text, path)


def _is_image(part: object) -> bool:
    return type(part) is dict and part.get("type") == "input_image"


def _read_images(parts: list[Any], path: str, turns: Turns, turn_path: str) -> None:
    """A user message with `input_image` parts (a data: URL; `detail` accepted and ignored), each
    in its place; a file id or an http(s) URL is remote media, refused."""
    turns.start("user", turn_path)
    for j, part in enumerate(parts):
        read = _image_or_text(part, f"{path}[{j}]", turns)
        if type(read) is Media:
            turns.media(read, read.path)
        else:
            turns.add(read)


def _image_or_text(part: Any, where: str, turns: Turns) -> Text | Media:
    if not _is_image(part):
        return Text(common.text_of_part(part, where, TEXT_TYPES, _TEXT_KEYS, _IMAGES, turns.cannot))
    common.reject_unknown(part, ("type", "image_url", "file_id", "detail"), where)
    if part.get("file_id") is not None:  # OpenAI's API reads its files; the host takes bytes only
        turns.cannot(f"{where}.file_id", f"a file id: {media.REMOTE}")
        return LEFT_OUT
    url = f"{where}.image_url"
    return media.data_url(part.get("image_url"), url, media.IMAGE_TYPES, turns.remote)
