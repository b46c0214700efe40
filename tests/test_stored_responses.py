"""Stored responses: `previous_response_id` as the Responses API means it.

Without a store the loss of history is visible; with `--store` the chain is kept, on both eras,
through the real SDK Client against a scripted host.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from mcp_types import CreateMessageRequestParams, InputRequiredResult
from openai.types.responses import Response

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.store import DEFAULT_TTL, SealedStore, StoreSettings
from agent_as_model.engine import stored_responses
from agent_as_model.errors import CallError
from agent_as_model.server import build_server, open_store
from agent_as_model.states.commit import RESULT_META, WARNINGS
from tests import sdk_truth
from tests.agent_loop import tool_answer
from tests.scripted_host import ScriptedHost, connect, text_answer

pytestmark = pytest.mark.anyio

RESP = "resp_" + "ab" * 16


def warnings_of(result: object) -> list[str]:
    meta = getattr(result, "meta", None) or {}
    return list(meta.get(RESULT_META, {}).get(WARNINGS, []))


async def test_without_a_store_a_lost_history_is_said(era: str) -> None:
    host = ScriptedHost("I do not know your name.")
    async with connect(era, host) as client:
        result = await client.call_tool(
            "responses_create", {"input": "What is my name?", "previous_response_id": RESP}
        )
    assert not result.is_error and host.asked == 1  # still answers, as before
    assert json.loads(result.content[0].text)["output"][0]["content"][0]["text"] == "I do not know your name."
    (warning,) = warnings_of(result)
    assert RESP in warning and "stores no responses" in warning and "only this call's input" in warning


@pytest.mark.parametrize("with_store", [False, True])
async def test_another_tool_taking_previous_response_id_warns_too(
    era: str, with_store: bool, tmp_path: Path
) -> None:
    """chat_complete takes previous_response_id as every completion tool does; it stores nothing,
    with or without a store (only responses_create is kept), so a resp_ id there warns alike."""
    server = build_server(store=sqlite_store(tmp_path / "r.db")) if with_store else None
    host = ScriptedHost("I do not know your name.")
    async with connect(era, host, server=server) as client:
        result = await client.call_tool(
            "chat_complete",
            {"messages": [{"role": "user", "content": "What is my name?"}], "previous_response_id": RESP},
        )
    assert not result.is_error and host.asked == 1
    (warning,) = warnings_of(result)
    assert RESP in warning and "stores no responses" in warning and "only this" in warning


async def test_the_lost_history_is_said_in_the_words_of_no_product_when_none_keeps_responses(
    era: str, request: pytest.FixtureRequest
) -> None:
    """The warning's wording is the storing product's: with no product that keeps responses
    registered, a resp_ id still warns, naming no product's tool."""
    # Put back in its place afterwards: the listing follows the registry's order, and a tool put
    # back at its end would change every later server's tools/list.
    registered = dict(DIALECTS)
    request.addfinalizer(lambda: (DIALECTS.clear(), DIALECTS.update(registered)))
    del DIALECTS["responses_create"]
    host = ScriptedHost("I do not know your name.")
    async with connect(era, host) as client:
        result = await client.call_tool(
            "chat_complete",
            {"messages": [{"role": "user", "content": "What is my name?"}], "previous_response_id": RESP},
        )
    assert not result.is_error and host.asked == 1
    (warning,) = warnings_of(result)
    assert RESP in warning and "stores none" in warning and "only this call's input" in warning
    assert "Responses" not in warning and "responses_create" not in warning


async def test_without_a_store_a_history_passed_back_has_no_warning(era: str) -> None:
    history = [
        {"role": "user", "content": "I am Ada."},
        {"role": "assistant", "content": "Hello Ada."},
        {"role": "user", "content": "What is my name?"},
    ]
    async with connect(era, ScriptedHost("Ada.")) as client:
        passed = await client.call_tool("responses_create", {"input": history, "previous_response_id": RESP})
        plain = await client.call_tool("responses_create", {"input": "hi"})
    assert warnings_of(passed) == [] and warnings_of(plain) == []


# -- with a store -------------------------------------------------------------------------------


def sqlite_store(path: Path, ttl: float = DEFAULT_TTL) -> SealedStore:
    return open_store(StoreSettings(f"sqlite:{path}", ttl))


