"""Fallback with cooldown: a backend that declines, times out, or answers 429 or 5xx passes the
call to the next of its route, within the call's deadline and honouring Retry-After; a provider
that fails repeatedly is passed over for a cooldown, shared through the store when there is one;
an answer that breaks the call's contract, or a refusal of the request (4xx), is not passed on.
Three stand-in providers reached through their SDKs, on both eras."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types import ErrorData, InputRequiredResult

from agent_as_model.adapters.store import StoreSettings, open_store
from agent_as_model.commands.standin_provider import Slow, StandInProvider, Status, openai_reply
from agent_as_model.limits import Limits
from agent_as_model.server import build_server
from tests.gateway_harness import config_text, gateway_of, meta_of, models_seen, providers, write_config
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio
__all__ = ["providers"]  # the fixture

GPT = {"prompt": "q", "model": "gpt-4.1"}  # route: a (asked for gpt-4.1), then b/claude-x


def server(tmp_path: Path, stand_ins: dict[str, StandInProvider], store: Any = None, **text: Any) -> Any:
    gateway = gateway_of(write_config(tmp_path, config_text(stand_ins, **text)))
    return build_server(gateway=gateway, store=store)


@pytest.mark.parametrize(
    ("failure", "why"),
    [
        (
            Status(503, "overloaded"),
            "HTTP 503: the provider failed (a server error), still after the configured retries",
        ),
        (Status(500), "HTTP 500: the provider failed (a server error), still after the configured retries"),
        (Status(429, retry_after="0"), "HTTP 429: rate limited, still after the configured retries"),
        (
            Slow(3),
            "no HTTP answer: no answer within [providers.a] timeout (0.5 s an attempt, from request to "
            "last byte), still after the configured retries",
        ),
    ],
    ids=["503", "500", "429", "timeout"],
)
async def test_a_failing_provider_passes_the_call_to_the_next(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider], failure: Any, why: str
) -> None:
    providers["a"].script.append(failure)
    async with connect(era, server=server(tmp_path, providers, timeout=0.5)) as client:
        result = await client.call_tool("generate", GPT)
    assert not result.is_error, result.content[0].text
    assert result.content[0].text == "stand-in answer to: q"
    meta = meta_of(result)
    assert meta["backend"] == "provider:b/claude-x"
    assert meta["passed_over"] == [{"backend": "provider:a/gpt-4.1", "why": why}]
    assert "overloaded" not in str(meta)  # the provider's own words stay out of the metadata
    assert models_seen(providers["a"]) == ["gpt-4.1"]
    assert models_seen(providers["b"]) == ["claude-x"]


async def test_a_refusal_or_a_broken_answer_is_not_passed_on(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    providers["a"].script += [Status(400, "bad request"), openai_reply("not json")]
    schema = {"type": "object", "required": ["x"]}
    async with connect(era, server=server(tmp_path, providers)) as client:
        refused = await client.call_tool("generate", GPT)
        broken = await client.call_tool(
            "chat_complete",
            {
                "messages": [{"role": "user", "content": "q"}],
                "model": "gpt-4.1",
                "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}},
            },
        )
    assert refused.is_error and "HTTP 400: the provider refused the request" in refused.content[0].text
    assert refused.content[0].text.endswith(
        "The provider a (not the host) was asked; its answer was not used."
    )
    assert broken.is_error and "response_format" in broken.content[0].text
    assert providers["b"].seen == []


async def test_every_backend_failing_is_one_error_naming_them_all(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    providers["a"].script.append(Status(502, "a is down"))
    providers["b"].script.append(Status(503, "b is down"))
    async with connect(era, server=server(tmp_path, providers)) as client:
        failed = await client.call_tool("generate", GPT)
        after = await client.call_tool("generate", GPT)
    text = failed.content[0].text
    assert failed.is_error
    assert text.startswith(
        "generate: provider b: HTTP 503: the provider failed (a server error), still after "
        "the configured retries; it said: b is down (asked before it, with no answer: "
        "provider:a/gpt-4.1: HTTP 502: "
    )
    assert text.endswith(
        "The provider a failed; the provider b (not the host) was asked; its answer was not used."
    )
    assert meta_of(failed)["backend"] == "provider:b/claude-x"
    assert [p["backend"] for p in meta_of(failed)["passed_over"]] == [
        "provider:a/gpt-4.1",
        "provider:b/claude-x",
    ]
    assert not after.is_error  # the next call is served


async def test_a_declining_host_passes_the_call_on(
    tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"), "the host's own")
    async with connect("legacy", host, server=server(tmp_path, providers)) as client:
        declined = await client.call_tool("generate", {"prompt": "q"})
        hosted = await client.call_tool("generate", {"prompt": "q"})
    assert meta_of(declined)["backend"] == "provider:a/a-default"
    assert meta_of(declined)["passed_over"] == [
        {"backend": "host", "why": "the host answered with error -1"}  # its own words stay out
    ]
    assert meta_of(hosted)["backend"] == "host"


async def test_on_2026_a_retry_without_the_hosts_answer_passes_the_call_on(
    tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    """On 2026-07-28 the host is asked by the round's InputRequiredResult; a host that declines
    retries with no answer (the SDK's own client gives up instead, and the server never hears)."""
    args = {"prompt": "q"}
    async with connect("2026-07-28", ScriptedHost("unused"), server=server(tmp_path, providers)) as client:
        asked = await client.session.call_tool("generate", args, allow_input_required=True)
        assert isinstance(asked, InputRequiredResult)
        result = await client.session.call_tool(
            "generate", args, input_responses={}, request_state=asked.request_state, allow_input_required=True
        )
    assert not isinstance(result, InputRequiredResult)
    assert not result.is_error, result.content[0].text
    assert meta_of(result)["backend"] == "provider:a/a-default"
    assert meta_of(result)["passed_over"] == [
        {"backend": "host", "why": "it declined: its retry brought no answer"}
    ]


async def test_a_retry_after_keeps_the_provider_out_until_then(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    providers["a"].script.append(Status(429, "slow down", retry_after="2"))
    async with connect(era, server=server(tmp_path, providers)) as client:
        first = await client.call_tool("generate", GPT)
        second = await client.call_tool("generate", GPT)
        await anyio.sleep(2.2)
        third = await client.call_tool("generate", GPT)
    assert [meta_of(r)["backend"] for r in (first, second, third)] == [
        "provider:b/claude-x",
        "provider:b/claude-x",
        "provider:a/gpt-4.1",
    ]
    (passed,) = meta_of(second)["passed_over"]
    assert passed["backend"] == "provider:a/gpt-4.1"
    assert passed["why"].startswith("cooling down after failing, for ")
    assert len(providers["a"].seen) == 2  # the 429, then the call after the wait


async def test_a_provider_failing_repeatedly_cools_down(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    providers["a"].script += [Status(500), Status(500)]
    serve = "cooldown-after = 2\ncooldown-for = 1.5"
    async with connect(era, server=server(tmp_path, providers, serve=serve)) as client:
        failing = [await client.call_tool("generate", GPT) for _ in range(3)]
        await anyio.sleep(1.7)
        again = await client.call_tool("generate", GPT)
    assert [meta_of(r)["backend"] for r in failing] == ["provider:b/claude-x"] * 3
    assert len(providers["a"].seen) == 3  # asked twice, passed over the third time, asked after
    assert meta_of(failing[2])["passed_over"][0]["why"].startswith("cooling down after failing")
    assert meta_of(again)["backend"] == "provider:a/gpt-4.1"


async def test_the_calls_deadline_bounds_its_route(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    providers["a"].script.append(Slow(6))
    started = time.monotonic()
    async with connect(
        era, server=server(tmp_path, providers, serve="route-deadline = 1", timeout=10)
    ) as client:
        result = await client.call_tool("generate", GPT)
    took = time.monotonic() - started
    assert result.is_error
    assert "no answer within the call's deadline" in result.content[0].text
    assert meta_of(result)["passed_over"][1] == {
        "backend": "provider:b/claude-x",
        "why": "the call's deadline had passed (serve --route-deadline)",
    }
    assert took < 5  # the deadline, not the provider's 10 s attempt
    assert providers["b"].seen == []


async def test_two_servers_share_one_cooldown_through_the_store(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    url = f"sqlite:{tmp_path / 'shared.db'}"
    key = "a-state-key-shared-by-both-0123456789"
    providers["a"].script += [Status(500), Status(500)]
    serve = "cooldown-after = 2\ncooldown-for = 60"
    one = server(tmp_path, providers, store=open_store(StoreSettings(url), key), serve=serve)
    other = server(tmp_path, providers, store=open_store(StoreSettings(url), key), serve=serve)
    async with connect(era, server=one) as first:
        for _ in range(2):
            await first.call_tool("generate", GPT)
    async with connect(era, server=other) as second:
        result = await second.call_tool("generate", GPT)
    assert len(providers["a"].seen) == 2  # the other server never asked it
    why = meta_of(result)["passed_over"][0]["why"]
    seconds = float(why.removeprefix("cooling down after failing, for ").removesuffix(" s more"))
    assert 50 < seconds <= 60  # the other server's cooldown, read from the store


async def test_on_2026_the_provider_flags_pass_a_retry_without_answer_on_only_when_told(
    providers: dict[str, StandInProvider], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The --provider flags' route (host, then the provider) lets a host decline pass only with
    --provider-on-host-error: without it, the retry that brought no answer asks the host again."""
    from agent_as_model.adapters.provider_names import ProviderSettings

    monkeypatch.setenv("OPENAI_API_KEY", "sk-flags-key-0123456789")
    args = {"prompt": "q"}
    backends = []
    for on_host_error in (False, True):
        settings = ProviderSettings(
            provider="openai",
            model="m",
            base_url=providers["a"].openai_base_url,
            on_host_error=on_host_error,
            max_retries=0,
        )
        built = build_server(provider=settings)
        async with connect("2026-07-28", ScriptedHost("unused"), server=built) as client:
            asked = await client.session.call_tool("generate", args, allow_input_required=True)
            assert isinstance(asked, InputRequiredResult)
            retried = await client.session.call_tool(
                "generate",
                args,
                input_responses={},
                request_state=asked.request_state,
                allow_input_required=True,
            )
        backends.append(
            "asked the host again"
            if isinstance(retried, InputRequiredResult)
            else meta_of(retried)["backend"]
        )
    assert backends == ["asked the host again", "provider:openai/m"]
    assert models_seen(providers["a"]) == ["m"]


@pytest.mark.parametrize("said", ["inf", "nan", "99999999999", "Wed, 21 Oct 9999 07:28:00 GMT"])
async def test_a_retry_after_beyond_reason_is_bounded(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider], said: str
) -> None:
    """A provider's Retry-After is its own word: one that is not a finite wait is not taken, and
    a finite one keeps it out for an hour at the most, in the store's shared cooldown too."""
    providers["a"].script.append(Status(429, "slow down", retry_after=said))
    async with connect(era, server=server(tmp_path, providers)) as client:
        first = await client.call_tool("generate", GPT)
        second = await client.call_tool("generate", GPT)
    assert meta_of(first)["backend"] == "provider:b/claude-x"
    if said in ("inf", "nan"):  # no wait it can name: asked again at once
        assert meta_of(second)["backend"] == "provider:a/gpt-4.1"
        return
    (passed,) = meta_of(second)["passed_over"]
    seconds = float(passed["why"].removeprefix("cooling down after failing, for ").removesuffix(" s more"))
    assert 3500 < seconds <= 3600


async def test_a_host_that_does_not_answer_in_time_passes_the_call_on(
    tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    """A route of the configuration file (agent-default: the host, then provider a) and a host
    that never answers its sampling request: after its timeout the call goes to a. Legacy only:
    on 2026-07-28 the host is asked by the result itself and the server waits for no one."""
    from tests.test_slow_hosts import SilentHost

    host = SilentHost()
    gateway = gateway_of(write_config(tmp_path, config_text(providers)))
    served_by = build_server(gateway=gateway, limits=Limits(host_timeout=0.3))
    async with connect("legacy", host, server=served_by) as client:  # type: ignore[arg-type]
        served = await client.call_tool("generate", {"prompt": "q"})
    assert not served.is_error, served.content[0].text
    assert served.content[0].text == "stand-in answer to: q"
    meta = meta_of(served)
    assert meta["backend"] == "provider:a/a-default"
    (passed,) = meta["passed_over"]
    assert passed["backend"] == "host"
    assert passed["why"].startswith("the host did not answer within 0.3 s (--host-timeout)"), passed
    assert host.asked == 1 and len(providers["a"].seen) == 1
