"""No full collection starts while the server's heavy work runs (engine/offload.py): a full
collection walks every live object with the GIL held, and a check keeping half a million
jsonschema errors alive made the event loop wait 30-160 ms for each. What that buys a concurrent
call is measured by benchmarks/bench_hostile.py, not here."""

from __future__ import annotations

import gc
import threading
from typing import Any

import anyio
import pytest

from agent_as_model import patterns
from agent_as_model.engine import offload
from agent_as_model.limits import Limits
from agent_as_model.server import build_server
from tests.scripted_host import ScriptedHost, connect
from tests.test_bounded_work import fan_out


def third() -> int:
    return gc.get_threshold()[2]


@pytest.mark.anyio
async def test_a_schema_check_runs_with_full_collections_held_and_they_come_back(
    era: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = third()
    seen: list[int] = []
    step = patterns.step

    def noting() -> None:
        seen.append(third())
        step()

    monkeypatch.setattr(patterns, "step", noting)
    host = ScriptedHost("fine")
    persona = {"name": "p", "input_schema": fan_out(40, "oneOf")}
    async with connect(era, host, server=build_server(limits=Limits(schema_steps=5000))) as client:
        bad = await client.call_tool("generate", {"prompt": "q", "persona": persona})
        good = await client.call_tool("generate", {"prompt": "next"})
    assert bad.is_error and "the check took more than 5000 steps" in bad.content[0].text
    assert good.content[0].text == "fine"
    assert seen and set(seen) == {offload._UNBOUNDED}  # every step of the check ran held
    assert third() == before  # and the collector's rule is back once it ended


def test_overlapping_works_hold_until_the_last_ends_and_an_error_releases() -> None:
    before = third()
    with offload.no_full_collections():
        with pytest.raises(ValueError), offload.no_full_collections():
            raise ValueError("the work failed")
        assert third() == offload._UNBOUNDED  # the other work still runs
    assert third() == before


def test_a_hold_longer_than_its_bound_lets_one_full_collection_happen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = third()
    collected: list[tuple[Any, int]] = []
    monkeypatch.setattr(offload, "FULL_AT_LEAST", 0.0)
    monkeypatch.setattr(offload.gc, "collect", lambda *a: collected.append((a, third())) or 0)
    started, release = threading.Event(), threading.Event()

    def long_work() -> None:
        with offload.no_full_collections():
            started.set()
            release.wait(30)

    worker = threading.Thread(target=long_work)
    worker.start()
    assert started.wait(30)
    with offload.no_full_collections():
        pass  # ends while the long work runs, after the bound: it pays for one full collection
    assert collected == [((), before)]  # collected with the rule restored...
    assert third() == offload._UNBOUNDED  # ...then held again for the long work
    release.set()
    worker.join(30)
    assert third() == before


@pytest.mark.anyio
async def test_off_loop_holds_around_its_work() -> None:
    before = third()
    assert await offload.off_loop(third) == offload._UNBOUNDED
    assert third() == before
    with anyio.fail_after(30):
        with pytest.raises(KeyError):
            await offload.off_loop({}.__getitem__, "k")
    assert third() == before


def test_serving_collects_the_youngest_generation_less_often() -> None:
    """`freeze_heap` (both transports call it once built) raises the first threshold, so reading
    a large request on the event loop sets off no string of full collections."""
    from agent_as_model import transports

    before = gc.get_threshold()
    try:
        transports.freeze_heap()
        assert gc.get_threshold() == (transports.YOUNG_THRESHOLD, before[1], before[2])
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
