"""No legacy host is locked out of a real `serve --http` by sessions that go nowhere: a session whose
handshake is not complete within `--handshake-timeout` is ended; at `--max-sessions`, a new host
first ends the session opened longest ago whose handshake is not complete, else the one idle
longest; only when every session is in use does it get 503. After a flood of 10,000 abandoned
`initialize`s, the next legacy host is served at once.

Sessions are a legacy (before 2026-07-28) thing: a 2026-07-28 host opens none, and the tests show
that it is served all along and ends no session. The waits are generous ceilings, never timed
assertions."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from http.client import HTTPConnection

import anyio
import httpx2
import pytest
from mcp_types import CallToolResult, TextContent

from agent_as_model.commands import cli, http_options
from tests import http_servers
from tests.helpers import INITIALIZED, LEGACY_VERSION, initialize_request
from tests.http_servers import HttpServer, http_client
from tests.scripted_host import ScriptedHost

pytestmark = pytest.mark.anyio

CEILING = 120.0  # seconds: far beyond every bound below, so only a session that is never ended fails
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LOG_INFO = {"AGENT_AS_MODEL_LOG_LEVEL": "INFO"}
FLOOD = 10_000  # the count, against the default --max-sessions (1000)
FLOODERS = 8  # connections the flood is sent on at once


def open_session(server: HttpServer) -> str:
    """An `initialize`, and nothing after it; the id of the session it opened."""
    answer = httpx2.post(server.url, json=initialize_request(), headers=ACCEPT, timeout=CEILING)
    assert answer.status_code == 200, answer.text
    return answer.headers["mcp-session-id"]


def session_answer(server: HttpServer, session: str) -> int:
    """The status a session's `notifications/initialized` gets: 202 while the session lives, 404
    once it was ended. (A request of the session completes its handshake.)"""
    headers = {**ACCEPT, "Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY_VERSION}
    return httpx2.post(server.url, json=INITIALIZED, headers=headers, timeout=CEILING).status_code


def models_listed(result: CallToolResult) -> bool:
    block = result.content[0]
    return not result.is_error and isinstance(block, TextContent) and "agent-default" in block.text


async def served_at_once(server: HttpServer, era: str) -> str:
    """A host of `era` connects and completes a call on its first try (the host answers it)."""
    host = ScriptedHost("served")
    async with http_client(server.url, era, host) as client:
        result = await client.call_tool("generate", {"prompt": "q"})
    block = result.content[0]
    assert not result.is_error and isinstance(block, TextContent), result
    return block.text


def wait_for_log(server: HttpServer, text: str, count: int = 1) -> None:
    deadline = time.monotonic() + CEILING
    while server.log_text().count(text) < count:
        assert time.monotonic() < deadline, (
            f"never logged {text!r} {count} times:\n{server.log_text()[-3000:]}"
        )
        time.sleep(0.1)


# -- the handshake timeout ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quick_handshakes() -> Iterator[HttpServer]:
    with http_servers.running("--handshake-timeout", "1", env=LOG_INFO) as server:
        yield server


async def test_a_session_whose_handshake_is_not_complete_in_time_is_ended(
    quick_handshakes: HttpServer,
) -> None:
    abandoned = open_session(quick_handshakes)
    wait_for_log(quick_handshakes, f"ending legacy session {abandoned}: its handshake was not complete")
    assert session_answer(quick_handshakes, abandoned) == 404


async def test_a_session_whose_handshake_completed_is_kept(quick_handshakes: HttpServer) -> None:
    kept = open_session(quick_handshakes)
    assert session_answer(quick_handshakes, kept) == 202  # notifications/initialized: complete
    abandoned = open_session(quick_handshakes)  # ended a second later: the one to wait for
    wait_for_log(quick_handshakes, f"ending legacy session {abandoned}")
    assert session_answer(quick_handshakes, kept) == 202
    assert f"ending legacy session {kept}" not in quick_handshakes.log_text()


async def test_hosts_of_both_eras_are_served_past_the_handshake_timeout(
    quick_handshakes: HttpServer, era: str
) -> None:
    """A host completes its handshake at once, and its GET stream keeps its session in use."""
    host = ScriptedHost("first", "second")
    async with http_client(quick_handshakes.url, era, host) as client:
        first = await client.call_tool("generate", {"prompt": "q"})
        await anyio.sleep(2.5)  # past the handshake timeout, twice over
        second = await client.call_tool("generate", {"prompt": "q"})
    assert [first.content[0], second.content[0]] == [
        TextContent(type="text", text="first"),
        TextContent(type="text", text="second"),
    ]


# -- at the session cap ------------------------------------------------------------------------------

CAP = 3


@pytest.fixture
def capped() -> Iterator[HttpServer]:
    """A small cap, and a handshake timeout long enough that only the cap ends sessions."""
    with http_servers.running(
        "--max-sessions", str(CAP), "--handshake-timeout", str(CEILING), env=LOG_INFO
    ) as server:
        yield server


async def test_at_the_cap_the_oldest_session_not_handshaken_makes_room(capped: HttpServer) -> None:
    sessions = [open_session(capped) for _ in range(CAP)]
    assert await served_at_once(capped, "legacy") == "served"
    assert session_answer(capped, sessions[0]) == 404  # the oldest was ended for the host
    assert [session_answer(capped, s) for s in sessions[1:]] == [202, 202]


async def test_at_the_cap_a_handshaken_session_goes_before_none_not_handshaken(capped: HttpServer) -> None:
    """The first session completed its handshake: the oldest of the others is ended, not it."""
    first = open_session(capped)
    assert session_answer(capped, first) == 202
    later = [open_session(capped) for _ in range(CAP - 1)]
    assert await served_at_once(capped, "legacy") == "served"
    assert session_answer(capped, later[0]) == 404
    assert [session_answer(capped, first), session_answer(capped, later[1])] == [202, 202]


async def test_at_the_cap_with_every_handshake_complete_the_one_idle_longest_makes_room(
    capped: HttpServer,
) -> None:
    sessions = [open_session(capped) for _ in range(CAP)]
    assert [session_answer(capped, s) for s in sessions] == [202] * CAP  # all complete, all idle
    assert session_answer(capped, sessions[0]) == 202  # the first is now the one idle least
    assert await served_at_once(capped, "legacy") == "served"
    assert session_answer(capped, sessions[1]) == 404
    assert [session_answer(capped, sessions[0]), session_answer(capped, sessions[2])] == [202, 202]


async def test_at_the_cap_with_every_session_in_use_a_new_one_gets_503(capped: HttpServer) -> None:
    """Live hosts hold their GET streams: nothing is idle, nothing is ended, the SDK refuses."""
    async with http_client(capped.url, "legacy") as a, http_client(capped.url, "legacy") as b:
        async with http_client(capped.url, "legacy") as c:
            for client in (a, b, c):
                assert models_listed(await client.call_tool("list_models", {}))
            refused = httpx2.post(capped.url, json=initialize_request(), headers=ACCEPT, timeout=CEILING)
            assert refused.status_code == 503 and "Too many open sessions" in refused.text
            # A 2026-07-28 host opens no session: the cap never stands in its way.
            assert await served_at_once(capped, "2026-07-28") == "served"
            for client in (a, b, c):  # and no live host lost its session
                assert models_listed(await client.call_tool("list_models", {}))
        # One host left: its place is free again.
        assert await served_at_once(capped, "legacy") == "served"
    assert "ending legacy session" not in capped.log_text()


async def test_a_flood_at_the_cap_never_ends_a_live_host(capped: HttpServer) -> None:
    async with http_client(capped.url, "legacy") as live:
        assert models_listed(await live.call_tool("list_models", {}))
        answers = Counter(
            httpx2.post(capped.url, json=initialize_request(), headers=ACCEPT, timeout=CEILING).status_code
            for _ in range(10 * CAP)
        )
        assert answers == {200: 10 * CAP}
        assert models_listed(await live.call_tool("list_models", {}))


# -- the numbers -----------------------------------------------------------------------------


async def test_after_10_000_abandoned_handshakes_the_next_legacy_host_is_served_at_once() -> None:
    """The defaults (--max-sessions 1000, --handshake-timeout 10): a flood of ten times the cap,
    sent on several connections at once (plain keep-alive connections, so the flood costs this
    process little beside the server); then a legacy host and a 2026-07-28 host, each on its
    first try."""
    with http_servers.running() as server:
        each: list[Counter[int]] = []  # one a connection, each counted by its own thread
        body = json.dumps(initialize_request()).encode()

        def flood(count: int) -> None:
            statuses: Counter[int] = Counter()
            each.append(statuses)
            connection = HTTPConnection("127.0.0.1", server.port, timeout=CEILING)
            try:
                for _ in range(count):
                    connection.request("POST", "/mcp", body, ACCEPT)
                    answer = connection.getresponse()
                    answer.read()
                    statuses[answer.status] += 1
            finally:
                connection.close()

        async with anyio.create_task_group() as flooding:
            for _ in range(FLOODERS):
                flooding.start_soon(anyio.to_thread.run_sync, flood, FLOOD // FLOODERS)
        assert sum(each, Counter()) == {200: FLOOD}  # every abandoned one made room for the next
        assert await served_at_once(server, "legacy") == "served"
        assert await served_at_once(server, "2026-07-28") == "served"


# -- the flag ------------------------------------------------------------------------------------------


def test_the_handshake_timeout_defaults_to_10_s_and_reads_its_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser = cli._parser()

    def made(*argv: str) -> float:
        settings = http_options.settings_from_args(parser, parser.parse_args(["serve", "--http", *argv]))
        assert settings is not None
        return settings.handshake_timeout

    monkeypatch.delenv("AGENT_AS_MODEL_HANDSHAKE_TIMEOUT", raising=False)
    assert made() == 10.0
    monkeypatch.setenv("AGENT_AS_MODEL_HANDSHAKE_TIMEOUT", "3")
    assert made() == 3.0
    assert made("--handshake-timeout", "4.5") == 4.5


def test_a_bad_handshake_timeout_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        cli.main(["serve", "--http", "--handshake-timeout", "0"])
    assert ended.value.code == 2
    assert "--handshake-timeout must be positive" in capsys.readouterr().err
