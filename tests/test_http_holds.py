"""What a slow or abandoned HTTP client may hold, over a real `serve --http`:
half-sent headers and bodies are answered 408 and closed, a flood of connections cannot lock a
host out, and abandoned legacy handshakes never keep new hosts out.

Small bounds make these quick; the waits are generous ceilings, never timed assertions."""

from __future__ import annotations

import asyncio
import socket
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from mcp_types import CallToolResult, TextContent

from agent_as_model.commands import cli, http_options
from agent_as_model.transports.http import holds, workers
from agent_as_model.transports.http.settings import HttpSettings
from tests import http_servers
from tests.helpers import INITIALIZED, initialize_request
from tests.http_servers import HttpServer, http_client

pytestmark = pytest.mark.anyio

CEILING = 60.0  # seconds: far beyond every bound below, so only a hold that never ends fails
TIMED_OUT = b"HTTP/1.1 408 Request Timeout"
RESET = b"<reset>"
MAX_CONNECTIONS = 6
MAX_SESSIONS = 3
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def strict_server() -> Iterator[HttpServer]:
    with http_servers.running(
        "--header-timeout",
        "1",
        "--body-timeout",
        "1",
        "--max-connections",
        str(MAX_CONNECTIONS),
        "--session-idle-timeout",
        "2",
        "--max-sessions",
        str(MAX_SESSIONS),
    ) as server:
        yield server


def connect(server: HttpServer, sent: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=CEILING)
    sock.sendall(sent)
    return sock


