"""generationConfig and toolConfig: the body's view for the shared readers. Limits, stop sequences
and the output contract live in `generationConfig`, the tool choice in `toolConfig`; `config_view`
lifts them to the flat names the shared readers look for, with the path the caller wrote for each,
so errors name it. `read_output` is the product's own way to ask for JSON: responseMimeType
`application/json`, with responseSchema or responseJsonSchema.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import common, hints
from agent_as_model.adapters.dialects.products.gemini.keys import (
    CONFIG_HINTS,
    CONFIG_KEYS,
    CONFIG_REFUSED,
    LIFTED_CONFIG,
    MODES,
)
from agent_as_model.adapters.dialects.products.gemini.objects import Object, top_level
from agent_as_model.adapters.dialects.products.gemini.schema import json_schema
from agent_as_model.errors import CallError, caller_error
from agent_as_model.neutral import OutputContract
from agent_as_model.schemas import check_object_schema

# Every name the view answers itself, null when not set: Gemini has no such key at the top level
# (the unknown-key check refused one there), so a shared reader never reads one from there.
# `max_tokens` is the shared limit's own name; Gemini's is generationConfig.maxOutputTokens. The
# config's hints are lifted too, for their fates (`FATES`), named as the caller wrote them.
_LIFTED = (*LIFTED_CONFIG, *CONFIG_HINTS, "max_tokens", "tool_choice")


def config_view(
    args: Mapping[str, Any], host_only: list[CallError] | None = None
) -> tuple[Mapping[str, Any], Mapping[str, str]]:
    """The arguments as the shared readers read them: all of them (every one passed the unknown-key
    check, so a shared parameter reaches its reader here as it does for every other dialect), under
    generationConfig's keys and toolConfig's choice, lifted to the flat names those readers look
    for. `origins` maps each lifted name to the path the caller wrote, which errors about it name.
    A generationConfig key only the host cannot honour is refused into `host_only` when given."""
    lifted: dict[str, Any] = dict.fromkeys(_LIFTED)
    origins: dict[str, str] = {}
    raw_config, written = top_level(args, "generationConfig")
    if raw_config is not None:
        config = Object(raw_config, written, CONFIG_KEYS, "a generationConfig key")
        config.check(CONFIG_HINTS, CONFIG_REFUSED, host_only)
        for name in (*LIFTED_CONFIG, *CONFIG_HINTS):
            lifted[name] = config.get(name)
            origins[name] = config.at(name)
    raw_tool_config, written = top_level(args, "toolConfig")
    if raw_tool_config is not None:
        lifted["tool_choice"], choice_origins = _tool_choice(raw_tool_config, written, args.get("tools"))
        origins.update(choice_origins)
    return ChainMap(lifted, args), origins  # type: ignore[arg-type]


def read_output(view: Mapping[str, Any]) -> OutputContract | None:
    """responseMimeType `application/json`, with responseSchema (Gemini's Schema) or
    responseJsonSchema (JSON Schema) as the contract; without either, any JSON object. Read from
    the view, so paths are the flat names; the parse path names them as the caller wrote them."""
    mime = view.get("responseMimeType")
    given = [name for name in ("responseSchema", "responseJsonSchema") if view.get(name) is not None]
    if len(given) > 1:
        raise caller_error(given[1], f"asks for structured output, and so does {given[0]}: give one")
    if mime is not None:
        mime = common.require_string(mime, "responseMimeType")
    if mime is None or mime == "text/plain":
        if given:
            raise caller_error(given[0], "needs responseMimeType 'application/json'")
        return None
    if mime != "application/json":
        if mime == "text/x.enum":
            raise caller_error(
                "responseMimeType", "enum output cannot be honoured: structured output here is a JSON object"
            )
        raise caller_error(
            "responseMimeType", f"expected 'text/plain' or 'application/json', got {ascii(mime)}"
        )
    if not given:
        return OutputContract({"type": "object"}, "responseMimeType")
    name = given[0]
    value = view[name]
    schema = json_schema(value, name) if name == "responseSchema" else value
    return OutputContract(check_object_schema(schema, name), name)


def _tool_choice(raw: object, path: str, tools: object) -> tuple[Any, dict[str, str]]:
    """`{functionCallingConfig: {mode, allowedFunctionNames}}` as the shared tool_choice: AUTO and
    VALIDATED are auto (VALIDATED's checking is the host's), ANY is required, NONE is none; ANY
    with one allowed name is that tool. MCP cannot restrict the list per call, so other allowed
    lists are taken only when they name every declared function."""
    config = Object(
        raw,
        path,
        ("functionCallingConfig", "retrievalConfig", "includeServerSideToolInvocations"),
        "a toolConfig key",
    )
    if config.get("retrievalConfig") is not None:  # for Google's retrieval tools: a hint
        common.require_object(config.get("retrievalConfig"), config.at("retrievalConfig"))
    if config.get("functionCallingConfig") is None:
        return None, {}
    calling = Object(
        config.get("functionCallingConfig"),
        config.at("functionCallingConfig"),
        ("mode", "allowedFunctionNames", "streamFunctionCallArguments"),
        "functionCallingConfig is {mode, allowedFunctionNames}",
    )
    if calling.get("streamFunctionCallArguments"):
        raise caller_error(calling.at("streamFunctionCallArguments"), "streaming cannot be honoured")
    mode_path = calling.at("mode")
    mode = common.require_string(calling.values.get("mode", "AUTO"), mode_path).upper()
    if mode not in MODES:
        raise caller_error(mode_path, f"expected one of {', '.join(MODES[:4])}, got {calling.get('mode')!r}")
    origins = {"tool_choice": mode_path}
    names_path = calling.at("allowedFunctionNames")
    allowed = [
        common.require_string(n, common.path_of(names_path, k))
        for k, n in enumerate(common.require_list(calling.values.get("allowedFunctionNames", []), names_path))
    ]
    choice = {"ANY": "required", "NONE": "none"}.get(mode, "auto")
    if not allowed:
        return choice, origins
    if mode not in ("ANY", "VALIDATED"):
        raise caller_error(names_path, f"is taken only with mode ANY or VALIDATED, not {mode}")
    if set(allowed) == _declared_names(tools):
        return choice, origins
    if mode == "ANY" and len(allowed) == 1:
        origins["tool_choice.name"] = common.path_of(names_path, 0)
        return {"type": "function", "name": allowed[0]}, origins
    raise caller_error(
        names_path,
        "MCP sampling cannot restrict the tool list per call: pass only the allowed function "
        "declarations in tools (and name one function here, or all of them)",
    )


def _declared_names(tools: object) -> set[str]:
    """The function names declared in `tools`, read leniently: the tools' own errors come later."""
    names: set[str] = set()
    for tool in tools if isinstance(tools, list) else ():
        if not isinstance(tool, dict):
            continue
        declarations = tool.get("functionDeclarations", tool.get("function_declarations"))
        entries = declarations if isinstance(declarations, list) else [tool]
        names.update(d["name"] for d in entries if isinstance(d, dict) and isinstance(d.get("name"), str))
    return names


# -- what becomes of the hints (hints.py) ------------------------------------------------------------

_THINKING_KEYS = ("includeThoughts", "thinkingBudget", "thinkingLevel")


def _thinking(value: object, path: str) -> dict[str, Any]:
    """`thinkingConfig` ({thinkingBudget, includeThoughts, thinkingLevel}, either spelling) as the
    `reasoning` hint: a budget is `budget_tokens`, a level the `effort` it names (lower case, as
    the other products write efforts)."""
    config = Object(
        value, path, _THINKING_KEYS, "thinkingConfig is {thinkingBudget, includeThoughts, thinkingLevel}"
    )
    read: dict[str, Any] = {}
    budget = config.get("thinkingBudget")
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, int):
            raise caller_error(
                config.at("thinkingBudget"), f"expected an integer, got {common.type_name(budget)}"
            )
        read["budget_tokens"] = budget
    include = config.get("includeThoughts")
    if include is not None:
        if not isinstance(include, bool):
            raise caller_error(
                config.at("includeThoughts"), f"expected a boolean, got {common.type_name(include)}"
            )
        read["include_thoughts"] = include
    level = config.get("thinkingLevel")
    if level is not None:
        read["effort"] = common.require_string(level, config.at("thinkingLevel")).lower()
    return read


