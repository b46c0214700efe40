"""Hypothesis strategies for the completion tools whose wire this module writes (`TOOLS`).

`valid_cases(tool)` draws a random request that each dialect's INPUT_SCHEMA accepts, together
with the sampling params the host must receive for it. That expectation is written here from
spec section 1.1, not read from the server's code, so it is an oracle and not a mirror.

`invalid_cases(tool)` takes a valid request and breaks exactly one thing in it (a wrong type, an
unknown key, a non-text part, ...), and says which JSON path the error must name first.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.common import path_of

DEFAULT_MODEL = "agent-default"
DEFAULT_MAX_TOKENS = 4096
TURN_ROLES = ("user", "assistant")
SYSTEM_ROLES = ("system", "developer")
NON_TEXT_KINDS = (
    "image",
    "image_url",
    "input_image",
    "input_audio",
    "audio",
    "file",
    "input_file",
    "document",
)

# Characters that tend to break JSON and text handling: multi-byte, astral, joiners,
# bidi controls, NUL, quotes and escapes. Lone surrogates are left out: they are not Unicode text.
_TRICKY = ("é", "ß", "中", "𝄞", "😀", "\u200d", "\u202e", "\x00", "\n", "\t", '"', "\\", " ")
texts = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(_TRICKY), max_size=24)

# Values any JSON document can hold (no NaN or infinities: JSON cannot carry them).
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@dataclass(frozen=True)
class Shape:
    """How one dialect lays out its conversation; written from spec section 1.1."""

    field: str  # the list of entries: `messages` or `input`
    entry_keys: tuple[str, ...]  # the keys an entry may carry
    roles: tuple[str, ...]
    part_types: tuple[str, ...]
    text_keys: tuple[str, ...]
    # Part types the product now reads as media (tests/test_media.py covers them): a
    # broken one is refused for what is wrong inside it, not as a kind the product does not take.
    media_types: tuple[str, ...] = ()


SHAPES: dict[str, Shape] = {
    "chat_complete": Shape(
        "messages",
        ("role", "content", "name"),
        (*SYSTEM_ROLES, *TURN_ROLES),
        ("text",),
        ("text",),
        ("image_url", "input_audio"),
    ),
    "messages_create": Shape("messages", ("role", "content"), TURN_ROLES, ("text",), ("text",), ("image",)),
    "responses_create": Shape(
        "input",
        ("role", "content", "type", "id", "status"),
        (*TURN_ROLES, *SYSTEM_ROLES),
        ("input_text", "output_text", "text"),
        ("text", "input_text"),
        ("input_image",),
    ),
}


@dataclass(frozen=True)
class Case:
    """A valid request and the sampling params (wire form) the host must see for it."""

    tool: str
    arguments: dict[str, Any]
    wire: dict[str, Any]


@dataclass(frozen=True)
class Invalid:
    """A request with exactly one thing wrong, and what the error must say about it."""

    tool: str
    arguments: dict[str, Any]
    path: str  # the error names this path (or a path inside it) first
    mention: str  # and contains this phrase ("" for no check)
    valid: Case  # the request before it was broken


def _property(tool: str, name: str) -> dict[str, Any]:
    schema: dict[str, Any] = DIALECTS[tool].INPUT_SCHEMA["properties"][name]
    return schema


# --------------------------------------------------------------------------------------------
# valid requests


@st.composite
def content(draw: st.DrawFn, shape: Shape) -> tuple[Any, str]:
    """A string, or a list of text parts; with the text the host must get (parts joined by \\n)."""
    if draw(st.booleans()):
        text = draw(texts)
        return text, text
    parts: list[dict[str, str]] = []
    for piece in draw(st.lists(texts, max_size=3)):
        parts.append(
            {"type": draw(st.sampled_from(shape.part_types)), draw(st.sampled_from(shape.text_keys)): piece}
        )
    return parts, "\n".join(next(part[k] for k in shape.text_keys if k in part) for part in parts)


def _turn(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": {"type": "text", "text": text}}


@st.composite
def options(draw: st.DrawFn, tool: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """model, temperature and max_tokens, each present or not, within the documented ranges."""
    args: dict[str, Any] = {}
    wire: dict[str, Any] = {
        "modelPreferences": {"hints": [{"name": DEFAULT_MODEL}]},
        "maxTokens": DEFAULT_MAX_TOKENS,
    }
    if draw(st.booleans()):
        model = draw(texts.filter(bool))
        args["model"] = model
        wire["modelPreferences"] = {"hints": [{"name": model}]}
    if draw(st.booleans()):
        schema = _property(tool, "temperature")
        low, high = schema["minimum"], schema["maximum"]
        value = draw(st.floats(low, high) | st.integers(math.ceil(low), math.floor(high)))
        args["temperature"] = value
        wire["temperature"] = float(value)
    if draw(st.booleans()):
        schema = _property(tool, "max_tokens")
        count = draw(st.integers(schema["minimum"], schema.get("maximum", 2**53)))
        # JSON Schema counts 512.0 as an integer, and so does the server.
        args["max_tokens"] = draw(st.sampled_from((count, float(count))))
        wire["maxTokens"] = count
    return args, wire


def _has_turn(entries: list[tuple[str, tuple[Any, str], Any]]) -> bool:
    return any(role in TURN_ROLES for role, _, _ in entries)


@st.composite
def chat_cases(draw: st.DrawFn) -> Case:
    shape = SHAPES["chat_complete"]
    entries = draw(
        st.lists(
            st.tuples(st.sampled_from(shape.roles), content(shape), st.none() | texts), min_size=1, max_size=5
        ).filter(_has_turn)
    )
    args, wire = draw(options("chat_complete"))
    messages: list[dict[str, Any]] = []
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for role, (value, text), name in entries:
        message: dict[str, Any] = {"role": role, "content": value}
        if name is not None:
            message["name"] = name  # accepted and ignored
        messages.append(message)
        if role in SYSTEM_ROLES:
            system.append(text)
        else:
            turns.append(_turn(role, text))
    wire["messages"] = turns
    if "\n\n".join(system):
        wire["systemPrompt"] = "\n\n".join(system)
    return Case("chat_complete", {"messages": messages, **args}, wire)


@st.composite
def messages_cases(draw: st.DrawFn) -> Case:
    shape = SHAPES["messages_create"]
    entries = draw(st.lists(st.tuples(st.sampled_from(shape.roles), content(shape)), min_size=1, max_size=5))
    args, wire = draw(options("messages_create"))
    arguments: dict[str, Any] = {
        "messages": [{"role": role, "content": value} for role, (value, _) in entries]
    }
    wire["messages"] = [_turn(role, text) for role, (_, text) in entries]
    if draw(st.booleans()):
        value, text = draw(content(shape))
        arguments["system"] = value
        if text:
            wire["systemPrompt"] = text
    return Case("messages_create", {**arguments, **args}, wire)


@st.composite
def responses_cases(draw: st.DrawFn) -> Case:
    shape = SHAPES["responses_create"]
    args, wire = draw(options("responses_create"))
    arguments: dict[str, Any] = {}
    system: list[str] = []
    if draw(st.booleans()):
        instructions = draw(texts)
        arguments["instructions"] = instructions
        system.append(instructions)
    if draw(st.booleans()):
        prompt = draw(texts)
        arguments["input"] = prompt
        wire["messages"] = [_turn("user", prompt)]
    else:
        entries = draw(
            st.lists(
                st.tuples(st.sampled_from(shape.roles), content(shape), st.booleans(), st.none() | texts),
                min_size=1,
                max_size=5,
            ).filter(lambda items: any(role in TURN_ROLES for role, *_ in items))
        )
        items: list[dict[str, Any]] = []
        turns: list[dict[str, Any]] = []
        for role, (value, text), typed, ident in entries:
            item: dict[str, Any] = {"role": role, "content": value}
            if typed:
                item["type"] = "message"
            if ident is not None:
                item["id"] = ident
            items.append(item)
            if role in SYSTEM_ROLES:
                system.append(text)
            else:
                turns.append(_turn(role, text))
        arguments["input"] = items
        wire["messages"] = turns
    if "\n\n".join(system):
        wire["systemPrompt"] = "\n\n".join(system)
    return Case("responses_create", {**arguments, **args}, wire)


@st.composite
def generate_cases(draw: st.DrawFn) -> Case:
    prompt = draw(texts)
    args, wire = draw(options("generate"))
    wire["messages"] = [_turn("user", prompt)]
    return Case("generate", {"prompt": prompt, **args}, wire)


_VALID: dict[str, Callable[[], st.SearchStrategy[Case]]] = {
    "chat_complete": chat_cases,
    "messages_create": messages_cases,
    "responses_create": responses_cases,
    "generate": generate_cases,
}


# The products whose requests and sampling params this module writes from spec section 1.1 (a
# product's own oracle: gemini_generate_content's is property_tests/test_gemini_arguments.py).
# Every registered dialect, these included, is driven by property_tests/test_registry_cursors.py.
TOOLS = tuple(_VALID)


def valid_cases(tool: str) -> st.SearchStrategy[Case]:
    return _VALID[tool]()


# --------------------------------------------------------------------------------------------
# invalid requests: each mutation breaks one thing in place and returns (path, mention)

Mutation = Callable[[st.DrawFn, str, dict[str, Any]], tuple[str, str]]


def _not(*types: type) -> st.SearchStrategy[Any]:
    return json_values.filter(lambda v: not isinstance(v, types))


def _valid_max_tokens(schema: dict[str, Any], value: object) -> bool:
    if value is None:
        return True  # read as the default
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, float) and not value.is_integer():
        return False
    return bool(schema["minimum"] <= value <= schema.get("maximum", math.inf))


def unknown_parameter(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    known = DIALECTS[tool].INPUT_SCHEMA["properties"]
    key = draw(st.text(max_size=12).filter(lambda k: k not in known))
    args[key] = draw(json_values)
    return path_of("", key), f"unknown parameter {ascii(key)}"


def bad_model(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    args["model"] = draw(st.just("") | _not(str, type(None)))  # null means the default
    return "model", ""


def bad_temperature(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    high = _property(tool, "temperature")["maximum"]
    finite = st.floats(allow_nan=False, allow_infinity=False)
    wrong_type = json_values.filter(
        lambda v: v is not None and (isinstance(v, bool) or not isinstance(v, int | float))
    )
    out_of_range = (
        finite.filter(lambda v: v < 0 or v > high)
        | st.integers(max_value=-1)
        | st.integers(min_value=math.floor(high) + 1)
    )
    args["temperature"] = draw(wrong_type | out_of_range)
    return "temperature", ""


def bad_max_tokens(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    schema = _property(tool, "max_tokens")
    out_of_range = st.integers(max_value=schema["minimum"] - 1)
    if "maximum" in schema:
        out_of_range |= st.integers(min_value=schema["maximum"] + 1)
    candidates = json_values | st.floats(allow_nan=False, allow_infinity=False) | out_of_range
    args["max_tokens"] = draw(candidates.filter(lambda v: not _valid_max_tokens(schema, v)))
    return "max_tokens", ""


def bad_entries(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    """The whole conversation list: missing, empty, or of the wrong type."""
    field = SHAPES[tool].field
    how = draw(st.sampled_from(("missing", "empty", "wrong type")))
    if how == "missing":
        del args[field]
    elif how == "empty":
        args[field] = []
    else:
        # responses_create also takes a string input
        args[field] = draw(_not(list, str) if tool == "responses_create" else _not(list))
    return field, ""


def only_system(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    """A conversation with system/developer entries only: nothing for the model to answer."""
    field = SHAPES[tool].field
    roles = st.sampled_from(SYSTEM_ROLES)
    args[field] = [
        {"role": draw(roles), "content": text} for text in draw(st.lists(texts, min_size=1, max_size=3))
    ]
    return field, ""


def _entries(tool: str, args: dict[str, Any]) -> list[Any]:
    field = SHAPES[tool].field
    if isinstance(args[field], str):  # a string input is one user item
        args[field] = [{"role": "user", "content": args[field]}]
    entries: list[Any] = args[field]
    return entries


def _pick_entry(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any], str]:
    entries = _entries(tool, args)
    index = draw(st.integers(0, len(entries) - 1))
    return entries[index], f"{SHAPES[tool].field}[{index}]"


def entry_not_object(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    entries = _entries(tool, args)
    index = draw(st.integers(0, len(entries)))
    entries.insert(index, draw(_not(dict)))
    return f"{SHAPES[tool].field}[{index}]", "expected an object"


def entry_unknown_key(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    entry, path = _pick_entry(draw, tool, args)
    key = draw(st.text(max_size=12).filter(lambda k: k not in SHAPES[tool].entry_keys))
    entry[key] = draw(json_values)
    return path_of(path, key), f"unknown parameter {ascii(key)}"


def bad_role(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    entry, path = _pick_entry(draw, tool, args)
    roles = SHAPES[tool].roles
    if draw(st.booleans()):
        del entry["role"]
    else:
        # `system` is a real role elsewhere but not in Messages; `tool` is a chat role only, and
        # a chat `tool` entry is read by its own rules (tool_call_id first), so it is not drawn there.
        entry["role"] = draw(st.sampled_from(("tool", "system", "function")) | json_values | texts)
        if entry["role"] in roles or (tool == "chat_complete" and entry["role"] == "tool"):
            entry["role"] = "narrator"
    return f"{path}.role", ""


def bad_content(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    entry, path = _pick_entry(draw, tool, args)
    if draw(st.booleans()):
        del entry["content"]
    else:
        entry["content"] = draw(_not(str, list))
    return f"{path}.content", ""


def _bad_part(draw: st.DrawFn, shape: Shape, path: str) -> tuple[Any, str, str]:
    """One broken content part at `path`: (the part, the path the error names, a phrase it holds)."""
    how = draw(
        st.sampled_from(("not an object", "type not a string", "non-text", "no text", "text not a string"))
    )
    text_type = draw(st.sampled_from(shape.part_types))
    key = draw(st.sampled_from(shape.text_keys))
    if how == "not an object":
        return draw(_not(dict)), path, "expected an object"
    if how == "type not a string":
        part = {key: draw(texts)}
        if draw(st.booleans()):
            part["type"] = draw(_not(str))
        return part, f"{path}.type", ""
    if how == "non-text":
        taken = (*shape.part_types, *shape.media_types)
        kind = draw(
            st.sampled_from([k for k in NON_TEXT_KINDS if k not in taken])
            | st.text(max_size=12).filter(lambda k: k not in taken)
        )
        return {"type": kind, "url": "https://example.invalid/cat.png"}, path, ascii(kind)
    if how == "no text":
        return {"type": text_type}, path, ""
    return {"type": text_type, key: draw(_not(str))}, f"{path}.{key}", "expected a string"


def _as_parts(value: Any, shape: Shape) -> list[Any]:
    if isinstance(value, str):
        return [{"type": shape.part_types[0], shape.text_keys[0]: value}]
    parts: list[Any] = value
    return parts


def bad_part(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    shape = SHAPES[tool]
    entry, path = _pick_entry(draw, tool, args)
    parts = entry["content"] = _as_parts(entry["content"], shape)
    index = draw(st.integers(0, len(parts)))
    part, where, mention = _bad_part(draw, shape, f"{path}.content[{index}]")
    parts.insert(index, part)
    return where, mention


def bad_system(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    """messages_create's `system`: of the wrong type, or holding a broken block."""
    shape = SHAPES[tool]
    if draw(st.booleans()):
        args["system"] = draw(_not(str, list).filter(lambda v: v is not None))
        return "system", ""
    parts = args["system"] = _as_parts(args.get("system", ""), shape)
    index = draw(st.integers(0, len(parts)))
    part, where, mention = _bad_part(draw, shape, f"system[{index}]")
    parts.insert(index, part)
    return where, mention


