"""Tool definitions and `tool_choice` into neutral form, through a dialect's `ToolShape`.

Every dialect takes the reference server's shape, `{name, description?, input_schema}` (the seed
shape), and its product's own, so an existing request body works unchanged (spec section 1.2).
A dialect declares its product's shapes as a `ToolShape` (its readers, its writer for
`export-tools`, its listed fragments) built from the pieces here: the seed reader, the function
reader that the OpenAI-style shapes share, and the checks of names, descriptions and `strict`.
Nothing here names a product.

OpenAI lets `parameters` be omitted: that is a tool without arguments, `{"type": "object",
"properties": {}}`. `strict` is accepted and ignored: MCP sampling has no strict mode, so the
host's model is held to the schema only as far as it honours it. Tools that run on a product's
own servers (web search, file search, code execution, computer use ...) cannot be forwarded to a
host's model, and the dialects refuse them by name (`server_tool`). Such a refusal holds for the host
alone: the product's own API runs the tool, so a reading that keeps them (a dialect of a product
a provider may speak) records each one, in body order, and leaves the tool out; a definition that
is malformed stays an error whoever answers.

Checks (before anything travels): `tools` is an array of objects; keys are known; a name is a
non-empty string, unique within the request; a description is a string or null; every schema is a
valid draft 2020-12 object schema (`schemas.check_object_schema`). Errors name the JSON path of
what the caller wrote, e.g. `tools[2].function.parameters.type`.

A product sends the same `tools` on every turn, so the definitions read once are kept (`_READ`),
keyed by the product's shape, the path and the array as written: its pickle in fast mode (`_written`),
which says every type, key order and string exactly, as its JSON text would (two arrays share an
entry only when they are the same, so what goes to the host is byte for byte what this call's own
reading would give), and which C code writes faster than `json.dumps`. The key itself, not a
digest of it: a dict hashes it once and compares it on a hit, where a digest would hash every byte
again, and no two arrays can share an entry. Nothing is read back from a key. Only a reading that
passed is kept, with the server tools' refusals it recorded (as path and reason: an exception kept
and raised again would collect the frames of every call that raised it); a new or changed array
is read and checked in full. The kept definitions are read
from a copy made through its JSON text, so they hold nothing a caller could change afterwards. One
pickle of the array replaces the reading, each schema's own dump and digest, and the checks, and a
call whose only schemas are such tools is validated on the event loop (`known_tools`,
`states/validate.py`): the thread hop would cost more than the work. What the kept readings save a
call: benchmarks/README.md, "What each cache, ContextVar and late import buys".
"""

from __future__ import annotations

import io
import json
import pickle
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from agent_as_model.arguments import path_of, require_list, require_object, require_string, type_name
from agent_as_model.caches import BoundedCache
from agent_as_model.errors import CallError, caller_error
from agent_as_model.neutral import ToolChoice, ToolSpec
from agent_as_model.records import Record
from agent_as_model.schemas import check_object_schema, per_request

if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    from agent_as_model.neutral import ChoiceMode

    # One tool definition in a product's shape: (the tool, the JSON path of its name, for duplicates).
    ToolReader = Callable[[Mapping[str, Any], str], tuple[ToolSpec, str]]
    # A tool_choice object of a product (the strings auto/required/none are shared by all):
    # (the object, its path, its `type`) -> (the choice, the JSON path of the tool name it names).
    ChoiceReader = Callable[[Mapping[str, Any], str, str], tuple[ToolChoice, str]]
    # An MCP tool in the product's shape: (host-safe name, description or None, input schema).
    ToolWriter = Callable[[str, "str | None", dict[str, Any]], dict[str, Any]]
    # A product whose entries of `tools` each hold several definitions (or none): one entry (an
    # object, its path) -> its definitions, each with its own path.
    EntryReader = Callable[[Mapping[str, Any], str], "list[tuple[Mapping[str, Any], str]]"]
    # How the written definitions go into the product's `tools` (for a product that groups them).
    ToolGrouper = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
    # A reading of `tools`: the definitions, and the server tools' refusals as (path, reason).
    Read = tuple[tuple[ToolSpec, ...], tuple[tuple[str, str], ...]]


