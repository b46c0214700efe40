"""Tool definitions read once: an array of definitions a call repeats is kept by the
array as written (every type and key order), in a cache bounded in entries and bytes; a changed
definition is read and checked again, and a kept reading sends the host byte for byte the same
sampling request as a fresh one."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client
from mcp_types import SamplingCapability, SamplingToolsCapability, TextContent

from agent_as_model.adapters.tools import definitions
from agent_as_model.engine import driver
from agent_as_model.states import build
from tests.agent_loop import tool_answer
from tests.helpers import server_params, text_of
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio


def tool(name: str, properties: dict[str, Any], description: str = "Looks it up.") -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"properties": properties, "required": list(properties), "type": "object"},
        },
    }


TOOLS = [
    tool("lookup", {"city": {"type": "string"}}),
    tool("weather.get", {"days": {"type": "integer", "minimum": 1}}, "d" * 1500),  # renamed, cut
]
MESSAGES = [{"role": "user", "content": "q"}]


def wire_json(host: ScriptedHost, index: int) -> str:
    return json.dumps(host.wire(index))  # key order kept: the bytes the host's side decoded


async def test_a_kept_reading_sends_the_same_bytes_as_a_fresh_one(
    era: str, checked_in_full: Callable[[], int]
) -> None:
    host = ScriptedHost("one", "two", "three")
    async with connect(era, host, tools=True) as client:
        for n in range(3):
            if n == 2:
                definitions.forget_read()  # read afresh, from the caller's arrays (schemas: cached)
                build.forget_forwards()
            result = await client.call_tool(
                "chat_complete", {"messages": MESSAGES, "tools": copy.deepcopy(TOOLS)}
            )
            assert not result.is_error, text_of(result)
    assert host.asked == 3
    assert wire_json(host, 0) == wire_json(host, 1) == wire_json(host, 2)
    sent = host.wire(1)["tools"]
    assert [t["name"] for t in sent] == ["lookup", definitions_host_name("weather.get")]
    assert sent[0]["inputSchema"] == TOOLS[0]["function"]["parameters"]
    assert len(sent[1]["description"]) <= 1024
    # Both schemas were checked once, on the first call: the kept reading checked nothing.
    assert checked_in_full() == 2


def definitions_host_name(name: str) -> str:
    from agent_as_model.adapters.tools.names import host_name

    return host_name(name)


async def test_a_changed_definition_is_read_and_checked_again(
    era: str, checked_in_full: Callable[[], int]
) -> None:
    host = ScriptedHost("one", "two", "three")
    async with connect(era, host, tools=True) as client:
        assert not (await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": TOOLS})).is_error
        changed = [TOOLS[0], tool("weather.get", {"days": {"type": "integer", "minimum": 2}})]
        result = await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": changed})
        assert not result.is_error, text_of(result)
        assert host.wire()["tools"][1]["inputSchema"]["properties"]["days"]["minimum"] == 2
        assert checked_in_full() == 3  # both on the first call, then the changed one in full
        broken = [TOOLS[0], tool("weather.get", {"days": {"type": "integr"}})]
        refused = await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": broken})
        assert refused.is_error
        assert "tools[1].function.parameters.properties.days.type" in text_of(refused)
        assert "Nothing was sent to the host" in text_of(refused)
        renamed = [TOOLS[0], {**TOOLS[0], "function": {**TOOLS[0]["function"], "name": "lookup"}}]
        duplicate = await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": renamed})
        assert duplicate.is_error and "duplicate tool name 'lookup'" in text_of(duplicate)
        again = await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": TOOLS})
        assert not again.is_error, text_of(again)
    assert host.asked == 3


async def test_arrays_equal_in_python_but_not_as_json_are_read_apart(
    era: str, checked_in_full: Callable[[], int]
) -> None:
    """`1 == 1.0 == True` and dicts compare equal in any key order, but each is another JSON text
    and another reading: the key says every type and the order, so none shares a kept reading."""
    host = ScriptedHost("one", "two", "three")
    schema = {"type": "object", "properties": {"days": {"type": "integer", "minimum": 1}}}
    async with connect(era, host, tools=True) as client:
        for minimum in (1, 1.0):
            schema["properties"]["days"]["minimum"] = minimum
            given = [{"name": "lookup", "input_schema": copy.deepcopy(schema)}]
            result = await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": given})
            assert not result.is_error, text_of(result)
            assert json.dumps(host.wire()["tools"][0]["inputSchema"]["properties"]["days"]["minimum"]) == (
                json.dumps(minimum)
            )
        schema["properties"]["days"]["minimum"] = True  # not a number: refused, not taken as 1
        given = [{"name": "lookup", "input_schema": schema}]
        refused = await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": given})
        assert refused.is_error, text_of(refused)
        assert "tools[0].input_schema.properties.days.minimum" in text_of(refused)
        schema["properties"]["days"]["minimum"] = 1
        turned = {"properties": schema["properties"], "type": "object"}  # the same, keys turned
        given = [{"name": "lookup", "input_schema": turned}]
        result = await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": given})
        assert not result.is_error, text_of(result)
        if era == "legacy":  # (the 2026-07-28 client's model of an input request puts `type` first)
            assert list(host.wire()["tools"][0]["inputSchema"]) == ["properties", "type"]
    assert host.asked == 3
    # Each read apart: three kept readings (the refused one is not kept); the schema checks are
    # keyed by the canonical (sorted) text, so the turned keys' schema was not checked again.
    assert definitions.read_count() == 3
    assert checked_in_full() == 3


async def test_a_kept_forward_serves_only_calls_that_offer_the_tools_as_they_are(era: str) -> None:
    """What kept tools become for the host (their names both ways, the MCP tools) is kept beside
    them (`build._kept_forward`) and serves each call that forwards them all: a named choice still
    sends its tool alone, a tool turn's name still joins the map, and a host's call of a renamed
    tool maps back to the caller's name on every round."""
    definitions.forget_read()
    build.forget_forwards()
    renamed = definitions_host_name("weather.get")
    host = ScriptedHost(
        tool_answer("", ("c1", renamed, {"days": 2})),
        tool_answer("", ("c9", "lookup", {"city": "Oslo"})),
        tool_answer("", ("c2", renamed, {"days": 3})),
        "turn",
    )
    named = {"type": "function", "function": {"name": "lookup"}}
    history = [
        *MESSAGES,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c0", "type": "function", "function": {"name": "old.one", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c0", "content": "done"},
    ]
    async with connect(era, host, tools=True) as client:
        calls = [
            {"messages": MESSAGES, "tools": TOOLS},
            {"messages": MESSAGES, "tools": TOOLS, "tool_choice": named},
            {"messages": MESSAGES, "tools": TOOLS},
            {"messages": history, "tools": TOOLS},
        ]
        texts = []
        for n, arguments in enumerate(calls):
            result = await client.call_tool("chat_complete", copy.deepcopy(arguments))
            assert not result.is_error, text_of(result)
            texts.append(text_of(result))
            sent = host.wire()
            if n == 1:
                assert [t["name"] for t in sent["tools"]] == ["lookup"]
                assert sent["toolChoice"] == {"mode": "required"}
            else:
                assert [t["name"] for t in sent["tools"]] == ["lookup", renamed]
                assert "toolChoice" not in sent
            if n == 3:  # the earlier call of a renamed tool goes to the host under its host name
                assert sent["messages"][1]["content"]["name"] == definitions_host_name("old.one")
    for text in (texts[0], texts[2]):  # the host's call of the renamed tool, under the caller's name
        assert [c["name"] for c in json.loads(text)["tool_calls"]] == ["weather.get"]
    assert [c["name"] for c in json.loads(texts[1])["tool_calls"]] == ["lookup"]
    assert texts[3] == "turn"
    assert host.asked == 4
    assert wire_json(host, 0) == wire_json(host, 2)