def system_role_message(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    """Anthropic takes the system prompt as a parameter, never as a message."""
    entry, path = _pick_entry(draw, tool, args)
    entry["role"] = "system"
    return f"{path}.role", "'system'"


def bad_instructions(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    args["instructions"] = draw(_not(str).filter(lambda v: v is not None))
    return "instructions", ""


def bad_item_type(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    entry, path = _pick_entry(draw, tool, args)
    # Item types this server does not take (function_call and function_call_output it does).
    entry["type"] = draw(st.sampled_from(("reasoning", "input_image", "web_search_call")) | json_values)
    if entry["type"] in ("message", "function_call", "function_call_output"):
        entry["type"] = "item_reference"
    # An item type of the SDK's own Response is refused as an item, with why; any other type is
    # named at its `type`.
    known = ("reasoning", "web_search_call", "item_reference")
    return (path if entry["type"] in known else f"{path}.type"), ""


def bad_prompt(draw: st.DrawFn, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    if draw(st.booleans()):
        del args["prompt"]
    else:
        args["prompt"] = draw(_not(str))
    return "prompt", ""


_COMMON: tuple[Mutation, ...] = (unknown_parameter, bad_model, bad_temperature, bad_max_tokens)
_CONVERSATION: tuple[Mutation, ...] = (
    bad_entries,
    entry_not_object,
    entry_unknown_key,
    bad_role,
    bad_content,
    bad_part,
)
MUTATIONS: dict[str, tuple[Mutation, ...]] = {
    "chat_complete": (*_COMMON, *_CONVERSATION, only_system),
    "messages_create": (*_COMMON, *_CONVERSATION, bad_system, system_role_message),
    "responses_create": (*_COMMON, *_CONVERSATION, only_system, bad_instructions, bad_item_type),
    "generate": (*_COMMON, bad_prompt),
}


@st.composite
def invalid_cases(draw: st.DrawFn, tool: str) -> Invalid:
    valid = draw(valid_cases(tool))
    arguments = copy.deepcopy(valid.arguments)
    mutation = draw(st.sampled_from(MUTATIONS[tool]))
    path, mention = mutation(draw, tool, arguments)
    return Invalid(tool, arguments, path, mention, valid)
