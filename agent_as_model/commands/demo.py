"""`agent-as-model demo`: every tool, on both eras, against a built-in stand-in host; then one call
per product from a host that cannot sample, each routed by its model to a built-in stand-in
provider (OpenAI-compatible, Anthropic, Gemini: docs/providers.md).

It uses the real SDK client in-process, so what it prints is what the server really sent and
received: the sampling request the host saw, the host's answer, and the tool result; for the
provider, the HTTP request the official SDK sent to the stand-in on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any, NoReturn

from mcp import Client
from mcp.client import ClientRequestContext
from mcp_types import (
    CallToolResult,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    InputRequiredResult,
    TextContent,
)

from agent_as_model import __version__
from agent_as_model.adapters.backends import ProviderUnavailable
from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.tools import models
from agent_as_model.commands import config_file
from agent_as_model.commands.route_options import gateway_settings
from agent_as_model.commands.standin_provider import running
from agent_as_model.server import build_server

ERAS = (
    ("legacy", "2025-11-25: the server sends one sampling/createMessage request to the host"),
    (
        "2026-07-28",
        "2026-07-28: the server answers InputRequiredResult; the host samples and retries the call",
    ),
)


def demo_calls() -> tuple[tuple[str, dict[str, Any]], ...]:
    """Each registered product's own example (its dialect declares it), then the model list, which
    needs no model. Read from the registry, so a product added as one module is shown too."""
    return (
        *((d.NAME, dict(d.EXAMPLE)) for d in DIALECTS.values() if d.EXAMPLE is not None),
        (models.NAME, {}),
    )


CALLS = demo_calls()


def stand_in_answer(params: CreateMessageRequestParams) -> str:
    """A deterministic stand-in for the host's model: it says what it was asked."""
    last = params.messages[-1].content_as_list[-1]
    said = last.text if isinstance(last, TextContent) else last.type
    system = f" under the system prompt {params.system_prompt!r}" if params.system_prompt else ""
    return f"(stand-in model) You said {said!r}{system}."


class _StandInHost:
    def __init__(self) -> None:
        self.seen: list[CreateMessageRequestParams] = []

    async def __call__(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult:
        self.seen.append(params)
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=stand_in_answer(params)),
            model="stand-in-model",
        )


def _show(label: str, value: Any) -> None:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    print(f"  {label:<10} {text}")


def _wire(params: CreateMessageRequestParams) -> dict[str, Any]:
    return {
        "method": "sampling/createMessage",
        "params": params.model_dump(by_alias=True, mode="json", exclude_none=True),
    }


def _result_text(result: CallToolResult) -> str:
    text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
    return text + ("   [isError]" if result.is_error else "")


async def _legacy_call(client: Client, host: _StandInHost, name: str, arguments: dict[str, Any]) -> None:
    before = len(host.seen)
    result = await client.call_tool(name, arguments)
    for params in host.seen[before:]:
        _show("host ←", _wire(params))
        _show("host →", stand_in_answer(params))
    if len(host.seen) == before:
        _show("host", "(not asked: this tool needs no model)")
    _show("result ←", _result_text(result))


async def _modern_call(client: Client, name: str, arguments: dict[str, Any]) -> None:
    # Driven by hand, round by round, so the InputRequiredResult is visible (Client.call_tool
    # would fulfil it silently).
    first = await client.session.call_tool(name, arguments, allow_input_required=True)
    if not isinstance(first, InputRequiredResult):
        _show("host", "(not asked: this tool needs no model)")
        _show("result ←", _result_text(first))
        return
    answers: dict[str, Any] = {}
    for key, request in (first.input_requests or {}).items():
        assert isinstance(request, CreateMessageRequest)
        _show("round 1 ←", {"resultType": "input_required", "inputRequests": {key: _wire(request.params)}})
        _show("", {"requestState": (first.request_state or "")[:24] + "… (sealed by the SDK)"})
        answer = stand_in_answer(request.params)
        _show("host →", answer)
        answers[key] = CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=answer), model="stand-in-model"
        )
    _show(
        "round 2 →", f"the same tools/call again with inputResponses {sorted(answers)} and the requestState"
    )
    final = await client.session.call_tool(
        name, arguments, input_responses=answers, request_state=first.request_state, allow_input_required=True
    )
    assert isinstance(final, CallToolResult)
    _show("result ←", _result_text(final))


