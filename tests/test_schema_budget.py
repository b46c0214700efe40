"""Issue 49 item 3: no escape from a schema check's budget. Every pattern search takes a step of
`--schema-steps` (a `patternProperties` of P patterns over an object of N properties is P x N
searches inside one keyword); a pattern that runs out of `--schema-timeout` ends the check there
and then; and no message a check makes grows with a value: jsonschema writes the instance (and
enum and const values) into every error it makes, on every failing branch, so the values it
checks print as a constant, and the reasons the server words are bounded. Through the real
server on both eras, with hostile inputs; each error names the pattern or keyword and its JSON
pointer, and says whether anything was sent to the host."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from agent_as_model import patterns, schemas
from agent_as_model.limits import Limits
from agent_as_model.server import build_server
from tests.scripted_host import ScriptedHost, connect

STEPS = 2000
EVIL = "^(a|a)+$"  # exponential backtracking: every `a` can be taken by either branch
HOSTILE = "a" * 40 + "b"
CHAT = {"messages": [{"role": "user", "content": "q"}]}
ANSWER_UNUSED = "The host was asked; its answer was not used."
NOTHING_SENT = "Nothing was sent to the host."
# A search the budget ran out on names its pattern and where that pattern is in the schema.
LAST_SEARCH = re.compile(
    r"the check took more than 2000 steps \(--schema-steps; \$ref fan-out, nested combinators, "
    r"pattern searches or uniqueItems over a large array\), the last a search of the pattern "
    r"'\^p\d+\$' \(schema /patternProperties/\^p\d+\$\)"
)


def many_patterns(count: int = 40) -> dict[str, Any]:
    """Patterns that match no name: each keyword application searches every one of them against
    every property, and finds nothing to descend into (no keyword step is taken for them)."""
    return {"type": "object", "patternProperties": {f"^p{i}$": {} for i in range(count)}}


def wide(count: int) -> dict[str, int]:
    return {f"name{i}": i for i in range(count)}


def server(**limits: Any) -> Any:
    return build_server(limits=Limits(**limits))


# --- pattern searches count against --schema-steps ------------------------------------------------


@pytest.mark.anyio
async def test_pattern_properties_over_many_properties_spends_the_budget_of_an_answer(era: str) -> None:
    """40 patterns x 100 properties: 4,000 searches in one keyword, past a budget of 2,000. The
    answer is not used, and not repaired (the same schema would spend its budget again)."""
    host = ScriptedHost(json.dumps(wide(100)), '{"a": 1}')
    async with connect(era, host, server=server(schema_steps=STEPS)) as client:
        bad = await client.call_tool(
            "chat_complete", {**CHAT, "output_schema": many_patterns(), "repair_attempts": 2}
        )
        fits = await client.call_tool("chat_complete", {**CHAT, "output_schema": many_patterns()})
    assert bad.is_error
    text = bad.content[0].text
    assert text.startswith("chat_complete: output_schema: the host's answer could not be checked within")
    assert LAST_SEARCH.search(text), text
    assert text.endswith(ANSWER_UNUSED)
    assert host.asked == 2  # the bad call once (no repair), and the next call, whose answer fits
    assert not fits.is_error and fits.content[0].text == '{"a": 1}'


@pytest.mark.anyio
async def test_pattern_searches_over_the_callers_request_spend_its_budget(era: str) -> None:
    """The same over a persona's input_schema, met by the caller's own request: refused before
    anything is sent."""
    persona = {
        "name": "p",
        "input_schema": {
            "type": "object",
            "properties": {"messages": {"type": "array", "items": many_patterns()}},
        },
    }
    messages = [{"role": "user", "content": f"m{i}"} for i in range(50)]  # 50 x 2 names x 40 patterns
    host = ScriptedHost("fine")
    async with connect(era, host, server=server(schema_steps=STEPS)) as client:
        bad = await client.call_tool("chat_complete", {"messages": messages, "persona": persona})
        good = await client.call_tool("chat_complete", {"messages": messages[:5], "persona": persona})
    assert bad.is_error
    text = bad.content[0].text
    assert text.startswith("chat_complete: persona.input_schema: persona 'p': the request could not be")
    assert re.search(
        r"the last a search of the pattern '\^p\d+\$' \(schema /properties/messages/items/", text
    )
    assert text.endswith(NOTHING_SENT)
    assert host.asked == 1 and good.content[0].text == "fine"


def test_a_search_is_a_step_of_the_budget() -> None:
    """Within the same budget, one more property (so 40 more searches) tips the check over."""
    schema = many_patterns()
    token = patterns.STEP_BOUND.set(STEPS)
    try:
        # One step for the keyword and 40 a property: 49 properties fit in 2,000, 50 do not.
        assert schemas.first_violation(schema, wide(49)) is None
        with pytest.raises(patterns.TooManySteps) as caught:
            schemas.first_violation(schema, wide(50))
    finally:
        patterns.STEP_BOUND.reset(token)
    assert caught.value.pattern is not None and caught.value.where is not None
    assert caught.value.where == f"/patternProperties/{caught.value.pattern}"


# --- a pattern that runs out of time stops the check ---------------------------------------------


def test_a_pattern_that_runs_out_of_time_ends_the_check_where_it_is() -> None:
    """The search that runs out does not return to jsonschema's loop (which would go on over
    every remaining property): nothing after it runs."""
    from jsonschema import _keywords

    token = patterns.TIME_BOUND.set(0.05)
    ran_on: list[str] = []
    try:
        with pytest.raises(patterns.SchemaTimeout) as caught, patterns.bounded({"pattern": EVIL}):
            _keywords.re.search(EVIL, HOSTILE)
            ran_on.append("the search returned")
    finally:
        patterns.TIME_BOUND.reset(token)
    assert ran_on == []
    assert caught.value.pattern == EVIL and caught.value.where == "/pattern"


@pytest.mark.anyio
async def test_a_timed_out_pattern_over_many_properties_is_a_clear_error(era: str) -> None:
    schema = {"type": "object", "patternProperties": {EVIL: {}}}
    answer = json.dumps({HOSTILE + str(i): i for i in range(500)})
    host = ScriptedHost(answer, "fine")
    async with connect(era, host, server=server(schema_timeout=0.05)) as client:
        bad = await client.call_tool("chat_complete", {**CHAT, "output_schema": schema})
        good = await client.call_tool("generate", {"prompt": "next"})
    assert bad.content[0].text == (
        f"chat_complete: output_schema: the host's answer could not be checked in time: matching the "
        f"pattern '{EVIL}' (schema /patternProperties/{EVIL}) ran past the time bound of 0.05 s "
        f"(--schema-timeout). {ANSWER_UNUSED}"
    )
    assert good.content[0].text == "fine"


# --- no message grows with a value ---------------------------------------------------------------

BIG_ENUM = [f"value-{i:06d}-" + "e" * 40 for i in range(20_000)]  # ~1 MB of enum values
BIG_CONST = {"k": "c" * 1_000_000}
BIG_ANSWER = {"a": "x" * 1_000_000, "b": [{"n": i, "s": "y" * 100} for i in range(5_000)]}


def every_message(schema: dict[str, Any], instance: Any) -> list[str]:
    """The message of every error jsonschema makes checking `instance`, its branches' included."""
    found: list[str] = []
    pending = list(schemas.validator_for(schema).iter_errors(schemas.quieted(instance)))
    while pending:
        error = pending.pop()
        found.append(error.message)
        pending.extend(error.context or ())
    return found


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"type": "object", "properties": {"a": {"enum": BIG_ENUM}}}, BIG_ANSWER),
        ({"type": "object", "properties": {"b": {"const": BIG_CONST}}}, BIG_ANSWER),
        (
            {"type": "object", "anyOf": [{"type": "array"}, {"enum": BIG_ENUM}, {"const": BIG_CONST}]},
            BIG_ANSWER,
        ),
        ({"type": "object", "not": {"type": "object"}}, BIG_ANSWER),
        (
            {"type": "object", "properties": {"b": {"maxItems": 1, "contains": {"type": "string"}}}},
            BIG_ANSWER,
        ),
        ({"type": "object", "properties": {"a": {"maxLength": 1, "pattern": "^z"}}}, BIG_ANSWER),
        ({"type": "object", "additionalProperties": False}, {"x" * 10_000: 1}),
        ({"type": "object", "properties": {"b": {"items": False}}}, BIG_ANSWER),
        ({"type": "object", "required": ["r" * 100_000]}, BIG_ANSWER),
        ({"type": "object", "oneOf": [{"type": "object"}, {"required": ["a"]}]}, BIG_ANSWER),
    ],
    ids=["enum", "const", "anyOf", "not", "contains", "string", "extra-name", "items", "required", "oneOf"],
)
def test_the_messages_a_check_makes_do_not_grow_with_the_values(
    schema: dict[str, Any], instance: Any
) -> None:
    messages = every_message(schema, instance)
    assert messages  # each schema fails the instance somewhere
    assert max(len(message) for message in messages) < 300, max(messages, key=len)[:300]


