"""The work of one request is linear and bounded, and stops when its bound is
hit. A conversation and its tool results are read in one pass; a host's fenced answer is found
by a scan, never a backtracking regular expression; a caller's schema has a budget of steps
counted inside the validator, and patterns a bound on their compiled size; large inputs and
schema checks run in the server's own worker threads, never in the transport's. (How long a
concurrent call waits meanwhile is measured by benchmarks/bench_hostile.py, not here.)"""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_as_model.states.fence import fenced_body

# The expression the scan replaces: what it finds is what the scan must find.
OLD_FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\r?\n(.*?)\r?\n?```", re.DOTALL | re.IGNORECASE)


def old_fence(text: str) -> str | None:
    found = OLD_FENCE.search(text)
    return found.group(1) if found else None


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(st.sampled_from(["`", "```", " ", "\t", "\n", "\r", "json", "JSON", "Json", "x", "{}"])).map(
        "".join
    )
)
def test_the_fence_scan_finds_what_the_expression_found(text: str) -> None:
    assert fenced_body(text) == old_fence(text)


def test_the_fence_scan_reads_a_fence_and_a_long_run_of_blanks() -> None:
    # What the scan is for: the expression's two `[ \t]*` side by side backtracked in its square.
    assert fenced_body("```" + " " * 60_000) is None
    assert fenced_body("```" + " \t" * 30_000 + "json" + " " * 30_000 + "\n{}\n```") == "{}"


# --- a caller's schema has a budget it cannot escape ---------------------------------------------

from typing import Any  # noqa: E402

import anyio  # noqa: E402
import pytest  # noqa: E402
from mcp import Client  # noqa: E402

from agent_as_model import patterns  # noqa: E402
from agent_as_model.engine import offload  # noqa: E402
from agent_as_model.limits import Limits  # noqa: E402
from agent_as_model.server import build_server  # noqa: E402
from tests.helpers import server_params  # noqa: E402
from tests.scripted_host import ScriptedHost, connect  # noqa: E402

# Checking fan_out(40) itself against the meta-schema takes some 3,500 steps; its 2**40 paths take
# any number.
STEPS = 5000
OVER = f"could not be checked within its budget: the check took more than {STEPS} steps (--schema-steps"


