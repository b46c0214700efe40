"""The 2026-07-28 retry reads nothing twice.

Round one of a call reads its arguments into a neutral request and keeps it under the call's
identity (states/recall.py); the retry, proven by its sealed state to carry exactly those
arguments, takes it instead of reading them again. A retry that is not proven, or finds nothing
kept (emptied, evicted, taken by an earlier retry of the same state), is read in full, and
answers the same. Legacy reads each call once, as ever.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp_types import CallToolResult, CreateMessageRequestParams, InputRequiredResult

from agent_as_model import cursors
from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.parse import parse_request, read_request
from agent_as_model.server import build_server
from agent_as_model.states import recall, validate
from tests.helpers import server_params, text_of
from tests.scripted_host import ScriptedHost, connect, text_answer

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
KEY = "completion"


def chain(question: str = "Spain?") -> dict[str, Any]:
    history = [{"role": "user", "content": "France?"}, {"role": "assistant", "content": "Paris."}]
    previous = cursors.mint("agent-default", "chat_complete", history)
    return {"messages": [*history, {"role": "user", "content": question}], "previous_response_id": previous}


def expected(arguments: dict[str, Any], answer: str) -> dict[str, str]:
    """The result a chain call must give: the answer and the cursor over the history plus it."""
    history = [*arguments["messages"], {"role": "assistant", "content": answer}]
    return {"completion": answer, "response_id": cursors.mint("agent-default", "chat_complete", history)}


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The tools whose arguments a dialect read, in order, from an empty keep."""
    seen: list[str] = []

    def counted(d: Any, args: Any, fetched: Any = None) -> Any:
        seen.append(d.NAME)
        return read_request(d, args, fetched)

    monkeypatch.setattr(validate, "read_request", counted)
    recall.forget_all()
    yield seen
    recall.forget_all()


def forgetting(answer: str) -> Any:
    """The host's answer, given after emptying what round one kept (in-process): on 2026-07-28
    the retry then finds nothing and reads its arguments in full."""

    def answered(params: CreateMessageRequestParams) -> str:
        recall.forget_all()
        return answer

    return answered


async def test_each_call_reads_its_arguments_once(era: str, parses: list[str]) -> None:
    host = ScriptedHost("Madrid.", "Rome.")
    async with connect(era, host) as client:
        first = await client.call_tool("chat_complete", chain())
        second = await client.call_tool("chat_complete", chain("Italy?"))
    assert json.loads(text_of(first)) == expected(chain(), "Madrid.")
    assert json.loads(text_of(second)) == expected(chain("Italy?"), "Rome.")
    # On 2026-07-28 each call is two requests; the retry took round one's read.
    assert parses == ["chat_complete", "chat_complete"]
    assert recall.remembered_count() == 0  # each retry took what its round kept
    assert host.asked == 2


async def test_a_retry_that_finds_nothing_kept_reads_in_full_and_answers_the_same(parses: list[str]) -> None:
    host = ScriptedHost(forgetting("Madrid."), "Madrid.")
    async with connect(MODERN, host) as client:
        emptied = await client.call_tool("chat_complete", chain())
        assert parses == ["chat_complete", "chat_complete"]  # round one, and the retry in full
        kept = await client.call_tool("chat_complete", chain())
    assert parses == ["chat_complete"] * 3
    assert text_of(emptied) == text_of(kept)
    assert json.loads(text_of(kept)) == expected(chain(), "Madrid.")


