"""The parameters beyond the conversation: structured output, stop sequences, repair attempts,
the product APIs' hint parameters, and the ones that would change meaning (spec sections 1.2, 3).

A product's request body should work unchanged, so every native parameter is known here: a hint
is accepted (type-checked; MCP sampling has no field for it, so what becomes of it is its fate,
hints.py: sent to the host as a hint, or not applied, and named in the result's warnings either
way), and a parameter whose meaning cannot be honoured (`stream: true`, `n > 1`, logprobs, ...) is
an error that says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects.common import (
    path_of,
    reject_unknown,
    require_list,
    require_object,
    require_string,
    type_name,
)
from agent_as_model.adapters.tools.definitions import ToolShape, read_tool_choice, read_tools
from agent_as_model.arguments import with_article
from agent_as_model.errors import CallError, caller_error
from agent_as_model.neutral import OutputContract, ToolChoice, ToolSpec
from agent_as_model.records import Record
from agent_as_model.schemas import check_object_schema

MAX_REPAIR_ATTEMPTS = 5  # each is one more host round; the SDK client gives up after 10 rounds

_JSON_TYPES: dict[str, Callable[[object], bool]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}

# The hints of the product APIs, by the JSON type they take: accepted, and each has a fate
# (hints.py, docs/decisions.md). null is "not given". A dialect picks its own with `hints(...)`.
HINTS: dict[str, str] = {
    "user": "string",
    "metadata": "object",
    "store": "boolean",
    "seed": "integer",
    "top_p": "number",
    "top_k": "integer",
    "frequency_penalty": "number",
    "presence_penalty": "number",
    "logit_bias": "object",
    "parallel_tool_calls": "boolean",
    "service_tier": "string",
    "stream_options": "object",
    "reasoning_effort": "string",
    "reasoning": "object",
    "thinking": "object",
    "background": "boolean",
    "verbosity": "string",
    "prompt_cache_key": "string",
    "safety_identifier": "string",
    "prediction": "object",
    "truncation": "string",
    "max_tool_calls": "integer",
    "include": "array",
    # Prompt caching, routing and account settings of the products' services: this server caches
    # nothing and has no account, so each is accepted and ignored (docs/decisions.md).
    "prompt_cache_retention": "string",
    "prompt_cache_options": "object",
    "cache_control": "object",
    "access_programs": "object",
    "background_options": "object",
    "context_management": "array",
    "image": "object",
    "diagnostics": "object",
    "inference_geo": "string",
    "speed": "string",
    "user_profile_id": "string",
    "workspace_id": "string",
}


def _when_true(reason: str) -> Callable[[object], str | None]:
    return lambda v: reason if v is True else None


def _unless_one(v: object) -> str | None:
    return (
        None
        if v == 1 and not isinstance(v, bool)
        else "only one choice can be produced (the host answers once)"
    )


def _unless_zero(reason: str) -> Callable[[object], str | None]:
    return lambda v: None if v == 0 and not isinstance(v, bool) else reason


def _unless_text_only(v: object) -> str | None:
    if isinstance(v, list) and all(m == "text" for m in v):
        return None
    return "only the 'text' modality can be produced (the host is asked for text)"


if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    from agent_as_model.adapters.dialects.hints import Fate

    Refusal = Callable[[object], str | None]
# Parameters that change what the caller gets. A harmless value (stream: false, n: 1) is fine;
# anything else is refused, naming why. null is "not given". A dialect picks its own with
# `refusals(...)`, and may add its product's own beside them.
REFUSED: dict[str, Refusal] = {
    "stream": _when_true("streaming cannot be honoured: the host's completion arrives in one piece; omit it"),
    "n": _unless_one,
    "logprobs": _when_true("log probabilities cannot be produced: the host returns text only"),
    "top_logprobs": _unless_zero("log probabilities cannot be produced: the host returns text only"),
    "modalities": _unless_text_only,
    "audio": lambda v: "audio output cannot be produced (the host is asked for text)",
    "web_search_options": lambda v: (
        "web search cannot be honoured: the host's model is only asked to complete"
    ),
    "conversation": lambda v: (
        "server-side conversations cannot be honoured: pass the history in 'input' "
        "(and previous_response_id for a verified chain)"
    ),
    "prompt": lambda v: "stored prompt templates cannot be honoured: pass the text in 'input'",
    "mcp_servers": lambda v: (
        "remote MCP servers cannot be honoured: the host's model is only asked to complete"
    ),
    "container": lambda v: "containers cannot be honoured: the host's model is only asked to complete",
    "moderation": lambda v: (
        "moderation policies are applied by OpenAI's service, and the host's answer does not pass "
        "through it: omit moderation"
    ),
}


def hints(*names: str) -> dict[str, str]:
    """The shared hints of these names, for a dialect's declaration."""
    return {name: HINTS[name] for name in names}


