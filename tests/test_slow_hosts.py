"""A slow or silent host. Before 2026-07-28 the server waits at most
`--host-timeout` for a sampling answer, then ends the call with a clear error and cancels the
outstanding request (the host sees notifications/cancelled); while waiting, a call that carries a
progressToken gets notifications/progress. On 2026-07-28 the server never waits for the host (the
host retries when it is ready), so the host timeout cannot cut a call short there.

Tests wait on readiness (events), never on wall-clock budgets: the timeouts configured here are
what is under test, and no assertion measures how long anything took.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client import ClientRequestContext
from mcp_types import CallToolRequestParams, CreateMessageRequestParams, CreateMessageResult

from agent_as_model.adapters.backends.sampling import LegacySampling, progress_token
from agent_as_model.limits import Limits
from agent_as_model.server import build_server
from tests.helpers import server_params
from tests.scripted_host import connect, text_answer

pytestmark = pytest.mark.anyio

TIMEOUT_TEXT = (
    "generate: sampling/createMessage: the host did not answer within {t:g} s (--host-timeout); "
    "the request was cancelled. The host was asked; its answer was not used."
)


class SilentHost:
    """Never answers its first request (until cancelled); answers every later one."""

    def __init__(self) -> None:
        self.asked = 0
        self.cancelled = anyio.Event()

    async def __call__(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult:
        self.asked += 1
        if self.asked > 1:
            return text_answer("later")
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            # The server's notifications/cancelled reached the host: its handler is interrupted.
            self.cancelled.set()
            raise
        raise AssertionError("unreachable")


async def test_a_silent_legacy_host_times_out_and_its_request_is_cancelled() -> None:
    host = SilentHost()
    server = build_server(limits=Limits(host_timeout=0.5))
    async with connect("legacy", host, server=server) as client:  # type: ignore[arg-type]
        bad = await client.call_tool("generate", {"prompt": "q"})
        with anyio.fail_after(30):  # a guard against a hang, not a budget
            await host.cancelled.wait()
        good = await client.call_tool("generate", {"prompt": "again"})
    assert bad.is_error
    assert bad.content[0].text == TIMEOUT_TEXT.format(t=0.5)
    assert good.content[0].text == "later"


async def test_on_2026_07_28_the_host_timeout_never_cuts_a_call() -> None:
    # The server returns the InputRequiredResult at once; the host may take longer than the host
    # timeout before it retries, and the retry completes.
    released = anyio.Event()

    async def slow(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        with anyio.fail_after(30):
            await released.wait()
        return text_answer("slow but fine")

    server = build_server(limits=Limits(host_timeout=0.01))
    results: list[Any] = []
    async with (
        connect("2026-07-28", slow, server=server) as client,  # type: ignore[arg-type]
        anyio.create_task_group() as group,
    ):

        async def call() -> None:
            results.append(await client.call_tool("generate", {"prompt": "q"}))

        group.start_soon(call)
        await anyio.sleep(0.2)  # longer than the host timeout, before the host answers
        released.set()
    assert results[0].content[0].text == "slow but fine"


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_progress_while_waiting_for_the_host(era: str) -> None:
    progress: list[tuple[float, str | None]] = []
    enough = anyio.Event()

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))
        if len(progress) >= 2:
            enough.set()

    async def host(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        if era == "legacy":  # answer once the client has seen progress twice
            with anyio.fail_after(30):
                await enough.wait()
        return text_answer("done")

    server = build_server(limits=Limits(progress_interval=0.05))
    async with connect(era, host, server=server) as client:  # type: ignore[arg-type]
        result = await client.call_tool("generate", {"prompt": "q"}, progress_callback=on_progress)
    assert result.content[0].text == "done"
    if era == "legacy":
        assert len(progress) >= 2
        values = [value for value, _ in progress]
        assert values == sorted(values) and len(set(values)) == len(values)  # progress only increases
        assert all(message and message.startswith("waiting for the host's model") for _, message in progress)
    else:  # the server never waits on 2026-07-28: nothing to report
        assert progress == []


class FakeSession:
    """Just what LegacySampling uses of a ServerSession: a slow answer, and progress recorded."""

    def __init__(self) -> None:
        self.progress: list[tuple[Any, float]] = []

    async def send_request(
        self, request: Any, result_type: Any, request_read_timeout_seconds: Any = None, metadata: Any = None
    ) -> Any:
        await anyio.sleep(0.2)
        return result_type.model_validate(text_answer("done").model_dump(by_alias=True))

    async def send_progress_notification(self, token: Any, progress: float, **kwargs: Any) -> None:
        self.progress.append((token, progress))


@pytest.mark.parametrize("token", [None, "tok", 7])
async def test_progress_is_sent_only_for_a_progress_token(token: str | int | None) -> None:
    session = FakeSession()
    backend = LegacySampling(session, "1", Limits(progress_interval=0.01), token)  # type: ignore[arg-type]
    answer = await backend.exchange(CreateMessageRequestParams(messages=[], max_tokens=5), 0, ())
    assert answer.blocks[0].text == "done"
    if token is None:
        assert session.progress == []
    else:
        assert session.progress and {t for t, _ in session.progress} == {token}


@pytest.mark.parametrize(
    ("meta", "token"),
    [
        (None, None),
        ({}, None),
        ({"progressToken": "a"}, "a"),
        ({"progressToken": 3}, 3),
        ({"other": 1}, None),
    ],
)
def test_the_progress_token_is_read_from_the_calls_meta(meta: Any, token: Any) -> None:
    raw: dict[str, Any] = {"name": "generate"}
    if meta is not None:
        raw["_meta"] = meta
    assert progress_token(CallToolRequestParams.model_validate(raw, by_name=False)) == token


# --- over real stdio, with the flag --------------------------------------------------------------


@pytest.mark.stdio
async def test_host_timeout_flag_over_stdio() -> None:
    host = SilentHost()
    params = server_params("serve", "--host-timeout", "1")
    async with Client(params, mode="legacy", sampling_callback=host) as client:  # type: ignore[arg-type]
        bad = await client.call_tool("generate", {"prompt": "q"})
        with anyio.fail_after(30):
            await host.cancelled.wait()
        good = await client.call_tool("generate", {"prompt": "again"})
    assert bad.content[0].text == TIMEOUT_TEXT.format(t=1)
    assert good.content[0].text == "later"
