"""A caller's schema cannot freeze the server. Its patterns are matched within a
time bound (`--schema-timeout`); a check that runs out of it is a clear error naming the pattern's
place in the schema and the bound, on both eras; the next call works. (How long a concurrent call
waits meanwhile is measured by benchmarks/bench_hostile.py, not here.)"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from agent_as_model import patterns, schemas
from agent_as_model.limits import Limits
from agent_as_model.server import build_server
from tests.agent_loop import tool_answer
from tests.helpers import run_command, server_params
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

# Exponential backtracking in any backtracking engine: every `a` can be taken by either branch.
EVIL = "^(a|a)+$"
HOSTILE = "a" * 40 + "b"
BOUND = 0.05
BASE: dict[str, dict[str, Any]] = {
    "chat_complete": {"messages": [{"role": "user", "content": "q"}]},
    "messages_create": {"messages": [{"role": "user", "content": "q"}]},
    "responses_create": {"input": "q"},
    "generate": {"prompt": "q"},
}
TIMED_OUT = (
    f"could not be checked in time: matching the pattern '{EVIL}' (schema {{where}}) ran past the "
    f"time bound of {BOUND:g} s (--schema-timeout)"
)


def evil_object(where: str = "a") -> dict[str, Any]:
    return {"type": "object", "properties": {where: {"type": "string", "pattern": EVIL}}}


def server() -> Any:
    return build_server(limits=Limits(schema_timeout=BOUND))


@pytest.mark.parametrize("tool", ["chat_complete", "messages_create", "responses_create"])
@pytest.mark.parametrize("tools", [True, False], ids=["structured-tool", "structured-prompt"])
async def test_a_hostile_output_pattern_ends_in_a_clear_error(era: str, tool: str, tools: bool) -> None:
    answer = (
        tool_answer("", ("so_1", "structured_output", {"a": HOSTILE})) if tools else f'{{"a": "{HOSTILE}"}}'
    )
    host = ScriptedHost(answer, "fine")
    async with connect(era, host, tools=tools, server=server()) as client:
        bad = await client.call_tool(tool, {**BASE[tool], "output_schema": evil_object()})
        good = await client.call_tool("generate", {"prompt": "next"})
    assert bad.is_error
    assert bad.content[0].text == (
        f"{tool}: output_schema: the host's answer "
        + TIMED_OUT.format(where="/properties/a/pattern")
        + ". The host was asked; its answer was not used."
    )
    assert HOSTILE not in bad.content[0].text  # the answer itself is never quoted
    assert good.content[0].text == "fine"


async def test_a_timed_out_check_is_not_repaired(era: str) -> None:
    # The same pattern would run out of time on the model's next answer: no repair round is spent.
    host = ScriptedHost(f'{{"a": "{HOSTILE}"}}', '{"a": "aaa"}')
    async with connect(era, host, server=server()) as client:
        bad = await client.call_tool(
            "generate", {"prompt": "q", "persona": {"name": "p", "output_schema": evil_object()}}
        )
    assert bad.is_error
    assert host.asked == 1
    assert bad.content[0].text == (
        "generate: persona.output_schema: persona 'p': the host's answer "
        + TIMED_OUT.format(where="/properties/a/pattern")
        + ". The host was asked; its answer was not used."
    )


@pytest.mark.parametrize("tool", list(BASE))
async def test_a_hostile_persona_input_schema_is_refused_before_anything_is_sent(era: str, tool: str) -> None:
    persona = {"name": "p", "input_schema": evil_object("model")}
    host = ScriptedHost("fine")
    async with connect(era, host, server=server()) as client:
        bad = await client.call_tool(tool, {**BASE[tool], "model": HOSTILE, "persona": persona})
        good = await client.call_tool(tool, {**BASE[tool], "model": "aaaa", "persona": persona})
    assert bad.is_error
    assert bad.content[0].text == (
        f"{tool}: persona.input_schema: persona 'p': the request "
        + TIMED_OUT.format(where="/properties/model/pattern")
        + ". Nothing was sent to the host."
    )
    assert host.asked == 1  # only the good call reached the host
    assert not good.is_error, good.content[0].text


async def test_a_pattern_that_matches_in_time_is_checked_as_before(era: str) -> None:
    host = ScriptedHost('{"a": "aaaa"}', '{"a": "b"}')
    async with connect(era, host, server=server()) as client:
        ok = await client.call_tool(
            "generate", {"prompt": "q", "persona": {"name": "p", "output_schema": evil_object()}}
        )
        bad = await client.call_tool(
            "generate", {"prompt": "q", "persona": {"name": "p", "output_schema": evil_object()}}
        )
    assert not ok.is_error, ok.content[0].text
    assert bad.content[0].text == (
        "generate: persona.output_schema: persona 'p': the host's answer violates it at JSON pointer '/a': "
        f"does not match the pattern '{EVIL}' (schema /properties/a/pattern). The host was asked; its answer "
        "was not used."
    )


# --- every keyword that matches a pattern is bounded --------------------------------------------

KEYWORDS = [
    ({"type": "object", "properties": {"a": {"pattern": EVIL}}}, {"a": HOSTILE}, "/properties/a/pattern"),
    ({"type": "object", "propertyNames": {"pattern": EVIL}}, {HOSTILE: 1}, "/propertyNames/pattern"),
    ({"type": "object", "patternProperties": {EVIL: {}}}, {HOSTILE: 1}, f"/patternProperties/{EVIL}"),
    (
        {"type": "object", "patternProperties": {EVIL: {}}, "additionalProperties": False},
        {HOSTILE: 1},
        f"/patternProperties/{EVIL}",
    ),
    (
        {"type": "object", "allOf": [{"patternProperties": {EVIL: {}}}], "unevaluatedProperties": False},
        {HOSTILE: 1},
        f"/allOf/0/patternProperties/{EVIL}",
    ),
    (
        {"type": "object", "$defs": {"s": {"pattern": EVIL}}, "items": {"$ref": "#/$defs/s"}},
        {"x": 1},
        None,  # no string meets the pattern: nothing to time out
    ),
    (
        {
            "type": "object",
            "properties": {"l": {"type": "array", "items": {"$ref": "#/$defs/s"}}},
            "$defs": {"s": {"pattern": EVIL}},
        },
        {"l": ["aa", HOSTILE]},
        "/$defs/s/pattern",
    ),
]


@pytest.mark.parametrize(("schema", "instance", "where"), KEYWORDS)
def test_every_pattern_keyword_is_bounded(schema: dict[str, Any], instance: Any, where: str | None) -> None:
    schemas.check_object_schema(schema, "output_schema")
    token = patterns.TIME_BOUND.set(BOUND)
    try:
        if where is None:
            assert schemas.first_violation(schema, instance) is None
            return
        with pytest.raises(patterns.SchemaTimeout) as caught:
            schemas.first_violation(schema, instance)
    finally:
        patterns.TIME_BOUND.reset(token)
    assert caught.value.where == where
    assert caught.value.bound == BOUND
    assert caught.value.pattern == EVIL


def test_additional_properties_matches_the_joined_patterns_within_the_bound() -> None:
    # jsonschema matches `"|".join(patternProperties)` for additionalProperties: that whole pattern
    # is what runs out of time, and the error points at the patternProperties it came from.
    schema = {"type": "object", "patternProperties": {"^x$": {}, EVIL: {}}, "additionalProperties": False}
    token = patterns.TIME_BOUND.set(BOUND)
    try:
        with pytest.raises(patterns.SchemaTimeout) as caught:
            schemas.first_violation(schema, {HOSTILE: 1})
    finally:
        patterns.TIME_BOUND.reset(token)
    assert caught.value.pattern in (f"^x$|{EVIL}", f"{EVIL}|^x$")
    assert caught.value.where == "/patternProperties"


def test_outside_a_check_jsonschema_matches_with_re_as_before() -> None:
    # The stand-in leaves every other user of jsonschema in the process unchanged.
    from jsonschema import Draft202012Validator

    patterns.install()
    assert Draft202012Validator({"pattern": "^a+$"}).is_valid("aaa")
    assert not Draft202012Validator({"pattern": "^a+$"}).is_valid("b")


@pytest.mark.parametrize(
    ("pattern", "accepted"),
    [("(?<name>x)", True), ("(?<=a)b", True), ("\\p{L}+", True), ("(x", False), ("[^]", False)],
)
def test_a_schema_pattern_must_compile_for_the_engine_that_matches_it(pattern: str, accepted: bool) -> None:
    schema = {"type": "object", "properties": {"a": {"pattern": pattern}}}
    if accepted:
        assert schemas.check_object_schema(schema, "output_schema") is schema
        return
    with pytest.raises(Exception) as caught:
        schemas.check_object_schema(schema, "output_schema")
    assert caught.value.path == "output_schema.properties.a.pattern"  # type: ignore[attr-defined]
    assert "is not a 'regex'" in caught.value.reason  # type: ignore[attr-defined]


# --- over real stdio, with the flag --------------------------------------------------------------


@pytest.mark.stdio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_schema_timeout_flag_over_stdio(mode: str) -> None:
    params = server_params("serve", "--schema-timeout", "0.05")
    persona = {"name": "p", "input_schema": evil_object("prompt")}
    host = ScriptedHost("fine")
    async with Client(params, mode=mode, sampling_callback=host) as client:
        bad = await client.call_tool("generate", {"prompt": HOSTILE, "persona": persona})
        good = await client.call_tool("generate", {"prompt": "aaa", "persona": persona})
    assert bad.content[0].text == (
        "generate: persona.input_schema: persona 'p': the request "
        + TIMED_OUT.format(where="/properties/prompt/pattern")
        + ". Nothing was sent to the host."
    )
    assert good.content[0].text == "fine"


@pytest.mark.stdio
@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf"])
def test_schema_timeout_flag_refuses_a_bad_value(value: str) -> None:
    done = run_command("serve", "--schema-timeout", value)
    assert done.returncode == 2
    assert "--schema-timeout" in done.stderr


async def test_a_callers_schema_is_checked_off_the_event_loop(
    era: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checking a caller's schema costs in proportion to its size: it must not hold up other
    requests. The check here waits until a concurrent list_models has been answered, which can
    only happen if the check is not running on the event loop (on it, the wait runs out: False)."""
    import threading

    import anyio

    from agent_as_model.adapters.dialects import options

    started, released = threading.Event(), threading.Event()
    waited: list[bool] = []
    real = options.check_object_schema

    def check(value: object, path: str) -> dict[str, Any]:
        started.set()
        waited.append(released.wait(timeout=20))
        return real(value, path)

    monkeypatch.setattr(options, "check_object_schema", check)
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    host = ScriptedHost('{"a": 1}')
    results: list[Any] = []
    async with connect(era, host) as client, anyio.create_task_group() as group:

        async def call() -> None:
            results.append(
                await client.call_tool("chat_complete", {**BASE["chat_complete"], "output_schema": schema})
            )

        group.start_soon(call)
        await anyio.to_thread.run_sync(started.wait, 20)
        listed = await client.call_tool("list_models", {})
        released.set()
    assert not listed.is_error
    assert waited and all(waited), waited
    assert results[0].content[0].text == '{"a": 1}'
