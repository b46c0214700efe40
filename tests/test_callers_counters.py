"""The callers' counters through the gate, on each store they live in: this process's memory, an
SQLite file, and a real redis-server. Each limit trips at its bound and not before, a refusal
counts nothing, admissions made at once never take more places than there are (and two counters
sharing one store count together, as two processes do), a place comes back when its call settles
or, never settled, when its lease ends, and tokens are counted with their estimated part apart.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent_as_model.adapters.callers import (
    CallerLimits,
    CallersSettings,
    Gate,
    Refused,
    Spent,
    Visit,
    open_counters,
)
from agent_as_model.adapters.callers.base import until_midnight
from agent_as_model.errors import CallError
from tests.redis_server import running_redis

pytestmark = pytest.mark.anyio
KINDS = ("memory", "sqlite", "redis")


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_redis(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(params=KINDS)
def where(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | None]:
    """Where the counters live: None (memory), sqlite:PATH, or a redis-server emptied for the test."""
    if request.param == "memory":
        yield None
    elif request.param == "sqlite":
        yield f"sqlite:{tmp_path / 'counters.db'}"
    else:
        url = request.getfixturevalue("redis_url")
        import redis

        client = redis.Redis.from_url(url)
        client.flushdb()
        client.close()
        yield url


def gate(where: str | None, lease: float = 60.0, **limits: int) -> Gate:
    settings = CallersSettings(defaults=CallerLimits(**limits), counters=where, lease=lease)
    return Gate(settings, open_counters(where))


async def refused(gate: Gate, caller: str = "alice") -> Refused:
    visit = Visit(caller)
    with pytest.raises(Refused) as told:
        await gate.admit(visit)
    assert visit.retry_after == told.value.retry_after  # what the door sends as Retry-After
    return told.value


async def test_requests_per_minute_trip_at_the_bound_and_not_before(where: str | None) -> None:
    limited = gate(where, requests_per_minute=3)
    for _ in range(3):
        ticket = await limited.admit(Visit("alice"))
        await limited.settle("alice", ticket, Spent())
    over = await refused(limited)
    assert over.over.limit == "requests-per-minute" and over.over.used == 3 and over.over.bound == 3
    assert 55 < over.over.resets_in <= 60 and over.retry_after == 60
    text = over.message("generate")
    assert "caller 'alice'" in text and "requests-per-minute = 3" in text and "allowed in 60 s (at 20" in text
    await refused(limited)  # a refusal counts nothing: still 3, not 4
    assert (await limited.counters.use(["alice"]))["alice"].requests == 3
    # Callers count apart.
    await limited.settle("bob", await limited.admit(Visit("bob")), Spent())
    assert (await limited.counters.use(["alice", "bob"]))["bob"].requests == 1
    await limited.aclose()


async def test_calls_in_flight_trip_at_the_bound_and_come_back_when_one_ends(where: str | None) -> None:
    limited = gate(where, concurrent_calls=2)
    first = await limited.admit(Visit("alice"))
    await limited.admit(Visit("alice"))
    over = await refused(limited)
    assert over.over.limit == "concurrent-calls" and over.over.used == 2 and over.retry_after == 1
    assert "has 2 calls in flight" in over.reason and "concurrent-calls = 2" in over.reason
    await limited.settle("alice", first, Spent())
    await limited.admit(Visit("alice"))  # the place that came back
    assert (await limited.counters.use(["alice"]))["alice"].in_flight == 2
    await limited.aclose()


async def test_tokens_per_day_let_the_crossing_call_finish_and_refuse_the_next(where: str | None) -> None:
    limited = gate(where, tokens_per_day=30)
    for spent in (Spent(13), Spent(13, 13)):  # 26: under the bound
        await limited.settle("alice", await limited.admit(Visit("alice")), spent)
    crossing = await limited.admit(Visit("alice"))  # admitted at 26 of 30; it uses 13 more
    await limited.settle("alice", crossing, Spent(13))
    over = await refused(limited)
    assert over.over.limit == "tokens-per-day" and over.over.used == 39 and over.over.estimated == 13
    assert "used 39 tokens today (UTC, 13 of them estimated)" in over.reason
    assert "resets at midnight UTC" in over.reason and over.retry_after >= until_midnight(time.time()) - 5
    use = (await limited.counters.use(["alice"]))["alice"]
    assert (use.tokens, use.estimated, use.requests, use.in_flight) == (39, 13, 3, 0)
    await limited.aclose()


async def test_no_limit_means_no_refusal_but_use_is_still_counted(where: str | None) -> None:
    settings = CallersSettings(defaults=CallerLimits(requests_per_minute=1), counters=where)
    settings = settings._replace(
        callers=(settings.callers + (_caller("free", CallerLimits()),)),
    )
    limited = Gate(settings, open_counters(where))
    for _ in range(5):
        await limited.settle("free", await limited.admit(Visit("free")), Spent(2))
    use = (await limited.counters.use(["free"]))["free"]
    assert (use.requests, use.tokens) == (5, 10)
    await limited.aclose()


def _caller(name: str, limits: CallerLimits) -> Any:
    from agent_as_model.adapters.callers import Caller

    return Caller(name, (), limits)


async def test_admissions_at_once_take_exactly_the_places_there_are(where: str | None) -> None:
    # Two gates on one store stand for two processes (two workers, two machines on Redis); memory
    # is one process's, so its two "processes" are one gate.
    first = gate(where, concurrent_calls=50)
    second = first if where is None else gate(where, concurrent_calls=50)
    admitted: list[Any] = []
    refusals: list[Refused] = []

    async def one(index: int) -> None:
        try:
            admitted.append(await (first if index % 2 else second).admit(Visit("alice")))
        except Refused as err:
            refusals.append(err)

    async with anyio.create_task_group() as group:
        for index in range(200):
            group.start_soon(one, index)
    assert len(admitted) == 50 and len(refusals) == 150
    assert all(r.over.limit == "concurrent-calls" for r in refusals)
    assert (await first.counters.use(["alice"]))["alice"].in_flight == 50
    await first.aclose()
    if second is not first:
        await second.aclose()


async def test_a_place_never_given_back_returns_when_its_lease_ends(where: str | None) -> None:
    if where is None:
        pytest.skip("memory dies with its process: its places need no lease")
    lease = 0.6
    dead = gate(where, lease, concurrent_calls=1)
    await dead.admit(Visit("alice"))  # its process "dies": never settled, never renewed
    dead._live.clear()  # the renewing timer of a dead process renews nothing
    alive = gate(where, lease, concurrent_calls=1)
    await refused(alive)
    await anyio.sleep(lease + 0.2)
    ticket = await alive.admit(Visit("alice"))
    # A live call's lease is renewed every third of one: it keeps its place past its first lease.
    await anyio.sleep(2 * lease)
    assert (await alive.counters.use(["alice"]))["alice"].in_flight == 1
    await refused(alive)
    await alive.settle("alice", ticket, Spent())
    assert (await alive.counters.use(["alice"]))["alice"].in_flight == 0
    await dead.aclose()
    await alive.aclose()


async def test_counters_that_cannot_be_reached_refuse_the_call_saying_so(tmp_path: Path) -> None:
    pytest.importorskip("redis")
    unreachable = gate("redis://127.0.0.1:1/0", requests_per_minute=5)
    with pytest.raises(CallError) as told:
        await unreachable.admit(Visit("alice"))
    assert not isinstance(told.value, Refused)
    assert "the limits of caller 'alice' cannot be checked" in told.value.reason
    assert "redis://127.0.0.1:1/0" in told.value.reason
    await unreachable.settle("alice", None, Spent(5))  # logged, not raised: the call has ended
    await unreachable.aclose()