def test_a_quiet_copy_is_equal_and_of_the_same_types() -> None:
    value = {"k" * 100: ["s" * 100, 1, 2.5, True, None, {"x": []}], "short": "s"}
    quiet = schemas.quieted(value)
    assert quiet == value and json.dumps(quiet) == json.dumps(value)
    assert isinstance(quiet, dict) and isinstance(quiet["k" * 100], list) and isinstance(quiet["short"], str)
    assert repr(quiet) == "{...}" and repr(quiet["k" * 100][0]) == "'...'" and repr(quiet["short"]) == "'s'"
    deep: Any = []
    for _ in range(5_000):  # deeper than Python's recursion
        deep = [deep]
    assert repr(schemas.quieted(deep)) == "[...]"


@pytest.mark.anyio
async def test_enum_and_const_violations_of_megabytes_are_told_in_a_line(era: str) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"enum": BIG_ENUM}, "b": {"const": BIG_CONST}, "c": {"enum": ["x", "y"]}},
    }
    host = ScriptedHost(json.dumps({"a": "no"}), json.dumps({"b": {"k": "other"}}), json.dumps({"c": "z"}))
    async with connect(era, host) as client:
        results = [
            (await client.call_tool("chat_complete", {**CHAT, "output_schema": schema})).content[0].text
            for _ in range(3)
        ]
    assert results == [
        "chat_complete: output_schema: the host's answer violates the schema at JSON pointer '/a': must be "
        f"one of the enum values (schema /properties/a/enum). {ANSWER_UNUSED}",
        "chat_complete: output_schema: the host's answer violates the schema at JSON pointer '/b': must "
        f"equal the schema's const value (schema /properties/b/const). {ANSWER_UNUSED}",
        "chat_complete: output_schema: the host's answer violates the schema at JSON pointer '/c': must be "
        f"one of the enum values: 'x', 'y' (schema /properties/c/enum). {ANSWER_UNUSED}",
    ]