class ToolShape(Record):
    """A product's own tool-definition and tool-choice shapes, declared by its dialect."""

    format: str  # the name `export-tools --format` takes
    read_tool: ToolReader
    read_choice: ChoiceReader
    write_tool: ToolWriter
    forms: str  # how a tool is written, quoted in errors
    choice_forms: str  # how a tool_choice is written, quoted in errors
    tools_schema: dict[str, Any]  # the listed fragments (listing.py)
    choice_schema: dict[str, Any]
    entries: EntryReader | None = None  # None: each entry of `tools` is one definition
    group: ToolGrouper | None = None  # None: `export-tools` lists the definitions as they are


SEED_KEYS = ("name", "description", "input_schema")
FUNCTION_KEYS = ("name", "description", "parameters", "strict")
_MODES: tuple[ChoiceMode, ...] = ("auto", "required", "none")


# Arrays of definitions a busy process repeats, bounded by the total of their keys' lengths (each
# stated twice: the key, and the parsed definitions, which take a few times their text) and in number.
READ_CACHE_SIZE = 1024
READ_CACHE_BYTES = 16 * 1024 * 1024
_READ = BoundedCache(READ_CACHE_BYTES, READ_CACHE_SIZE)


def _written(value: object) -> bytes | None:
    """The key of `value` as written: its pickle (protocol 5, in fast mode, so with no memo: every
    value is written out where it stands, whatever objects it shares), made once per request (the
    off-loop predicate and the reading ask alike); None when it has none (nested too deeply): then
    nothing is kept.

    Why a pickle and not the JSON text: both say the array exactly (every type, `1`, `1.0` and
    `true` apart; every key in the caller's order; every string), so two arrays with one key have
    one JSON text and one reading; a pickle is written by C code that copies each string's bytes
    as they are, where `json.dumps` escapes them one by one (benchmarks/README.md has the
    figures). Nothing is ever read back from a key: it is only compared."""
    kept = per_request()
    if kept is not None:
        found = kept.get(~id(value))  # ~: apart from the schemas' canonical forms, kept by id
        if found is not None and found[0] is value:
            return found[1]
    out = io.BytesIO()
    pickler = pickle.Pickler(out, 5)
    pickler.fast = True  # no memo: the same bytes for equal arrays, however their objects are shared
    try:
        pickler.dump(value)
    except (TypeError, ValueError, RecursionError, pickle.PicklingError):
        return None
    key = out.getvalue()
    if kept is not None:
        kept[~id(value)] = (value, key, "")
    return key


def known_tools(value: object, path: str, shape: ToolShape) -> tuple[ToolSpec, ...] | None:
    """The definitions read from this very array before (same shape, path and key), or None."""
    if type(value) is not list:
        return None
    written = _written(value)
    if written is None:
        return None
    found: Read | None = _READ.get((shape.format, path, written))
    return None if found is None else found[0]


class HostOnlyTool(CallError):
    """A definition of a tool the product's own API runs on its side (`server_tool`)."""


def server_tool(path: str, reason: str) -> HostOnlyTool:
    """The refusal of a tool the product's API runs itself: the host cannot, a provider of the
    product can. Raised by a dialect's reader; kept for the router when the reading keeps them."""
    return HostOnlyTool(path, reason, "caller")


