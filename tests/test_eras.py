"""Spec section 2: the host round trip on each era, and the binding of MRTR rounds."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import MCPError
from mcp.server.request_state import AESGCMRequestStateCodec, RequestStateSecurity
from mcp_types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CallToolResult,
    CreateMessageRequest,
    ElicitResult,
    InputRequiredResult,
)

from agent_as_model import __version__
from agent_as_model.server import build_server
from tests.scripted_host import ERAS, ScriptedHost, connect, text_answer

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
ARGS = {
    "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "q"}],
    "max_tokens": 64,
}
KEY = "completion"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("chat_complete", ARGS),
        ("messages_create", {"messages": [{"role": "user", "content": "q"}]}),
        ("responses_create", {"input": "q"}),
        ("generate", {"prompt": "q"}),
    ],
)
async def test_missing_sampling_capability_is_32021_before_anything_is_sent(
    era: str, tool: str, arguments: dict[str, Any]
) -> None:
    async with connect(era) as client:  # no sampling callback: no sampling capability declared
        with pytest.raises(MCPError) as caught:
            await client.call_tool(tool, arguments)
        after = await client.call_tool("list_models", {})
    error = caught.value.error
    assert error.code == MISSING_REQUIRED_CLIENT_CAPABILITY == -32021
    assert error.data == {"requiredCapabilities": {"sampling": {}}}
    assert "sampling" in error.message and "Nothing was sent to the host." in error.message
    assert not after.is_error


async def test_server_version_is_the_package_version(era: str) -> None:
    host = ScriptedHost()
    async with connect(era, host) as client:
        result = await client.call_tool("generate", {"prompt": "x"})
        if era == MODERN:
            assert result.meta is not None
            info = result.meta["io.modelcontextprotocol/serverInfo"]
            assert (info["name"], info["version"]) == ("agent-as-model", __version__)
        else:
            assert client.server_info is not None
            assert (client.server_info.name, client.server_info.version) == ("agent-as-model", __version__)


async def test_one_sampling_request_per_call_same_params_on_both_eras() -> None:
    wires = []
    for era in ERAS:
        host = ScriptedHost("answer")
        async with connect(era, host) as client:
            result = await client.call_tool("chat_complete", ARGS)
        assert result.content[0].text == "answer"
        assert host.asked == 1
        wires.append(host.wire())
    assert wires[0] == wires[1]


# ---- 2026-07-28: driven by hand, round by round -------------------------------------------------


async def first_round(
    client: Any, tool: str = "chat_complete", arguments: dict[str, Any] = ARGS
) -> InputRequiredResult:
    result = await client.session.call_tool(tool, arguments, allow_input_required=True)
    assert isinstance(result, InputRequiredResult)
    return result


async def retry(
    client: Any, responses: dict[str, Any], state: str | None, arguments: dict[str, Any] = ARGS
) -> CallToolResult | InputRequiredResult:
    """The host's retry of `chat_complete`, driven by hand: these answers, this state."""
    return await client.session.call_tool(
        "chat_complete", arguments, input_responses=responses, request_state=state, allow_input_required=True
    )


async def test_round_one_carries_exactly_the_legacy_payload() -> None:
    legacy = ScriptedHost()
    async with connect("legacy", legacy) as client:
        await client.call_tool("chat_complete", ARGS)
    async with connect(MODERN, ScriptedHost()) as client:
        first = await first_round(client)
    assert first.input_requests is not None and list(first.input_requests) == [KEY]
    request = first.input_requests[KEY]
    assert isinstance(request, CreateMessageRequest)
    assert request.method == "sampling/createMessage"
    assert request.params.model_dump(by_alias=True, mode="json", exclude_none=True) == legacy.wire()
    # The state is sealed by the SDK: the client cannot read the digest it binds.
    assert first.request_state is not None and first.request_state.startswith("v1.")
    assert "digest" not in first.request_state


async def test_bound_retry_is_taken() -> None:
    host = ScriptedHost()
    async with connect(MODERN, host) as client:
        first = await first_round(client)
        final = await retry(client, {KEY: text_answer("bound answer")}, first.request_state)
    assert isinstance(final, CallToolResult)
    assert not final.is_error and final.content[0].text == "bound answer"
    assert host.asked == 0  # driven by hand: the scripted host was never consulted


@pytest.mark.parametrize("case", ["no state", "no answer", "answer under another key"])
async def test_unbound_retry_is_asked_again(case: str) -> None:
    async with connect(MODERN, ScriptedHost()) as client:
        first = await first_round(client)
        responses: dict[str, Any] = {KEY: text_answer("sneaky")}
        state = first.request_state
        if case == "no state":
            state = None
        elif case == "no answer":
            responses = {}
        else:
            responses = {"other": text_answer("sneaky")}
        again = await retry(client, responses, state)
    assert isinstance(again, InputRequiredResult), again
    assert again.input_requests is not None and list(again.input_requests) == [KEY]
    assert again.input_requests[KEY] == first.input_requests[KEY]  # type: ignore[index]