async def test_interleaved_calls_each_take_their_own_read(parses: list[str]) -> None:
    async with connect(MODERN, ScriptedHost()) as client:
        session = client.session
        spain, italy = chain(), chain("Italy?")
        first = await session.call_tool("chat_complete", spain, allow_input_required=True)
        other = await session.call_tool("chat_complete", italy, allow_input_required=True)
        assert isinstance(first, InputRequiredResult) and isinstance(other, InputRequiredResult)
        results = {}
        for arguments, round_one, answer in ((italy, other, "Rome."), (spain, first, "Madrid.")):
            results[answer] = await session.call_tool(
                "chat_complete",
                arguments,
                input_responses={KEY: text_answer(answer)},
                request_state=round_one.request_state,
                allow_input_required=True,
            )
        # The same state presented again (the SDK allows it within its lifetime): nothing is kept
        # for it any more, so it is read in full, and answers the same.
        again = await session.call_tool(
            "chat_complete",
            spain,
            input_responses={KEY: text_answer("Madrid.")},
            request_state=first.request_state,
            allow_input_required=True,
        )
    for answer, arguments in (("Rome.", italy), ("Madrid.", spain)):
        result = results[answer]
        assert isinstance(result, CallToolResult) and not result.is_error, result
        assert json.loads(text_of(result)) == expected(arguments, answer)
    assert isinstance(again, CallToolResult) and text_of(again) == text_of(results["Madrid."])
    assert parses == ["chat_complete"] * 3


async def test_a_retry_whose_state_proves_nothing_is_read_in_full_and_asks_again(parses: list[str]) -> None:
    # Round one on a host without sampling.tools; the retry comes from a host that declares them:
    # the state binds the other capability, so it proves nothing, and the call starts over.
    server = build_server()
    async with connect(MODERN, ScriptedHost(), server=server) as client:
        first = await client.session.call_tool("chat_complete", chain(), allow_input_required=True)
    assert isinstance(first, InputRequiredResult)
    async with connect(MODERN, ScriptedHost(), tools=True, server=server) as other:
        again = await other.session.call_tool(
            "chat_complete",
            chain(),
            input_responses={KEY: text_answer("forged")},
            request_state=first.request_state,
            allow_input_required=True,
        )
    assert isinstance(again, InputRequiredResult)
    assert parses == ["chat_complete", "chat_complete"]


async def test_a_retry_with_changed_arguments_is_refused_and_the_next_call_works(parses: list[str]) -> None:
    host = ScriptedHost("Madrid.")
    async with connect(MODERN, host) as client:
        first = await client.session.call_tool("chat_complete", chain(), allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        with pytest.raises(MCPError) as caught:  # the SDK's seal binds the arguments
            await client.session.call_tool(
                "chat_complete",
                chain("Italy?"),
                input_responses={KEY: text_answer("Rome.")},
                request_state=first.request_state,
                allow_input_required=True,
            )
        assert caught.value.error.code == -32602
        result = await client.call_tool("chat_complete", chain("Italy?"))
    assert json.loads(text_of(result)) == expected(chain("Italy?"), "Madrid.")


async def test_a_caller_error_is_found_on_round_one_and_nothing_is_kept(era: str, parses: list[str]) -> None:
    host = ScriptedHost()
    broken = chain()
    broken["messages"][1]["role"] = "robot"
    async with connect(era, host) as client:
        refused = await client.call_tool("chat_complete", broken)
    assert refused.is_error and "messages[1].role" in text_of(refused)
    assert "Nothing was sent to the host" in text_of(refused)
    assert host.asked == 0 and recall.remembered_count() == 0


async def test_a_repair_round_takes_the_read_too(era: str, parses: list[str]) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    arguments = {"messages": [{"role": "user", "content": "Capital of Spain?"}], "output_schema": schema}
    host = ScriptedHost("not JSON", '{"city": "Madrid"}')
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", {**arguments, "repair_attempts": 1})
    assert result.structured_content == {"city": "Madrid"}, text_of(result)
    assert host.asked == 2
    assert parses == ["chat_complete"]  # round one read; the retries of both rounds took it
    assert recall.remembered_count() == 0


async def test_what_is_kept_is_bounded_and_an_evicted_call_is_read_in_full(parses: list[str]) -> None:
    # As many calls as are kept, started and never retried, then two more: the two oldest go.
    questions = [f"Country {n}?" for n in range(recall.READS_ENTRIES + 2)]
    async with connect(MODERN, ScriptedHost()) as client:
        session = client.session
        rounds = [
            await session.call_tool("chat_complete", chain(q), allow_input_required=True) for q in questions
        ]
        assert recall.remembered_count() == recall.READS_ENTRIES
        results = []
        for at in (0, 1, -2, -1):  # the two evicted calls, and the two newest
            round_one = rounds[at]
            assert isinstance(round_one, InputRequiredResult)
            results.append(
                await session.call_tool(
                    "chat_complete",
                    chain(questions[at]),
                    input_responses={KEY: text_answer("Somewhere.")},
                    request_state=round_one.request_state,
                    allow_input_required=True,
                )
            )
    for at, result in zip((0, 1, -2, -1), results, strict=True):
        assert isinstance(result, CallToolResult) and not result.is_error, result
        assert json.loads(text_of(result)) == expected(chain(questions[at]), "Somewhere.")
    # Every round one, and the two evicted calls' retries read in full; the newest two took theirs.
    assert parses == ["chat_complete"] * (len(questions) + 2)
    assert recall.remembered_count() == recall.READS_ENTRIES - 2


def test_the_estimated_size_grows_with_the_texts_and_the_turns() -> None:
    small = dialect_request([{"role": "user", "content": "q"}])
    large = dialect_request([{"role": "user", "content": "q" * 100_000}])
    many = dialect_request([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}] * 50)
    assert recall.estimated_size(large) >= 100_000 > recall.estimated_size(small)
    assert recall.estimated_size(many) >= 100 * recall.TURN_BYTES