def refusals(*names: str) -> dict[str, Refusal]:
    """The shared refusals of these names, for a dialect's declaration."""
    return {name: REFUSED[name] for name in names}


# The refusals that hold only for the host: a provider whose API speaks the call's product takes
# the parameter as written. `stream` and `n` are the server's own to serve, whoever answers.
HOST_ONLY_REFUSALS = frozenset(REFUSED) - {"stream", "n"}


class HostOnly:
    """A dialect's own refusal that, like those of HOST_ONLY_REFUSALS, holds for the host only:
    its product's API takes the parameter (something kept on the product's own servers, say)."""

    __slots__ = ("refusal",)

    def __init__(self, refusal: Refusal) -> None:
        self.refusal = refusal

    def __call__(self, value: object) -> str | None:
        return self.refusal(value)


def check_natives(
    args: Mapping[str, Any],
    hinted: Mapping[str, str],
    refused: Mapping[str, Refusal],
    deferred: list[CallError] | None = None,
) -> None:
    """Type-check the dialect's hints and refuse what cannot be honoured, among the parameters
    given. With `deferred`, a refusal that holds only for the host is put there instead of raised:
    the router applies it unless a provider that speaks the product answers."""
    for name, value in args.items():
        if value is None:
            continue
        kind = hinted.get(name)
        if kind is not None:
            if not _JSON_TYPES[kind](value):
                raise caller_error(name, f"expected {with_article(kind)}, got {type_name(value)}")
            continue
        refusal = refused.get(name)
        if refusal is not None:
            reason = refusal(value)
            if reason is not None:
                if deferred is not None and (name in HOST_ONLY_REFUSALS or isinstance(refusal, HostOnly)):
                    deferred.append(caller_error(name, reason))
                    continue
                raise caller_error(name, reason)


class StopParameter(Record):
    """A product's stop-sequence parameter."""

    name: str
    string_ok: bool = False  # a bare string is one sequence
    max_items: int | None = None


def read_stop(args: Mapping[str, Any], parameter: StopParameter | None) -> tuple[str, ...]:
    if parameter is None:
        return ()
    name = parameter.name
    value = args.get(name)
    if value is None:
        return ()
    if parameter.string_ok and isinstance(value, str):
        value = [value]
    items = require_list(value, name)
    if parameter.max_items is not None and len(items) > parameter.max_items:
        raise caller_error(name, f"at most {parameter.max_items} stop sequences, got {len(items)}")
    stops = tuple(require_string(s, path_of(name, i)) for i, s in enumerate(items))
    for i, stop in enumerate(stops):
        if not stop:
            raise caller_error(path_of(name, i), "must not be empty")
    return stops


def read_max_tokens_alias(args: Mapping[str, Any], alias: str | None) -> str:
    """Which of `max_tokens` and the product's own name to read; both must agree when both are given."""
    if alias is None or args.get(alias) is None:
        return "max_tokens"
    if args.get("max_tokens") is not None and args["max_tokens"] != args[alias]:
        raise caller_error(alias, f"differs from max_tokens ({args['max_tokens']!r}): give one of them")
    return alias


def read_repair_attempts(args: Mapping[str, Any], output: OutputContract | None, tools: bool = False) -> int:
    """How many times to ask again after a bad answer: for structured output, and for tool calls
    (a call the host emulates for a host without sampling.tools, or a tool call that is not JSON)."""
    value = args.get("repair_attempts")
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise caller_error("repair_attempts", f"expected an integer, got {type_name(value)}")
    if not 0 <= value <= MAX_REPAIR_ATTEMPTS:
        raise caller_error("repair_attempts", f"must be between 0 and {MAX_REPAIR_ATTEMPTS}, got {value}")
    if value and output is None and not tools:
        raise caller_error(
            "repair_attempts", "applies to structured output and tool calls: give output_schema or tools too"
        )
    return value


if TYPE_CHECKING:
    # The product's own way of asking for JSON, read from the arguments (None: it was not asked).
    NativeOutput = Callable[[Mapping[str, Any]], "OutputContract | None"]


def read_output(args: Mapping[str, Any], product_output: NativeOutput | None) -> OutputContract | None:
    """The output contract from `output_schema` or the product's own way of asking for JSON."""
    contracts: list[OutputContract] = []
    if args.get("output_schema") is not None:
        contracts.append(OutputContract(check_object_schema(args["output_schema"], "output_schema")))
    if product_output is not None:
        contract = product_output(args)
        if contract is not None:
            contracts.append(contract)
    if len(contracts) > 1:
        raise caller_error(
            contracts[1].path, f"asks for structured output, and so does {contracts[0].path}: give one"
        )
    return contracts[0] if contracts else None