@pytest.fixture
def store(tmp_path: Path) -> SealedStore:
    return sqlite_store(tmp_path / "responses.db")


def said(params: CreateMessageRequestParams) -> list[tuple[str, str]]:
    """What the host saw: (role, text) of each message."""
    return [
        (m.role, " ".join(b.text for b in m.content_as_list if b.type == "text")) for m in params.messages
    ]


def body(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    sdk_truth.response_of(result)  # a Response as the openai SDK reads it
    value: dict[str, Any] = json.loads(result.content[0].text)
    return value


async def test_a_stored_chain_is_continued_as_the_api_does(era: str, store: SealedStore) -> None:
    host = ScriptedHost("Hello Ada.", "Your name is Ada.")
    async with connect(era, host, server=build_server(store=store)) as client:
        first = body(
            await client.call_tool("responses_create", {"input": "I am Ada.", "instructions": "Old rules."})
        )
        second = body(
            await client.call_tool(
                "responses_create",
                {
                    "input": "What is my name?",
                    "previous_response_id": first["id"],
                    "instructions": "Be brief.",
                },
            )
        )
    assert said(host.seen[1]) == [
        ("user", "I am Ada."),
        ("assistant", "Hello Ada."),
        ("user", "What is my name?"),
    ]
    assert host.seen[1].system_prompt == "Be brief."  # instructions are not carried over
    assert (
        first["id"].startswith("resp_") and second["id"].startswith("resp_") and first["id"] != second["id"]
    )
    assert second["previous_response_id"] == first["id"] and first["previous_response_id"] is None
    assert second["output"][0]["content"][0]["text"] == "Your name is Ada."


async def test_a_chain_of_three_and_a_branch(era: str, store: SealedStore) -> None:
    host = ScriptedHost(lambda p: f"answer {len(p.messages)}")
    async with connect(era, host, server=build_server(store=store)) as client:
        one = body(await client.call_tool("responses_create", {"input": "a"}))
        two = body(
            await client.call_tool("responses_create", {"input": "b", "previous_response_id": one["id"]})
        )
        three = body(
            await client.call_tool("responses_create", {"input": "c", "previous_response_id": two["id"]})
        )
        # Two calls continuing the same id: a branch, each on the chain it names.
        branch = body(
            await client.call_tool("responses_create", {"input": "x", "previous_response_id": one["id"]})
        )
    assert said(host.seen[2]) == [
        ("user", "a"),
        ("assistant", "answer 1"),
        ("user", "b"),
        ("assistant", "answer 3"),
        ("user", "c"),
    ]
    assert said(host.seen[3]) == [("user", "a"), ("assistant", "answer 1"), ("user", "x")]
    assert len({one["id"], two["id"], three["id"], branch["id"]}) == 4


async def test_tool_calls_continue_through_the_store(era: str, store: SealedStore) -> None:
    tools = [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]
    host = ScriptedHost(tool_answer("", ("call_1", "get_weather", {"city": "Paris"})), "It is sunny.")
    async with connect(era, host, tools=True, server=build_server(store=store)) as client:
        first = body(await client.call_tool("responses_create", {"input": "Weather?", "tools": tools}))
        assert [item["type"] for item in first["output"]] == ["function_call"]
        output = [{"type": "function_call_output", "call_id": "call_1", "output": "sunny"}]
        second = body(
            await client.call_tool(
                "responses_create", {"input": output, "tools": tools, "previous_response_id": first["id"]}
            )
        )
    roles = [(m.role, [b.type for b in m.content_as_list]) for m in host.seen[1].messages]
    assert roles == [("user", ["text"]), ("assistant", ["tool_use"]), ("user", ["tool_result"])]
    assert second["output"][0]["content"][0]["text"] == "It is sunny."


async def test_an_unknown_id_is_an_error_before_anything_is_sent(era: str, store: SealedStore) -> None:
    host = ScriptedHost("unused")
    async with connect(era, host, server=build_server(store=store)) as client:
        result = await client.call_tool("responses_create", {"input": "q", "previous_response_id": RESP})
    text = result.content[0].text
    assert result.is_error and host.asked == 0
    assert f"previous_response_id: no stored response {RESP}" in text and text.endswith(
        "Nothing was sent to the host."
    )


async def test_store_false_is_answered_and_not_kept(era: str, store: SealedStore) -> None:
    host = ScriptedHost("one", "two")
    async with connect(era, host, server=build_server(store=store)) as client:
        unkept = body(await client.call_tool("responses_create", {"input": "q", "store": False}))
        retrieved = await client.call_tool("responses_retrieve", {"response_id": unkept["id"]})
        continued = await client.call_tool(
            "responses_create", {"input": "more", "previous_response_id": unkept["id"]}
        )
    assert retrieved.is_error and f"no stored response {unkept['id']}" in retrieved.content[0].text
    assert continued.is_error and host.asked == 1


async def test_a_caller_error_in_a_continued_call_names_the_callers_path(
    era: str, store: SealedStore
) -> None:
    host = ScriptedHost("one")
    async with connect(era, host, server=build_server(store=store)) as client:
        first = body(await client.call_tool("responses_create", {"input": "q"}))
        bad = await client.call_tool(
            "responses_create",
            {"input": [{"role": "robot", "content": "x"}], "previous_response_id": first["id"]},
        )
    assert bad.is_error and "input[0].role" in bad.content[0].text and host.asked == 1


async def test_cursor_chains_stay_stateless_with_a_store(
    era: str, store: SealedStore, tmp_path: Path
) -> None:
    host = ScriptedHost("ans", "again")
    async with connect(era, host, server=build_server(store=store)) as client:
        started = body(await client.call_tool("responses_create", {"input": "q", "previous_response_id": ""}))
        continued = body(
            await client.call_tool(
                "responses_create",
                {
                    # a cursor chain passes its history back; the server keeps none
                    "input": [
                        {"role": "user", "content": "q"},
                        {"role": "assistant", "content": "ans"},
                        {"role": "user", "content": "more"},
                    ],
                    "previous_response_id": started["id"],
                },
            )
        )
        retrieved = await client.call_tool("responses_retrieve", {"response_id": started["id"]})
    assert started["id"].startswith("cur_") and continued["id"].startswith("cur_")
    assert said(host.seen[1]) == [("user", "q"), ("assistant", "ans"), ("user", "more")]
    assert retrieved.is_error
    assert _rows(tmp_path / "responses.db") == 0  # the cursor chain kept nothing in the store


async def test_retrieve_and_delete(era: str, store: SealedStore) -> None:
    async with connect(era, ScriptedHost("kept"), server=build_server(store=store)) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        made = body(await client.call_tool("responses_create", {"input": "q"}))
        got = await client.call_tool("responses_retrieve", {"response_id": made["id"]})
        gone = await client.call_tool("responses_delete", {"response_id": made["id"]})
        again = await client.call_tool("responses_retrieve", {"response_id": made["id"]})
        twice = await client.call_tool("responses_delete", {"response_id": made["id"]})
        bad = await client.call_tool("responses_retrieve", {"response_id": "cur_x"})
    assert {"responses_retrieve", "responses_delete"} <= listed
    assert body(got) == made and got.structured_content == made
    assert Response.model_validate(got.structured_content).output_text == "kept"
    assert json.loads(gone.content[0].text) == {"id": made["id"], "object": "response", "deleted": True}
    assert again.is_error and twice.is_error and "no stored response" in again.content[0].text
    assert bad.is_error and "response_id" in bad.content[0].text


async def test_without_a_store_the_tools_are_not_listed(era: str) -> None:
    async with connect(era, ScriptedHost()) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        called = await client.call_tool("responses_retrieve", {"response_id": RESP})
    assert not listed & {"responses_retrieve", "responses_delete"}
    assert called.is_error and "unknown tool" in called.content[0].text


async def test_an_expired_response_is_gone(era: str, tmp_path: Path) -> None:
    # A lifetime shorter than one call: expired by the time anything reads it.
    store = sqlite_store(tmp_path / "r.db", ttl=1e-9)
    host = ScriptedHost("short-lived", "later")
    async with connect(era, host, server=build_server(store=store)) as client:
        made = body(await client.call_tool("responses_create", {"input": "q"}))
        got = await client.call_tool("responses_retrieve", {"response_id": made["id"]})
        continued = await client.call_tool(
            "responses_create", {"input": "q", "previous_response_id": made["id"]}
        )
        assert _keys(tmp_path / "r.db") == [made["id"]]  # expired, still in the file
        later = body(await client.call_tool("responses_create", {"input": "later"}))
    assert got.is_error and continued.is_error and host.asked == 2
    assert "expired" in continued.content[0].text
    assert _keys(tmp_path / "r.db") == [later["id"]]  # the next write removed the expired row


async def test_a_repeated_retry_stores_once(store: SealedStore, tmp_path: Path) -> None:
    """2026-07-28: round one stores nothing; the retry that answers stores the response; the same
    retry sent again is the same response, stored once."""
    async with connect("2026-07-28", ScriptedHost(), server=build_server(store=store)) as client:
        args = {"input": "q"}
        first = await client.session.call_tool("responses_create", args, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        assert _rows(tmp_path / "responses.db") == 0  # nothing stored on the round that asks
        answers = {"completion": text_answer("once")}
        retries = [
            await client.session.call_tool(
                "responses_create",
                args,
                input_responses=answers,
                request_state=first.request_state,
                allow_input_required=True,
            )
            for _ in range(2)
        ]
        ids = [body(r)["id"] for r in retries]
        got = await client.call_tool("responses_retrieve", {"response_id": ids[0]})
    assert ids[0] == ids[1] and body(got) == body(retries[0])
    assert _rows(tmp_path / "responses.db") == 1


def _rows(path: Path) -> int:
    return len(_keys(path))


def _keys(path: Path) -> list[str]:
    """The keys in the file, expired or not (the store never returns an expired one)."""
    with sqlite3.connect(path) as db:
        return [key for (key,) in db.execute("SELECT key FROM responses")]


async def test_continued_with_store_false_reads_the_chain_and_keeps_nothing(
    era: str, store: SealedStore
) -> None:
    host = ScriptedHost("one", "two")
    async with connect(era, host, server=build_server(store=store)) as client:
        first = body(await client.call_tool("responses_create", {"input": "a"}))
        second = body(
            await client.call_tool(
                "responses_create", {"input": "b", "previous_response_id": first["id"], "store": False}
            )
        )
        got = await client.call_tool("responses_retrieve", {"response_id": second["id"]})
        bad = await client.call_tool("responses_create", {"input": "c", "store": "yes"})
    assert said(host.seen[1]) == [("user", "a"), ("assistant", "one"), ("user", "b")]
    assert second["previous_response_id"] == first["id"]
    assert got.is_error and "no stored response" in got.content[0].text
    assert bad.is_error and "store: expected a boolean" in bad.content[0].text and host.asked == 2


def counting_reads(store: SealedStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids the store is asked for, as it is asked."""
    reads: list[str] = []
    get = store.get

    async def counted(ident: str) -> dict[str, Any] | None:
        reads.append(ident)
        return await get(ident)

    monkeypatch.setattr(store, "get", counted)
    return reads


async def test_a_continued_retry_does_not_read_the_store(
    era: str, store: SealedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chain is read once per continued call: on 2026-07-28 its state carries what it read,
    through a repair round too (three rounds: the bad answer, the repair, nothing more)."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    host = ScriptedHost("first", '{"n": "x"}', '{"n": 1}')
    reads = counting_reads(store, monkeypatch)
    async with connect(era, host, server=build_server(store=store)) as client:
        first = body(await client.call_tool("responses_create", {"input": "a"}))
        arguments = {
            "input": "b",
            "previous_response_id": first["id"],
            "output_schema": schema,
            "repair_attempts": 1,
        }
        second = await client.call_tool("responses_create", arguments)
    assert not second.is_error, second.content[0].text
    assert body(second)["output"][0]["content"][0]["text"] == '{"n": 1}'
    assert host.asked == 3 and said(host.seen[2])[:3] == [
        ("user", "a"),
        ("assistant", "first"),
        ("user", "b"),
    ]
    assert reads == [first["id"]]


async def test_a_continued_state_carries_the_chain_sealed(store: SealedStore) -> None:
    """The 2026-07-28 round that asks: its requestState is sealed by the SDK (the chain's text
    is not readable in it), and the retry answers with the chain read in round one."""
    host = ScriptedHost("first")
    async with connect("2026-07-28", host, server=build_server(store=store)) as client:
        first = body(await client.call_tool("responses_create", {"input": "secret-chain-text"}))
        arguments = {"input": "b", "previous_response_id": first["id"]}
        asked = await client.session.call_tool("responses_create", arguments, allow_input_required=True)
        assert isinstance(asked, InputRequiredResult) and asked.request_state is not None
        await client.call_tool("responses_delete", {"response_id": first["id"]})
        answered = await client.session.call_tool(
            "responses_create",
            arguments,
            input_responses={"completion": text_answer("second")},
            request_state=asked.request_state,
            allow_input_required=True,
        )
    assert "secret-chain-text" not in asked.request_state and "kept" not in asked.request_state
    made = body(answered)
    assert made["previous_response_id"] == first["id"]
    assert made["output"][0]["content"][0]["text"] == "second"


def test_a_malformed_kept_state_is_an_error_naming_request_state() -> None:
    inner = '{"v":3}'
    assert stored_responses.unwrap(stored_responses.wrap(inner, {"input": [], "response": {}})) == (
        inner,
        {"input": [], "response": {}},
    )
    assert stored_responses.unwrap(inner) is None and stored_responses.unwrap(None) is None
    broken = stored_responses.wrap(inner, {})[:-5]
    for bad in (broken, stored_responses.wrap(inner, {}).replace('"v":1', '"v":2')):
        with pytest.raises(CallError) as caught:
            stored_responses.unwrap(bad)
        assert caught.value.path == "requestState"


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The arguments the one parse path read, in order, with no round one's reading remembered."""
    from agent_as_model.states import recall, validate

    seen: list[dict[str, Any]] = []
    real = validate.read_request

    def counted(d: Any, args: Any, fetched: Any = None) -> Any:
        seen.append(dict(args))
        return real(d, args, fetched)

    monkeypatch.setattr(validate, "read_request", counted)
    recall.forget_all()
    return seen


async def test_a_continued_call_reads_its_arguments_once(
    era: str, store: SealedStore, parses: list[dict[str, Any]]
) -> None:
    """The stored chain leads the input the arguments are read with, once; on 2026-07-28 the retry
    takes round one's reading, as every proven retry does."""
    host = ScriptedHost("Hello Ada.", "Ada.")
    async with connect(era, host, server=build_server(store=store)) as client:
        first = body(await client.call_tool("responses_create", {"input": "I am Ada."}))
        body(
            await client.call_tool(
                "responses_create", {"input": "Who am I?", "previous_response_id": first["id"]}
            )
        )
    assert len(parses) == 2  # each call once, on both eras
    assert [item["content"] for item in parses[1]["input"]][::2] == ["I am Ada.", "Who am I?"]
    assert "previous_response_id" not in parses[1]
    assert said(host.seen[1]) == [("user", "I am Ada."), ("assistant", "Hello Ada."), ("user", "Who am I?")]


@pytest.mark.parametrize("given", [[], None, 7])
async def test_a_continued_call_without_a_usable_input_names_input(
    era: str, store: SealedStore, given: object
) -> None:
    """An input that is no string nor a non-empty list is not continued: it is refused as the
    caller wrote it, whatever the stored chain holds."""
    host = ScriptedHost("one")
    async with connect(era, host, server=build_server(store=store)) as client:
        first = body(await client.call_tool("responses_create", {"input": "q"}))
        arguments: dict[str, Any] = {"previous_response_id": first["id"]}
        if given is not None:
            arguments["input"] = given
        bad = await client.call_tool("responses_create", arguments)
    text = bad.content[0].text
    assert bad.is_error and text.startswith("responses_create: input") and host.asked == 1
    assert text.endswith("Nothing was sent to the host.")


async def test_the_stored_response_is_read_before_the_arguments(era: str, store: SealedStore) -> None:
    """The arguments are read once, with the stored chain in front: a call continuing an id the
    store does not hold is refused for that, whatever else is wrong with it."""
    host = ScriptedHost("unused")
    async with connect(era, host, server=build_server(store=store)) as client:
        result = await client.call_tool(
            "responses_create", {"input": [{"role": "robot", "content": "x"}], "previous_response_id": RESP}
        )
    assert result.is_error and host.asked == 0
    assert f"previous_response_id: no stored response {RESP}" in result.content[0].text