def test_the_estimated_size_counts_what_the_caller_sends_beside_the_conversation() -> None:
    """A plain request's rest is a fixed share and its texts (no repr); a rest that carries the
    caller's objects (here tool definitions, stop words, a long model name and system prompt) is
    counted in full."""
    one = [{"role": "user", "content": "q"}]
    plain = dialect_request(one)
    assert plain.plain and not plain.tools
    big_schema = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(1_000)}}
    tool = {"type": "function", "function": {"name": "look", "parameters": big_schema}}
    tools = dialect_request(one, tools=[tool])
    stops = dialect_request(one, stop=["s" * 50_000])
    model = dialect_request(one, model="m" * 50_000)
    system = dialect_request([{"role": "system", "content": "y" * 50_000}, *one])
    assert recall.estimated_size(tools) >= len(json.dumps(big_schema)) > recall.estimated_size(plain)
    for request in (stops, model, system):
        assert recall.estimated_size(request) >= 50_000, request


def dialect_request(messages: list[dict[str, str]], **extra: Any) -> Any:
    return parse_request(DIALECTS["chat_complete"], {"messages": messages, **extra})


@pytest.mark.stdio
@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_chains_and_repeated_retries_over_real_stdio(mode: str) -> None:
    host = ScriptedHost("Madrid.", "Rome.")
    params = server_params()
    async with Client(params, mode=mode, sampling_callback=host) as client:
        first = await client.call_tool("chat_complete", chain())
        assert json.loads(text_of(first)) == expected(chain(), "Madrid.")
        second = await client.call_tool("chat_complete", chain("Italy?"))
        assert json.loads(text_of(second)) == expected(chain("Italy?"), "Rome.")
        if mode == MODERN:
            round_one = await client.session.call_tool("chat_complete", chain(), allow_input_required=True)
            assert isinstance(round_one, InputRequiredResult)
            retries = [
                await client.session.call_tool(
                    "chat_complete",
                    chain(),
                    input_responses={KEY: text_answer("Madrid.")},
                    request_state=round_one.request_state,
                    allow_input_required=True,
                )
                for _ in range(2)  # kept, then read in full: the same result
            ]
            assert [text_of(r) for r in retries if isinstance(r, CallToolResult)] == [text_of(first)] * 2