async def run_demo() -> int:
    print(f"agent-as-model {__version__}: every tool on both eras, against a built-in stand-in host\n")
    server = build_server()
    for mode, about in ERAS:
        print("=" * 100)
        print(f"era {about}")
        print("=" * 100)
        host = _StandInHost()
        async with Client(server, mode=mode, sampling_callback=host) as client:  # type: ignore[arg-type]
            print(f"negotiated protocol version: {client.protocol_version}\n")
            for name, arguments in demo_calls():
                print(f"- {name}")
                _show("caller →", arguments)
                if mode == "legacy":
                    await _legacy_call(client, host, name, arguments)
                else:
                    await _modern_call(client, name, arguments)
                print()
    await _provider_call()
    return 0


DEMO_KEY = "demo-key-for-the-stand-in"
# The demo's gateway: three providers on built-in stand-ins (one per API), each with its own key
# variable, and routes by model; {openai}, {anthropic} and {gemini} are the stand-ins' URLs.
DEMO_CONFIG = """\
[providers.openai]
kind = "openai"
base-url = "{openai}"
key-variable = "DEMO_OPENAI_KEY"
default-model = "stand-in-model"

[providers.anthropic]
kind = "anthropic"
base-url = "{anthropic}"
key-variable = "DEMO_ANTHROPIC_KEY"

[providers.gemini]
kind = "gemini"
base-url = "{gemini}"
key-variable = "DEMO_GEMINI_KEY"

[routes]
"agent-default" = ["host", "openai"]
"gpt-*" = ["openai"]
"claude-*" = ["anthropic", "openai/stand-in-model"]
"gemini-*" = ["gemini"]
"""
# The model each product's call names, and so the route it takes.
DEMO_MODELS = {
    "chat_complete": "gpt-4.1",
    "responses_create": "gpt-4.1-mini",
    "messages_create": "claude-sonnet-4-5",
    "gemini_generate_content": "gemini-2.5-flash",
}


async def _provider_call() -> None:
    print("=" * 100)
    print("a host that cannot sample; each call routed by its model to built-in stand-in providers")
    print("  (agent-as-model serve --config FILE, with this FILE; the URLs are the stand-ins' on 127.0.0.1)")
    print("=" * 100)
    with running() as openai, running() as anthropic, running() as gemini, _demo_keys():
        stand_ins = {"openai": openai, "anthropic": anthropic, "gemini": gemini}
        text = DEMO_CONFIG.format(
            openai=openai.openai_base_url,
            anthropic=anthropic.anthropic_base_url,
            gemini=gemini.gemini_base_url,
        )
        print(text)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "gateway.toml")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            config = config_file.load(path, argparse.ArgumentParser())
        gateway = gateway_settings(_NoUsage(), SimpleNamespace(config_file=config), env={})
        try:
            server = build_server(gateway=gateway)
        except ProviderUnavailable as err:
            print(f"  (skipped: {err})")
            return
        async with Client(server, mode="2026-07-28") as client:  # declares no sampling
            print(
                f"negotiated protocol version: {client.protocol_version}; the client declares no sampling\n"
            )
            for name, arguments in demo_calls():
                if name == models.NAME:
                    continue
                if name in DEMO_MODELS:
                    arguments = {**arguments, "model": DEMO_MODELS[name]}
                print(f"- {name}")
                _show("caller →", arguments)
                seen = {label: len(stand_in.seen) for label, stand_in in stand_ins.items()}
                result = await client.call_tool(name, arguments)
                for label, stand_in in stand_ins.items():
                    for request in stand_in.seen[seen[label] :]:
                        _show(f"provider {label} ←", {"POST": request.path, "body": request.body})
                _show("result ←", _result_text(result))
                _show("_meta", result.meta or {})
                print()


class _NoUsage:
    """The demo's settings are its own: none of them is a bad flag."""

    def error(self, message: str) -> NoReturn:
        raise AssertionError(message)


@contextmanager
def _demo_keys() -> Iterator[None]:
    """The stand-ins take any key; the operator's own keys are never sent to them."""
    names = ("DEMO_OPENAI_KEY", "DEMO_ANTHROPIC_KEY", "DEMO_GEMINI_KEY")
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update(dict.fromkeys(names, DEMO_KEY))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
