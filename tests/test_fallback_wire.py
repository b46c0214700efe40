"""Fallback over the real wires: the installed command serving a configuration file's routes over
stdio and over HTTP, on both eras, with a provider that answers 503, then does not answer in time,
then answers 429 with `Retry-After` (and is passed over until then), and a host that declines.
Each call is passed on to the next backend of its route, and `_meta` says who was passed over
and why. The same behaviours are tested in-process, one by one, in tests/test_fallback.py."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import ErrorData, InputRequiredResult

from agent_as_model.commands.standin_provider import Slow, StandInProvider, Status
from tests import http_servers
from tests.gateway_harness import config_text, meta_of, providers, write_config
from tests.helpers import server_params
from tests.http_servers import http_client
from tests.scripted_host import ScriptedHost

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]
__all__ = ["providers"]  # the fixture

GPT = {"prompt": "q", "model": "gpt-4.1"}  # route: a (asked for gpt-4.1), then b/claude-x
TOKEN = "a-bearer-token-for-the-test-0123456789"
# Enough failures allowed that only Retry-After keeps provider a out here (the breaker has its own test).
SERVE = "cooldown-after = 10"


@asynccontextmanager
async def served(wire: str, era: str, config: Path, host: ScriptedHost) -> AsyncIterator[Client]:
    if wire == "stdio":
        params = server_params("serve", "--config", str(config), env=dict(os.environ))
        async with Client(params, mode=era, sampling_callback=host) as client:
            yield client
        return
    with http_servers.running("--config", str(config), "--auth-token", TOKEN) as server:
        async with http_client(server.url, era, host, token=TOKEN) as client:
            yield client


async def declined_by_the_host(client: Client, era: str) -> Any:
    """A call whose route starts at the host, which declines: on legacy its sampling callback
    answers with an error; on 2026-07-28 the SDK's client gives up locally on a failing callback
    and the server never hears, so the retry is sent as a declining host sends it, without answers."""
    if era == "legacy":
        return await client.call_tool("generate", {"prompt": "q"})
    args = {"prompt": "q"}
    asked = await client.session.call_tool("generate", args, allow_input_required=True)
    assert isinstance(asked, InputRequiredResult)
    result = await client.session.call_tool(
        "generate", args, input_responses={}, request_state=asked.request_state, allow_input_required=True
    )
    assert not isinstance(result, InputRequiredResult)
    return result


@pytest.mark.parametrize("wire", ["stdio", "http"])
async def test_fallback_over_the_wire(
    wire: str, era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    providers["a"].script += [Status(503, "overloaded"), Slow(4), Status(429, "slow down", retry_after="3")]
    config = write_config(tmp_path, config_text(providers, serve=SERVE, timeout=1))
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"))
    async with served(wire, era, config, host) as client:
        failed = [await client.call_tool("generate", GPT) for _ in range(3)]
        limited_at = time.monotonic()
        cooling = await client.call_tool("generate", GPT)
        await anyio.sleep(max(0.0, 3.3 - (time.monotonic() - limited_at)))
        again = await client.call_tool("generate", GPT)
        declined = await declined_by_the_host(client, era)
    for result in (*failed, cooling, again, declined):
        assert not result.is_error, result.content[0].text
        assert result.content[0].text == "stand-in answer to: q"
    assert [meta_of(r)["backend"] for r in (*failed, cooling, again)] == [
        *["provider:b/claude-x"] * 4,
        "provider:a/gpt-4.1",
    ]
    whys = [meta_of(r)["passed_over"] for r in (*failed, cooling)]
    assert [[p["backend"] for p in passed] for passed in whys] == [["provider:a/gpt-4.1"]] * 4
    assert whys[0][0]["why"].startswith("HTTP 503: the provider failed (a server error)")
    assert whys[1][0]["why"].startswith("no HTTP answer: no answer within [providers.a] timeout")
    assert whys[2][0]["why"].startswith("HTTP 429: rate limited")
    assert whys[3][0]["why"].startswith("cooling down after failing, for ")
    assert "passed_over" not in meta_of(again)
    # The three failures, the call after Retry-After (never the one while it held), the declined one.
    assert [seen.body["model"] for seen in providers["a"].seen] == [*["gpt-4.1"] * 4, "a-default"]
    # agent-default: the host, then provider a.
    assert meta_of(declined)["backend"] == "provider:a/a-default"
    (passed,) = meta_of(declined)["passed_over"]
    assert passed["backend"] == "host"
    told = (
        "the host answered with error -1" if era == "legacy" else "it declined: its retry brought no answer"
    )
    assert passed["why"] == told