def read_tools(
    value: object, path: str, shape: ToolShape, host_only: list[CallError] | None = None
) -> tuple[ToolSpec, ...]:
    """The tools of a request, in order; null, absent (None) or `[]` is no tools. With `host_only`,
    the refusal of each server tool is put there (in body order) and the tool left out; without,
    the first is raised."""
    if value is None:
        return ()
    found: Read | None = None
    if type(value) is list and value:
        written = _written(value)
        if written is not None:
            key = (shape.format, path, written)
            found = _READ.get(key)
            if found is None:
                try:  # read from a copy: what is kept holds nothing the caller could change
                    copied = json.loads(json.dumps(value))
                except (TypeError, ValueError, RecursionError):
                    copied = None
                if copied is not None:
                    found = _read_tools(copied, path, shape)
                    _READ.put(key, found, 2 * len(written))  # the key, and what was read from it
            if found is not None and found[0]:  # (an empty reading is `()`, which every call shares)
                _remember_read(found[0], written, f"{shape.format}\n{path}")
    if found is None:  # not JSON, or not kept: read as given
        found = _read_tools(value, path, shape)
    specs, refused = found
    if refused:
        if host_only is None:
            raise server_tool(*refused[0])
        host_only.extend(server_tool(*r) for r in refused)
    return specs


def _remember_read(specs: tuple[ToolSpec, ...], written: bytes, where: str) -> None:
    """Note, for the rest of this request, what `specs` were read from (`read_key`)."""
    kept = per_request()
    if kept is not None:
        kept[~id(specs)] = (specs, written, where)


def read_key(specs: tuple[ToolSpec, ...]) -> tuple[str, bytes] | None:
    """What these definitions were read from in this request: the product's shape and the path,
    and the array's key (`_written`); or None. What is derived from the definitions alone (the
    tools a payload forwards, `states/build.py`) may be kept by it, as the reading is."""
    kept = per_request()
    found = kept.get(~id(specs)) if kept is not None else None
    return (found[2], found[1]) if found is not None and found[0] is specs else None


def forget_read() -> None:
    """Empty the kept definitions (tests: the next call reads and checks its tools in full)."""
    _READ.clear()


def read_count() -> int:
    return len(_READ)


def written_size(specs: tuple[ToolSpec, ...]) -> int | None:
    """The length of the key of the array these definitions were read from in this request (about
    its JSON text's), or None: what a 2026-07-28 round one keeps for its retry is sized by it
    (`states/recall.py`), which need not write out the definitions' repr to size them."""
    key = read_key(specs)
    return len(key[1]) if key is not None else None


def _read_tools(value: object, path: str, shape: ToolShape) -> Read:
    specs: list[ToolSpec] = []
    refused: list[tuple[str, str]] = []  # the server tools' refusals: (path, reason)
    seen: dict[str, str] = {}  # name -> the path it was first given at
    for i, item in enumerate(require_list(value, path)):
        entry = (require_object(item, path_of(path, i)), path_of(path, i))
        try:
            definitions = [entry] if shape.entries is None else shape.entries(*entry)
        except HostOnlyTool as err:
            refused.append((err.path, err.reason))
            continue
        for obj, where in definitions:
            try:
                spec, name_path = shape.read_tool(obj, where)
            except HostOnlyTool as err:
                refused.append((err.path, err.reason))
                continue
            if spec.name in seen:
                raise caller_error(
                    name_path, f"duplicate tool name {ascii(spec.name)} (also at {seen[spec.name]})"
                )
            seen[spec.name] = name_path
            specs.append(spec)
    return tuple(specs), tuple(refused)


def read_tool_choice(
    value: object, path: str, shape: ToolShape, tools: tuple[ToolSpec, ...]
) -> ToolChoice | None:
    """How the model may use `tools`; null or absent (None) leaves it to the host (auto).

    `'auto'` and `'none'` with no tools mean what no tools means, and give None. `'required'` or a
    named tool without tools cannot be honoured: an error, as OpenAI gives. A named tool must be
    one of `tools`.
    """
    if value is None:
        return None
    if isinstance(value, str):
        choice, name_path = _mode(value, path, shape), path
    else:
        if not isinstance(value, dict):
            raise caller_error(path, f"expected {shape.choice_forms}, got {type_name(value)}")
        kind = value.get("type")
        if not isinstance(kind, str):
            raise caller_error(path_of(path, "type"), f"expected a string, got {type_name(kind)}")
        choice, name_path = shape.read_choice(value, path, kind)
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


