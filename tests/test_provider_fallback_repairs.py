"""A server with `--provider-on-host-error` serves a host that samples exactly as one without it:
repairs of structured output and a retried round behave the same on both eras."""

from __future__ import annotations

import json

import pytest

from agent_as_model.commands.standin_provider import StandInProvider
from agent_as_model.limits import Limits
from tests.provider_harness import backend_of, provider_server
from tests.scripted_host import ScriptedHost, connect
from tests.test_structured_output import GOOD, with_schema

pytestmark = pytest.mark.anyio


async def test_a_repair_on_a_fallback_server_completes_on_the_host(
    era: str, standin: StandInProvider
) -> None:
    host = ScriptedHost('{"name": "Ada"}', '{"name": "Ada", "age": 36}', "never asked")
    server = provider_server(standin, on_host_error=True)
    async with connect(era, host, server=server) as client:
        result = await client.call_tool(
            "chat_complete", {**with_schema("chat_complete"), "repair_attempts": 2}
        )
    assert not result.is_error, result.content[0].text
    assert result.content[0].text == json.dumps(GOOD, sort_keys=True)
    assert backend_of(result) == "host"
    assert host.asked == 2
    assert standin.seen == []


async def test_after_a_decline_the_provider_takes_the_repair_round_too(standin: StandInProvider) -> None:
    from mcp_types import ErrorData

    from agent_as_model.commands.standin_provider import openai_reply

    standin.script += [openai_reply('{"name": "Ada"}'), openai_reply('{"name": "Ada", "age": 36}')]
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"), "never asked")
    server = provider_server(standin, on_host_error=True)
    async with connect("legacy", host, server=server) as client:
        result = await client.call_tool(
            "chat_complete", {**with_schema("chat_complete"), "repair_attempts": 1}
        )
    assert not result.is_error, result.content[0].text
    assert result.content[0].text == json.dumps(GOOD, sort_keys=True)
    assert backend_of(result) == "provider:openai/model-one"
    assert host.asked == 1
    assert len(standin.seen) == 2
    # the repair round carries the provider's own bad answer and the error back to it
    repair = standin.seen[1].body["messages"]
    assert repair[-2]["role"] == "assistant" and repair[-2]["content"] == '{"name": "Ada"}'
    assert "missing required property" in repair[-1]["content"]


async def test_a_host_that_times_out_falls_back_with_provider_on_host_error(standin: StandInProvider) -> None:
    from tests.test_slow_hosts import SilentHost

    host = SilentHost()
    server = provider_server(standin, on_host_error=True, limits=Limits(host_timeout=0.2))
    async with connect("legacy", host, server=server) as client:  # type: ignore[arg-type]
        served = await client.call_tool("generate", {"prompt": "q"})
    assert not served.is_error, served.content[0].text
    assert served.content[0].text == "stand-in answer to: q"
    assert backend_of(served) == "provider:openai/model-one"
    assert host.asked == 1 and len(standin.seen) == 1
