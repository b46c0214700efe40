"""Routes over the real wires: the installed command serving a configuration file's providers and
routes over stdio (recorded, then replayed offline), two `serve --http` processes sharing one
cooldown through a real `redis-server`, and no key in any log, recording or result. Three
stand-in providers reached through the openai, anthropic and google-genai SDKs, on both eras."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from agent_as_model.commands.standin_provider import StandInProvider, Status
from agent_as_model.server import STATE_KEY_ENV, build_server
from tests import http_servers
from tests.gateway_harness import KEYS, config_text, gateway_of, meta_of, models_seen, providers, write_config
from tests.helpers import COMMAND, server_params
from tests.http_servers import http_client
from tests.scripted_host import ScriptedHost, connect
from tests.test_stored_redis import redis_url

pytestmark = pytest.mark.anyio
__all__ = ["providers", "redis_url"]  # the fixtures

CALLS = {  # one call per product, each routed to the provider that speaks another or its own API
    "gpt-4.1": ("chat_complete", {"messages": [{"role": "user", "content": "to gpt"}], "model": "gpt-4.1"}),
    "claude-3": (
        "messages_create",
        {"messages": [{"role": "user", "content": "to claude"}], "model": "claude-3", "max_tokens": 50},
    ),
    "gemini-3": (
        "gemini_generate_content",
        {"contents": [{"role": "user", "parts": [{"text": "to gemini"}]}], "model": "gemini-3"},
    ),
}
TOKEN = "a-bearer-token-for-the-test-0123456789"


@pytest.mark.stdio
async def test_routes_over_stdio_are_recorded_without_keys_and_replay_offline(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    providers["a"].script.append(Status(503, "down for a moment"))  # the first gpt call passes on to b
    config = write_config(tmp_path, config_text(providers))
    recording = tmp_path / "routes.jsonl"
    env = {**os.environ, "AGENT_AS_MODEL_LOG_LEVEL": "DEBUG"}
    args = ["serve", "--config", str(config), "--record", str(recording)]
    async with Client(server_params(*args, env=env), mode=era) as client:
        results = {
            model: await client.call_tool(tool, arguments) for model, (tool, arguments) in CALLS.items()
        }
        again = await client.call_tool(*CALLS["gpt-4.1"])
    for model, result in results.items():
        assert not result.is_error, (model, result.content[0].text)
    assert {model: meta_of(r)["backend"] for model, r in results.items()} == {
        "gpt-4.1": "provider:b/claude-x",
        "claude-3": "provider:b/claude-3",
        "gemini-3": "provider:g/gemini-3",
    }
    assert meta_of(results["gpt-4.1"])["passed_over"] == [
        {
            "backend": "provider:a/gpt-4.1",
            "why": "HTTP 503: the provider failed (a server error), still after the configured retries",
        }
    ]
    assert meta_of(again)["backend"] == "provider:a/gpt-4.1"
    assert models_seen(providers["a"]) == ["gpt-4.1", "gpt-4.1"]
    text = recording.read_text(encoding="utf-8")
    for key in KEYS.values():
        assert key not in text
        assert all(key not in str(result) for result in (*results.values(), again))
    assert providers["a"].openai_base_url not in text  # no URL either: replay needs none
    done = subprocess.run(
        [str(COMMAND), "replay", str(recording)],
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k not in KEYS},  # offline, with no key at all
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all match" in done.stdout


async def test_no_key_reaches_the_log(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider], caplog: pytest.LogCaptureFixture
) -> None:
    providers["a"].script.append(Status(401, "bad key"))
    gateway = gateway_of(write_config(tmp_path, config_text(providers)))
    with caplog.at_level(logging.DEBUG):
        async with connect(era, ScriptedHost("host"), server=build_server(gateway=gateway)) as client:
            refused = await client.call_tool(*CALLS["gpt-4.1"])
            for tool, arguments in CALLS.values():
                await client.call_tool(tool, arguments)
    assert refused.is_error and "HTTP 401" in refused.content[0].text
    assert "provider:a/gpt-4.1" in caplog.text  # the log does tell who answered
    for key in KEYS.values():
        assert key not in caplog.text
        assert key not in refused.content[0].text


async def test_two_http_processes_share_one_cooldown_through_redis(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider], redis_url: str
) -> None:
    providers["a"].script += [Status(500), Status(500)]
    config = write_config(tmp_path, config_text(providers, serve="cooldown-after = 2\ncooldown-for = 60"))
    env = {STATE_KEY_ENV: "a-state-key-shared-by-both-0123456789", **KEYS}
    one, two = http_servers.start_many(
        2, "--config", str(config), "--store", redis_url, "--auth-token", TOKEN, env=env
    )
    try:
        async with http_client(one.url, era, token=TOKEN) as client:
            failing = [await client.call_tool(*CALLS["gpt-4.1"]) for _ in range(2)]
        async with http_client(two.url, era, token=TOKEN) as client:
            passed = await client.call_tool(*CALLS["gpt-4.1"])
        log = one.log_text() + two.log_text()
    finally:
        one.stop()
        two.stop()
    assert [meta_of(r)["backend"] for r in (*failing, passed)] == ["provider:b/claude-x"] * 3
    assert len(providers["a"].seen) == 2  # the second process never asked it: the first's cooldown held
    why = meta_of(passed)["passed_over"][0]["why"]
    seconds = float(why.removeprefix("cooling down after failing, for ").removesuffix(" s more"))
    assert 40 < seconds <= 60
    for key in KEYS.values():
        assert key not in log


async def test_a_provider_quoting_its_key_never_shows_it_to_the_caller(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    """An API that refuses a key may quote it in its error; the caller reads the error without it,
    whatever the provider's kind."""
    names = {"gpt-4.1": ("a", "A_KEY"), "claude-3": ("b", "B_KEY"), "gemini-3": ("g", "G_KEY")}
    for name, variable in names.values():
        providers[name].script.append(Status(401, f"Incorrect API key provided: {KEYS[variable]}."))
    gateway = gateway_of(write_config(tmp_path, config_text(providers)))
    async with connect(era, ScriptedHost("host"), server=build_server(gateway=gateway)) as client:
        refused = {model: await client.call_tool(*CALLS[model]) for model in names}
    for model, (_, variable) in names.items():
        text = refused[model].content[0].text
        assert refused[model].is_error and "HTTP 401" in text, (model, text)
        assert KEYS[variable] not in text, model
        assert "Incorrect API key provided: [the API key]." in text, (model, text)
