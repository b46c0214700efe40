"""2026-07-28 is stateless across processes: separate `serve --http` processes that share
AGENT_AS_MODEL_STATE_KEY answer each other's rounds; another deployment's key is refused.

Round one goes to one process, the retry (with the host's answer and the sealed state) to
another, over real HTTP with the SDK client driving the rounds by hand. `--workers 2` makes a key
for its own children when none is set, and serves both eras.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mcp import MCPError
from mcp_types import CallToolResult, InputRequiredResult, TextContent

from agent_as_model.commands import cli, http_options
from agent_as_model.server import STATE_KEY_ENV
from agent_as_model.transports.http import workers
from tests import http_servers
from tests.http_servers import HttpServer, http_client
from tests.scripted_host import ScriptedHost, text_answer

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
KEY = "completion"
WORKERS_TOKEN = "token-of-the-two-workers"
AUTH_TOKEN_ENV = http_options.AUTH_TOKEN_ENV
ARGS = {"messages": [{"role": "user", "content": "which process answers?"}]}
INVALID_PARAMS = -32602


@pytest.fixture(scope="module")
def deployment() -> Iterator[tuple[HttpServer, HttpServer, HttpServer]]:
    """Two processes of one deployment (one key) and one of another deployment (another key)."""
    ours, theirs = {STATE_KEY_ENV: "k" * 43}, {STATE_KEY_ENV: "t" * 43}
    servers = [*http_servers.start_many(2, env=ours), http_servers.start(env=theirs)]
    try:
        yield servers[0], servers[1], servers[2]
    finally:
        for server in servers:
            server.stop()


async def first_round(url: str, token: str | None = None) -> InputRequiredResult:
    async with http_client(url, MODERN, ScriptedHost(), token=token) as client:
        result = await client.session.call_tool("chat_complete", ARGS, allow_input_required=True)
    assert isinstance(result, InputRequiredResult), result
    return result


async def retry(
    url: str, first: InputRequiredResult, answer: str, token: str | None = None
) -> CallToolResult | InputRequiredResult | MCPError:
    """The host's retry with its answer and the sealed state; a refusal is returned, not raised
    (raised inside the client's context it would leave it wrapped in an ExceptionGroup)."""
    async with http_client(url, MODERN, ScriptedHost(), token=token) as client:
        try:
            return await client.session.call_tool(
                "chat_complete",
                ARGS,
                input_responses={KEY: text_answer(answer)},
                request_state=first.request_state,
                allow_input_required=True,
            )
        except MCPError as refused:
            return refused


async def test_round_one_on_one_process_and_the_retry_on_another(
    deployment: tuple[HttpServer, HttpServer, HttpServer],
) -> None:
    one, two, _ = deployment
    assert one.process.pid != two.process.pid
    first = await first_round(one.url)
    assert first.input_requests is not None and list(first.input_requests) == [KEY]
    final = await retry(two.url, first, "answered on process two")
    assert isinstance(final, CallToolResult) and not final.is_error
    block = final.content[0]
    assert isinstance(block, TextContent) and block.text == "answered on process two"
    # And the other way round.
    back = await retry(one.url, await first_round(two.url), "answered on process one")
    assert isinstance(back, CallToolResult) and isinstance(back.content[0], TextContent)
    assert back.content[0].text == "answered on process one"


async def test_state_sealed_by_another_deployment_is_refused(
    deployment: tuple[HttpServer, HttpServer, HttpServer],
) -> None:
    one, _, foreign = deployment
    first = await first_round(one.url)
    refused = await retry(foreign.url, first, "never used")
    assert isinstance(refused, MCPError)
    assert refused.error.code == INVALID_PARAMS and "requestState" in refused.error.message
    # The refusing server still serves its own rounds.
    own = await retry(foreign.url, await first_round(foreign.url), "its own")
    assert isinstance(own, CallToolResult) and not own.is_error


@pytest.fixture(scope="module")
def two_workers() -> Iterator[HttpServer]:
    env = {key: value for key, value in os.environ.items() if key != STATE_KEY_ENV}
    # A token, so /healthz says which process answered (without one it says only "ok").
    with http_servers.running("--workers", "2", env={**env, AUTH_TOKEN_ENV: WORKERS_TOKEN}) as server:
        yield server


async def test_two_workers_complete_every_2026_retry(two_workers: HttpServer) -> None:
    """Every round on a fresh connection, so the kernel may hand it to either worker; with the key
    the parent made for them, every retry completes whichever worker takes it."""
    for n in range(8):
        first = await first_round(two_workers.url, WORKERS_TOKEN)
        final = await retry(two_workers.url, first, f"answer {n}", WORKERS_TOKEN)
        assert isinstance(final, CallToolResult) and isinstance(final.content[0], TextContent)
        assert final.content[0].text == f"answer {n}"
    told = {"Authorization": f"Bearer {WORKERS_TOKEN}"}
    pids = {httpx2.get(f"{two_workers.base}/healthz", headers=told).json()["pid"] for _ in range(4)}
    assert two_workers.process.pid not in pids  # the children answer, not the supervising parent


async def test_two_workers_refuse_legacy_sessions_clearly(two_workers: HttpServer) -> None:
    """A legacy session cannot survive connections landing on different workers: refused up front."""
    host = ScriptedHost()
    refused: MCPError | None = None
    with pytest.raises(BaseException) as failed:  # the handshake itself is refused
        async with http_client(two_workers.url, "legacy", host, token=WORKERS_TOKEN) as client:
            await client.list_tools()
    refused = next(iter(_leaves(failed.value)), None)
    assert isinstance(refused, MCPError), failed.value
    assert refused.error.code == -32600 and "2 worker processes" in refused.error.message
    assert "2026-07-28" in refused.error.message and host.asked == 0


def _leaves(error: BaseException) -> list[BaseException]:
    inner = getattr(error, "exceptions", None)  # an exception group (3.11+), spelt for 3.10 too
    if inner is None:
        return [error]
    return [leaf for one in inner for leaf in _leaves(one)]


def test_workers_get_a_shared_key_when_none_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    # Empty counts as unset; monkeypatch puts back whatever serve() writes into the environment.
    for name in (STATE_KEY_ENV, workers.SETTINGS_ENV, AUTH_TOKEN_ENV):
        monkeypatch.setenv(name, "")
    seen: dict[str, Any] = {}

    def fake_run(app: str, **options: Any) -> None:
        seen.update(options, app=app, key=os.environ.get(STATE_KEY_ENV))

    monkeypatch.setattr("uvicorn.run", fake_run)
    parser = cli._parser()
    settings = http_options.settings_from_args(
        parser, parser.parse_args(["serve", "--http", "--workers", "3"])
    )
    assert settings is not None
    workers.serve(settings)
    assert seen["workers"] == 3 and seen["factory"] is True
    assert seen["key"] and len(seen["key"]) >= 43  # 32 random bytes, urlsafe
    # A key that is set is the one the workers use.
    monkeypatch.setenv(STATE_KEY_ENV, "operator-key")
    workers.serve(settings)
    assert seen["key"] == "operator-key"