_ROUTING = "how Google's service picks a model for the request; the host's model answers"
# By the names the view gives them (generationConfig's, lifted), and the top-level ones in both
# spellings; a warning names each as the caller wrote it.
FATES: dict[str, hints.Fate] = {
    "topP": hints.FATES["top_p"],
    "topK": hints.FATES["top_k"],
    "seed": hints.FATES["seed"],
    "presencePenalty": hints.FATES["presence_penalty"],
    "frequencyPenalty": hints.FATES["frequency_penalty"],
    "thinkingConfig": hints.reasoning(
        _thinking, "no thought parts come back: the host answers with its text and calls only"
    ),
    "mediaResolution": hints.not_applied("how Gemini reads media; the host's model reads it as it does"),
    "routingConfig": hints.not_applied(_ROUTING),
    "modelSelectionConfig": hints.not_applied(_ROUTING),
    "enableEnhancedCivicAnswers": hints.not_applied(
        "a behaviour of Google's service, not of the host's model"
    ),
    "safetySettings": hints.forwarded("safety_settings", "the host's model has its own safety settings"),
    "safety_settings": hints.forwarded("safety_settings", "the host's model has its own safety settings"),
    "labels": hints.not_applied("billing labels of Google's service; nothing here is billed"),
    "serviceTier": hints.FATES["service_tier"],
    "service_tier": hints.FATES["service_tier"],
    "store": hints.FATES["store"],
}
