"""For the provider tests: a stand-in provider on 127.0.0.1 (real HTTP, the real SDK clients) and
a server built in-process with a provider configured against it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agent_as_model.adapters.backends import ProviderSettings
from agent_as_model.commands.standin_provider import StandInProvider, running
from agent_as_model.limits import DEFAULT_LIMITS, Limits
from agent_as_model.server import build_server

# Keys the SDKs read from the environment; a test asserts neither ever reaches a result or a log.
OPENAI_KEY = "sk-test-provider-key-0123456789"
ANTHROPIC_KEY = "sk-ant-test-provider-key-0123456789"
GEMINI_KEY = "AIza-test-provider-key-0123456789"
KEYS = (OPENAI_KEY, ANTHROPIC_KEY, GEMINI_KEY)
# Every built-in provider API, for the tests that run on each.
PROVIDERS = ("openai", "anthropic", "gemini")


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInProvider]:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("GEMINI_API_KEY", GEMINI_KEY)
    for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with running() as provider:
        yield provider


def settings(standin: StandInProvider, provider: str = "openai", **overrides: Any) -> ProviderSettings:
    base_url = standin.base_url(provider)
    fields: dict[str, Any] = {
        "provider": provider,
        "model": "model-one",
        "models": ("model-two",),
        "base_url": base_url,
        "timeout": 5.0,
        "max_retries": 0,
    }
    fields.update(overrides)
    return ProviderSettings(**fields)


def provider_server(
    standin: StandInProvider, provider: str = "openai", limits: Limits = DEFAULT_LIMITS, **overrides: Any
) -> Any:
    return build_server(provider=settings(standin, provider, **overrides), limits=limits)


def backend_of(result: Any) -> str:
    return result.meta["agent-as-model/result"]["backend"]