def read_to_close(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection; a socket.timeout past the
    ceiling fails the test. A connection closed before the server read what it was sent is
    reset (the kernel's answer to unread data), and its answer may be lost with it."""
    got = b""
    with sock:
        try:
            while chunk := sock.recv(4096):
                got += chunk
        except ConnectionResetError:
            return got + RESET
    return got


def models_listed(result: CallToolResult) -> bool:
    block = result.content[0]
    return not result.is_error and isinstance(block, TextContent) and "agent-default" in block.text


def test_half_sent_headers_get_408_and_are_closed(strict_server: HttpServer) -> None:
    sock = connect(strict_server, b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    assert read_to_close(sock).startswith(TIMED_OUT)


def test_headers_trickled_in_are_closed_all_the_same(strict_server: HttpServer) -> None:
    """Data does not reset the header timer: a byte every so often still ends in 408."""
    sock = connect(strict_server, b"GET /healthz HTTP/1.1\r\n")
    deadline = time.monotonic() + CEILING
    closed = False
    while time.monotonic() < deadline and not closed:
        try:
            sock.sendall(b"X")
        except OSError:  # the server closed it while we wrote
            closed = True
            break
        sock.settimeout(0.2)
        try:
            closed = sock.recv(4096).startswith(TIMED_OUT) or closed
        except TimeoutError:
            continue
    sock.close()
    assert closed, "a trickle of header bytes kept the connection open"


def test_a_half_sent_body_gets_408_and_is_closed(strict_server: HttpServer) -> None:
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{strict_server.port}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n"
    )
    sock = connect(strict_server, head.encode() + b'{"jsonrpc": "2.0"')
    assert read_to_close(sock).startswith(TIMED_OUT)
    assert httpx2.get(f"{strict_server.base}/healthz").status_code == 200


async def test_a_flood_of_half_sent_requests_does_not_lock_a_host_out(
    strict_server: HttpServer, era: str
) -> None:
    """Three times the connection bound, each half-sent: the newest connections evict the ones
    waiting longest for headers, so a host still lists models on either era."""
    flood = [connect(strict_server, b"POST /mcp HTTP/1.1\r\nHost: 127") for _ in range(3 * MAX_CONNECTIONS)]
    try:
        async with http_client(strict_server.url, era) as client:
            assert models_listed(await client.call_tool("list_models", {}))
        assert httpx2.get(f"{strict_server.base}/healthz").status_code == 200
    finally:
        answers = [read_to_close(sock) for sock in flood]
    # Every one of them was closed, by eviction or by the header timeout, each with a 408 (or
    # reset, when evicted before the server read its bytes).
    assert all(answer.startswith(TIMED_OUT) or answer == RESET for answer in answers), answers
    assert any(answer.startswith(TIMED_OUT) for answer in answers)


def open_abandoned_session(server: HttpServer) -> httpx2.Response:
    """An initialize, and nothing after it: no `notifications/initialized`, no GET stream."""
    return httpx2.post(server.url, json=initialize_request(), headers=ACCEPT, timeout=CEILING)


async def test_abandoned_handshakes_never_lock_a_host_out(strict_server: HttpServer) -> None:
    """At the session cap, each new handshake ends the oldest abandoned one (tests/test_http_sessions.py
    has the rules): no initialize is refused, and a legacy host gets in on its first try."""
    answers = [open_abandoned_session(strict_server) for _ in range(5 * MAX_SESSIONS)]
    assert Counter(answer.status_code for answer in answers) == {200: 5 * MAX_SESSIONS}
    async with http_client(strict_server.url, "legacy") as legacy:
        assert models_listed(await legacy.call_tool("list_models", {}))
    # A 2026-07-28 host opens no session, so the cap never stands in its way.
    async with http_client(strict_server.url, "2026-07-28") as modern:
        assert models_listed(await modern.call_tool("list_models", {}))
    first = answers[0].headers["mcp-session-id"]
    gone = httpx2.post(
        strict_server.url,
        json=INITIALIZED,
        headers={**ACCEPT, "Mcp-Session-Id": first, "MCP-Protocol-Version": "2025-11-25"},
    )
    assert gone.status_code == 404


# The flags and their variables.


def settings(argv: list[str]) -> HttpSettings:
    parser = cli._parser()
    made = http_options.settings_from_args(parser, parser.parse_args(["serve", "--http", *argv]))
    assert made is not None
    return made


def test_the_holds_default_to_their_documented_values(monkeypatch: pytest.MonkeyPatch) -> None:
    for hold in http_options.HOLDS:
        monkeypatch.delenv(hold.env, raising=False)
    made = settings([])
    assert (made.header_timeout, made.body_timeout, made.max_connections) == (10.0, 60.0, 1000)
    assert (made.session_idle_timeout, made.max_sessions, made.handshake_timeout) == (300.0, 1000, 10.0)


def test_a_variable_sets_a_hold_and_a_flag_wins_over_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_AS_MODEL_SESSION_IDLE_TIMEOUT", "42")
    monkeypatch.setenv("AGENT_AS_MODEL_MAX_SESSIONS", "7")
    assert (settings([]).session_idle_timeout, settings([]).max_sessions) == (42.0, 7)
    assert settings(["--max-sessions", "9"]).max_sessions == 9


@pytest.mark.parametrize(
    ("argv", "env", "named"),
    [
        (["--header-timeout", "0"], {}, "--header-timeout must be positive"),
        (["--max-connections", "many"], {}, "--max-connections must be a whole number"),
        ([], {"AGENT_AS_MODEL_BODY_TIMEOUT": "soon"}, "AGENT_AS_MODEL_BODY_TIMEOUT must be a number"),
        ([], {"AGENT_AS_MODEL_MAX_SESSIONS": "-1"}, "AGENT_AS_MODEL_MAX_SESSIONS must be positive"),
    ],
)
def test_a_bad_hold_is_named_by_where_it_came_from(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str], env: Any, named: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as ended:
        settings(argv)
    assert ended.value.code == 2
    assert named in capsys.readouterr().err


def test_a_hold_without_http_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["serve", "--session-idle-timeout", "5"])
    err = capsys.readouterr().err
    assert "--session-idle-timeout is for serving HTTP" in err


def test_connections_that_do_not_fit_the_descriptor_limit_are_cut_to_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        if hard != resource.RLIM_INFINITY:
            fitted = workers.fit_descriptors(hard + 10)
            assert fitted == hard - workers.FD_HEADROOM
        assert workers.fit_descriptors(10) == 10
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_connection_evicted_is_the_one_waiting_longest_for_headers() -> None:
    """Over the bound, the connection that began waiting first goes, and only it: the others,
    which began later, are still open (a header timeout far off, so only eviction closes)."""
    with http_servers.running("--header-timeout", "60", "--max-connections", "3") as server:
        first, second, third = (connect(server, b"POST /mcp HTTP/1.1\r\nHost: 1") for _ in range(3))
        newest = connect(server, b"POST /mcp HTTP/1.1\r\nHost: 1")
        try:
            assert read_to_close(first).startswith(TIMED_OUT)
            for still_open in (second, third, newest):
                still_open.setblocking(False)
                with pytest.raises(BlockingIOError):  # nothing to read, and not closed
                    still_open.recv(1)
        finally:
            for sock in (first, second, third, newest):
                sock.close()


def test_a_legacy_call_whose_client_closed_its_stream_is_cancelled() -> None:
    """A legacy call asks its host on the POST's own event stream; once the client has closed
    that stream (the SDK's client does, on an event over 1 MiB) nothing can answer, as no event
    store keeps it: the call is cancelled, where it would otherwise have waited for
    --host-timeout (600 s) holding all it read. The server's log says so."""
    with http_servers.running(env={"AGENT_AS_MODEL_LOG_LEVEL": "INFO"}) as server:
        opened = httpx2.post(
            server.url, json=initialize_request({"sampling": {}}), headers=ACCEPT, timeout=CEILING
        )
        session = {
            **ACCEPT,
            "Mcp-Session-Id": opened.headers["mcp-session-id"],
            "MCP-Protocol-Version": "2025-11-25",
        }
        httpx2.post(server.url, json=INITIALIZED, headers=session)
        call = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "generate", "arguments": {"prompt": "q"}},
        }
        with httpx2.stream("POST", server.url, json=call, headers=session, timeout=CEILING) as stream:
            seen = ""
            for text in stream.iter_text():
                seen += text
                if "sampling/createMessage" in seen:
                    break  # the host was asked; the client goes away without answering
        assert "sampling/createMessage" in seen
        deadline = time.monotonic() + CEILING
        while time.monotonic() < deadline and "generate: cancelled by the client" not in server.log_text():
            time.sleep(0.1)
        logged = server.log_text()
        assert "generate: cancelled by the client in state awaiting_host" in logged, logged


