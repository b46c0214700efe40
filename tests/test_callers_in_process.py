"""Callers' limits on the call itself, through the SDK `Client` in-process on both eras, with a
scripted host and a server built with a gate (no door in-process: the caller is `anonymous`, as
on an open HTTP server). A call over a limit is refused before the host is asked; a call is one
request on both eras (a 2026-07-28 retry its state proves was admitted with its round one);
what a call spent is counted once per answer, as the host counted it or estimated and said so;
a call's place in flight is held while the server works on it and given back however it ends.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

from agent_as_model.adapters.callers import ANONYMOUS, CallerLimits, CallersSettings, Gate, open_counters
from agent_as_model.adapters.store import StoreSettings, open_store
from agent_as_model.server import build_server
from tests.helpers import text_of
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio


def limited(counters: str | None = None, **limits: int) -> Gate:
    return Gate(CallersSettings(defaults=CallerLimits(**limits)), open_counters(counters))


async def use_of(gate: Gate) -> Any:
    return (await gate.counters.use([ANONYMOUS]))[ANONYMOUS]


def counted_answer(text: str, given: int, made: int) -> CreateMessageResult:
    """An answer whose host counted its tokens (in its result's `_meta`)."""
    return CreateMessageResult.model_validate(
        {
            "role": "assistant",
            "content": {"type": "text", "text": text},
            "model": "scripted-model",
            "_meta": {"usage": {"inputTokens": given, "outputTokens": made}},
        }
    )


async def test_a_call_over_a_limit_is_refused_before_the_host_is_asked(era: str) -> None:
    gate = limited(requests_per_minute=2)
    host = ScriptedHost("fine")
    async with connect(era, host, server=build_server(gate=gate)) as client:
        for _ in range(2):
            result = await client.call_tool("generate", {"prompt": "p"})
            assert not result.is_error and text_of(result) == "fine"
        refused = await client.call_tool("generate", {"prompt": "p"})
        listed = await client.call_tool("list_models", {})  # spends nothing: not limited
    assert refused.is_error and not listed.is_error
    text = text_of(refused)
    assert text.startswith("generate: caller 'anonymous' made 2 requests in the last minute")
    assert "requests-per-minute = 2" in text and text.endswith("Nothing was sent to the host.")
    assert host.asked == 2  # the third was never put to the host
    assert (await use_of(gate)).requests == 2


async def test_a_call_is_one_request_on_both_eras(era: str) -> None:
    # On 2026-07-28 a call is two requests (round one, then the retry with the host's answer): the
    # retry its sealed state proves was admitted with round one, and is neither counted nor
    # refused, though its caller is now at the limit.
    gate = limited(requests_per_minute=1)
    host = ScriptedHost("fine")
    async with connect(era, host, server=build_server(gate=gate)) as client:
        result = await client.call_tool("generate", {"prompt": "p"})
        assert not result.is_error, text_of(result)
        again = await client.call_tool("generate", {"prompt": "p"})
    assert again.is_error and "requests-per-minute = 1" in text_of(again)
    assert (await use_of(gate)).requests == 1 and host.asked == 1


async def test_tokens_are_the_hosts_counts_or_an_estimate_said_so(era: str) -> None:
    gate = limited(tokens_per_day=1000)
    host = ScriptedHost(counted_answer("counted", 7, 3), "not counted")
    async with connect(era, host, server=build_server(gate=gate)) as client:
        await client.call_tool("generate", {"prompt": "p" * 40})
        use = await use_of(gate)
        assert (use.tokens, use.estimated) == (10, 0)  # the host's own counts
        await client.call_tool("generate", {"prompt": "p" * 40})
    use = await use_of(gate)
    # "p" * 40 read is 10 tokens, "not counted" written is 3 (four characters a token, rounded up).
    assert (use.tokens, use.estimated) == (23, 13)


async def test_every_answer_is_counted_a_repair_and_several_completions_too(era: str) -> None:
    gate = limited(tokens_per_day=1000)
    host = ScriptedHost(counted_answer("not json", 5, 5), counted_answer('{"a": 1}', 6, 4))
    schema = {"type": "object"}
    arguments = {
        "messages": [{"role": "user", "content": "q"}],
        "output_schema": schema,
        "repair_attempts": 1,
    }
    async with connect(era, host, server=build_server(gate=gate)) as client:
        repaired = await client.call_tool("chat_complete", arguments)
        assert not repaired.is_error, text_of(repaired)
        assert (await use_of(gate)).tokens == 20  # both rounds, each as the host counted it
        several = ScriptedHost(counted_answer("one", 2, 1))
    async with connect(era, several, server=build_server(gate=gate)) as client:
        both = {"messages": [{"role": "user", "content": "q"}], "n": 2, "result": "object"}
        result = await client.call_tool("chat_complete", both)
        assert not result.is_error, text_of(result)
    use = await use_of(gate)
    assert (use.tokens, use.requests) == (26, 2)  # two completions, one request


async def test_a_call_holds_its_place_while_the_server_works_on_it(era: str) -> None:
    # Before 2026-07-28 the server waits for its host inside the call; on 2026-07-28 the host
    # answers between the call's requests, while the server holds nothing.
    gate = limited(concurrent_calls=1)
    seen: list[int] = []

    async def host(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        seen.append((await use_of(gate)).in_flight)
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text="ok"), model="m")

    async with connect(era, host, server=build_server(gate=gate)) as client:  # type: ignore[arg-type]
        result = await client.call_tool("generate", {"prompt": "p"})
    assert not result.is_error, text_of(result)
    assert seen == ([1] if era == "legacy" else [0])
    assert (await use_of(gate)).in_flight == 0


