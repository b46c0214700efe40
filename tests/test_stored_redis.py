"""Stored responses on a shared Redis: a real `redis-server` on a free port of
127.0.0.1, and two `serve --http` processes sharing it: a response created through one is
continued, retrieved and deleted through the other, on both eras.

Skipped only when the `redis-server` binary is absent (`.ci/run` installs the Debian package) or
the `[redis]` extra is not installed.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_as_model.adapters.store import DEFAULT_TTL, StoreSettings, open_store
from agent_as_model.adapters.store.redis import PREFIX
from agent_as_model.server import STATE_KEY_ENV, build_server
from tests import http_servers
from tests.http_servers import http_client
from tests.redis_server import running_redis
from tests.scripted_host import ScriptedHost, connect
from tests.test_stored_responses import body, said, warnings_of

pytestmark = pytest.mark.anyio

KEY = "shared-key-of-this-deployment-0123456789ab"


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    with running_redis(tmp_path) as url:
        yield url


async def test_a_chain_on_redis_in_process(era: str, redis_url: str) -> None:
    store = open_store(StoreSettings(redis_url), KEY)
    host = ScriptedHost("Hello Ada.", "Ada.")
    async with connect(era, host, server=build_server(store=store)) as client:
        first = body(await client.call_tool("responses_create", {"input": "I am Ada, passport XK-4471."}))
        body(
            await client.call_tool(
                "responses_create", {"input": "Name?", "previous_response_id": first["id"]}
            )
        )
    assert said(host.seen[1])[:2] == [("user", "I am Ada, passport XK-4471."), ("assistant", "Hello Ada.")]
    raw = await store.store.get(first["id"])  # what a Redis dump holds: sealed bytes
    # Long enough that random sealed bytes cannot hold them by chance (b"Ada" once did).
    assert raw is not None and b"XK-4471" not in raw and b"I am Ada" not in raw and b"Hello Ada" not in raw
    # Redis itself forgets it: the key carries the store's lifetime (30 days by default).
    import redis.asyncio

    reader = redis.asyncio.from_url(redis_url)
    lifetime = await reader.pttl(PREFIX + first["id"])
    await reader.aclose()
    assert 0 < lifetime <= DEFAULT_TTL * 1000
    await store.aclose()


async def test_two_http_processes_share_one_redis(era: str, redis_url: str) -> None:
    env = {STATE_KEY_ENV: KEY}
    one, two = http_servers.start_many(2, "--store", redis_url, env=env)
    try:
        host = ScriptedHost("Hello Ada.", "Your name is Ada.")
        async with http_client(one.url, era, host) as client:
            first = body(await client.call_tool("responses_create", {"input": "I am Ada."}))
        async with http_client(two.url, era, host) as client:
            second = body(
                await client.call_tool(
                    "responses_create", {"input": "What is my name?", "previous_response_id": first["id"]}
                )
            )
            got = await client.call_tool("responses_retrieve", {"response_id": first["id"]})
        async with http_client(one.url, era, host) as client:
            gone = await client.call_tool("responses_delete", {"response_id": second["id"]})
        async with http_client(two.url, era, host) as client:
            again = await client.call_tool("responses_retrieve", {"response_id": second["id"]})
    finally:
        one.stop()
        two.stop()
    assert said(host.seen[1]) == [
        ("user", "I am Ada."),
        ("assistant", "Hello Ada."),
        ("user", "What is my name?"),
    ]
    assert body(got) == first
    assert json.loads(gone.content[0].text)["deleted"] is True
    assert again.is_error and "no stored response" in again.content[0].text


@pytest.mark.parametrize("continued", [False, True])
async def test_redis_stopped_while_the_host_answers(era: str, continued: bool, redis_url: str) -> None:
    """A true fault, not a simulated one: Redis is shut down while the host is answering, so the
    write after the answer fails; continued, the chain was read from the live Redis first (on
    2026-07-28 in round one only: the retry carrying the answer finds it in its requestState)."""
    import redis

    store = open_store(StoreSettings(redis_url), KEY)

    def stop_redis_then_answer(params: object) -> str:
        with contextlib.suppress(redis.exceptions.ConnectionError):  # it closes the connection as it goes
            redis.Redis.from_url(redis_url).shutdown(nosave=True)
        return "the answer"

    host = ScriptedHost("first", stop_redis_then_answer)
    async with connect(era, host, server=build_server(store=store)) as client:
        first = body(await client.call_tool("responses_create", {"input": "a"}))
        arguments = {"input": "b", **({"previous_response_id": first["id"]} if continued else {})}
        result = await client.call_tool("responses_create", arguments)
    told = [("user", "a"), ("assistant", "first"), ("user", "b")] if continued else [("user", "b")]
    assert said(host.seen[1]) == told  # continued: the read worked
    made = body(result)
    assert made["output"][0]["content"][0]["text"] == "the answer"
    (warning,) = warnings_of(result)
    assert "was not stored" in warning and made["id"] in warning
