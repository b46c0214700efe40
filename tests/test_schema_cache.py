"""A caller's schema is checked once: by the digest of its canonical JSON, in caches bounded in
entries and size, and not at all on a 2026-07-28 retry that takes what round one read. A new or
changed schema is still checked in full."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client
from mcp_types import CreateMessageRequestParams

from agent_as_model import schemas
from agent_as_model.adapters.tools import definitions
from agent_as_model.caches import BoundedCache
from agent_as_model.errors import CallError
from tests.helpers import server_params, text_of
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio


def tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": properties}},
    }


TOOLS = [tool("lookup", {"city": {"type": "string"}}), tool("book", {"days": {"type": "integer"}})]
WIDE = {"type": "object", "properties": {f"f{n}": {"type": "string"} for n in range(50)}}
# Tools and an output contract do not go together (structured output is itself one required
# tool), so a call carries one or the other.
ARGUMENTS: dict[str, Any] = {"messages": [{"role": "user", "content": "q"}], "tools": TOOLS}
SCHEMA_ARGUMENTS: dict[str, Any] = {"messages": [{"role": "user", "content": "q"}], "output_schema": WIDE}


def test_an_equal_schema_is_checked_once_whatever_its_key_order(checked_in_full: Callable[[], int]) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
    reordered = {"properties": {"b": {"type": "integer"}, "a": {"type": "string"}}, "type": "object"}
    found = schemas.stats()["found_checked"]
    assert schemas.check_object_schema(schema, "output_schema") is schema
    assert schemas.check_object_schema(reordered, "tools[0].parameters") is reordered
    assert checked_in_full() == 1
    assert schemas.stats()["found_checked"] == found + 1  # the reordered one was found


def test_a_changed_schema_is_checked_in_full_and_its_error_names_its_path(
    checked_in_full: Callable[[], int],
) -> None:
    schemas.check_object_schema({"type": "object", "properties": {"a": {"type": "string"}}}, "output_schema")
    for path in ("output_schema", "tools[1].function.parameters"):
        with pytest.raises(CallError) as raised:
            schemas.check_object_schema({"type": "object", "properties": {"a": {"type": 7}}}, path)
        assert raised.value.path == f"{path}.properties.a.type"
    # A failing schema is never remembered: each time it is checked again, and fails again.
    assert checked_in_full() == 3


async def test_a_retry_that_reads_its_arguments_again_checks_what_no_cache_holds(
    checked_in_full: Callable[[], int],
) -> None:
    """2026-07-28: a proven retry whose round one's reading is not remembered (another worker's,
    evicted) reads its arguments in full, like any call: a schema no cache holds is checked again,
    and the call answers the same."""
    from agent_as_model.states import recall

    def forget_everything(params: CreateMessageRequestParams) -> str:
        recall.forget_all()
        schemas.forget_checked()
        return '{"f1": "x"}'

    async with connect("2026-07-28", ScriptedHost(forget_everything)) as client:
        structured = await client.call_tool("chat_complete", SCHEMA_ARGUMENTS)
    assert structured.structured_content == {"f1": "x"}, text_of(structured)
    assert checked_in_full() == 2  # round one, and the retry in full


def test_the_cache_is_bounded_in_entries_and_in_size() -> None:
    cache = BoundedCache(capacity=100, max_entries=3)
    for n in range(5):
        cache.put(n, str(n), 10)
    assert len(cache) == 3 and cache.get(0) is None and cache.get(4) == "4"
    cache.get(2)  # used: the least recently used (3) goes first
    cache.put("big", "x", 80)
    assert cache.held <= 100 and cache.get(3) is None and cache.get(2) == "2" and cache.get("big") == "x"
    cache.put("too big", "y", 101)  # larger than the whole capacity: not kept
    assert cache.get("too big") is None and cache.held <= 100


def test_the_validators_stay_within_their_bounds() -> None:
    for n in range(schemas.VALIDATOR_CACHE_SIZE + 40):
        schemas.validator_for({"type": "object", "properties": {f"p{n}": {"type": "string"}}})
    held = schemas.stats()
    assert held["validators"] <= schemas.VALIDATOR_CACHE_SIZE
    assert held["validator_bytes"] <= schemas.VALIDATOR_CACHE_BYTES


def answer_and_forget(answer: str) -> Any:
    """The host's answer, given after emptying the server's cache of checked schemas (in-process):
    on 2026-07-28 the retry then finds nothing cached, and only round one's reading, which it
    takes, spares the checks."""

    def answered(params: CreateMessageRequestParams) -> str:
        schemas.forget_checked()
        definitions.forget_read()
        return answer

    return answered


async def test_repeated_calls_check_each_schema_once(era: str, checked_in_full: Callable[[], int]) -> None:
    host = ScriptedHost(
        answer_and_forget("a text answer"), answer_and_forget('{"f1": "x"}'), "again", '{"f2": "y"}'
    )
    async with connect(era, host) as client:
        first = await client.call_tool("chat_complete", ARGUMENTS)
        assert not first.is_error, text_of(first)
        assert checked_in_full() == 2  # the two tools' schemas
        structured = await client.call_tool("chat_complete", SCHEMA_ARGUMENTS)
        assert structured.structured_content == {"f1": "x"}, text_of(structured)
        assert checked_in_full() == 3  # and the output schema
        # On 2026-07-28 each retry came after the host emptied the cache: proven by its sealed
        # state, it took round one's reading and checked nothing (the two asserts above hold only
        # so). The host left the cache empty, so the next two calls check in full once more, and
        # only once each.
        before = checked_in_full()
        again = await client.call_tool(
            "chat_complete", {**ARGUMENTS, "messages": [{"role": "user", "content": "r"}]}
        )
        assert not again.is_error, text_of(again)
        structured = await client.call_tool("chat_complete", SCHEMA_ARGUMENTS)
        assert structured.structured_content == {"f2": "y"}, text_of(structured)
    assert checked_in_full() - before == 3  # the two tools' schemas and the output schema
    assert host.asked == 4


async def test_a_schema_seen_before_is_not_checked_again(
    era: str, checked_in_full: Callable[[], int]
) -> None:
    host = ScriptedHost("one", "two", '{"f1": "x"}', '{"f1": "y"}')
    async with connect(era, host) as client:
        for arguments in (ARGUMENTS, ARGUMENTS, SCHEMA_ARGUMENTS, SCHEMA_ARGUMENTS):
            result = await client.call_tool("chat_complete", arguments)
            assert not result.is_error, text_of(result)
    assert checked_in_full() == 3  # the two tools' schemas and the output schema, once each
    assert host.asked == 4


async def test_a_changed_schema_after_cached_ones_is_refused_with_its_path(
    era: str, checked_in_full: Callable[[], int]
) -> None:
    host = ScriptedHost("one", "two")
    async with connect(era, host) as client:
        assert not (await client.call_tool("chat_complete", ARGUMENTS)).is_error
        broken = [TOOLS[0], tool("book", {"days": {"type": "integr"}})]
        refused = await client.call_tool("chat_complete", {**ARGUMENTS, "tools": broken})
        assert refused.is_error
        assert "tools[1].function.parameters.properties.days.type" in text_of(refused)
        assert "Nothing was sent to the host" in text_of(refused)
        again = await client.call_tool("chat_complete", ARGUMENTS)  # the next call works
        assert not again.is_error, text_of(again)
    assert host.asked == 2


@pytest.mark.stdio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_cached_schemas_over_real_stdio(mode: str) -> None:
    host = ScriptedHost("text", '{"f1": "x"}', "text", '{"f1": "x"}')
    params = server_params()
    async with Client(params, mode=mode, sampling_callback=host) as client:
        for _ in range(2):
            plain = await client.call_tool("chat_complete", ARGUMENTS)
            assert not plain.is_error, text_of(plain)
            structured = await client.call_tool("chat_complete", SCHEMA_ARGUMENTS)
            assert structured.structured_content == {"f1": "x"}, text_of(structured)
        broken = {**SCHEMA_ARGUMENTS, "output_schema": {**WIDE, "required": "f1"}}
        refused = await client.call_tool("chat_complete", broken)
        assert refused.is_error and "output_schema.required" in text_of(refused)
    assert host.asked == 4
