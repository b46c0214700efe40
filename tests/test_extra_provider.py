"""A provider is one module. This test file is the module of a provider API
defined nowhere else, OpenAI's Responses API through the official `openai` SDK, registered with
one line (`PROVIDER_MODULES`), and served end to end against a stand-in of that API on 127.0.0.1:
the request, the reply, the shared error handling and the help text's key variable, with no
other module knowing its name.

What a provider module declares (`provider.ProviderModule`): SDK, ERROR_BASE, KEY_VARIABLE,
`client`, `request_body`, `read_reply`. That is all of it, below.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any

import pytest
from mcp_types import CreateMessageRequestParams, TextContent

from agent_as_model.adapters.backends import ProviderSettings, ProviderUnavailable
from agent_as_model.adapters.backends.provider import Reply, Send
from agent_as_model.adapters.provider_names import PROVIDER_MODULES
from agent_as_model.server import build_server
from tests.provider_harness import backend_of
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

NAME = "responses-api"

# --- the provider module -------------------------------------------------------------------------

SDK = "openai"
ERROR_BASE = "OpenAIError"
KEY_VARIABLE = "STANDIN_RESPONSES_KEY"
STOP_REASONS = {"completed": "endTurn", "incomplete": "maxTokens"}


def client(sdk: ModuleType, settings: ProviderSettings, key: str | None) -> Send:
    # This API's key has a variable of its own, so it is handed to the SDK (None: the SDK refuses).
    api = sdk.AsyncOpenAI(
        api_key=key or os.environ.get(KEY_VARIABLE),
        base_url=settings.base_url,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
    )

    async def send(body: dict[str, Any]) -> Any:
        return await api.responses.create(**body)

    return send


def request_body(payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
    items = []
    for message in payload.messages:
        texts = [b.text for b in message.content_as_list if isinstance(b, TextContent)]
        items.append({"role": message.role, "content": "\n".join(texts)})
    body: dict[str, Any] = {"model": model, "input": items, "max_output_tokens": payload.max_tokens}
    if payload.system_prompt:
        body["instructions"] = payload.system_prompt
    return body


def read_reply(response: Any) -> Reply:
    texts = [
        part.text
        for item in response.output
        if item.type == "message"
        for part in item.content
        if part.type == "output_text"
    ]
    if not isinstance(response.model, str):
        raise ValueError("model is missing")
    blocks = (TextContent(type="text", text="".join(texts)),)
    return Reply(blocks, response.model, STOP_REASONS.get(response.status, response.status))


# --- a stand-in of the Responses API -------------------------------------------------------------


def responses_object(text: str, model: str, status: str = "completed") -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": model,
        "status": status,
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


class StandIn:
    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.status = 200
        self.url = ""


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    monkeypatch.setitem(PROVIDER_MODULES, NAME, __name__)  # the one line of registration
    monkeypatch.setenv(KEY_VARIABLE, "sk-standin-responses-0123")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    seen = StandIn()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
            seen.paths.append(self.path)
            seen.bodies.append(body)
            if seen.status != 200:
                answer: dict[str, Any] = {"error": {"message": "stand-in error", "type": "stand_in"}}
            else:
                last = body["input"][-1]["content"]
                answer = responses_object(f"responses stand-in: {last}", body["model"])
            data = json.dumps(answer).encode()
            self.send_response(seen.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    seen.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        server.shutdown()
        server.server_close()


def settings(api: StandIn, **overrides: Any) -> ProviderSettings:
    fields: dict[str, Any] = {"provider": NAME, "model": "r-model", "base_url": api.url, "max_retries": 0}
    return ProviderSettings(**{**fields, **overrides})


async def test_a_provider_defined_in_a_test_file_serves_a_call_end_to_end(era: str, api: StandIn) -> None:
    server = build_server(provider=settings(api))
    async with connect(era, server=server) as client:  # a host that cannot sample
        result = await client.call_tool(
            "chat_complete",
            {"messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "hello"}]},
        )
        again = await client.call_tool("generate", {"prompt": "again"})
    assert not result.is_error, result.content
    assert result.content[0].text == "responses stand-in: hello"
    assert again.content[0].text == "responses stand-in: again"
    assert backend_of(result) == f"provider:{NAME}/r-model"
    assert api.paths == ["/v1/responses", "/v1/responses"]
    assert api.bodies[0] == {
        "model": "r-model",
        "input": [{"role": "user", "content": "hello"}],
        "max_output_tokens": 4096,
        "instructions": "S",
    }


async def test_the_shared_error_handling_names_the_modules_key_variable(era: str, api: StandIn) -> None:
    api.status = 401
    async with connect(era, ScriptedHost("unused"), server=build_server(provider=settings(api))) as client:
        failed = await client.call_tool("generate", {"prompt": "q", "backend": "provider"})
        api.status = 200
        served = await client.call_tool("generate", {"prompt": "q", "backend": "provider"})
    assert failed.is_error
    assert failed.content[0].text == (
        f"generate: provider {NAME}: HTTP 401: the API key was refused (check {KEY_VARIABLE}); it said: "
        f"stand-in error. The provider {NAME} (not the host) was asked; its answer was not used."
    )
    assert served.content[0].text == "responses stand-in: q"  # the next call works


def test_a_missing_key_is_a_start_up_error_naming_the_modules_variable(
    api: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_VARIABLE)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderUnavailable) as caught:
        build_server(provider=settings(api))
    assert str(caught.value).startswith(f"--provider {NAME}: ")
    assert str(caught.value).endswith(f"(set {KEY_VARIABLE})")


def test_serve_help_and_choices_read_the_registered_modules(api: StandIn) -> None:
    from agent_as_model.commands.cli import _parser

    parser = _parser()
    serve = next(a for a in parser._subparsers._group_actions if a.dest == "command").choices["serve"]  # type: ignore[union-attr]
    text = " ".join(serve.format_help().split())
    for variable in ("OPENAI_API_KEY (openai)", "ANTHROPIC_API_KEY (anthropic)", f"{KEY_VARIABLE} ({NAME})"):
        assert variable in text
    assert f"{{openai,anthropic,gemini,{NAME}}}" in text


def test_docs_name_every_built_in_providers_key_variable() -> None:
    from importlib import import_module
    from pathlib import Path

    doc = (Path(__file__).parents[1] / "docs" / "providers.md").read_text(encoding="utf-8")
    for name, path in PROVIDER_MODULES.items():
        assert f"`{import_module(path).KEY_VARIABLE}` for `{name}`" in doc
