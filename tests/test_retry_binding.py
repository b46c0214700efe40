"""The 2026-07-28 retry does only what it must, and stays as safe as before.

A retry whose sealed state binds the host's answer to exactly this request's payload is proven:
the cursor check and the payload build ran on round one and are not run again. That rests on the
SDK's `RequestStateBoundary` sealing the state with the tool name and the exact arguments, so the
server must always be built with it; a state the boundary refuses never reaches the tool.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import MCPError
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp_types import CallToolResult, InputRequiredResult

from agent_as_model import cursors
from agent_as_model.server import build_server
from agent_as_model.states import build, validate
from tests.scripted_host import ScriptedHost, connect, text_answer

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
KEY = "completion"


def _boundaries(server: Any) -> list[RequestStateBoundary]:
    return [m for m in server.middleware if isinstance(m, RequestStateBoundary)]


@pytest.mark.parametrize("security", [None, RequestStateSecurity.ephemeral()])
def test_the_server_is_always_built_with_the_request_state_boundary(
    security: RequestStateSecurity | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With and without a shared key from the environment, and with security given by the caller.
    for key in (None, "s" * 32):
        if key is None:
            monkeypatch.delenv("AGENT_AS_MODEL_STATE_KEY", raising=False)
        else:
            monkeypatch.setenv("AGENT_AS_MODEL_STATE_KEY", key)
        assert len(_boundaries(build_server(security=security))) == 1


def _chain_arguments() -> dict[str, Any]:
    history = [{"role": "user", "content": "France?"}, {"role": "assistant", "content": "Paris."}]
    previous = cursors.mint("agent-default", "chat_complete", history)
    return {"messages": [*history, {"role": "user", "content": "Spain?"}], "previous_response_id": previous}


async def test_each_call_verifies_its_cursor_and_builds_its_payload_once(
    era: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On 2026-07-28 one call is two tools/call requests; the retry is proven by its sealed state,
    # so it neither verifies the cursor again nor rebuilds the payload: once per call on both eras.
    counts = {"verify": 0, "build": 0}
    real_verify, real_build = cursors.verify, build.build_payload

    def counted_verify(*args: Any) -> None:
        counts["verify"] += 1
        real_verify(*args)

    def counted_build(*args: Any) -> Any:
        counts["build"] += 1
        return real_build(*args)

    monkeypatch.setattr(validate.cursors, "verify", counted_verify)
    monkeypatch.setattr(build, "build_payload", counted_build)
    host = ScriptedHost("Madrid.")
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", _chain_arguments())
    assert not result.is_error, result
    assert json.loads(result.content[0].text)["completion"] == "Madrid."
    assert host.asked == 1
    assert counts == {"verify": 1, "build": 1}


async def test_a_retry_that_is_asked_again_builds_its_payload(monkeypatch: pytest.MonkeyPatch) -> None:
    # A retry without its answer is not proven: its payload is built and sent again, unchanged.
    async with connect(MODERN, ScriptedHost()) as client:
        arguments = _chain_arguments()
        first = await client.session.call_tool("chat_complete", arguments, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        again = await client.session.call_tool(
            "chat_complete",
            arguments,
            input_responses={},
            request_state=first.request_state,
            allow_input_required=True,
        )
    assert isinstance(again, InputRequiredResult)
    assert again.input_requests == first.input_requests


async def test_a_tampered_state_is_refused_before_the_tool_runs() -> None:
    async with connect(MODERN, ScriptedHost()) as client:
        first = await client.session.call_tool("generate", {"prompt": "q"}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult) and first.request_state is not None
        token = first.request_state
        flipped = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
        with pytest.raises(MCPError) as caught:
            await client.session.call_tool(
                "generate",
                {"prompt": "q"},
                input_responses={KEY: text_answer("forged")},
                request_state=flipped,
                allow_input_required=True,
            )
    assert caught.value.error.code == -32602


async def test_another_tools_state_is_refused_before_the_tool_runs() -> None:
    async with connect(MODERN, ScriptedHost()) as client:
        first = await client.session.call_tool("generate", {"prompt": "q"}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        with pytest.raises(MCPError) as caught:
            await client.session.call_tool(
                "messages_create",
                {"messages": [{"role": "user", "content": "q"}]},
                input_responses={KEY: text_answer("forged")},
                request_state=first.request_state,
                allow_input_required=True,
            )
        # The same state on its own tool and arguments is still good.
        final = await client.session.call_tool(
            "generate",
            {"prompt": "q"},
            input_responses={KEY: text_answer("bound")},
            request_state=first.request_state,
            allow_input_required=True,
        )
    assert caught.value.error.code == -32602
    assert isinstance(final, CallToolResult) and final.content[0].text == "bound"
