"""Callers' limits enforced together by several processes, over real `serve --http`: two servers
sharing one real redis-server (as two machines would) and the two workers of `--workers 2`
enforce one limit between them; a server killed in the middle of a call leaves the counters
consistent (the call counted, its place back when its lease ends), with Redis and with an SQLite
file that two processes share.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent_as_model.commands import standin_provider
from agent_as_model.commands.standin_provider import StandInProvider
from agent_as_model.server import STATE_KEY_ENV
from tests import http_servers
from tests.callers_helpers import PROVIDER_KEY, callers_report, provider_flags, tokens_for, write_config
from tests.helpers import text_of
from tests.http_servers import HttpServer, http_client
from tests.redis_server import running_redis
from tests.scripted_host import ScriptedHost

pytestmark = pytest.mark.anyio

LEASE = 1.0  # seconds: a killed server's place comes back this soon
KEY = "shared-key-of-this-deployment-0123456789ab"


@pytest.fixture(scope="module")
def shared_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_redis(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def redis_url(shared_redis: str) -> str:
    """The module's redis-server, emptied for the test."""
    import redis

    client = redis.Redis.from_url(shared_redis)
    client.flushdb()
    client.close()
    return shared_redis


@pytest.fixture(scope="module")
def provider() -> Iterator[StandInProvider]:
    with standin_provider.running() as running:
        yield running


def environment() -> dict[str, str]:
    return {"OPENAI_API_KEY": PROVIDER_KEY, STATE_KEY_ENV: KEY}


async def call(server: HttpServer, era: str, token: str, **extra: Any) -> Any:
    async with http_client(server.url, era, ScriptedHost("fine"), token=token) as client:
        return await client.call_tool("generate", {"prompt": "p", **extra})


async def test_two_servers_sharing_redis_enforce_one_limit_together(
    redis_url: str, tmp_path: Path, era: str
) -> None:
    tokens = tokens_for("shared")
    config = write_config(
        tmp_path / "shared.toml", tokens, {"shared": {"requests-per-minute": 4}}, {"counters": redis_url}
    )
    first, second = http_servers.start_many(2, "--config", str(config), env=environment())
    try:
        for server in (first, second, first, second):  # 4 between them: each alone would allow 4
            result = await call(server, era, tokens["shared"])
            assert not result.is_error, text_of(result)
        for server in (first, second):
            over = await call(server, era, tokens["shared"])
            assert over.is_error and "requests-per-minute = 4" in text_of(over)
    finally:
        first.stop()
        second.stop()
    assert callers_report(config)["callers"]["shared"]["use"]["requests"] == 4


async def test_the_workers_of_one_server_enforce_one_limit_together(
    redis_url: str, provider: StandInProvider, tmp_path: Path
) -> None:
    # Several workers serve 2026-07-28 only; each connection goes to whichever worker accepts it.
    tokens = tokens_for("busy")
    config = write_config(
        tmp_path / "busy.toml", tokens, {"busy": {"concurrent-calls": 3}}, {"counters": redis_url}
    )
    server = http_servers.start(
        "--config", str(config), "--workers", "2", *provider_flags(provider), env=environment()
    )
    provider.hold = held = threading.Event()
    provider.seen.clear()
    results: list[Any] = []
    try:

        async def one() -> None:
            results.append(await call(server, "2026-07-28", tokens["busy"], backend="provider"))

        async with anyio.create_task_group() as group:
            for _ in range(8):
                group.start_soon(one)
            with anyio.fail_after(120):
                while len(results) < 5 or len(provider.seen) < 3:
                    await anyio.sleep(0.05)
            await anyio.sleep(0.3)
            assert len(provider.seen) == 3 and len(results) == 5
            held.set()
    finally:
        held.set()
        provider.hold = None
        server.stop()
    assert sum(not r.is_error for r in results) == 3
    assert all("concurrent-calls = 3" in text_of(r) for r in results if r.is_error)


@pytest.mark.parametrize("counted_in", ["redis", "sqlite"])
async def test_a_server_killed_mid_call_leaves_the_counters_consistent(
    redis_url: str, provider: StandInProvider, tmp_path: Path, era: str, counted_in: str
) -> None:
    tokens = tokens_for("victim")
    counters = redis_url if counted_in == "redis" else f"sqlite:{tmp_path / 'counters.db'}"
    config = write_config(
        tmp_path / "victim.toml",
        tokens,
        {"victim": {"concurrent-calls": 1}},
        {"counters": counters, "lease": LEASE},
    )
    doomed, survivor = http_servers.start_many(
        2, "--config", str(config), *provider_flags(provider), env=environment()
    )
    provider.hold = held = threading.Event()
    provider.seen.clear()
    try:
        async with anyio.create_task_group() as group:

            async def cut_off() -> None:
                with pytest.raises(Exception):  # noqa: B017  # the connection dies with its server
                    await call(doomed, era, tokens["victim"], backend="provider")

            group.start_soon(cut_off)
            with anyio.fail_after(60):
                while len(provider.seen) < 1:
                    await anyio.sleep(0.05)
            # The doomed server's call holds the one place: the survivor refuses.
            over = await call(survivor, era, tokens["victim"])
            assert over.is_error and "concurrent-calls = 1" in text_of(over)
            doomed.process.send_signal(signal.SIGKILL)
            doomed.process.wait(timeout=20)
        use = callers_report(config)["callers"]["victim"]["use"]
        assert use["requests"] == 1  # the killed call was counted; the refusal was not
        held.set()
        with anyio.fail_after(30):  # within a lease its place comes back, and nothing else is lost
            while callers_report(config)["callers"]["victim"]["use"]["in_flight"]:
                await anyio.sleep(0.2)
        result = await call(survivor, era, tokens["victim"])
        assert not result.is_error, text_of(result)
    finally:
        held.set()
        provider.hold = None
        doomed.stop()
        survivor.stop()
    use = callers_report(config)["callers"]["victim"]["use"]
    assert (use["requests"], use["in_flight"]) == (2, 0)
