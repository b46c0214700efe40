"""For the route tests: three stand-in providers on 127.0.0.1 (an OpenAI-compatible one, an
Anthropic one and a Gemini one, each answering on its own port), the keys each reads from its own
variable, and a configuration file naming them, read as `serve --config` reads it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from agent_as_model.adapters.routes import Gateway
from agent_as_model.commands import cli
from agent_as_model.commands.route_options import gateway_settings
from agent_as_model.commands.standin_provider import Seen, StandInProvider, running
from agent_as_model.neutral import SERVER_KEYS

# Each provider's key, in a variable of its own (never the SDKs' own variables).
KEYS = {
    "A_KEY": "sk-a-key-0123456789abcdef",
    "B_KEY": "sk-ant-b-key-0123456789ab",
    "G_KEY": "AIza-g-key-0123456789ab",
}
# The routes every test starts from: agent-default to the host, then provider a; `fast` to a named
# model of a, then of b; any gpt-* to a (the caller's model), then to b's claude-x.
ROUTES = """
[routes]
"agent-default" = ["host", "a"]
"fast" = ["a/a-fast", "b/claude-fast"]
"gpt-*" = ["a", "b/claude-x"]
"""

# Each product's models to the provider that speaks it alone (same-product pass-through).
OWN_ROUTES = '[routes]\n"gpt-*" = ["a"]\n"claude-*" = ["b"]\n"gemini-*" = ["g"]\n'
# The same, and a route a model of each provider whose host comes first.
HOST_FIRST_ROUTES = (
    OWN_ROUTES
    + '"host-then-a" = ["host", "a/a-one"]\n"host-then-b" = ["host", "b/claude-x"]\n'
    + '"host-then-g" = ["host", "g/gemini-2.5-flash"]\n'
)


@pytest.fixture
def providers(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, StandInProvider]]:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "OPENAI_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    with contextlib.ExitStack() as stack:
        yield {name: stack.enter_context(running()) for name in ("a", "b", "g")}


def config_text(
    stand_ins: dict[str, StandInProvider], *, routes: str = ROUTES, serve: str = "", timeout: float = 5
) -> str:
    return f"""
[serve]
{serve}

[providers.a]
kind = "openai"
base-url = "{stand_ins["a"].openai_base_url}"
key-variable = "A_KEY"
default-model = "a-default"
models = ["a-one", "a-*"]
max-retries = 0
timeout = {timeout}

[providers.b]
kind = "anthropic"
base-url = "{stand_ins["b"].anthropic_base_url}"
key-variable = "B_KEY"
models = ["claude-*"]
max-retries = 0
timeout = {timeout}

[providers.g]
kind = "gemini"
base-url = "{stand_ins["g"].gemini_base_url}"
key-variable = "G_KEY"
models = ["gemini-*"]
max-retries = 0
timeout = {timeout}
{routes}
"""


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gateway.toml"
    path.write_text(text)
    return path


def gateway_of(path: Path, *argv: str) -> Gateway:
    """The gateway `serve --config PATH *argv` serves with, read as the command line reads it."""
    given = ["serve", "--config", str(path), *argv]
    parser = cli._parser()
    args, _ = parser.parse_known_args(given)
    saved = {k: v for k, v in os.environ.items() if k.startswith("AGENT_AS_MODEL_")}
    for name in saved:
        del os.environ[name]
    try:
        cli._read_config(parser, args, given)
        gateway = gateway_settings(parser, args)
    finally:
        os.environ.update(saved)
    assert gateway is not None
    return gateway


def meta_of(result: Any) -> dict[str, Any]:
    meta: dict[str, Any] = result.meta["agent-as-model/result"]
    return meta


def models_seen(stand_in: StandInProvider) -> list[str]:
    """The model of each request a stand-in got (Gemini's is in its path)."""
    out = []
    for seen in stand_in.seen:
        if "model" in seen.body:
            out.append(str(seen.body["model"]))
        else:
            out.append(seen.path.split("/models/")[1].split(":")[0])
    return out


def sent_as_written(
    seen: Seen, tool: str, body: Mapping[str, Any], model: str | None = None, note: object = None
) -> None:
    """A stand-in got the caller's body as written, without the server's own keys, asking for
    `model` (the body's own when None): in the body, or Gemini's in the request's path. A
    Responses `resp_` id is its API's own and stays; `note` names the case when it fails."""
    model = str(body["model"]) if model is None else model
    own = {key: value for key, value in body.items() if key not in SERVER_KEYS}
    previous = body.get("previous_response_id")
    if tool == "responses_create" and isinstance(previous, str) and previous.startswith("resp_"):
        own["previous_response_id"] = previous
    if tool == "gemini_generate_content":
        assert seen.path == f"/v1beta/models/{model}:generateContent", note
        assert seen.body == own, note
    else:
        assert seen.body == {**own, "model": model}, note