def read_tool_options(
    args: Mapping[str, Any],
    shape: ToolShape | None,
    output: OutputContract | None,
    host_only: list[CallError] | None = None,
) -> tuple[tuple[ToolSpec, ...], ToolChoice | None]:
    """The tools and tool_choice. With `host_only`, a server tool's refusal is put there and the
    tool left out (`read_tools`)."""
    if shape is None:  # the tool takes no tool definitions (its schema refused them already)
        return (), None
    tools: tuple[ToolSpec, ...] = ()
    kept = len(host_only) if host_only is not None else 0
    if args.get("tools") is not None:
        tools = read_tools(args["tools"], "tools", shape, host_only)
        if output is not None and tools:
            raise caller_error(
                "tools",
                f"cannot be combined with {output.path}: structured output is itself one required tool",
            )
    if host_only is not None and len(host_only) > kept:
        # Tools were left out, so a choice may name or force one of them (a server tool's call
        # meets "any tool" too): what it says is the product's own API's to judge and to keep, as
        # only a provider of the product answers such a call, with the body as written. The host
        # refuses the call for the first server tool, as it did before the choice was ever read.
        return tools, None
    choice = read_tool_choice(args.get("tool_choice"), "tool_choice", shape, tools)
    return tools, choice


_ANY_OBJECT: dict[str, object] = {"type": "object"}


def format_contract(value: object, path: str, *, nested: str | None) -> OutputContract | None:
    """chat `response_format` ({type, json_schema: {name, schema, ...}}) or responses `text.format`
    ({type, name, schema, ...}): `text` asks for nothing, `json_object` for any JSON object."""
    fmt = require_object(value, path)
    kind = fmt.get("type")
    if kind == "text":
        reject_unknown(fmt, ("type",), path)
        return None
    if kind == "json_object":
        reject_unknown(fmt, ("type",), path)
        return OutputContract(_ANY_OBJECT, path)
    if kind != "json_schema":
        raise caller_error(
            path_of(path, "type"), f"expected 'text', 'json_object' or 'json_schema', got {kind!r}"
        )
    if nested is None:
        spec, where = fmt, path
    else:
        reject_unknown(fmt, ("type", nested), path)
        where = path_of(path, nested)
        spec = require_object(fmt.get(nested), where)
    reject_unknown(
        spec, (("type",) if nested is None else ()) + ("name", "schema", "strict", "description"), where
    )
    name = spec.get("name")
    if name is not None and not isinstance(name, str):
        raise caller_error(path_of(where, "name"), f"expected a string, got {type_name(name)}")
    schema_path = path_of(where, "schema")
    if "schema" not in spec:
        raise caller_error(schema_path, "is required for a json_schema format")
    return OutputContract(check_object_schema(spec["schema"], schema_path), schema_path)


# Schema fragments of the products' own parameters (extensions.py has the shared keys').


def hint_schemas(hinted: Mapping[str, str], fates: Mapping[str, Fate] | None = None) -> dict[str, Any]:
    """The listed schema of each hint, saying what becomes of it (`fates`: the dialect's, hints.py;
    a hint with none is said to be accepted)."""
    return {n: {"type": [kind, "null"], "description": _fate_of(n, fates)} for n, kind in hinted.items()}


def _fate_of(name: str, fates: Mapping[str, Fate] | None) -> str:
    fate = fates.get(name) if fates is not None else None
    return f"{fate.summary().capitalize()}." if fate is not None else "Accepted (a hint)."


def refused_schemas(names: Iterable[str]) -> dict[str, Any]:
    return {
        n: {"description": "Accepted only with a value that changes nothing (e.g. false, 1, null)."}
        for n in names
    }


def stop_schema(parameter: StopParameter) -> dict[str, Any]:
    array: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1}}
    if parameter.max_items is not None:
        array["maxItems"] = parameter.max_items
    schema: dict[str, Any] = array
    if parameter.string_ok:
        schema = {"anyOf": [{"type": "string", "minLength": 1}, array]}
    schema["description"] = "Stop sequences, sent to the host as stopSequences."
    return schema


def format_schema(nested: bool) -> dict[str, Any]:
    schema_spec: dict[str, Any] = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "schema": {"type": "object"},
            "strict": {"type": "boolean"},
            "description": {"type": "string"},
        },
        "required": ["schema"],
    }
    json_schema: dict[str, Any]
    if nested:
        json_schema = {
            "type": "object",
            "properties": {"type": {"const": "json_schema"}, "json_schema": schema_spec},
            "required": ["type", "json_schema"],
        }
    else:
        json_schema = {
            **schema_spec,
            "properties": {"type": {"const": "json_schema"}, **schema_spec["properties"]},
        }
        json_schema["required"] = ["type", "schema"]
    return {
        "anyOf": [
            {
                "type": "object",
                "properties": {"type": {"enum": ["text", "json_object"]}},
                "required": ["type"],
            },
            json_schema,
        ],
        "description": "json_schema: structured output (as output_schema); json_object: any JSON object.",
    }
