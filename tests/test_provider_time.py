"""A provider's time is bounded from request to last byte, per attempt and per
call; Retry-After is honoured only within the time left. Real HTTP through the real SDK clients
against the stand-in provider on 127.0.0.1, on both eras. No timed assertions: each test shows
the bound by what the call says and how many requests the provider heard."""

from __future__ import annotations

import pytest

from agent_as_model.commands.standin_provider import StandInProvider, Status, Trickle
from tests.helpers import run_command, server_params
from tests.provider_harness import backend_of, provider_server
from tests.scripted_host import connect

pytestmark = pytest.mark.anyio

PROVIDERS = ["openai", "anthropic"]
TAIL = "The provider {p} (not the host) was asked; its answer was not used."


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_an_answer_that_trickles_in_is_cut_at_the_timeout(
    era: str, standin: StandInProvider, provider: str
) -> None:
    # Every byte comes well within the SDK's per-read timeout; the whole answer would take minutes.
    standin.script.append(Trickle(0.2))
    server = provider_server(standin, provider, timeout=1.0, max_retries=0)
    async with connect(era, server=server) as client:
        bad = await client.call_tool("generate", {"prompt": "q"})
        good = await client.call_tool("generate", {"prompt": "next"})
    assert bad.content[0].text == (
        f"generate: provider {provider}: no HTTP answer: no answer within --provider-timeout (1 s an "
        "attempt, from request to last byte), still after the configured retries. " + TAIL.format(p=provider)
    )
    assert backend_of(bad) == f"provider:{provider}/model-one"
    assert good.content[0].text == "stand-in answer to: next"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_timed_out_attempt_is_tried_again(era: str, standin: StandInProvider, provider: str) -> None:
    standin.script.append(Trickle(0.2))
    async with connect(era, server=provider_server(standin, provider, timeout=1.0, max_retries=1)) as client:
        result = await client.call_tool("generate", {"prompt": "again"})
    assert result.content[0].text == "stand-in answer to: again"
    assert len(standin.seen) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_retry_after_beyond_the_time_left_ends_the_call_at_once(
    era: str, standin: StandInProvider, provider: str
) -> None:
    standin.script.append(Status(429, "slow down", retry_after="60"))
    async with connect(era, server=provider_server(standin, provider, timeout=2.0, max_retries=3)) as client:
        bad = await client.call_tool("generate", {"prompt": "q"})
    text = bad.content[0].text
    assert text.startswith(
        f"generate: provider {provider}: HTTP 429: rate limited; the provider asked to wait 60 s "
        "(Retry-After), more than the "
    )
    assert "s of provider time left; it said: slow down. " in text
    assert len(standin.seen) == 1  # no second attempt after a wait that could not fit


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_retry_after_within_the_time_left_is_honoured(
    era: str, standin: StandInProvider, provider: str
) -> None:
    # 1 s, twice the first backoff (0.5 s): a retry that ignored the header would come sooner.
    standin.script.append(Status(503, retry_after="1"))
    async with connect(era, server=provider_server(standin, provider, timeout=5.0, max_retries=1)) as client:
        result = await client.call_tool("generate", {"prompt": "later"})
    assert result.content[0].text == "stand-in answer to: later"
    assert len(standin.seen) == 2
    assert standin.seen[1].at - standin.seen[0].at >= 1.0  # a lower bound: the wait asked for


async def test_a_long_provider_message_is_cut_with_a_mark(era: str, standin: StandInProvider) -> None:
    standin.script.append(Status(400, "x" * 100_000))
    async with connect(era, server=provider_server(standin, "openai")) as client:
        bad = await client.call_tool("generate", {"prompt": "q"})
    text = bad.content[0].text
    assert (
        "HTTP 400: the provider refused the request; it said: "
        + "x" * 300
        + "... [cut: 99700 more characters]"
        in text
    )
    assert len(text) < 1000


def test_help_states_the_bound() -> None:
    shown = run_command("serve", "--help")
    assert shown.returncode == 0, shown.stderr
    flat = " ".join(shown.stdout.split())
    assert "from the request to the" in flat
    # The bound is per request to the provider (attempts.py sets it per create()); a call with
    # repairs makes one request a round, so the help must not claim it for the whole call.
    assert "each request to the provider, its retries and the waits between them" in flat
    assert "x (retries + 1); a call with repair rounds makes one such request per round" in flat
    assert "a call's provider time" not in flat


@pytest.mark.stdio
@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_the_bound_holds_over_real_stdio(era: str, standin: StandInProvider) -> None:
    import os

    from mcp import Client

    standin.script.append(Trickle(0.2))
    args = ["serve", "--provider", "openai", "--provider-model", "model-one"]
    args += [
        "--provider-base-url",
        standin.openai_base_url,
        "--provider-timeout",
        "1",
        "--provider-max-retries",
        "0",
    ]
    params = server_params(*args, env=dict(os.environ))
    async with Client(params, mode=era) as client:  # no sampling: the provider serves
        bad = await client.call_tool("generate", {"prompt": "q"})
        good = await client.call_tool("generate", {"prompt": "next"})
    assert (
        "no answer within --provider-timeout (1 s an attempt, from request to last byte)"
        in bad.content[0].text
    )
    assert backend_of(bad) == "provider:openai/model-one"
    assert good.content[0].text == "stand-in answer to: next"