def read_seed_tool(
    obj: Mapping[str, Any], path: str, keys: tuple[str, ...], forms: str
) -> tuple[ToolSpec, str]:
    """`{name, description?, input_schema}` (plus the extra `keys` a product allows there)."""
    reject_unknown_key(obj, keys, path, f"a tool is {forms}")
    check_strict(obj, path)
    name_path = path_of(path, "name")
    name = tool_name(obj.get("name"), name_path)
    description = tool_description(obj, path)
    schema_path = path_of(path, "input_schema")
    if obj.get("input_schema") is None:
        raise caller_error(schema_path, "is required (a JSON Schema with root type 'object')")
    spec = ToolSpec(name, description, check_object_schema(obj["input_schema"], schema_path))
    return spec, name_path


def read_function(obj: Mapping[str, Any], path: str) -> tuple[ToolSpec, str]:
    """The function fields `{name, description?, parameters?, strict?}` of the OpenAI-style shapes."""
    check_strict(obj, path)
    name_path = path_of(path, "name")
    name = tool_name(obj.get("name"), name_path)
    description = tool_description(obj, path)
    parameters = obj.get("parameters")
    if parameters is None:  # OpenAI: omitted parameters describe a function without arguments
        schema: dict[str, Any] = {"type": "object", "properties": {}}
    else:
        schema = check_object_schema(parameters, path_of(path, "parameters"))
    return ToolSpec(name, description, schema), name_path


def check_function_type(obj: Mapping[str, Any], path: str) -> None:
    """A function tool's `type`: only `function` reaches the host's model."""
    kind = obj.get("type")
    if kind == "function":
        return
    type_path = path_of(path, "type")
    if not isinstance(kind, str):
        raise caller_error(type_path, f"expected 'function', got {type_name(kind)}")
    raise server_tool(
        type_path,
        f"tool type {ascii(kind)} cannot be forwarded: only function tools reach the host's model "
        "(OpenAI's built-in tools run on OpenAI's servers; custom free-form tools have no MCP counterpart)",
    )


def check_function_choice_type(kind: str, path: str, forms: str) -> None:
    """A function tool choice's `type`: only `function` can be honoured."""
    type_path = path_of(path, "type")
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
            f"(expected {forms})",
        )


def reject_unknown_key(obj: Mapping[str, Any], known: tuple[str, ...], path: str, hint: str) -> None:
    for key in obj:
        if key not in known:
            raise caller_error(path_of(path, key), f"unknown key {ascii(key)} ({hint})")


def tool_name(value: object, path: str) -> str:
    if value is None:
        raise caller_error(path, "is required")
    name = require_string(value, path)
    if not name:
        raise caller_error(path, "must not be empty")
    return name


def tool_description(obj: Mapping[str, Any], path: str) -> str | None:
    value = obj.get("description")
    if value is None:
        return None
    return require_string(value, path_of(path, "description"))


def check_strict(obj: Mapping[str, Any], path: str) -> None:
    """`strict` must be what the product takes (a boolean), though MCP has nothing to pass it to."""
    value = obj.get("strict")
    if value is not None and not isinstance(value, bool):
        raise caller_error(path_of(path, "strict"), f"expected a boolean, got {type_name(value)}")


def _mode(value: str, path: str, shape: ToolShape) -> ToolChoice:
    for mode in _MODES:
        if value == mode:
            return ToolChoice(mode)
    raise caller_error(path, f"expected {shape.choice_forms}, got {ascii(value)}")


def _described(choice: ToolChoice) -> str:
    return f"a choice naming tool {ascii(choice.name)}" if choice.name is not None else repr(choice.mode)