async def test_the_retry_puts_the_tools_to_the_host_as_round_one_did(
    era: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proven 2026-07-28 retry takes round one's plan (the tools' names both ways) with its
    request: the plan is made once per call on both eras, and the retry still maps the host's
    call of a renamed tool back to the caller's name."""
    made = []
    plan_for = build.plan_for

    def counted(*args: Any) -> Any:
        made.append(args[0].tool)
        return plan_for(*args)

    monkeypatch.setattr(build, "plan_for", counted)
    renamed = definitions_host_name("weather.get")
    host = ScriptedHost(tool_answer("", ("c1", renamed, {"days": 2})), "two")
    async with connect(era, host, tools=True) as client:
        first = await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": TOOLS})
        second = await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": TOOLS})
    assert not first.is_error and not second.is_error, (text_of(first), text_of(second))
    assert [c["name"] for c in json.loads(text_of(first))["tool_calls"]] == ["weather.get"]
    assert text_of(second) == "two"
    assert made == ["chat_complete", "chat_complete"]  # once per call, not once per round
    assert host.asked == 2


async def test_known_tools_validate_on_the_event_loop_and_new_ones_off_it(
    era: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call whose only schemas are definitions read before validates on the event loop (the
    thread hop cost more than the work); one with a new or changed schema still validates in a
    worker thread, where its check cannot hold up other requests. Every trigger goes through the
    driver's `fire`, also when `off_loop` runs it, so the thread it ran in tells which it was."""
    definitions.forget_read()
    loop_thread = threading.get_ident()  # the test's coroutine runs on the in-process server's loop
    fired = driver.fire
    validated: list[bool] = []  # per request's reading: whether it ran on the event loop's thread

    def noting(record: Any, trigger: str, *args: Any) -> Any:
        if trigger in ("validate", "resume"):  # round one reads; a proven retry resumes
            validated.append(threading.get_ident() == loop_thread)
        return fired(record, trigger, *args)

    monkeypatch.setattr(driver, "fire", noting)
    changed = [TOOLS[0], tool("weather.get", {"days": {"type": "integer", "minimum": 3}})]
    rounds = 2 if era == "2026-07-28" else 1  # on 2026-07-28 the retry resumes
    host = ScriptedHost("one", "two", "three", "four")
    async with connect(era, host, tools=True) as client:
        seen: list[list[bool]] = []
        for tools in (TOOLS, TOOLS, changed, changed):
            result = await client.call_tool(
                "chat_complete", {"messages": MESSAGES, "tools": copy.deepcopy(tools)}
            )
            assert not result.is_error, text_of(result)
            seen.append(validated[:])
            validated.clear()
    assert [len(s) for s in seen] == [rounds] * 4
    # New definitions: round one in a worker thread; a retry reads nothing, on the loop.
    assert seen[0] == seen[2] == [False] + [True] * (rounds - 1)
    # Known definitions: every round on the loop.
    assert seen[1] == [True] * rounds and seen[3] == [True] * rounds
    assert host.asked == 4
    definitions.forget_read()


def test_the_kept_readings_stay_within_their_bounds() -> None:
    definitions.forget_read()
    shape = definitions_shape()
    for n in range(definitions.READ_CACHE_SIZE + 50):
        definitions.read_tools([tool(f"t{n}", {"p": {"type": "string"}})], "tools", shape)
    assert definitions.read_count() <= definitions.READ_CACHE_SIZE
    assert definitions._READ.held <= definitions.READ_CACHE_BYTES
    big = [tool("big", {f"p{n}": {"type": "string", "description": "x" * 200} for n in range(200)})]
    for n in range(400):  # some 45 KB each: the byte bound, not the count, holds them
        big[0]["function"]["name"] = f"big{n}"
        definitions.read_tools(big, "tools", shape)
    assert definitions._READ.held <= definitions.READ_CACHE_BYTES
    assert definitions.read_count() < definitions.READ_CACHE_SIZE
    definitions.forget_read()


def definitions_shape() -> definitions.ToolShape:
    from agent_as_model.adapters.dialects import DIALECTS

    shape = DIALECTS["chat_complete"].tools
    assert shape is not None
    return shape


def test_a_kept_reading_holds_nothing_of_the_callers() -> None:
    definitions.forget_read()
    shape = definitions_shape()
    given = [tool("lookup", {"city": {"type": "string"}})]
    first = definitions.read_tools(given, "tools", shape)
    given[0]["function"]["parameters"]["properties"]["city"]["type"] = "integer"  # changed after
    same = [tool("lookup", {"city": {"type": "string"}})]
    assert definitions.read_tools(same, "tools", shape) is first
    assert first[0].input_schema["properties"] == {"city": {"type": "string"}}
    definitions.forget_read()


@pytest.mark.stdio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_kept_definitions_over_real_stdio(mode: str) -> None:
    host = ScriptedHost("one", "two", "three")
    params = server_params()
    tools = SamplingCapability(tools=SamplingToolsCapability())
    async with Client(params, mode=mode, sampling_callback=host, sampling_capabilities=tools) as client:
        for _ in range(2):
            result = await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": TOOLS})
            assert not result.is_error, text_of(result)
        broken = [TOOLS[0], tool("weather.get", {"days": {"type": "integr"}})]
        refused = await client.call_tool("chat_complete", {"messages": MESSAGES, "tools": broken})
        assert refused.is_error and "tools[1].function.parameters.properties.days.type" in text_of(refused)
    assert host.asked == 2
    assert wire_json(host, 0) == wire_json(host, 1)


def test_a_round_that_asks_goes_out_as_the_mapping_its_model_dumps_to() -> None:
    # calls.py hands the SDK a 2026-07-28 round one as its wire mapping, each sampling request's
    # tools in the form kept for them (adapters/tools/wire.py): it must be what the SDK would
    # dump the InputRequiredResult to, and sieve to the same wire form, kept tools or not.
    from mcp_types import (
        CreateMessageRequest,
        CreateMessageRequestParams,
        InputRequiredResult,
        SamplingMessage,
        Tool,
    )
    from mcp_types.methods import serialize_server_result

    from agent_as_model.adapters.backends import wire_result
    from agent_as_model.adapters.tools import wire

    schema = {
        "type": "object",
        "properties": {"days": {"type": "integer", "minimum": 1.5}},
        "required": ["days"],
    }
    kept = [Tool(name="lookup", description="Looks it up.", input_schema=schema)]
    fresh = [Tool(name="other", input_schema={"type": "object"})]
    wire.reserve(kept, 100)

    def asking(tools: list[Tool] | None) -> CreateMessageRequest:
        message = SamplingMessage(role="user", content=TextContent(type="text", text="q"))
        params = CreateMessageRequestParams(messages=[message], max_tokens=5, system_prompt="s", tools=tools)
        return CreateMessageRequest(params=params)

    for requests in (
        {"completion": asking(None)},
        {"completion": asking(kept)},
        {"completion_0": asking(kept + fresh), "completion_1": asking(fresh)},  # several (n)
        {"completion_0": asking([]), "completion_1": asking(kept)},  # an empty list is sent as one
    ):
        result = InputRequiredResult(input_requests=requests, request_state="{}")
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        went = wire_result(result)
        if len(requests) == 1 and requests["completion"].params.tools is None:
            assert went is result  # no tools to put in: the SDK dumps the model itself
            continue
        mapped = went if isinstance(went, dict) else {}
        assert mapped == dumped
        sieved = serialize_server_result("tools/call", "2026-07-28", mapped)
        assert json.dumps(sieved) == json.dumps(serialize_server_result("tools/call", "2026-07-28", dumped))
    # Kept tools' forms are the ones kept; any other tools are dumped as the SDK would, also when
    # the entry under the first one's id was kept for other objects after it, or fewer or more.
    assert wire.dumped(kept)[0] is wire.dumped(kept)[0]
    assert wire.dumped(fresh)[0] is not wire.dumped(fresh)[0]
    assert wire.dumped(kept + fresh) == [wire.dump(kept[0]), wire.dump(fresh[0])]
    pair = [Tool(name=name, input_schema={"type": "object"}) for name in ("one", "two")]
    wire.reserve(pair, 1)
    form = wire.dumped(pair)[0]
    assert wire.dumped(pair)[0] is form  # kept
    swapped = [pair[0], Tool(name="two", input_schema={"type": "object"})]  # an equal, other second
    for other in (swapped, pair[:1], [*pair, fresh[0]]):
        again = wire.dumped(other)
        assert again == [wire.dump(tool) for tool in other] and again[0] is not form
    assert wire.dumped([]) == []
    wire.forget()
