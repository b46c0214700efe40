"""`n` (chat) and `candidateCount` (Gemini) ask for that many independent
completions: before 2026-07-28 that many sampling requests in flight at once, on 2026-07-28 that
many inputRequests in one round. Each is validated, repaired and cut on its own; `serve --max-n`
bounds them; `n > 1` with a text result is an error that says to ask for `object`."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from google.genai import types as genai_types
from mcp import Client
from mcp.client import ClientRequestContext
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent
from openai.types.chat import ChatCompletion

from agent_as_model.limits import Limits
from agent_as_model.server import build_server
from tests.helpers import object_of, server_params
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

Q = {"role": "user", "content": "Name a colour."}
SCHEMA = {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}


def said(text: str, stop: str = "endTurn", model: str = "host-model") -> CreateMessageResult:
    return CreateMessageResult(
        role="assistant", content=TextContent(type="text", text=text), model=model, stop_reason=stop
    )


class CountingHost(ScriptedHost):
    """Answers only once all `expect` requests are in flight together (so they must all be asked
    before any is answered), and notes the most it saw at once."""

    def __init__(self, *answers: Any, expect: int) -> None:
        super().__init__(*answers)
        self.expect = expect
        self.in_flight = 0
        self.most_in_flight = 0
        self.all_here = anyio.Event()

    async def __call__(self, context: ClientRequestContext, params: CreateMessageRequestParams) -> Any:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        if self.in_flight >= self.expect:
            self.all_here.set()
        # A guard against a hang, not a timing: a server that asks one at a time never gets here.
        with anyio.move_on_after(30):
            await self.all_here.wait()
        try:
            return await super().__call__(context, params)
        finally:
            self.in_flight -= 1


async def test_n_choices_are_independent_completions(era: str) -> None:
    host = CountingHost(said("Red."), said("Blue.", "maxTokens"), said("Green."), expect=3)
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", {"messages": [Q], "n": 3, "result": "object"})
    completion = ChatCompletion.model_validate(object_of(result))
    assert [c.index for c in completion.choices] == [0, 1, 2]
    texts = sorted(c.message.content or "" for c in completion.choices)
    assert texts == ["Blue.", "Green.", "Red."]
    finish = {c.message.content: c.finish_reason for c in completion.choices}
    assert finish == {"Red.": "stop", "Blue.": "length", "Green.": "stop"}  # each cut on its own
    assert host.asked == 3
    # The same request three times, each its own sampling request.
    assert host.wire(0) == host.wire(1) == host.wire(2)
    assert completion.usage is not None
    # The prompt once, as the products count it; every completion's output.
    assert completion.usage.prompt_tokens == 4 and completion.usage.completion_tokens == 5
    # All in flight at once: three sampling requests (legacy), three inputRequests of one round.
    assert host.most_in_flight == 3


async def test_on_2026_the_completions_go_in_one_round() -> None:
    rounds: list[int] = []
    host = ScriptedHost("a", "b")
    async with connect("2026-07-28", host) as client:
        original = client.session.call_tool  # type: ignore[attr-defined]

        async def counting(*args: Any, **kwargs: Any) -> Any:
            result = await original(*args, **kwargs)
            requests = getattr(result, "input_requests", None)
            if requests:
                rounds.append(len(requests))
            return result

        client.session.call_tool = counting  # type: ignore[attr-defined]
        result = await client.call_tool("chat_complete", {"messages": [Q], "n": 2, "result": "object"})
    assert sorted(c["message"]["content"] for c in object_of(result)["choices"]) == ["a", "b"]
    assert host.asked == 2
    assert rounds == [2]  # one InputRequiredResult carrying both sampling requests


async def test_each_choice_is_repaired_on_its_own(era: str) -> None:
    # Answers go out in the order the requests arrive; whichever choice got "not json" repairs.
    host = ScriptedHost('{"colour": "red"}', "not json", '{"colour": "blue"}')
    async with connect(era, host) as client:
        result = await client.call_tool(
            "chat_complete",
            {"messages": [Q], "n": 2, "result": "object", "output_schema": SCHEMA, "repair_attempts": 1},
        )
    choices = object_of(result)["choices"]
    assert sorted(json.loads(c["message"]["content"])["colour"] for c in choices) == ["blue", "red"]
    assert host.asked == 3  # two asks, one repair
    repaired = host.wire(2)["messages"]
    assert len(repaired) == 3 and "is not JSON" in repaired[2]["content"]["text"]


async def test_a_choice_that_fails_fails_the_call_naming_it(era: str) -> None:
    host = ScriptedHost('{"colour": "red"}', "not json")
    async with connect(era, host) as client:
        result = await client.call_tool(
            "chat_complete", {"messages": [Q], "n": 2, "result": "object", "output_schema": SCHEMA}
        )
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and text.startswith("chat_complete: completion ")
    assert " of 2: output_schema: the host's answer is not JSON" in text
    assert text.endswith("The host was asked; its answer was not used.")


async def test_gemini_candidate_count_gives_candidates(era: str) -> None:
    host = ScriptedHost(said("One."), said("Two."))
    async with connect(era, host) as client:
        result = await client.call_tool(
            "gemini_generate_content",
            {"contents": "Count.", "generationConfig": {"candidateCount": 2}, "result": "object"},
        )
    response = genai_types.GenerateContentResponse.model_validate(object_of(result))
    assert response.candidates is not None
    assert sorted(c.content.parts[0].text for c in response.candidates) == ["One.", "Two."]  # type: ignore[union-attr,index]
    assert [c.index for c in response.candidates] == [0, 1]
    assert response.usage_metadata is not None and response.usage_metadata.candidates_token_count == 2


@pytest.mark.parametrize(
    ("tool", "args", "path", "says"),
    [
        ("chat_complete", {"messages": [Q], "n": 2}, "n", "2 completions need result: 'object'"),
        ("chat_complete", {"messages": [Q], "n": 2, "result": "text"}, "n", "need result: 'object'"),
        ("chat_complete", {"messages": [Q], "n": 9, "result": "object"}, "n", "at most 8 completions"),
        ("chat_complete", {"messages": [Q], "n": 0}, "n", "must be at least 1"),
        ("chat_complete", {"messages": [Q], "n": 1.5}, "n", "expected a positive integer"),
        (
            "chat_complete",
            {"messages": [Q], "n": 2, "result": "object", "previous_response_id": ""},
            "previous_response_id",
            "a cursor follows one conversation",
        ),
        (
            "gemini_generate_content",
            {"contents": "x", "generationConfig": {"candidateCount": 3}},
            "generationConfig.candidateCount",
            "need result: 'object'",
        ),
    ],
)
async def test_what_n_cannot_do_is_said_before_anything_is_sent(
    era: str, tool: str, args: dict[str, Any], path: str, says: str
) -> None:
    host = ScriptedHost("x")
    async with connect(era, host) as client:
        result = await client.call_tool(tool, args)
        one = await client.call_tool(tool, {**args, "n": 1} if "n" in args else {"contents": "x"})
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and text.startswith(f"{tool}: {path}: ") and says in text, text
    assert text.endswith("Nothing was sent to the host.")
    assert not one.is_error or "previous_response_id" in str(args)


async def test_the_bound_is_the_servers(era: str) -> None:
    host = ScriptedHost("x")
    async with connect(era, host, server=build_server(limits=Limits(max_n=2, result="object"))) as client:
        over = await client.call_tool("chat_complete", {"messages": [Q], "n": 3})
        within = await client.call_tool("chat_complete", {"messages": [Q], "n": 2})
    assert over.is_error and "at most 2 completions per call (the server's --max-n)" in over.content[0].text  # type: ignore[union-attr]
    assert len(object_of(within)["choices"]) == 2


@pytest.mark.stdio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_over_stdio_n_completions(mode: str) -> None:
    host = ScriptedHost("a", "b", "c")
    async with Client(server_params(), mode=mode, sampling_callback=host) as client:
        result = await client.call_tool("chat_complete", {"messages": [Q], "n": 3, "result": "object"})
    completion = ChatCompletion.model_validate(object_of(result))
    assert sorted(c.message.content or "" for c in completion.choices) == ["a", "b", "c"]
    assert host.asked == 3


async def test_a_host_that_cannot_sample_gets_32021_once(era: str) -> None:
    from mcp import MCPError

    async with connect(era) as client:  # no sampling declared
        with pytest.raises(MCPError) as raised:
            await client.call_tool("chat_complete", {"messages": [Q], "n": 2, "result": "object"})
    assert raised.value.error.code == -32021


async def test_a_provider_answers_each_completion(era: str, standin: Any) -> None:
    from tests.provider_harness import provider_server

    server = provider_server(standin, "openai", use="always")
    async with connect(era, ScriptedHost("host"), server=server) as client:
        result = await client.call_tool("chat_complete", {"messages": [Q], "n": 2, "result": "object"})
    completion = ChatCompletion.model_validate(object_of(result))
    assert len(completion.choices) == 2 and len(standin.seen) == 2
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (9, 8)  # the API's counts
    assert result.meta is not None and result.meta["agent-as-model/result"]["usage"] == "provider"
