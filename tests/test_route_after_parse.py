"""The backend is chosen from the parsed request by the call's router, asked once the arguments
are read and before anything is sent; nothing is carried from before the machine into the call
record but the call's router (and, for a product that keeps responses, the store and what a
retry's state carried of one)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from agent_as_model.adapters.backends.base import Route, SamplingSupport
from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.parse import parse_request
from agent_as_model.commands.standin_provider import StandInProvider
from agent_as_model.engine.driver import drive
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Request
from agent_as_model.states.call import CallRecord
from tests.provider_harness import backend_of, provider_server
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

UNANSWERED_CALL = [
    {"role": "user", "content": "q"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
    },
    {"role": "user", "content": "and?"},
]


class RecordingRouter:
    """Refuses every call, keeping the request it was handed."""

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def proven(self, fetched: tuple[str, ...] = ()) -> None:
        return None

    def route(self, request: Request, proven: Any = None) -> Route:
        self.requests.append(request)
        raise caller_error("backend", "refused by the test's router")


def test_the_router_is_handed_the_parsed_request_and_its_refusal_ends_the_call() -> None:
    router = RecordingRouter()
    arguments: dict[str, Any] = {
        "messages": [{"role": "user", "content": "q"}],
        "model": "m-1",
        "backend": "provider",
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
    }
    record = CallRecord(DIALECTS["chat_complete"], arguments, router)
    result = anyio.run(drive, record)
    [request] = router.requests
    assert (request.backend, request.model, [t.name for t in request.tools]) == ("provider", "m-1", ["f"])
    assert result.is_error
    assert result.content[0].text == (
        "chat_complete: backend: refused by the test's router. Nothing was sent to the host."
    )
    assert record.state == "rejected"


def test_arguments_that_do_not_parse_never_reach_the_router() -> None:
    router = RecordingRouter()
    record = CallRecord(DIALECTS["chat_complete"], {"messages": [], "backend": "cloud"}, router)
    result = anyio.run(drive, record)
    assert router.requests == []
    assert result.is_error and record.state == "rejected"


def test_a_route_serves_as_its_own_router() -> None:
    route = Route(object(), SamplingSupport(declared=True))  # type: ignore[arg-type]
    request = parse_request(DIALECTS["generate"], {"prompt": "q"})
    assert route.route(request) is route


async def test_a_refused_model_comes_after_a_bad_argument(era: str, standin: StandInProvider) -> None:
    async with connect(era, server=provider_server(standin)) as client:
        bad = await client.call_tool("generate", {"prompt": 7, "model": "gpt-4o"})
        then = await client.call_tool("generate", {"prompt": "q"})
    assert bad.content[0].text.startswith("generate: prompt: ")
    assert bad.content[0].text.endswith("Nothing was sent to the host.")
    assert backend_of(then) == "provider:openai/model-one"  # the next call works
    assert len(standin.seen) == 1


async def test_a_refused_model_comes_before_the_conversation_checks(
    era: str, standin: StandInProvider
) -> None:
    # docs/decisions.md: the route is chosen once the arguments are read; the conversation's
    # order and a cursor are checked at build, which a proven retry skips.
    async with connect(era, server=provider_server(standin)) as client:
        refused = await client.call_tool("chat_complete", {"messages": UNANSWERED_CALL, "model": "gpt-4o"})
        unordered = await client.call_tool("chat_complete", {"messages": UNANSWERED_CALL})
    assert refused.content[0].text.startswith("chat_complete: model: 'gpt-4o' is not a model")
    assert unordered.content[0].text.startswith("chat_complete: messages[1]: the tool call(s) 'c1'")
    assert unordered.content[0].text.endswith("Nothing was sent to the host.")
    assert standin.seen == []


async def test_without_a_provider_backend_provider_is_refused_after_parse(era: str) -> None:
    async with connect(era, ScriptedHost("fine")) as client:
        bad = await client.call_tool("generate", {"prompt": None, "backend": "provider"})
        refused = await client.call_tool("generate", {"prompt": "q", "backend": "provider"})
        served = await client.call_tool("generate", {"prompt": "q"})
    assert bad.content[0].text.startswith("generate: prompt: ")
    assert refused.content[0].text.startswith("generate: backend: 'provider' needs a provider")
    assert served.content[0].text == "fine"