def fan_out(depth: int, combinator: str) -> dict[str, Any]:
    """Each level refers twice to the next: 2**depth paths, in a few KB; the leaf takes only an
    integer, so a string meets every path."""
    defs: dict[str, Any] = {
        f"d{i}": {combinator: [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(depth)
    }
    defs[f"d{depth}"] = {"type": "integer"}
    return {"type": "object", "$defs": defs, "properties": {"prompt": {"$ref": "#/$defs/d0"}}}


def bounded_server() -> Any:
    return build_server(limits=Limits(schema_steps=STEPS))


@pytest.mark.anyio
@pytest.mark.parametrize("combinator", ["allOf", "anyOf", "oneOf"])
async def test_ref_fan_out_in_a_persona_input_schema_stops_at_its_budget(era: str, combinator: str) -> None:
    host = ScriptedHost("fine")
    persona = {"name": "p", "input_schema": fan_out(40, combinator)}
    async with connect(era, host, server=bounded_server()) as client:
        bad = await client.call_tool("generate", {"prompt": "q", "persona": persona})
        good = await client.call_tool("generate", {"prompt": "next"})
        # The thread that ran the check has returned: nothing runs on after the call.
        assert offload.limiter().borrowed_tokens == 0
    assert bad.is_error
    text = bad.content[0].text
    assert text.startswith(f"generate: persona.input_schema: persona 'p': the request {OVER}"), text
    assert text.endswith("Nothing was sent to the host.")
    assert host.asked == 1 and good.content[0].text == "fine"


@pytest.mark.anyio
async def test_an_answer_checked_against_a_fan_out_schema_stops_and_is_not_repaired(era: str) -> None:
    schema = fan_out(40, "oneOf")
    schema["properties"] = {"a": {"$ref": "#/$defs/d0"}}
    host = ScriptedHost('{"a": "x"}', '{"a": 1}')
    async with connect(era, host, server=bounded_server()) as client:
        bad = await client.call_tool(
            "chat_complete",
            {"messages": [{"role": "user", "content": "q"}], "output_schema": schema, "repair_attempts": 2},
        )
    assert bad.is_error
    assert bad.content[0].text == (
        f"chat_complete: output_schema: the host's answer {patterns.TooManySteps(STEPS).reason()}. "
        "The host was asked; its answer was not used."
    )
    assert host.asked == 1  # the same schema would spend its budget on the next answer too


@pytest.mark.anyio
async def test_unique_items_over_thousands_of_objects_is_linear_and_right(era: str) -> None:
    schema = {
        "type": "object",
        "properties": {"m": {"type": "array", "uniqueItems": True}},
    }
    items = [{"role": "user", "content": f"x{i}", "n": i * 1.0} for i in range(6000)]
    same = {"n": 5, "content": "x5", "role": "user"}  # equal to items[5]: 5 == 5.0, key order aside
    host = ScriptedHost(json.dumps({"m": items}), json.dumps({"m": [*items, same]}))
    async with connect(era, host) as client:
        base = {"messages": [{"role": "user", "content": "q"}], "output_schema": schema}
        good = await client.call_tool("chat_complete", base)
        bad = await client.call_tool("chat_complete", base)
    assert not good.is_error and json.loads(good.content[0].text)["m"] == items
    assert bad.is_error
    assert (
        "violates the schema at JSON pointer '/m': items must be unique (schema /properties/m/uniqueItems)"
        in (bad.content[0].text)
    )


@pytest.mark.anyio
@pytest.mark.parametrize("pattern", ["(?:a{1000}){1000}", "((((a{100}){100}){100}){100})"])
async def test_a_pattern_too_large_to_compile_is_refused_with_its_reason(era: str, pattern: str) -> None:
    host = ScriptedHost("unused")
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": pattern}}}
    async with connect(era, host) as client:
        bad = await client.call_tool(
            "chat_complete", {"messages": [{"role": "user", "content": "q"}], "output_schema": schema}
        )
    assert bad.content[0].text == (
        f"chat_complete: output_schema.properties.a.pattern: the pattern {pattern!r} is refused: it would "
        f"compile to more than {patterns.MAX_PATTERN_SIZE} items (its counted repeats, such as {{1000}}, "
        "multiply out when nested). Nothing was sent to the host."
    )
    assert host.asked == 0


@pytest.mark.parametrize(
    ("pattern", "size"),
    [
        ("^[a-z]{1,64}$", 66),
        ("a{3}b", 4),
        ("(?:ab){3}", 9),  # the group's syntax (":") counts too: an over-estimate only
        ("x{,5}", 5),
        ("a{x}", 4),  # a literal brace
        (r"\d{10}", 10),
        ("[{]{9}", 9),
        ("(?:a{1000}){1000}", patterns.MAX_PATTERN_SIZE + 1),
    ],
)
def test_compiled_size_multiplies_nested_counts(pattern: str, size: int) -> None:
    assert patterns.compiled_size(pattern) == size


def test_compiled_patterns_are_cached_within_a_bound_on_their_size() -> None:
    for i in range(40):
        with patterns.bounded({}):
            patterns.install()
            assert patterns.compiles(f"(?:x{i}){{{patterns.MAX_PATTERN_SIZE // 4}}}")
    assert patterns.cached_size() <= patterns.CACHE_SIZE


# --- request work cannot starve I/O, and large inputs leave the loop ----------------------------


def tool_conversation(n: int) -> list[dict[str, Any]]:
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in range(n)
    ]
    results = [{"role": "tool", "tool_call_id": f"c{i}", "content": f"r{i}"} for i in reversed(range(n))]
    return [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *results,
    ]


@pytest.mark.anyio
async def test_a_large_conversation_is_read_in_the_servers_own_threads(era: str) -> None:
    """With every one of the server's worker threads held, a call of 5,000 tool results waits for
    one while list_models (on the loop) still answers; once they are free, it is answered (on a
    server whose --max-entries takes them)."""
    host = ScriptedHost(lambda params: f"{len(params.messages[-1].content_as_list)} results")
    results: list[Any] = []
    server = build_server(limits=Limits(max_entries=40_000))  # 30,002 entries, tool calls weighed
    async with connect(era, host, server=server) as client, anyio.create_task_group() as group:
        limiter = offload.limiter()
        holders = [object() for _ in range(offload.WORKERS)]
        for holder in holders:
            await limiter.acquire_on_behalf_of(holder)

        async def call() -> None:
            results.append(await client.call_tool("chat_complete", {"messages": tool_conversation(5000)}))

        group.start_soon(call)
        listed = await client.call_tool("list_models", {})
        assert not listed.is_error and not results  # the large call waits for a worker thread
        for holder in holders:
            limiter.release_on_behalf_of(holder)
    assert results[0].content[0].text == "5000 results"


@pytest.mark.anyio
async def test_schema_checks_do_not_wait_for_the_default_threads(era: str) -> None:
    """The transports' blocking I/O uses anyio's default threads; with all of those held, a call
    whose schema is checked in a worker thread is still answered (it uses the server's own)."""
    default = anyio.to_thread.current_default_thread_limiter()
    host = ScriptedHost('{"a": 1}')
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    async with connect(era, host) as client:
        holders = [object() for _ in range(int(default.total_tokens))]
        for holder in holders:
            await default.acquire_on_behalf_of(holder)
        try:
            with anyio.fail_after(60):
                done = await client.call_tool(
                    "chat_complete", {"messages": [{"role": "user", "content": "q"}], "output_schema": schema}
                )
        finally:
            for holder in holders:
                default.release_on_behalf_of(holder)
    assert done.content[0].text == '{"a": 1}'


@pytest.mark.anyio
async def test_gemini_answers_thousands_of_responses_in_any_order(era: str) -> None:
    n = 3000
    calls = [{"functionCall": {"name": "f", "args": {}, "id": f"c{i}"}} for i in range(n)]
    answers = [
        {"functionResponse": {"name": "f", "id": f"c{i}", "response": {"r": i}}} for i in reversed(range(n))
    ]
    contents = [
        {"role": "user", "parts": [{"text": "q"}]},
        {"role": "model", "parts": calls},
        {"role": "user", "parts": answers},
    ]
    host = ScriptedHost(lambda params: params.messages[-1].content_as_list[0].tool_use_id)
    server = build_server(limits=Limits(max_entries=20_000))  # 18,003 entries, tool calls weighed
    async with connect(era, host, tools=True, server=server) as client:
        done = await client.call_tool("gemini_generate_content", {"contents": contents})
    assert not done.is_error, done.content[0].text
    assert f"c{n - 1}" in done.content[0].text


@pytest.mark.anyio
@pytest.mark.stdio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_schema_steps_flag_over_stdio(mode: str) -> None:
    params = server_params("serve", "--schema-steps", str(STEPS), "--max-entries", "20000")
    persona = {"name": "p", "input_schema": fan_out(40, "anyOf")}
    host = ScriptedHost("fine")
    async with Client(params, mode=mode, sampling_callback=host) as client:
        bad = await client.call_tool("generate", {"prompt": "q", "persona": persona})
        good = await client.call_tool("chat_complete", {"messages": tool_conversation(2000)})
    assert OVER in bad.content[0].text and bad.content[0].text.endswith("Nothing was sent to the host.")
    assert good.content[0].text == "fine"


@pytest.mark.parametrize("combinator", ["oneOf", "anyOf"])
def test_a_spent_budget_leaves_no_errors_for_the_collector(combinator: str) -> None:
    """jsonschema links a combinator's errors to their parent both ways; a check stopped by its
    budget drops those links, so its errors go with its frames and no full collection (a second
    or more holding the GIL, benchmarks/README.md) is left to free them."""
    import gc

    from jsonschema.exceptions import ValidationError

    from agent_as_model import schemas

    gc.collect()
    token = patterns.STEP_BOUND.set(STEPS)
    try:
        with pytest.raises(patterns.TooManySteps):
            schemas.first_violation(fan_out(40, combinator), {"prompt": "s"})
    finally:
        patterns.STEP_BOUND.reset(token)
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        left = sum(isinstance(found, ValidationError) for found in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == 0
