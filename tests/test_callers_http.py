"""Callers and their limits over real `serve --http`, on both eras, with several named tokens:
each limit trips at its bound and not before, for its own caller only; the refusal is a tool
error naming the limit, the caller and when it resets, with `Retry-After` on a 2026-07-28
reply; 200 calls at once from one caller against 50 in flight let exactly 50 through; and no
token appears in any output (the server's log at DEBUG, results, errors, `agent-as-model
callers`).

One server for the file (a real process on a free 127.0.0.1 port), its use counted in SQLite so
`agent-as-model callers` can read it, with a stand-in provider (real HTTP) behind it. Each test
calls as callers of its own, one for each era, so no test sees another's use.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

from agent_as_model.commands import standin_provider
from agent_as_model.commands.standin_provider import StandInProvider
from tests import http_servers
from tests.callers_helpers import (
    PROVIDER_KEY,
    CallHeaders,
    callers_report,
    counted,
    provider_flags,
    tokens_for,
    write_config,
)
from tests.helpers import run_command, text_of
from tests.http_servers import HttpServer, http_client
from tests.scripted_host import ERAS, ScriptedHost

pytestmark = pytest.mark.anyio

OWN = {
    "rpm": {"requests-per-minute": 3},
    "tokens": {"tokens-per-day": 30},
    "flight": {"concurrent-calls": 2},
    "crowd": {"concurrent-calls": 50},
    "free": {"requests-per-minute": "unlimited"},
    "quiet": {},
}
CALLERS = {f"{kind}-{era}": limits for kind, limits in OWN.items() for era in ERAS}
TOKENS = tokens_for(*CALLERS)
DEFAULTS = {"requests-per-minute": 100}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def provider() -> Iterator[StandInProvider]:
    with standin_provider.running() as running:
        yield running


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("callers")
    limits = {**DEFAULTS, "counters": f"sqlite:{where / 'counters.db'}"}
    return write_config(where / "callers.toml", TOKENS, CALLERS, limits)


@pytest.fixture(scope="module")
def server(config: Path, provider: StandInProvider) -> Iterator[HttpServer]:
    env = {"OPENAI_API_KEY": PROVIDER_KEY, "AGENT_AS_MODEL_LOG_LEVEL": "DEBUG"}
    with http_servers.running("--config", str(config), *provider_flags(provider), env=env) as running:
        yield running


def use_of(config: Path, caller: str) -> dict[str, int]:
    found: dict[str, int] = callers_report(config)["callers"][caller]["use"]
    return found


async def test_requests_per_minute_trip_at_the_bound_and_not_before(
    server: HttpServer, config: Path, era: str
) -> None:
    caller = f"rpm-{era}"
    headers = CallHeaders()
    host = ScriptedHost("fine")
    async with http_client(server.url, era, host, token=TOKENS[caller], on_response=headers) as client:
        for _ in range(3):
            result = await client.call_tool("generate", {"prompt": "p"})
            assert not result.is_error, text_of(result)
        assert all("retry-after" not in seen for seen in headers.seen)
        over = await client.call_tool("generate", {"prompt": "p"})
    text = text_of(over)
    assert over.is_error and text.startswith(
        f"generate: caller '{caller}' made 3 requests in the last minute"
    )
    assert "requests-per-minute = 3" in text and "another is allowed in" in text and "(at 20" in text
    assert text.endswith("Nothing was sent to the host.") and host.asked == 3
    refused_headers = headers.seen[-1]
    if era == "legacy":  # the POST's stream began before the call was read: the error alone says when
        assert "retry-after" not in refused_headers
    else:
        assert 50 <= int(refused_headers["retry-after"]) <= 60
    assert use_of(config, caller)["requests"] == 3  # the refusal counted nothing
    # Another caller is not touched by this one's limit.
    async with http_client(server.url, era, ScriptedHost("mine"), token=TOKENS[f"free-{era}"]) as other:
        assert text_of(await other.call_tool("generate", {"prompt": "p"})) == "mine"


async def test_tokens_per_day_let_the_crossing_call_finish_and_refuse_the_next(
    server: HttpServer, config: Path, era: str
) -> None:
    caller = f"tokens-{era}"
    host = ScriptedHost(counted("fine", 7, 6))  # 13 tokens a call, as the host counted them
    async with http_client(server.url, era, host, token=TOKENS[caller]) as client:
        for _ in range(3):  # 0, 13, 26 used before each: under 30, all admitted; the third crosses
            result = await client.call_tool("generate", {"prompt": "p"})
            assert not result.is_error, text_of(result)
        over = await client.call_tool("generate", {"prompt": "p"})
    text = text_of(over)
    assert over.is_error and f"caller '{caller}' has used 39 tokens today (UTC)" in text
    assert "tokens-per-day = 30" in text and "resets at midnight UTC" in text and host.asked == 3
    use = use_of(config, caller)
    assert (use["tokens"], use["estimated"], use["requests"]) == (39, 0, 3)


async def test_tokens_a_provider_counted_are_counted_as_it_counted_them(
    server: HttpServer, config: Path, provider: StandInProvider, era: str
) -> None:
    caller = f"quiet-{era}"
    async with http_client(server.url, era, ScriptedHost(), token=TOKENS[caller]) as client:
        result = await client.call_tool("generate", {"prompt": "p", "backend": "provider"})
        assert not result.is_error, text_of(result)
    use = use_of(config, caller)
    assert (use["tokens"], use["estimated"]) == (13, 0)  # the stand-in's usage: 9 + 4


class HeldHost:
    """A host that keeps every sampling request waiting until released, and counts how many
    waited at once."""

    def __init__(self) -> None:
        self.release = anyio.Event()
        self.asked = 0
        self.waiting = 0
        self.most = 0

    async def __call__(self, context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        self.asked += 1
        self.waiting += 1
        self.most = max(self.most, self.waiting)
        try:
            await self.release.wait()
        finally:
            self.waiting -= 1
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text="held"), model="m")


async def held_calls(
    server: HttpServer, provider: StandInProvider, era: str, caller: str, count: int, bound: int
) -> tuple[list[Any], int, int]:
    """`count` calls at once from `caller`, held where the model is asked (before 2026-07-28 the
    host, on 2026-07-28 the provider, since a 2026-07-28 host answers between requests) until
    every call beyond `bound` has been refused; then released. Returns the results, how many
    were asked, and how many waited at once."""
    host = HeldHost()
    provider.hold = held = threading.Event()
    provider.seen.clear()
    provider.most_held = 0
    arguments: dict[str, Any] = {"prompt": "p"} if era == "legacy" else {"prompt": "p", "backend": "provider"}
    results: list[Any] = []

    def asked() -> int:
        return host.asked if era == "legacy" else len(provider.seen)

    try:
        async with http_client(server.url, era, host, token=TOKENS[caller], connections=count + 10) as client:

            async def one() -> None:
                results.append(await client.call_tool("generate", arguments))

            async with anyio.create_task_group() as group:
                for _ in range(count):
                    group.start_soon(one)
                with anyio.fail_after(120):
                    while len(results) < count - bound or asked() < bound:
                        await anyio.sleep(0.05)
                await anyio.sleep(0.3)  # nothing more gets through while they are held
                assert asked() == bound and len(results) == count - bound
                host.release.set()
                held.set()
    finally:
        held.set()
        provider.hold = None
    return results, asked(), host.most if era == "legacy" else provider.most_held


async def test_calls_in_flight_trip_at_the_bound_and_a_place_comes_back(
    server: HttpServer, config: Path, provider: StandInProvider, era: str
) -> None:
    caller = f"flight-{era}"
    results, asked, most = await held_calls(server, provider, era, caller, 3, 2)
    refused = [r for r in results if r.is_error]
    assert len(refused) == 1 and asked == 2 and most == 2
    assert f"caller '{caller}' has 2 calls in flight" in text_of(refused[0])
    assert "concurrent-calls = 2" in text_of(refused[0]) and text_of(refused[0]).endswith(
        "Nothing was sent to the host."
    )
    assert use_of(config, caller)["in_flight"] == 0
    again, asked, _ = await held_calls(server, provider, era, caller, 2, 2)  # the places came back
    assert not any(r.is_error for r in again) and asked == 2


async def test_200_calls_at_once_against_50_in_flight_let_exactly_50_through(
    server: HttpServer, config: Path, provider: StandInProvider, era: str
) -> None:
    caller = f"crowd-{era}"
    results, asked, most = await held_calls(server, provider, era, caller, 200, 50)
    served = [r for r in results if not r.is_error]
    refused = [r for r in results if r.is_error]
    assert len(served) == 50 and len(refused) == 150 and asked == 50 and most == 50
    assert all("concurrent-calls = 50" in text_of(r) for r in refused), {text_of(r) for r in refused}
    use = use_of(config, caller)
    assert (use["requests"], use["in_flight"]) == (50, 0)


def test_a_wrong_or_missing_token_is_refused_at_the_door(server: HttpServer) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for authorization in (
        "Bearer tok-nobody",
        None,
        f"Basic {TOKENS['quiet-legacy']}",
        TOKENS["quiet-legacy"],
    ):
        headers = {**ACCEPT, **({"Authorization": authorization} if authorization else {})}
        answer = httpx2.post(server.url, json=body, headers=headers)
        assert answer.status_code == 401 and "bearer token" in answer.json()["error"]
    told = httpx2.get(
        f"{server.base}/healthz", headers={"Authorization": f"Bearer {TOKENS['quiet-2026-07-28']}"}
    )
    assert told.json()["pid"] == server.process.pid  # any caller's token tells the pid


def test_callers_prints_use_and_limits_and_no_token(server: HttpServer, config: Path) -> None:
    done = run_command("callers", "--config", str(config))
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[1:-1]}
    assert set(rows) == set(CALLERS)
    assert "of 3" in rows["rpm-legacy"] and "of 30" in rows["tokens-legacy"]
    assert "of 100" in rows["quiet-legacy"]  # the defaults, for a caller that names none
    report = callers_report(config)
    assert report["callers"]["free-legacy"]["limits"]["requests-per-minute"] is None
    assert report["callers"]["crowd-legacy"]["limits"]["concurrent-calls"] == 50
    for token in TOKENS.values():
        assert token not in done.stdout and token not in json.dumps(report)
    assert "sha256" not in done.stdout  # neither tokens nor their digests


async def test_no_token_appears_in_any_output(server: HttpServer, config: Path, era: str) -> None:
    caller = f"quiet-{era}"
    async with http_client(server.url, era, ScriptedHost("fine"), token=TOKENS[caller]) as client:
        said = [
            await client.call_tool("generate", {"prompt": "p"}),
            await client.call_tool("generate", {"x": 1}),
        ]
    bad = httpx2.post(
        server.url, json={}, headers={**ACCEPT, "Authorization": "Bearer " + TOKENS[caller] + "x"}
    )
    outputs = [
        server.log_text(),
        bad.text,
        *(text_of(result) for result in said),
        run_command("callers", "--config", str(config)).stdout,
        config.read_text(),
    ]
    assert " DEBUG " in outputs[0]  # the server logged all it logs
    for output in outputs:
        for token in TOKENS.values():
            assert token not in output
