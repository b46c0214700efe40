"""Every way a provider exchange fails is a clear isError naming the provider and
the HTTP status and saying the host was not asked; never the key, never a traceback; the next call
works. Real HTTP through the real SDK clients against the stand-in provider, on both eras."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from agent_as_model.commands.standin_provider import Garbage, Scripted, Slow, StandInProvider, Status
from tests.provider_harness import KEYS, PROVIDERS, provider_server
from tests.scripted_host import connect

pytestmark = pytest.mark.anyio

KEY = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY"}
ROWS: list[tuple[str, list[Scripted], dict[str, Any], str]] = [
    (
        "401",
        [Status(401, "bad key")],
        {},
        "HTTP 401: the API key was refused (check {key}); it said: bad key",
    ),
    ("403", [Status(403)], {}, "HTTP 403: the key may not use this model or endpoint"),
    (
        "404",
        [Status(404)],
        {},
        "HTTP 404: the model or endpoint is unknown to the provider "
        "(check --provider-model and --provider-base-url)",
    ),
    (
        "400",
        [Status(400, "max_tokens is too large")],
        {},
        "HTTP 400: the provider refused the request; it said: max_tokens is too large",
    ),
    (
        "422",
        [Status(422, "messages.0.content: field required")],
        {},
        "HTTP 422: the provider refused the request; it said: messages.0.content: field required",
    ),
    (
        "429",
        [Status(429), Status(429)],
        {"max_retries": 1},
        "HTTP 429: rate limited, still after the configured retries",
    ),
    (
        "500",
        [Status(500)],
        {},
        "HTTP 500: the provider failed (a server error), still after the configured retries",
    ),
    (
        "timeout",
        [Slow(3)],
        {"timeout": 0.3},
        "no HTTP answer: no answer within --provider-timeout (0.3 s an attempt, from request to last "
        "byte), still after the configured retries",
    ),
    ("not json", [Garbage()], {}, "HTTP 200: its answer could not be read"),
    ("wrong shape", [Garbage('{"hello": "world"}')], {}, "HTTP 200: its answer could not be read"),
]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(("row", "script", "overrides", "reason"), ROWS, ids=[r[0] for r in ROWS])
async def test_provider_failures_are_told(
    era: str,
    standin: StandInProvider,
    provider: str,
    row: str,
    script: list[Scripted],
    overrides: dict[str, Any],
    reason: str,
) -> None:
    standin.script += script
    async with connect(era, server=provider_server(standin, provider, **overrides)) as client:
        bad = await client.call_tool("generate", {"prompt": "q"})
        good = await client.call_tool("generate", {"prompt": "next"})
    text = bad.content[0].text
    assert bad.is_error
    assert text.startswith(f"generate: provider {provider}: ")
    assert reason.format(key=KEY[provider]) in text
    assert text.endswith(f"The provider {provider} (not the host) was asked; its answer was not used.")
    assert not any(key in text for key in KEYS)
    assert "Traceback" not in text
    assert len(standin.seen) == len(script) + 1  # the retries the operator allowed, then the next call
    assert not good.is_error
    assert good.content[0].text == "stand-in answer to: next"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_refused_connection_is_told(era: str, standin: StandInProvider, provider: str) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}" + ("/v1" if provider == "openai" else "")
    async with connect(era, server=provider_server(standin, provider, base_url=base_url)) as client:
        bad = await client.call_tool("generate", {"prompt": "q"})
    assert bad.content[0].text == (
        f"generate: provider {provider}: no HTTP answer: could not connect (is the server at "
        f"--provider-base-url running?), still after the configured retries. The provider {provider} (not "
        "the host) was asked; its answer was not used."
    )
