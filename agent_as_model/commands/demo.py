"""`agent-as-model demo`: every tool, on both eras, against a built-in stand-in host; then one call
from a host that cannot sample, served by a built-in stand-in provider (docs/providers.md).

It uses the real SDK client in-process, so what it prints is what the server really sent and
received: the sampling request the host saw, the host's answer, and the tool result; for the
provider, the HTTP request the official SDK sent to the stand-in on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

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
from agent_as_model.adapters.backends import ProviderSettings, ProviderUnavailable
from agent_as_model.adapters.backends.providers.openai import KEY_VARIABLE
from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.tools import models
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


async def _provider_call() -> None:
    print("=" * 100)
    print("a host that cannot sample, served by a built-in stand-in OpenAI-compatible provider")
    print(
        "  (agent-as-model serve --provider openai --provider-base-url URL --provider-model stand-in-model)"
    )
    print("=" * 100)
    name, arguments = demo_calls()[0]  # the first registered product's own example
    with running() as provider, _demo_key():
        settings = ProviderSettings(
            provider="openai", model="stand-in-model", base_url=provider.openai_base_url
        )
        try:
            server = build_server(provider=settings)
        except ProviderUnavailable as err:
            print(f"  (skipped: {err})")
            return
        async with Client(server, mode="2026-07-28") as client:  # declares no sampling
            print(
                f"negotiated protocol version: {client.protocol_version}; the client declares no sampling\n"
            )
            print(f"- {name}")
            _show("caller →", arguments)
            result = await client.call_tool(name, arguments)
        for seen in provider.seen:
            _show("provider ←", {"POST": seen.path, "body": seen.body})
        _show("result ←", _result_text(result))
        _show("_meta", result.meta or {})


@contextmanager
def _demo_key() -> Iterator[None]:
    """The stand-in takes any key; the operator's own key is never sent to it."""
    saved = os.environ.get(KEY_VARIABLE)
    os.environ[KEY_VARIABLE] = DEMO_KEY
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(KEY_VARIABLE, None)
        else:
            os.environ[KEY_VARIABLE] = saved