@pytest.mark.anyio
async def test_a_long_list_of_missing_names_is_cut(era: str) -> None:
    required = [f"field_{i:05d}" for i in range(10_000)]
    schema = {"type": "object", "required": required}
    host = ScriptedHost("{}")
    async with connect(era, host) as client:
        bad = await client.call_tool("chat_complete", {**CHAT, "output_schema": schema})
    text = bad.content[0].text
    assert len(text) < 500, text
    assert "missing required properties 'field_00000', 'field_00001'," in text
    assert re.search(r", and 99\d\d more \(schema /required\)", text), text


# --- a subschema that names a $schema stays within the budget ---------------------------------------

DRAFTS = ["https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#"]
# 2**14 paths: far past the budget, yet few enough that a check escaping it ends (with a plain
# violation) and the test fails rather than waits.
DEPTH = 14


def fan_out_naming(depth: int, draft: str, name: str = "a") -> dict[str, Any]:
    """A `$ref` fan-out (2**depth paths under oneOf) over property `name` whose every definition
    names a `$schema`: jsonschema moves to that draft's own validator at each, whose keywords
    counted no step. The leaf takes only an integer, so a string meets every path."""
    defs: dict[str, Any] = {
        f"d{i}": {"$schema": draft, "oneOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(depth)
    }
    defs[f"d{depth}"] = {"$schema": draft, "type": "integer"}
    return {"type": "object", "$defs": defs, "properties": {name: {"$ref": "#/$defs/d0"}}}


@pytest.mark.parametrize("draft", DRAFTS)
def test_a_fan_out_that_names_a_draft_spends_the_budget(draft: str) -> None:
    """The budget stops it."""
    token = patterns.STEP_BOUND.set(STEPS)
    try:
        with pytest.raises(patterns.TooManySteps):
            schemas.first_violation(fan_out_naming(DEPTH, draft), {"a": "not an integer"})
    finally:
        patterns.STEP_BOUND.reset(token)


@pytest.mark.anyio
@pytest.mark.parametrize("draft", DRAFTS)
async def test_a_persona_schema_that_names_a_draft_is_refused_within_the_budget(era: str, draft: str) -> None:
    persona = {"name": "p", "input_schema": fan_out_naming(DEPTH, draft, "prompt")}
    host = ScriptedHost('{"a": "not an integer"}')
    async with connect(era, host, server=server(schema_steps=STEPS)) as client:
        bad = await client.call_tool("generate", {"prompt": "q", "persona": persona})
        answer = await client.call_tool(
            "chat_complete", {**CHAT, "output_schema": fan_out_naming(DEPTH, draft), "repair_attempts": 1}
        )
    assert bad.is_error and bad.content[0].text.endswith(NOTHING_SENT)
    assert host.asked == 1  # the answer's call, once: a spent budget is not repaired
    assert f"could not be checked within its budget: the check took more than {STEPS} steps" in (
        bad.content[0].text
    )
    assert (
        answer.is_error
        and "the host's answer could not be checked within its budget" in answer.content[0].text
    )
    assert answer.content[0].text.endswith(ANSWER_UNUSED)


def test_a_subschema_that_names_a_draft_is_read_as_2020_12() -> None:
    """What the check still says: a violation under such a subschema is found and named."""
    schema = {
        "type": "object",
        "properties": {"n": {"$schema": DRAFTS[1], "type": "integer", "minimum": 3}},
    }
    assert schemas.first_violation(schema, {"n": 5}) is None
    assert schemas.first_violation(schema, {"n": 1}) == (
        "/n",
        "must be >= 3 (schema /properties/n/minimum)",
    )


# --- checking a caller's schema against the draft's meta-schema counts against --schema-steps -------


def properties(count: int) -> dict[str, Any]:
    """An object schema of `count` string properties: checking it against the draft's meta-schema
    applies some thirty keywords to each."""
    return {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "maxLength": i} for i in range(count)},
    }


