"""`adapters.tools.definitions`: every accepted tool and tool_choice shape per dialect, every
refusal with its JSON path, and the listed schema fragments agreeing with what is accepted."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agent_as_model.adapters.dialects import tool_shapes
from agent_as_model.adapters.tools.definitions import read_tool_choice, read_tools
from agent_as_model.errors import CallError
from agent_as_model.neutral import ToolChoice, ToolSpec

Native = str  # a product's tool-shape name, as `export-tools --format` takes it
NATIVES: tuple[Native, ...] = ("chat", "messages", "responses")
SHAPES = tool_shapes()
SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}
NO_ARGUMENTS: dict[str, object] = {"type": "object", "properties": {}}
WEATHER = ToolSpec("get_weather", "The weather in a city.", SCHEMA)
SEED = {"name": "get_weather", "description": "The weather in a city.", "input_schema": SCHEMA}
NATIVE_TOOL: dict[Native, dict[str, Any]] = {
    "chat": {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": SCHEMA,
            "strict": True,
        },
    },
    "messages": {
        "type": "custom",
        "name": "get_weather",
        "description": "The weather in a city.",
        "input_schema": SCHEMA,
        "cache_control": {"type": "ephemeral"},
        "strict": False,
    },
    "responses": {
        "type": "function",
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": SCHEMA,
        "strict": True,
    },
}


def refused(call: Any, *args: Any) -> CallError:
    with pytest.raises(CallError) as caught:
        call(*args)
    assert caught.value.kind == "caller" and not caught.value.sent
    return caught.value


def listed_as_valid(native: Native, tools: Any = None, choice: Any = None) -> None:
    """What the reader accepts, the listed fragment accepts too (it is what a model reads)."""
    if tools is not None:
        Draft202012Validator(SHAPES[native].tools_schema).validate(tools)
    if choice is not None:
        Draft202012Validator(SHAPES[native].choice_schema).validate(choice)


# -- tools: accepted shapes --------------------------------------------------------------------


@pytest.mark.parametrize("native", NATIVES)
def test_the_seed_shape_is_taken_by_every_dialect(native: Native) -> None:
    assert read_tools([SEED], "tools", SHAPES[native]) == (WEATHER,)
    listed_as_valid(native, [SEED])


@pytest.mark.parametrize("native", NATIVES)
def test_each_dialect_takes_its_native_shape(native: Native) -> None:
    assert read_tools([NATIVE_TOOL[native]], "tools", SHAPES[native]) == (WEATHER,)
    listed_as_valid(native, [NATIVE_TOOL[native]])


@pytest.mark.parametrize("native", NATIVES)
def test_native_and_seed_shapes_mix_in_one_request_in_order(native: Native) -> None:
    other = {"name": "add", "input_schema": {"type": "object"}}
    tools = read_tools([NATIVE_TOOL[native], other], "tools", SHAPES[native])
    assert [t.name for t in tools] == ["get_weather", "add"]
    assert tools[1] == ToolSpec("add", None, {"type": "object"})


@pytest.mark.parametrize("value", [None, []])
@pytest.mark.parametrize("native", NATIVES)
def test_null_and_empty_tools_are_no_tools(native: Native, value: Any) -> None:
    assert read_tools(value, "tools", SHAPES[native]) == ()


def test_openai_shapes_may_omit_parameters_and_description() -> None:
    chat = read_tools([{"type": "function", "function": {"name": "now"}}], "tools", SHAPES["chat"])
    responses = read_tools(
        [{"type": "function", "name": "now", "parameters": None}], "tools", SHAPES["responses"]
    )
    assert chat == responses == (ToolSpec("now", None, NO_ARGUMENTS),)
    assert chat[0].input_schema is not responses[0].input_schema  # no shared mutable default


def test_a_null_description_is_no_description_and_names_keep_their_characters() -> None:
    tools = read_tools(
        [{"name": "weather.get now", "description": None, "input_schema": SCHEMA}], "t", SHAPES["chat"]
    )
    assert tools == (ToolSpec("weather.get now", None, SCHEMA),)


# -- tools: refusals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("native", "tools", "path", "reason"),
    [
        ("chat", {"name": "x"}, "tools", "expected an array, got object"),
        ("chat", ["x"], "tools[0]", "expected an object, got string"),
        ("chat", [{"type": "function"}], "tools[0].function", "is required"),
        ("chat", [{"function": {"name": "x"}}], "tools[0].type", "expected 'function', got null"),
        ("chat", [{"type": "custom", "custom": {"name": "x"}}], "tools[0].type", "only function tools"),
        ("chat", [{"type": "function", "function": "x"}], "tools[0].function", "expected an object"),
        ("chat", [{"type": "function", "function": {}}], "tools[0].function.name", "is required"),
        (
            "chat",
            [{"type": "function", "function": {"name": ""}}],
            "tools[0].function.name",
            "must not be empty",
        ),
        (
            "chat",
            [{"type": "function", "function": {"name": 3}}],
            "tools[0].function.name",
            "expected a string",
        ),
        (
            "chat",
            [{"type": "function", "function": {"name": "x", "description": 5}}],
            "tools[0].function.description",
            "expected a string, got number",
        ),
        (
            "chat",
            [{"type": "function", "function": {"name": "x", "strict": "yes"}}],
            "tools[0].function.strict",
            "expected a boolean, got string",
        ),
        (
            "chat",
            [{"type": "function", "function": {"name": "x", "arguments": {}}}],
            "tools[0].function.arguments",
            "unknown parameter 'arguments'",
        ),
        (
            "chat",
            [{"type": "function", "function": {"name": "x"}, "name": "x"}],
            "tools[0].name",
            "unknown parameter 'name'",
        ),
        (
            "chat",
            [{"type": "function", "function": {"name": "x", "parameters": {"type": "array"}}}],
            "tools[0].function.parameters",
            "the root of the schema must have",
        ),
        (
            "chat",
            [
                {
                    "type": "function",
                    "function": {"name": "x", "parameters": {"type": "object", "required": 1}},
                }
            ],
            "tools[0].function.parameters.required",
            "is not of type 'array'",
        ),
        ("chat", [{"name": "x"}], "tools[0].input_schema", "is required"),
        ("chat", [{"name": "x", "parameters": SCHEMA}], "tools[0].parameters", "unknown key 'parameters'"),
        ("messages", [{"name": "x", "input_schema": []}], "tools[0].input_schema", "expected a JSON Schema"),
        (
            "messages",
            [{"name": "x", "input_schema": SCHEMA, "input_examples": []}],
            "tools[0].input_examples",
            "",
        ),
        (
            "messages",
            [{"type": "web_search_20250305", "name": "web_search"}],
            "tools[0].type",
            "cannot be forwarded",
        ),
        ("messages", [{"type": "bash_20250124", "name": "bash"}], "tools[0].type", "run on Anthropic's side"),
        ("messages", [{"type": 1, "name": "x", "input_schema": SCHEMA}], "tools[0].type", "got number"),
        ("messages", [{"description": "d", "input_schema": SCHEMA}], "tools[0].name", "is required"),
        (
            "responses",
            [{"type": "web_search"}],
            "tools[0].type",
            "tool type 'web_search' cannot be forwarded",
        ),
        ("responses", [{"type": "file_search", "vector_store_ids": []}], "tools[0].type", "built-in tools"),
        ("responses", [{"type": "function", "function": {"name": "x"}}], "tools[0].function", "unknown key"),
        (
            "responses",
            [{"type": "function", "name": "x", "input_schema": SCHEMA}],
            "tools[0].input_schema",
            "",
        ),
        (
            "responses",
            [
                {
                    "type": "function",
                    "name": "x",
                    "parameters": {"type": "object", "properties": {"a": {"$ref": "#/x"}}},
                }
            ],
            "tools[0].parameters",
            "$ref '#/x' does not resolve inside the schema",
        ),
    ],
)
def test_refusals_name_the_path(native: Native, tools: Any, path: str, reason: str) -> None:
    err = refused(read_tools, tools, "tools", SHAPES[native])
    assert err.path == path
    assert reason in err.reason


@pytest.mark.parametrize("native", NATIVES)
def test_a_duplicate_name_names_both_places(native: Native) -> None:
    other = {"name": "add", "input_schema": {"type": "object"}}
    err = refused(read_tools, [NATIVE_TOOL[native], other, SEED], "tools", SHAPES[native])
    first = {"chat": "tools[0].function.name", "messages": "tools[0].name", "responses": "tools[0].name"}
    assert err.path == "tools[2].name"
    assert err.reason == f"duplicate tool name 'get_weather' (also at {first[native]})"


# -- tool_choice -------------------------------------------------------------------------------

TOOLS = (WEATHER, ToolSpec("add", None, {"type": "object"}))


@pytest.mark.parametrize("native", NATIVES)
@pytest.mark.parametrize("mode", ["auto", "required", "none"])
def test_the_seed_modes_are_taken_by_every_dialect(native: Native, mode: str) -> None:
    assert read_tool_choice(mode, "tool_choice", SHAPES[native], TOOLS) == ToolChoice(mode)  # type: ignore[arg-type]
    listed_as_valid(native, choice=mode)


@pytest.mark.parametrize(
    ("native", "value", "expected"),
    [
        ("chat", {"type": "function", "function": {"name": "add"}}, ToolChoice("required", "add")),
        ("responses", {"type": "function", "name": "add"}, ToolChoice("required", "add")),
        ("messages", {"type": "auto"}, ToolChoice("auto")),
        ("messages", {"type": "any"}, ToolChoice("required")),
        ("messages", {"type": "none"}, ToolChoice("none")),
        ("messages", {"type": "tool", "name": "add"}, ToolChoice("required", "add")),
        (
            "messages",
            {"type": "auto", "disable_parallel_tool_use": True},
            ToolChoice("auto", single_call="tool_choice.disable_parallel_tool_use"),
        ),
        (
            "messages",
            {"type": "tool", "name": "add", "disable_parallel_tool_use": False},
            ToolChoice("required", "add"),
        ),
    ],
)
def test_native_tool_choices(native: Native, value: Any, expected: ToolChoice) -> None:
    assert read_tool_choice(value, "tool_choice", SHAPES[native], TOOLS) == expected
    listed_as_valid(native, choice=value)


@pytest.mark.parametrize("native", NATIVES)
def test_no_tool_choice_is_none(native: Native) -> None:
    assert read_tool_choice(None, "tool_choice", SHAPES[native], TOOLS) is None
    listed_as_valid(native, choice=None)


@pytest.mark.parametrize("native", NATIVES)
@pytest.mark.parametrize("mode", ["auto", "none"])
def test_auto_and_none_without_tools_mean_what_no_tools_means(native: Native, mode: str) -> None:
    assert read_tool_choice(mode, "tool_choice", SHAPES[native], ()) is None


@pytest.mark.parametrize(
    ("native", "value"),
    [
        ("chat", "required"),
        ("chat", {"type": "function", "function": {"name": "add"}}),
        ("messages", {"type": "any"}),
        ("messages", {"type": "tool", "name": "add"}),
        ("responses", {"type": "function", "name": "add"}),
    ],
)
def test_a_choice_that_needs_tools_without_tools_is_refused(native: Native, value: Any) -> None:
    err = refused(read_tool_choice, value, "tool_choice", SHAPES[native], ())
    assert err.path == "tool_choice"
    assert "needs tools, and none were given" in err.reason


@pytest.mark.parametrize(
    ("native", "value", "path", "reason"),
    [
        ("chat", "any", "tool_choice", "expected 'auto', 'required', 'none' or {type: 'function'"),
        ("chat", 3, "tool_choice", "got number"),
        ("chat", {"type": "function"}, "tool_choice.function", "is required"),
        ("chat", {"type": "function", "name": "add"}, "tool_choice.function", "is required"),
        ("chat", {"type": "function", "function": {}}, "tool_choice.function.name", "is required"),
        ("chat", {"type": "function", "function": {"name": "x"}}, "tool_choice.function.name", "not among"),
        (
            "chat",
            {"type": "function", "function": {"name": "add", "x": 1}},
            "tool_choice.function.x",
            "unknown",
        ),
        (
            "chat",
            {"type": "allowed_tools", "allowed_tools": {}},
            "tool_choice.type",
            "'allowed_tools' is not",
        ),
        ("chat", {"type": "custom", "custom": {"name": "add"}}, "tool_choice.type", "cannot be honoured"),
        ("chat", {"function": {"name": "add"}}, "tool_choice.type", "expected a string, got null"),
        ("responses", {"type": "file_search"}, "tool_choice.type", "'file_search' cannot be honoured"),
        ("responses", {"type": "allowed_tools", "mode": "auto", "tools": []}, "tool_choice.type", "allowed"),
        (
            "responses",
            {"type": "function", "name": "nope"},
            "tool_choice.name",
            "names tool 'nope', which is",
        ),
        ("responses", {"type": "function", "name": "add", "x": 1}, "tool_choice.x", "unknown parameter 'x'"),
        ("messages", "any", "tool_choice", "{type: 'auto'|'any'|'tool'|'none', name}"),
        ("messages", {"type": "required"}, "tool_choice.type", "expected 'auto', 'any', 'tool' or 'none'"),
        ("messages", {"type": "tool"}, "tool_choice.name", "is required"),
        ("messages", {"type": "tool", "name": "x"}, "tool_choice.name", "which is not among the tools"),
        ("messages", {"type": "auto", "name": "add"}, "tool_choice.name", "only taken with type 'tool'"),
        (
            "messages",
            {"type": "any", "disable_parallel_tool_use": 1},
            "tool_choice.disable_parallel_tool_use",
            "",
        ),
        ("messages", {"type": "any", "extra": 1}, "tool_choice.extra", "unknown parameter"),
    ],
)
def test_tool_choice_refusals_name_the_path(native: Native, value: Any, path: str, reason: str) -> None:
    err = refused(read_tool_choice, value, "tool_choice", SHAPES[native], TOOLS)
    assert err.path == path
    assert reason in err.reason


def test_a_named_choice_lists_the_tools_it_could_name() -> None:
    err = refused(read_tool_choice, {"type": "tool", "name": "x"}, "tool_choice", SHAPES["messages"], TOOLS)
    assert err.reason == "names tool 'x', which is not among the tools ('get_weather', 'add')"


# -- the listed fragments ----------------------------------------------------------------------


@pytest.mark.parametrize("native", NATIVES)
def test_the_fragments_are_valid_schemas_that_describe_everything(native: Native) -> None:
    for fragment in (SHAPES[native].tools_schema, SHAPES[native].choice_schema):
        Draft202012Validator.check_schema(fragment)
        assert fragment["description"]
    listed_as_valid(native, tools=None)
    Draft202012Validator(SHAPES[native].tools_schema).validate(None)
