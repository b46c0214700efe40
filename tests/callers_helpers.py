"""For the callers tests over real HTTP: a configuration file naming callers by their tokens'
digests, with their limits; a stand-in provider's flags; the answers a host counted; and a call
whose `tools/call` response headers are kept (`Retry-After`)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx2
from mcp_types import CreateMessageResult

from agent_as_model.adapters.callers import digest_of
from agent_as_model.commands.standin_provider import StandInProvider
from tests.helpers import run_command

PROVIDER_KEY = "sk-test-provider-key-for-callers-0123456789"


def tokens_for(*names: str) -> dict[str, str]:
    """A fresh bearer token for each caller."""
    return {name: f"tok-{name}-{secrets.token_urlsafe(18)}" for name in names}


def write_config(
    path: Path,
    tokens: Mapping[str, str],
    callers: Mapping[str, Mapping[str, Any]],
    limits: Mapping[str, Any],
) -> Path:
    """A configuration file: [limits], and a [callers.NAME] table per caller with its token's
    digest (never the token) and its own limits."""
    lines = ["[limits]", *(f"{key} = {json.dumps(value)}" for key, value in limits.items()), ""]
    for name, token in tokens.items():
        lines.append(f"[callers.{name}]")
        lines.append(f'token-sha256 = "{digest_of(token)}"')
        lines.extend(f"{key} = {json.dumps(value)}" for key, value in callers.get(name, {}).items())
        lines.append("")
    path.write_text("\n".join(lines))
    return path


def provider_flags(provider: StandInProvider) -> tuple[str, ...]:
    return (
        "--provider",
        "openai",
        "--provider-base-url",
        provider.openai_base_url,
        "--provider-model",
        "model-one",
        "--provider-max-retries",
        "0",
    )


def counted(text: str, given: int, made: int) -> CreateMessageResult:
    """A host's answer with its own token counts in `_meta`."""
    return CreateMessageResult.model_validate(
        {
            "role": "assistant",
            "content": {"type": "text", "text": text},
            "model": "scripted-model",
            "_meta": {"usage": {"inputTokens": given, "outputTokens": made}},
        }
    )


class CallHeaders:
    """An `on_response` hook keeping the headers of each `tools/call` response, in order."""

    def __init__(self) -> None:
        self.seen: list[httpx2.Headers] = []

    async def __call__(self, response: httpx2.Response) -> None:
        try:
            sent = json.loads(response.request.content or b"{}")
        except ValueError:
            return
        if isinstance(sent, dict) and sent.get("method") == "tools/call":
            self.seen.append(response.headers)


def callers_report(config: Path, *extra: str, **env: str) -> Any:
    """`agent-as-model callers --config FILE --json`, read."""
    done = run_command("callers", "--config", str(config), "--json", *extra, **env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
