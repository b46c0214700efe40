"""Issue 47 over the real wire: the installed command with `serve --otel` (over stdio and over
HTTP, both eras, a host's rounds and a provider's) exports its spans and metrics over OTLP to a
receiver on 127.0.0.1 (decoded with the OpenTelemetry protocol package);
`opentelemetry-instrument agent-as-model serve` reports once, with `--otel` or without; and
`serve --http --metrics` serves Prometheus text at GET /metrics, behind the bearer token, parsed
with the Prometheus client's own parser."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from prometheus_client.parser import text_string_to_metric_families

from agent_as_model.commands.standin_provider import StandInProvider, Status, openai_reply
from tests import http_servers
from tests.helpers import BIN, COMMAND, command_environment, run_command, server_params
from tests.otlp_receiver import Received, receiving
from tests.provider_harness import OPENAI_KEY
from tests.scripted_host import ScriptedHost
from tests.test_structured_output import with_schema

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]

SERVER_KIND, CLIENT_KIND = 2, 3  # the OTLP protocol's SpanKind values
HELLO = {"messages": [{"role": "user", "content": "Say hello."}]}


def _otlp_environment(received: Received, **extra: str) -> dict[str, str]:
    return command_environment(
        OTEL_EXPORTER_OTLP_ENDPOINT=received.endpoint,
        OTEL_BSP_SCHEDULE_DELAY="100",
        OTEL_METRIC_EXPORT_INTERVAL="200",
        OTEL_LOGS_EXPORTER="none",
        **extra,
    )


async def _repaired_call(params: StdioServerParameters) -> ScriptedHost:
    """One legacy call with a repair round, over stdio; the server ends when the client leaves."""
    host = ScriptedHost('{"name": "Ada"}', '{"name": "Ada", "age": 36}')
    async with Client(params, mode="legacy", sampling_callback=host) as client:
        result = await client.call_tool(
            "chat_complete", {**with_schema("chat_complete"), "repair_attempts": 1}
        )
    assert not result.is_error, result.content[0].text
    return host


async def test_serve_otel_exports_the_trace_of_a_call_over_otlp() -> None:
    with receiving() as received:
        env = _otlp_environment(received)
        host = await _repaired_call(server_params("serve", "--otel", env=env))
        (tool,) = received.wait_for("tools/call chat_complete")
        rounds = received.wait_for("chat agent-default", 2)
        sent = received.wait_for("MCP send sampling/createMessage", 2)
    assert tool.kind == SERVER_KIND
    assert tool.resource["service.name"] == "agent-as-model"
    assert tool.attributes["agent_as_model.repairs"] == 1
    assert sorted(r.attributes["agent_as_model.round"] for r in rounds) == [0, 1]
    for round_ in rounds:
        assert round_.kind == CLIENT_KIND and round_.parent_id == tool.span_id
        assert round_.trace_id == tool.trace_id
    # Each sampling request the SDK sent is under its round, and carried its own trace context.
    by_id = {s.span_id: s for s in sent}
    assert {s.parent_id for s in sent} == {r.span_id for r in rounds}
    for params in host.seen:
        assert params.meta is not None
        _, trace_id, span_id, _ = params.meta["traceparent"].split("-")
        assert trace_id == tool.trace_id and span_id in by_id


async def test_serve_otel_exports_a_2026_07_28_round_and_its_retry_over_otlp() -> None:
    """The round that asks ends with its request's InputRequiredResult; the retry's tool span
    says what the host answered. Both requests' spans reach the collector from the installed
    command."""
    with receiving() as received:
        params = server_params("serve", "--otel", env=_otlp_environment(received))
        host = ScriptedHost("Hello.")
        async with Client(params, mode="2026-07-28", sampling_callback=host) as client:
            result = await client.call_tool("chat_complete", HELLO)
        assert not result.is_error, result.content[0].text
        tools = received.wait_for("tools/call chat_complete", 2)
        (round_,) = received.wait_for("chat agent-default")
    asking, retry = sorted(tools, key=lambda span: span.start)
    assert round_.kind == CLIENT_KIND and round_.parent_id == asking.span_id
    assert round_.attributes["agent_as_model.round.suspended"] is True
    assert round_.attributes["gen_ai.provider.name"] == "mcp.host"
    assert round_.end <= asking.end  # ended as its request's InputRequiredResult was made
    assert retry.attributes["agent_as_model.route"] == "host:2026-07-28"
    assert retry.attributes["agent_as_model.answered_round"] == 0
    assert retry.attributes["gen_ai.response.model"] == "scripted-model"
    assert "traceparent" not in (host.seen[0].meta or {})  # no _meta in an embedded request


async def test_serve_otel_exports_a_provider_round_and_its_retry_over_otlp(standin: StandInProvider) -> None:
    standin.script += [Status(429, "slow down"), openai_reply("Hello from the provider.")]
    with receiving() as received:
        env = _otlp_environment(received, OPENAI_API_KEY=OPENAI_KEY)
        args = ("--provider", "openai", "--provider-base-url", standin.openai_base_url)
        args += ("--provider-model", "model-one", "--provider-max-retries", "1", "--use-provider", "always")
        async with Client(server_params("serve", "--otel", *args, env=env), mode="2026-07-28") as client:
            result = await client.call_tool("chat_complete", HELLO)
        assert not result.is_error, result.content[0].text
        (tool,) = received.wait_for("tools/call chat_complete")
        (round_,) = received.wait_for("chat model-one")
    assert round_.parent_id == tool.span_id
    assert round_.attributes["gen_ai.provider.name"] == "openai"
    assert round_.events == ("agent_as_model.provider.retry",)
    assert tool.attributes["agent_as_model.route"] == "provider"
    # Both attempts carried the round's trace context to the provider.
    assert len(standin.seen) == 2
    for seen in standin.seen:
        headers = {k.lower(): v for k, v in seen.headers.items()}
        _, trace_id, span_id, _ = headers["traceparent"].split("-")
        assert (trace_id, span_id) == (tool.trace_id, round_.span_id)


async def test_serve_http_otel_exports_the_spans_of_a_call_over_otlp() -> None:
    with receiving() as received:
        env = _otlp_environment(received)
        with http_servers.running("--otel", env=env) as server:
            async with http_servers.http_client(server.url, "2026-07-28", ScriptedHost("Hello.")) as client:
                result = await client.call_tool("chat_complete", HELLO)
            assert not result.is_error, result.content[0].text
            tools = received.wait_for("tools/call chat_complete", 2)
            (round_,) = received.wait_for("chat agent-default")
    asking, retry = sorted(tools, key=lambda span: span.start)
    assert asking.resource["service.name"] == "agent-as-model"
    assert round_.kind == CLIENT_KIND and round_.parent_id == asking.span_id
    assert retry.attributes["agent_as_model.route"] == "host:2026-07-28"
    assert retry.attributes["agent_as_model.answered_round"] == 0


async def test_serve_otel_exports_the_metrics_over_otlp() -> None:
    with receiving() as received:
        await _repaired_call(server_params("serve", "--otel", env=_otlp_environment(received)))
        received.wait_for("tools/call chat_complete")
        # The last export happens as the server ends (the SDK's reader flushes at exit).
        for _ in range(600):
            if {"gen_ai.client.operation.duration", "mcp.server.operation.duration"} <= received.metrics:
                break
            await _sleep(0.05)
    assert {"gen_ai.client.operation.duration", "mcp.server.operation.duration"} <= received.metrics


async def _sleep(seconds: float) -> None:
    import anyio

    await anyio.sleep(seconds)


@pytest.mark.parametrize("args", [("serve",), ("serve", "--otel")], ids=["instrumented", "instrumented+otel"])
async def test_opentelemetry_instrument_reports_each_span_once(args: tuple[str, ...]) -> None:
    with receiving() as received:
        env = _otlp_environment(
            received,
            OTEL_TRACES_EXPORTER="otlp",
            OTEL_METRICS_EXPORTER="none",
            OTEL_EXPORTER_OTLP_PROTOCOL="http/protobuf",
        )
        params = StdioServerParameters(
            command=str(BIN / "opentelemetry-instrument"), args=[str(COMMAND), *args], env=env
        )
        await _repaired_call(params)
        received.wait_for("tools/call chat_complete")
        rounds = received.wait_for("chat agent-default", 2)
    assert len(received.named("tools/call chat_complete")) == 1  # one provider: no span twice
    assert len(rounds) == 2


async def test_metrics_are_served_as_prometheus_text_behind_the_token() -> None:
    token = "metrics-test-token-0123456789"
    with http_servers.running("--metrics", "--auth-token", token) as server:
        assert httpx2.get(f"{server.base}/metrics", timeout=10).status_code == 401
        host = ScriptedHost("Hello.")
        async with http_servers.http_client(server.url, "legacy", host, token=token) as client:
            result = await client.call_tool("chat_complete", HELLO)
            assert not result.is_error
            refused = await client.call_tool("chat_complete", {"messages": "not a list"})
            assert refused.is_error
        page = httpx2.get(f"{server.base}/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/plain")
    families = {family.name: family for family in text_string_to_metric_families(page.text)}
    duration = families["gen_ai_client_operation_duration_seconds"]
    assert duration.type == "histogram"
    counts = [s for s in duration.samples if s.name.endswith("_count")]
    assert counts and counts[0].labels["gen_ai_provider_name"] == "mcp.host" and counts[0].value == 1
    requests = families["mcp_server_operation_duration_seconds"]
    methods = {s.labels["mcp_method_name"] for s in requests.samples if s.name.endswith("_count")}
    assert {"initialize", "tools/call"} <= methods
    refusals = [s for s in families["agent_as_model_refusals"].samples if s.name.endswith("_total")]
    assert [(s.labels["agent_as_model_refusal_reason"], s.value) for s in refusals] == [
        ("invalid_request", 1)
    ]
    (in_flight,) = families["agent_as_model_calls_in_flight"].samples
    assert in_flight.value == 0


def test_metrics_is_an_http_option() -> None:
    ran = run_command("serve", "--metrics")
    assert ran.returncode == 2
    assert "--metrics is for serving HTTP" in ran.stderr


def test_an_exporter_that_is_not_installed_is_a_start_up_error() -> None:
    ran = run_command("serve", "--otel", OTEL_TRACES_EXPORTER="zipkin")
    assert ran.returncode == 2
    assert "OTEL_TRACES_EXPORTER: no exporter 'zipkin' is installed" in ran.stderr


async def test_otel_in_the_config_file_exports_over_otlp(tmp_path: Path) -> None:
    """`[serve] otel = true` turns the export on, as `--otel` does."""
    config = tmp_path / "config.toml"
    config.write_text("[serve]\notel = true\n")
    with receiving() as received:
        env = _otlp_environment(received)
        await _repaired_call(server_params("serve", "--config", str(config), env=env))
        (tool,) = received.wait_for("tools/call chat_complete")
    assert tool.kind == SERVER_KIND
    assert tool.attributes["agent_as_model.repairs"] == 1
