"""Callers in telemetry (docs/telemetry.md, docs/deploy.md): the caller's name on the tool span,
and each caller's calls (admitted, or refused by which limit), tokens (estimated or counted) and
limits as metrics. In-process through the SDK `Client` on both eras, with a scripted host: no door
there, so the caller is `anonymous`, as on an open HTTP server with limits. Over real `serve --http
--metrics` with named tokens, the same metrics at `/metrics`, naming each caller and no token.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest

from agent_as_model.adapters.callers import (
    Caller,
    CallerLimits,
    CallersSettings,
    Gate,
    digest_of,
    open_counters,
)
from agent_as_model.server import build_server
from tests import http_servers
from tests.helpers import text_of
from tests.scripted_host import ScriptedHost, connect
from tests.telemetry_helpers import Observed
from tests.test_callers_in_process import counted_answer

pytestmark = pytest.mark.anyio

ALICE = "alice-token-never-in-metrics-0123456789"
BOB = "bob-token-never-in-metrics-0123456789ab"


def by_attributes(points: list[Any], *keys: str) -> dict[tuple[Any, ...], Any]:
    return {tuple(point.attributes.get(key) for key in keys): point.value for point in points}


async def test_the_caller_is_on_the_tool_span_and_its_use_in_metrics(era: str, observed: Observed) -> None:
    settings = CallersSettings(
        callers=(Caller("ci", (digest_of("x"),), CallerLimits(600, None, None)),),
        defaults=CallerLimits(requests_per_minute=2),
    )
    gate = Gate(settings, open_counters(None))
    host = ScriptedHost(counted_answer("counted", 7, 3), "not counted")
    async with connect(era, host, server=build_server(gate=gate)) as client:
        for _ in range(2):
            result = await client.call_tool("generate", {"prompt": "p" * 40})
            assert not result.is_error, text_of(result)
        refused = await client.call_tool("generate", {"prompt": "p"})
    assert refused.is_error and "requests-per-minute = 2" in text_of(refused)

    spans = observed.tool_spans()
    assert spans and all(span.attributes["agent_as_model.caller"] == "anonymous" for span in spans)
    calls = by_attributes(
        observed.points("agent_as_model.caller.calls"),
        "agent_as_model.caller",
        "agent_as_model.caller.outcome",
        "agent_as_model.caller.limit",
    )
    assert calls == {("anonymous", "admitted", None): 2, ("anonymous", "refused", "requests-per-minute"): 1}
    tokens = by_attributes(
        observed.points("agent_as_model.caller.tokens"),
        "agent_as_model.caller",
        "agent_as_model.tokens.estimated",
    )
    # The host counted the first answer (7 + 3); the second, "p" * 40 read and "not counted"
    # written, is estimated (10 + 3).
    assert tokens == {("anonymous", False): 10, ("anonymous", True): 13}
    limits = by_attributes(
        observed.points("agent_as_model.caller.limits"),
        "agent_as_model.caller",
        "agent_as_model.caller.limit",
    )
    assert limits == {("ci", "requests-per-minute"): 600, ("*", "requests-per-minute"): 2}


async def test_without_limits_nothing_of_callers_is_measured(era: str, observed: Observed) -> None:
    async with connect(era, ScriptedHost("fine"), server=build_server()) as client:
        assert not (await client.call_tool("generate", {"prompt": "p"})).is_error
    ended = [s for s in observed.tool_spans() if "agent_as_model.repairs" in (s.attributes or {})]
    assert ended and all("agent_as_model.caller" not in s.attributes for s in ended)  # nobody to name
    assert observed.points("agent_as_model.caller.calls") == []
    assert observed.points("agent_as_model.caller.limits") == []


async def test_serve_http_exports_each_named_callers_use_and_limits(tmp_path: Path) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    config = tmp_path / "callers.toml"
    config.write_text(
        "[limits]\nrequests-per-minute = 1\n\n"
        f'[callers.alice]\ntoken-sha256 = "{digest_of(ALICE)}"\n\n'
        f'[callers.bob]\ntoken-sha256 = "{digest_of(BOB)}"\nrequests-per-minute = 5\n'
    )
    with http_servers.running("--metrics", "--config", str(config)) as server:
        async with http_servers.http_client(server.url, "legacy", ScriptedHost("a"), token=ALICE) as alice:
            assert not (await alice.call_tool("generate", {"prompt": "p"})).is_error
            assert (await alice.call_tool("generate", {"prompt": "p"})).is_error
        async with http_servers.http_client(server.url, "2026-07-28", ScriptedHost("b"), token=BOB) as bob:
            assert not (await bob.call_tool("generate", {"prompt": "p"})).is_error
        page = httpx2.get(f"{server.base}/metrics", headers={"Authorization": f"Bearer {BOB}"}, timeout=10)
        log = server.log_text()
    assert page.status_code == 200
    assert ALICE not in page.text and BOB not in page.text and ALICE not in log and BOB not in log
    families = {family.name: family for family in text_string_to_metric_families(page.text)}
    calls = {
        (s.labels["agent_as_model_caller"], s.labels["agent_as_model_caller_outcome"]): s.value
        for s in families["agent_as_model_caller_calls"].samples
        if s.name.endswith("_total")
    }
    # The 2026-07-28 call is two requests and one call: admitted once.
    assert calls == {("alice", "admitted"): 1, ("alice", "refused"): 1, ("bob", "admitted"): 1}
    limits = {
        (s.labels["agent_as_model_caller"], s.labels["agent_as_model_caller_limit"]): s.value
        for s in families["agent_as_model_caller_limits"].samples
    }
    assert limits == {
        ("alice", "requests-per-minute"): 1,
        ("bob", "requests-per-minute"): 5,
        ("*", "requests-per-minute"): 1,
    }
    spent = {s.labels["agent_as_model_caller"] for s in families["agent_as_model_caller_tokens"].samples}
    assert spent == {"alice", "bob"}
