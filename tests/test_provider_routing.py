"""The provider is off by default, serves by the operator's rule and the
call's `backend`, completes in one round on 2026-07-28, and every result says who answered."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from mcp import MCPError
from mcp_types import ErrorData

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.commands.standin_provider import StandInProvider, openai_reply
from tests.provider_harness import OPENAI_KEY, backend_of, provider_server
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

PROVIDER_TAIL = "The provider openai (not the host) was asked; its answer was not used."


def test_off_by_default_no_sdk_is_imported_and_no_key_read() -> None:
    code = (
        "import sys, os; os.environ.pop('OPENAI_API_KEY', None); os.environ.pop('ANTHROPIC_API_KEY', None)\n"
        "from agent_as_model.server import build_server; build_server()\n"
        "print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_without_a_provider_a_host_that_cannot_sample_gets_32021(era: str) -> None:
    async with connect(era) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("generate", {"prompt": "q"})
    assert caught.value.error.code == -32021


async def test_when_host_cannot_a_host_without_sampling_is_served_by_the_provider(
    era: str, standin: StandInProvider
) -> None:
    async with connect(era, server=provider_server(standin)) as client:
        result = await client.call_tool("generate", {"prompt": "hello"})
        again = await client.call_tool("generate", {"prompt": "again"})
    assert not result.is_error
    assert result.content[0].text == "stand-in answer to: hello"
    assert again.content[0].text == "stand-in answer to: again"
    # One request each: on 2026-07-28 too, there was no InputRequiredResult (the client has no
    # sampling callback, so a round trip would have failed the call).
    assert len(standin.seen) == 2
    assert standin.seen[0].body["model"] == "model-one"
    assert backend_of(result) == "provider:openai/model-one"


async def test_when_host_cannot_a_sampling_host_answers_itself(era: str, standin: StandInProvider) -> None:
    host = ScriptedHost("from the host")
    async with connect(era, host, server=provider_server(standin)) as client:
        result = await client.call_tool("generate", {"prompt": "q"})
    assert result.content[0].text == "from the host"
    assert backend_of(result) == "host"
    assert host.asked == 1
    assert standin.seen == []


async def test_always_serves_a_sampling_host_from_the_provider(era: str, standin: StandInProvider) -> None:
    host = ScriptedHost("from the host")
    async with connect(era, host, server=provider_server(standin, use="always")) as client:
        result = await client.call_tool("chat_complete", {"messages": [{"role": "user", "content": "q"}]})
    assert result.content[0].text == "stand-in answer to: q"
    assert backend_of(result) == "provider:openai/model-one"
    assert host.asked == 0


async def test_forwarded_tools_without_sampling_tools_go_to_the_provider(
    era: str, standin: StandInProvider
) -> None:
    standin.script.append(
        openai_reply(None, tool_calls=[("call_9", "lookup", '{"q": "x"}')], finish_reason="tool_calls")
    )
    host = ScriptedHost("the host would have dropped the tools")
    tool = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}
    args = {"messages": [{"role": "user", "content": "q"}], "tools": [tool]}
    async with connect(era, host, server=provider_server(standin)) as client:
        result = await client.call_tool("chat_complete", args)
    assert host.asked == 0
    assert json.loads(result.content[0].text) == {
        "text": "",
        "tool_calls": [{"id": "call_9", "input": {"q": "x"}, "name": "lookup"}],
    }
    assert standin.seen[0].body["tools"][0]["function"]["name"] == "lookup"


# Every registered completion tool, so a new one cannot miss `backend`.
@pytest.mark.parametrize("tool", list(DIALECTS))
async def test_backend_provider_per_call_on_a_sampling_host(
    era: str, tool: str, standin: StandInProvider
) -> None:
    host = ScriptedHost("from the host")
    args = dict(DIALECTS[tool].EXAMPLE or {})
    assert args, f"{tool} declares no EXAMPLE"
    async with connect(era, host, server=provider_server(standin)) as client:
        by_provider = await client.call_tool(tool, {**args, "backend": "provider"})
        by_host = await client.call_tool(tool, {**args, "backend": "host"})
        by_rule = await client.call_tool(tool, {**args, "backend": "auto"})
    assert backend_of(by_provider) == "provider:openai/model-one"
    assert [backend_of(by_host), backend_of(by_rule)] == ["host", "host"]
    assert host.asked == 2
    assert len(standin.seen) == 1


async def test_backend_host_on_a_host_that_cannot_sample_is_32021_even_with_a_provider(
    era: str, standin: StandInProvider
) -> None:
    async with connect(era, server=provider_server(standin)) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("generate", {"prompt": "q", "backend": "host"})
        after = await client.call_tool("generate", {"prompt": "q"})
    assert caught.value.error.code == -32021
    assert standin.seen[-1:] and len(standin.seen) == 1  # only the call after it
    assert not after.is_error


async def test_backend_provider_without_a_provider_is_a_clear_error(era: str) -> None:
    host = ScriptedHost()
    async with connect(era, host) as client:
        bad = await client.call_tool("generate", {"prompt": "q", "backend": "provider"})
        good = await client.call_tool("generate", {"prompt": "q"})
    assert bad.is_error
    text = bad.content[0].text
    assert text.startswith(
        "generate: backend: 'provider' needs a provider, and this server has none configured"
    )
    assert text.endswith("Nothing was sent to the host.")
    assert host.asked == 1
    assert not good.is_error


async def test_a_bad_backend_value_names_the_field(era: str, standin: StandInProvider) -> None:
    async with connect(era, ScriptedHost(), server=provider_server(standin)) as client:
        bad = await client.call_tool("generate", {"prompt": "q", "backend": "cloud"})
    assert bad.content[0].text == (
        "generate: backend: must be one of 'host', 'provider', 'auto', got 'cloud'. "
        "Nothing was sent to the host."
    )
    assert standin.seen == []


async def test_an_allowed_model_is_sent_as_it_is_and_any_other_is_refused(
    era: str, standin: StandInProvider
) -> None:
    async with connect(era, server=provider_server(standin)) as client:
        allowed = await client.call_tool("generate", {"prompt": "q", "model": "model-two"})
        refused = await client.call_tool("generate", {"prompt": "q", "model": "gpt-4o"})
    assert backend_of(allowed) == "provider:openai/model-two"
    assert [s.body["model"] for s in standin.seen] == ["model-two"]
    assert refused.content[0].text == (
        "generate: model: 'gpt-4o' is not a model this server's provider openai may use (allowed: "
        "agent-default, model-one, model-two); a name is never mapped to another. "
        "Nothing was sent to the host."
    )


async def test_list_models_lists_the_provider_models(era: str, standin: StandInProvider) -> None:
    async with connect(era, server=provider_server(standin)) as client:
        result = await client.call_tool("list_models", {})
    ids = [(m["id"], m["owned_by"]) for m in json.loads(result.content[0].text)]
    assert ids == [
        ("agent-default", "host-agent"),
        ("model-one", "provider:openai"),
        ("model-two", "provider:openai"),
    ]


async def test_a_declined_host_falls_back_with_provider_on_host_error(standin: StandInProvider) -> None:
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"), "host again")
    server = provider_server(standin, on_host_error=True)
    async with connect("legacy", host, server=server) as client:
        fell_back = await client.call_tool("generate", {"prompt": "q"})
        hosted = await client.call_tool("generate", {"prompt": "q"})
    assert fell_back.content[0].text == "stand-in answer to: q"
    assert backend_of(fell_back) == "provider:openai/model-one"
    assert backend_of(hosted) == "host"
    assert host.asked == 2


async def test_a_declined_host_without_the_option_is_the_hosts_error(standin: StandInProvider) -> None:
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"))
    async with connect("legacy", host, server=provider_server(standin)) as client:
        result = await client.call_tool("generate", {"prompt": "q"})
    assert result.is_error
    assert result.content[0].text.endswith("The host was asked; its answer was not used.")
    assert standin.seen == []


async def test_a_declined_fallback_that_fails_says_both(standin: StandInProvider) -> None:
    from agent_as_model.commands.standin_provider import Status

    standin.script.append(Status(500))
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"))
    async with connect("legacy", host, server=provider_server(standin, on_host_error=True)) as client:
        result = await client.call_tool("generate", {"prompt": "q"})
    assert result.content[0].text.endswith(
        "The host declined; the provider openai was asked; its answer was not used."
    )


async def test_on_2026_a_declining_host_never_retries_so_there_is_nothing_to_fall_back_from(
    standin: StandInProvider,
) -> None:
    # The SDK client raises locally and the server never hears of it (docs/providers.md).
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"), "later")
    async with connect("2026-07-28", host, server=provider_server(standin, on_host_error=True)) as client:
        with pytest.raises(MCPError, match="User rejected sampling"):
            await client.call_tool("generate", {"prompt": "q"})
    assert standin.seen == []


async def test_the_same_transcript_gives_the_same_cursor_on_either_backend(
    era: str, standin: StandInProvider
) -> None:
    standin.script.append(openai_reply("same answer"))
    args = {"messages": [{"role": "user", "content": "q"}], "previous_response_id": ""}
    async with connect(era, ScriptedHost("same answer"), server=provider_server(standin)) as client:
        hosted = await client.call_tool("chat_complete", args)
        provided = await client.call_tool("chat_complete", {**args, "backend": "provider"})
    assert backend_of(hosted) == "host"
    assert backend_of(provided) == "provider:openai/model-one"
    assert hosted.content[0].text == provided.content[0].text
    assert json.loads(provided.content[0].text)["response_id"].startswith("cur_")


async def test_the_provider_is_logged_at_info_and_the_key_never(
    era: str, standin: StandInProvider, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="agent_as_model")
    async with connect(era, server=provider_server(standin)) as client:
        await client.call_tool("generate", {"prompt": "q"})
    assert "generate: answered by provider:openai/model-one" in caplog.text
    assert OPENAI_KEY not in caplog.text


async def test_a_persona_is_checked_alike_and_backend_is_not_in_its_request_object(
    era: str, standin: StandInProvider
) -> None:
    # backend is routing, not the request: an input_schema that forbids unknown keys still passes.
    closed = {
        "type": "object",
        "properties": {
            key: {} for key in ("prompt", "model", "temperature", "max_tokens", "previous_response_id")
        },
        "additionalProperties": False,
    }
    persona = {
        "name": "judge",
        "input_schema": closed,
        "output_schema": {"type": "object", "required": ["ok"]},
    }
    standin.script += [openai_reply('{"ok": true}'), openai_reply('{"nope": 1}')]
    async with connect(era, ScriptedHost(), server=provider_server(standin)) as client:
        good = await client.call_tool("generate", {"prompt": "q", "persona": persona, "backend": "provider"})
        bad = await client.call_tool("generate", {"prompt": "q", "persona": persona, "backend": "provider"})
    assert not good.is_error, good.content[0].text
    assert good.content[0].text == '{"ok": true}'
    assert bad.is_error
    assert "persona 'judge'" in bad.content[0].text
    assert bad.content[0].text.endswith(
        "The provider openai (not the host) was asked; its answer was not used."
    )