class ForeignStateCodec:
    """Seals like the SDK but, on unseal, hands the server a state changed by `change` (what a
    worker running another server version, a host whose capabilities changed between rounds, or
    a forged state under a leaked key would present)."""

    def __init__(self, change: Any) -> None:
        self._inner = AESGCMRequestStateCodec([b"k" * 32])
        self._change = change

    def seal(self, payload: bytes) -> str:
        return self._inner.seal(payload)

    def unseal(self, token: str) -> bytes:
        claims = json.loads(self._inner.unseal(token))
        claims["s"] = self._change(claims["s"])
        return json.dumps(claims).encode()


def _changed(**fields: Any) -> Any:
    return lambda text: json.dumps({**json.loads(text), **fields})


FOREIGN_STATES = {
    "another server version": _changed(server="0.0.0+other"),
    "other host sampling.tools": _changed(tools=True),
    "a round without its earlier answers": _changed(round=1),
    "an older state format (digest-bound)": _changed(v=1, digest="0" * 64),
    "not JSON": lambda text: "not json",
    "not an object": lambda text: "[1]",
}


@pytest.mark.parametrize("case", list(FOREIGN_STATES))
async def test_state_for_another_payload_is_asked_again(case: str) -> None:
    server = build_server(security=RequestStateSecurity(codec=ForeignStateCodec(FOREIGN_STATES[case])))
    async with connect(MODERN, ScriptedHost(), server=server) as client:
        first = await first_round(client)
        again = await retry(client, {KEY: text_answer("not for this payload")}, first.request_state)
    assert isinstance(again, InputRequiredResult)
    assert again.input_requests == first.input_requests  # asked again, with this request's payload


async def test_unchanged_state_through_the_same_codec_is_taken() -> None:
    # The control of the cases above: the same codec, changing nothing, binds the answer.
    server = build_server(security=RequestStateSecurity(codec=ForeignStateCodec(lambda text: text)))
    async with connect(MODERN, ScriptedHost(), server=server) as client:
        first = await first_round(client)
        final = await retry(client, {KEY: text_answer("bound")}, first.request_state)
    assert isinstance(final, CallToolResult) and final.content[0].text == "bound"


async def test_answer_of_the_wrong_kind_is_an_error() -> None:
    async with connect(MODERN, ScriptedHost()) as client:
        first = await first_round(client)
        elicited = ElicitResult(action="accept", content={"x": "y"})
        result = await retry(client, {KEY: elicited}, first.request_state)
    assert isinstance(result, CallToolResult) and result.is_error
    assert result.content[0].text == (
        "chat_complete: inputResponses.completion: expected a sampling/createMessage result, "
        "got ElicitResult. The host was asked; its answer was not used."
    )


async def test_retry_with_other_arguments_is_refused_by_the_sealed_state() -> None:
    # The SDK's RequestStateBoundary binds the state to the tool name and arguments: a retry that
    # changes them never reaches the engine.
    async with connect(MODERN, ScriptedHost()) as client:
        first = await first_round(client)
        with pytest.raises(MCPError) as caught:
            await retry(client, {KEY: text_answer("x")}, first.request_state, {**ARGS, "max_tokens": 65})
    assert caught.value.error.code == -32602


async def test_client_drives_the_rounds_itself() -> None:
    host = ScriptedHost("driven")
    async with connect(MODERN, host) as client:
        result = await client.call_tool("messages_create", {"messages": [{"role": "user", "content": "q"}]})
    assert result.content[0].text == "driven"
    assert host.asked == 1


async def test_shared_state_key_lets_another_server_take_the_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    # Several workers (or a restart) share AGENT_AS_MODEL_STATE_KEY: round two may land anywhere.
    monkeypatch.setenv("AGENT_AS_MODEL_STATE_KEY", "s" * 32)
    async with connect(MODERN, ScriptedHost(), server=build_server()) as one:
        first = await first_round(one)
    async with connect(MODERN, ScriptedHost(), server=build_server()) as two:
        final = await retry(two, {KEY: text_answer("worker two")}, first.request_state)
    assert isinstance(final, CallToolResult) and final.content[0].text == "worker two"


async def test_without_a_shared_key_another_server_refuses_the_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_AS_MODEL_STATE_KEY", raising=False)
    async with connect(MODERN, ScriptedHost(), server=build_server()) as one:
        first = await first_round(one)
    async with connect(MODERN, ScriptedHost(), server=build_server()) as two:
        with pytest.raises(MCPError) as caught:
            await retry(two, {KEY: text_answer("worker two")}, first.request_state)
    assert caught.value.error.code == -32602
