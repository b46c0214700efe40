"""Routes by model: the caller's `model` (an exact name, else a glob pattern, else a model a
provider lists) picks an ordered chain of backends; agent-default goes to the host unless the
operator routes it elsewhere; `backend` narrows the chain; list_models lists every routable model
and who serves it; each result says who answered and what was passed over. Configuration files
read as `serve --config` reads them, three providers (OpenAI-compatible, Anthropic, Gemini) on
stand-ins reached through their official SDKs, on both eras."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import MCPError

from agent_as_model.adapters.backends import ProviderUnavailable
from agent_as_model.commands.standin_provider import StandInProvider
from agent_as_model.server import build_server
from tests.gateway_harness import KEYS, config_text, gateway_of, meta_of, models_seen, providers, write_config
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio
__all__ = ["providers"]  # the fixture


def server(tmp_path: Path, stand_ins: dict[str, StandInProvider], **text: str) -> object:
    return build_server(gateway=gateway_of(write_config(tmp_path, config_text(stand_ins, **text))))


async def test_a_calls_model_picks_its_route(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    host = ScriptedHost("from the host")
    async with connect(era, host, server=server(tmp_path, providers)) as client:
        calls = {
            model: await client.call_tool("generate", {"prompt": f"to {model}", "model": model})
            for model in (
                "agent-default",  # its route's first backend: the host
                "gpt-4.1",  # the pattern gpt-*: provider a, asked for the caller's model
                "fast",  # an exact name: provider a, asked for the model the route names
                "a-one",  # no route: the provider that lists it
                "claude-sonnet-4-5",  # no route: the provider whose pattern matches it
                "gemini-2.5-flash",
                "some-other-model",  # no route, no provider: the host, the name its hint
            )
        }
    for model, result in calls.items():
        assert not result.is_error, (model, result.content[0].text)
    backends = {model: meta_of(result)["backend"] for model, result in calls.items()}
    assert backends == {
        "agent-default": "host",
        "gpt-4.1": "provider:a/gpt-4.1",
        "fast": "provider:a/a-fast",
        "a-one": "provider:a/a-one",
        "claude-sonnet-4-5": "provider:b/claude-sonnet-4-5",
        "gemini-2.5-flash": "provider:g/gemini-2.5-flash",
        "some-other-model": "host",
    }
    assert calls["gpt-4.1"].content[0].text == "stand-in answer to: to gpt-4.1"
    assert calls["gemini-2.5-flash"].content[0].text == "stand-in answer to: to gemini-2.5-flash"
    assert models_seen(providers["a"]) == ["gpt-4.1", "a-fast", "a-one"]
    assert models_seen(providers["b"]) == ["claude-sonnet-4-5"]
    assert models_seen(providers["g"]) == ["gemini-2.5-flash"]
    assert [p.model_preferences.hints[0].name for p in host.seen] == ["agent-default", "some-other-model"]
    assert all("passed_over" not in meta_of(result) for result in calls.values())


async def test_agent_default_goes_to_the_next_backend_when_the_host_cannot_sample(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    async with connect(era, server=server(tmp_path, providers)) as client:  # declares no sampling
        result = await client.call_tool("chat_complete", {"messages": [{"role": "user", "content": "q"}]})
    assert not result.is_error, result.content[0].text
    meta = meta_of(result)
    assert meta["backend"] == "provider:a/a-default"  # the provider's default-model
    assert meta["requested_model"] == "agent-default"
    assert meta["passed_over"] == [{"backend": "host", "why": "the host did not declare sampling"}]
    assert models_seen(providers["a"]) == ["a-default"]


async def test_without_a_route_agent_default_is_the_hosts(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    async with connect(era, server=server(tmp_path, providers, routes="")) as client:  # no sampling
        with pytest.raises(MCPError) as caught:
            await client.call_tool("generate", {"prompt": "q"})
    assert caught.value.error.code == -32021  # the host alone: no provider is its fallback unless routed
    assert all(not s.seen for s in providers.values())


async def test_backend_narrows_the_route(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    host = ScriptedHost("from the host")
    async with connect(era, host, server=server(tmp_path, providers)) as client:
        hosted = await client.call_tool("generate", {"prompt": "q", "model": "gpt-4.1", "backend": "host"})
        provided = await client.call_tool("generate", {"prompt": "q", "backend": "provider"})
        refused = await client.call_tool("generate", {"prompt": "q", "model": "other", "backend": "provider"})
    assert meta_of(hosted)["backend"] == "host"  # the host alone, whatever the route
    assert meta_of(provided)["backend"] == "provider:a/a-default"  # agent-default's route without the host
    assert refused.is_error
    assert refused.content[0].text == (
        "generate: backend: 'provider' needs a provider on the route of model 'other', and it has none "
        "(its route: host); use 'host' or 'auto', or a model a provider serves (list_models). "
        "Nothing was sent to the host."
    )
    assert host.asked == 1


async def test_list_models_lists_every_routable_model_and_who_serves_it(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    async with connect(era, server=server(tmp_path, providers)) as client:
        result = await client.call_tool("list_models", {})
    listed = {entry["id"]: entry for entry in json.loads(result.content[0].text)}
    assert list(listed) == ["agent-default", "fast", "a-one", "gpt-*", "a-*", "claude-*", "gemini-*"]
    assert listed["agent-default"]["owned_by"] == "host-agent"
    assert listed["agent-default"]["served_by"] == ["host", "a"]
    assert listed["fast"]["served_by"] == ["a/a-fast", "b/claude-fast"]
    assert listed["fast"]["owned_by"] == "provider:a"
    assert listed["a-one"]["served_by"] == ["a"]
    assert listed["gpt-*"] == {
        "id": "gpt-*",
        "owned_by": "provider:a",
        "served_by": ["a", "b/claude-x"],
        "description": "Served by the provider a, asked for this model; when it gives no answer, the "
        "provider b's model claude-x.",
        "pattern": True,
    }
    assert listed["gemini-*"]["served_by"] == ["g"]
    assert all(not s.seen for s in providers.values())  # no model was asked


async def test_a_key_is_read_from_its_providers_own_variable_only(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-sdks-own-variable-000")
    async with connect(era, server=server(tmp_path, providers)) as client:
        await client.call_tool("generate", {"prompt": "q", "model": "gpt-4.1"})
        await client.call_tool("generate", {"prompt": "q", "model": "claude-3"})
        await client.call_tool("generate", {"prompt": "q", "model": "gemini-3"})
    assert providers["a"].seen[0].headers["authorization"] == f"Bearer {KEYS['A_KEY']}"
    b_headers = providers["b"].seen[0].headers
    assert KEYS["B_KEY"] in (b_headers.get("x-api-key"), b_headers.get("authorization", "")[7:])
    assert providers["g"].seen[0].headers["x-goog-api-key"] == KEYS["G_KEY"]
    monkeypatch.delenv("B_KEY")
    with pytest.raises(ProviderUnavailable, match=r"^\[providers\.b\]: no API key \(set B_KEY\)$"):
        server(tmp_path, providers)


def test_the_provider_flags_and_named_providers_are_one_or_the_other(
    tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    from agent_as_model.commands.config_file import ConfigError

    path = write_config(tmp_path, config_text(providers))
    with pytest.raises(
        ConfigError, match=r"gateway.toml:\d+: providers: names providers or routes, and so do the --provider"
    ):
        gateway_of(path, "--provider", "openai", "--provider-model", "m")


def test_the_examples_route_settings_are_read_and_a_flag_wins() -> None:
    example = Path(__file__).resolve().parents[1] / "docs" / "config.example.toml"
    gateway = gateway_of(example)
    assert (gateway.cooldown.failures, gateway.cooldown.seconds, gateway.call_deadline) == (3, 30.0, 120.0)
    assert [p.label for p in gateway.providers] == ["openai", "local", "claude", "gemini"]
    assert gateway_of(example, "--route-deadline", "7").call_deadline == 7.0
