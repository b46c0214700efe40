"""The sealed requestState's lifetime is `--state-ttl`, and a refused state says
why, naming what to change. The JSON-RPC code and `data` stay the SDK's (-32602,
{"reason": "invalid_request_state"}); only the message gains the reason.

requestState exists only on 2026-07-28; on the legacy era the setting has nothing to act on, and a
test shows a legacy call slower than the lifetime is unaffected.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client, MCPError
from mcp.client import ClientRequestContext
from mcp_types import CreateMessageRequestParams, CreateMessageResult, InputRequiredResult

from agent_as_model.limits import Limits
from agent_as_model.server import build_server
from tests.helpers import server_params
from tests.scripted_host import connect, text_answer

pytestmark = pytest.mark.anyio

PREFIX = "Invalid or expired requestState: "
EXPIRED = (
    PREFIX + "it expired: a state lives {ttl:g} s (--state-ttl) and the host took longer to answer. "
    "Call the tool again without requestState, or raise --state-ttl"
)
ARGS = {"prompt": "q"}


def slower_than(seconds: float) -> Any:
    async def host(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        await anyio.sleep(seconds)  # the host is slower than the state lives: what is under test
        return text_answer("late")

    return host


async def first_round(client: Client, arguments: dict[str, Any] = ARGS) -> InputRequiredResult:
    first = await client.session.call_tool("generate", arguments, allow_input_required=True)
    assert isinstance(first, InputRequiredResult)
    return first


async def retry(client: Client, state: str, arguments: dict[str, Any] = ARGS) -> MCPError:
    answers = {"completion": text_answer("answer")}
    with pytest.raises(MCPError) as caught:
        await client.session.call_tool(
            "generate", arguments, input_responses=answers, request_state=state, allow_input_required=True
        )
    return caught.value


async def test_an_expired_state_names_the_setting() -> None:
    server = build_server(limits=Limits(state_ttl=0.3))
    async with connect("2026-07-28", slower_than(1.0), server=server) as client:  # type: ignore[arg-type]
        with pytest.raises(MCPError) as caught:
            await client.call_tool("generate", ARGS)
        good = await client.call_tool("list_models", {})  # the server keeps serving
    assert not good.is_error
    assert caught.value.error.code == -32602
    assert caught.value.error.message == EXPIRED.format(ttl=0.3)
    assert caught.value.error.data == {"reason": "invalid_request_state"}


async def test_within_its_lifetime_a_slow_host_completes() -> None:
    server = build_server(limits=Limits(state_ttl=30))
    async with connect("2026-07-28", slower_than(0.5), server=server) as client:  # type: ignore[arg-type]
        result = await client.call_tool("generate", ARGS)
    assert result.content[0].text == "late"


async def test_a_tampered_state_says_it_could_not_be_unsealed() -> None:
    async with connect("2026-07-28", slower_than(0), server=build_server()) as client:  # type: ignore[arg-type]
        first = await first_round(client)
        assert first.request_state is not None
        error = await retry(client, first.request_state[:-4] + "AAAA")
        good = await client.call_tool("generate", ARGS)  # the server keeps serving
    assert error.error.code == -32602
    assert error.error.message.startswith(PREFIX + "this server could not unseal it")
    assert "AGENT_AS_MODEL_STATE_KEY" in error.error.message
    assert good.content[0].text == "late"


async def test_a_state_from_another_server_process_says_so() -> None:
    async with connect("2026-07-28", slower_than(0), server=build_server()) as one:  # type: ignore[arg-type]
        first = await first_round(one)
    assert first.request_state is not None
    async with connect("2026-07-28", slower_than(0), server=build_server()) as other:  # type: ignore[arg-type]
        error = await retry(other, first.request_state)
    assert error.error.message.startswith(PREFIX + "this server could not unseal it")


async def test_a_state_for_other_arguments_says_so() -> None:
    async with connect("2026-07-28", slower_than(0), server=build_server()) as client:  # type: ignore[arg-type]
        first = await first_round(client)
        assert first.request_state is not None
        error = await retry(client, first.request_state, {"prompt": "another"})
    assert error.error.message == (
        PREFIX + "it was sealed for another call (another tool, or other arguments): retry with the exact "
        "arguments of the round that returned it"
    )
    assert error.error.data == {"reason": "invalid_request_state"}


async def test_the_lifetime_does_not_touch_the_legacy_era() -> None:
    server = build_server(limits=Limits(state_ttl=0.01))
    async with connect("legacy", slower_than(0.2), server=server) as client:  # type: ignore[arg-type]
        result = await client.call_tool("generate", ARGS)
    assert result.content[0].text == "late"


@pytest.mark.stdio
async def test_state_ttl_flag_over_stdio() -> None:
    params = server_params("serve", "--state-ttl", "0.5")
    async with Client(params, mode="2026-07-28", sampling_callback=slower_than(1.5)) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("generate", ARGS)
    assert caught.value.error.message == EXPIRED.format(ttl=0.5)