BURST = 5 * holds.ACCEPT_BATCH


def accepted_per_turn(loop_class: type[asyncio.AbstractEventLoop]) -> list[int]:
    """How many connections of a burst `loop_class` sets up in each turn of its loop: BURST
    clients connect while the loop is busy (so all wait in the kernel's queue), then it runs."""
    loop = loop_class()
    turns = [0]
    made: Counter[int] = Counter()

    def tick() -> None:
        turns[0] += 1
        loop.call_soon(tick)

    class Counted(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            made[turns[0]] += 1

    async def burst() -> None:
        server = await loop.create_server(Counted, "127.0.0.1", 0, backlog=2048)
        port = server.sockets[0].getsockname()[1]
        clients = [socket.create_connection(("127.0.0.1", port), timeout=CEILING) for _ in range(BURST)]
        loop.call_soon(tick)
        deadline = time.monotonic() + CEILING
        while sum(made.values()) < BURST and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        for client in clients:
            client.close()
        server.close()

    try:
        loop.run_until_complete(burst())
    finally:
        loop.close()
    return [made[turn] for turn in sorted(made)]


def test_a_burst_of_connections_is_set_up_a_batch_a_turn() -> None:
    """asyncio's own loop sets up the whole burst in one turn (what held every other request);
    the server's loop takes ACCEPT_BATCH a turn, and still every connection of the burst."""
    stock = accepted_per_turn(asyncio.SelectorEventLoop)
    paced = accepted_per_turn(holds.PacedAcceptLoop)
    assert sum(stock) == sum(paced) == BURST
    assert max(stock) > holds.ACCEPT_BATCH, stock
    assert max(paced) <= holds.ACCEPT_BATCH and len(paced) >= BURST // holds.ACCEPT_BATCH, paced


def test_uvicorn_runs_the_paced_loop() -> None:
    config = uvicorn.Config(workers.APP_FACTORY, loop=workers.HTTP_LOOP)
    assert config.get_loop_factory() is holds.PacedAcceptLoop


async def test_a_burst_past_the_batch_is_answered_every_one(era: str) -> None:
    """BURST complete requests at once over a real `serve --http`: several turns to accept them
    all, none refused or dropped, and a host lists models after them on either era."""
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    with http_servers.running() as server:
        burst = [connect(server, request) for _ in range(BURST)]
        answers = await anyio.to_thread.run_sync(lambda: [read_to_close(sock) for sock in burst])
        assert all(answer.startswith(b"HTTP/1.1 200") for answer in answers), {a[:40] for a in answers}
        async with http_client(server.url, era) as client:
            assert models_listed(await client.call_tool("list_models", {}))