def tool_with(parameters: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": "f", "parameters": parameters}}]


SCHEMA_OVER = (
    "the schema could not be checked within its budget: checking it against the draft's meta-schema "
    "took more than {} steps (--schema-steps; each keyword applied is one, some thirty for each "
    "property or other subschema of the schema)"
)


@pytest.mark.anyio
async def test_a_schema_of_many_properties_spends_the_budget_of_its_own_check(era: str) -> None:
    """100 properties (some 3,000 steps) past a budget of 2,000, as an output_schema and as a tool's
    parameters: refused naming the field and the flag, before anything is sent; 40 (some 1,300)
    within it are checked and used."""
    host = ScriptedHost('{"p1": "a"}')
    async with connect(era, host, server=server(schema_steps=STEPS)) as client:
        output = await client.call_tool("chat_complete", {**CHAT, "output_schema": properties(100)})
        tools = await client.call_tool("chat_complete", {**CHAT, "tools": tool_with(properties(100))})
        assert host.asked == 0
        fits = await client.call_tool("chat_complete", {**CHAT, "output_schema": properties(40)})
        fits_tools = await client.call_tool("chat_complete", {**CHAT, "tools": tool_with(properties(40))})
    assert output.is_error and tools.is_error
    assert (
        output.content[0].text == f"chat_complete: output_schema: {SCHEMA_OVER.format(STEPS)}. {NOTHING_SENT}"
    )
    assert tools.content[0].text == (
        f"chat_complete: tools[0].function.parameters: {SCHEMA_OVER.format(STEPS)}. {NOTHING_SENT}"
    )
    assert not fits.is_error and fits.content[0].text == '{"p1": "a"}', fits.content[0].text
    assert not fits_tools.is_error
    assert host.asked == 2


@pytest.mark.anyio
async def test_the_default_budget_refuses_a_schema_of_thousands_of_properties(era: str) -> None:
    """At the default --schema-steps (50,000), 2,000 properties are refused by their check, which
    stops there; 1,000 are taken."""
    host = ScriptedHost('{"p1": "a"}')
    async with connect(era, host) as client:
        refused = await client.call_tool("chat_complete", {**CHAT, "output_schema": properties(2000)})
        assert host.asked == 0
        taken = await client.call_tool("chat_complete", {**CHAT, "output_schema": properties(1000)})
    assert refused.content[0].text == (
        f"chat_complete: output_schema: {SCHEMA_OVER.format(50000)}. {NOTHING_SENT}"
    )
    assert taken.content[0].text == '{"p1": "a"}'


def test_the_check_of_a_schema_is_jsonschemas_first_error_as_before() -> None:
    """The counted check says what jsonschema's `check_schema` says, at the same path."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    from agent_as_model.errors import CallError

    for bad in (
        {"type": "object", "properties": {"a": {"type": "strin"}}},
        {"type": "object", "properties": {"a": {"minLength": -1}}, "required": "a"},
        {"type": "object", "$defs": {"x": {"pattern": "("}}},
        {"type": "object", "properties": {"a": {"$anchor": "1bad"}}},
    ):
        with pytest.raises(SchemaError) as expected:
            Draft202012Validator.check_schema(bad, format_checker=schemas._schema_formats())
        schemas.forget_checked()
        with pytest.raises(CallError) as told:
            schemas.check_object_schema(bad, "output_schema")
        where = schemas._schema_path("output_schema", expected.value.absolute_path)
        assert told.value.message("t").startswith(f"t: {where}: {expected.value.message}")


@pytest.mark.anyio
@pytest.mark.stdio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_schema_over_the_budget_of_its_own_check_over_stdio(mode: str) -> None:
    from mcp import Client

    from tests.helpers import server_params

    host = ScriptedHost('{"p1": "a"}')
    params = server_params("serve", "--schema-steps", str(STEPS))
    async with Client(params, mode=mode, sampling_callback=host) as client:
        refused = await client.call_tool("chat_complete", {**CHAT, "output_schema": properties(100)})
        taken = await client.call_tool("chat_complete", {**CHAT, "output_schema": properties(40)})
    assert (
        refused.content[0].text
        == f"chat_complete: output_schema: {SCHEMA_OVER.format(STEPS)}. {NOTHING_SENT}"
    )
    assert taken.content[0].text == '{"p1": "a"}'