async def test_calls_in_flight_trip_at_the_bound_and_a_cancelled_call_gives_its_place_back() -> None:
    gate = limited(concurrent_calls=2)
    release = anyio.Event()
    asked = 0

    async def host(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        nonlocal asked
        asked += 1
        await release.wait()
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text="ok"), model="m")

    results: list[Any] = []
    async with connect("legacy", host, server=build_server(gate=gate)) as client:  # type: ignore[arg-type]

        async def call() -> None:
            results.append(await client.call_tool("generate", {"prompt": "p"}))

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            with anyio.fail_after(10):
                while asked < 1:
                    await anyio.sleep(0.01)
            with anyio.move_on_after(0.5):  # the client gives up on this one
                await client.call_tool("generate", {"prompt": "p"})
            with anyio.fail_after(10):
                while (await use_of(gate)).in_flight != 1:  # the abandoned call's place came back
                    await anyio.sleep(0.01)
            group.start_soon(call)
            with anyio.fail_after(10):
                while asked < 3:
                    await anyio.sleep(0.01)
            over = await client.call_tool("generate", {"prompt": "p"})
            release.set()
    assert (
        over.is_error and "has 2 calls in flight" in text_of(over) and "concurrent-calls = 2" in text_of(over)
    )
    assert [r.is_error for r in results] == [False, False] and asked == 3
    assert (await use_of(gate)).in_flight == 0


async def test_a_refused_call_reads_no_stored_response(era: str, tmp_path: Any) -> None:
    gate = limited(requests_per_minute=1)
    store = open_store(StoreSettings(f"sqlite:{tmp_path / 'store.db'}"), "k" * 32)
    host = ScriptedHost("first")
    async with connect(era, host, server=build_server(gate=gate, store=store)) as client:
        first = await client.call_tool("responses_create", {"input": "hi"})
        assert not first.is_error, text_of(first)
        # An id no store holds would be a caller error naming previous_response_id if it were read.
        again = await client.call_tool(
            "responses_create", {"input": "hi", "previous_response_id": "resp_" + "0" * 32}
        )
    assert again.is_error and "requests-per-minute = 1" in text_of(again)
    assert "previous_response_id" not in text_of(again) and host.asked == 1
    await store.aclose()


async def test_counters_that_cannot_be_reached_refuse_the_call_with_nothing_sent(era: str) -> None:
    pytest.importorskip("redis")
    gate = limited("redis://127.0.0.1:1/0", requests_per_minute=5)
    host = ScriptedHost("fine")
    async with connect(era, host, server=build_server(gate=gate)) as client:
        result = await client.call_tool("generate", {"prompt": "p"})
    assert result.is_error and "the limits of caller 'anonymous' cannot be checked" in text_of(result)
    assert text_of(result).endswith("Nothing was sent to the host.") and host.asked == 0
