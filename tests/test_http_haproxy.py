"""Legacy sessions behind a load balancer: the committed deploy/haproxy.cfg in front of three
`serve --http` instances, all on 127.0.0.1 ports.

Six legacy hosts open sessions through HAProxy and complete sampling; each session is traced to
the instance that holds it (asked directly: only the owner knows the session id). One instance
is stopped: exactly its sessions fail, with a clear error; the others keep working, and a new
session works. 2026-07-28 calls through the balancer complete whichever instance takes a round.

Skipped only when the `haproxy` binary is absent (`.ci/run` installs it with apt-get).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import MCPError
from mcp_types import TextContent

from agent_as_model.server import STATE_KEY_ENV
from tests import http_servers
from tests.http_servers import HttpServer, free_port, http_client, wait_ready
from tests.scripted_host import ScriptedHost

pytestmark = pytest.mark.anyio

CONFIG = Path(__file__).parent.parent / "deploy" / "haproxy.cfg"
SESSIONS = 6
ARGS = {"messages": [{"role": "user", "content": "through the balancer"}]}
PING = {"jsonrpc": "2.0", "id": "owner?", "method": "ping"}


@dataclass
class Balanced:
    url: str
    instances: list[HttpServer]
    process: subprocess.Popen[bytes]
    log: Path


@pytest.fixture
def balanced() -> Iterator[Balanced]:
    haproxy = shutil.which("haproxy")
    if haproxy is None:
        pytest.skip("haproxy is not installed (apt-get install haproxy; .ci/run installs it)")
    # INFO: uvicorn's access log shows which instance served which request.
    env = {STATE_KEY_ENV: "shared-key-of-this-deployment-0123456789ab", "AGENT_AS_MODEL_LOG_LEVEL": "INFO"}
    instances: list[HttpServer] = []
    process = None
    log: Path | None = None
    try:
        instances.extend(http_servers.start_many(3, env=env))
        lb_port = free_port()
        addresses = {f"AAM_SERVER_{n}": f"127.0.0.1:{s.port}" for n, s in enumerate(instances, start=1)}
        log = Path(tempfile.mkstemp(prefix="aam-haproxy-", suffix=".log")[1])
        process = subprocess.Popen(
            [haproxy, "-db", "-f", str(CONFIG)],
            env={**os.environ, "AAM_LB_BIND": f"127.0.0.1:{lb_port}", **addresses},
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        wait_ready(f"http://127.0.0.1:{lb_port}/healthz", process, log)
        yield Balanced(f"http://127.0.0.1:{lb_port}/mcp", instances, process, log)
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=20)
        if log is not None:
            log.unlink(missing_ok=True)
        for instance in instances:
            instance.stop()


def owner_of(session_id: str, instances: list[HttpServer]) -> int:
    """Which instance holds the session: asked directly, only its owner does not answer 404."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Mcp-Session-Id": session_id,
        "MCP-Protocol-Version": "2025-11-25",
    }
    answers = [httpx2.post(s.url, json=PING, headers=headers).status_code for s in instances]
    owners = [n for n, status in enumerate(answers) if status == 200]
    assert len(owners) == 1 and all(s in (200, 404) for s in answers), answers
    return owners[0]


@dataclass
class Session:
    host: ScriptedHost
    ids: set[str] = field(default_factory=set)
    first: str = ""
    second: str | MCPError | None = None


async def run_session(url: str, session: Session, opened: anyio.Event, stopped: anyio.Event) -> None:
    async def remember(response: httpx2.Response) -> None:
        if "mcp-session-id" in response.headers:
            session.ids.add(response.headers["mcp-session-id"])

    try:
        async with http_client(url, "legacy", session.host, on_response=remember) as client:
            result = await client.call_tool("chat_complete", ARGS)
            assert isinstance(result.content[0], TextContent)
            session.first = result.content[0].text
            opened.set()
            await stopped.wait()
            try:
                again = await client.call_tool("generate", {"prompt": "after the stop"})
                assert isinstance(again.content[0], TextContent)
                session.second = again.content[0].text
            except MCPError as failed:
                session.second = failed
    except Exception:
        # Closing a session whose instance is gone may fail too (its SSE stream, its DELETE);
        # what the test asserts on is recorded above.
        if not session.first:
            raise


async def test_legacy_sessions_stick_to_their_instance_and_fail_only_with_it(balanced: Balanced) -> None:
    sessions = [Session(ScriptedHost(f"answer {n}", f"again {n}")) for n in range(SESSIONS)]
    stopped = anyio.Event()
    async with anyio.create_task_group() as tasks:
        opened = []
        for session in sessions:
            event = anyio.Event()
            opened.append(event)
            tasks.start_soon(run_session, balanced.url, session, event, stopped)
        for event in opened:
            await event.wait()
        # Every session completed sampling through the balancer, and is held by one instance.
        assert [s.first for s in sessions] == [f"answer {n}" for n in range(SESSIONS)]
        assert all(len(s.ids) == 1 for s in sessions), [s.ids for s in sessions]
        owners = [owner_of(next(iter(s.ids)), balanced.instances) for s in sessions]
        assert set(owners) == {0, 1, 2}, owners  # round-robin spread the six sessions
        await anyio.to_thread.run_sync(balanced.instances[0].stop)
        stopped.set()

    for n, (session, owner) in enumerate(zip(sessions, owners, strict=True)):
        if owner == 0:
            assert isinstance(session.second, MCPError), session.second
            assert session.second.error.message in ("Session terminated", "Session not found")
            assert session.host.asked == 1  # nothing reached the host after its instance went away
        else:
            assert session.second == f"again {n}"
            assert session.host.asked == 2

    # A new session works (on a live instance), and so does a 2026-07-28 call.
    for mode in ("legacy", "2026-07-28"):
        host = ScriptedHost(f"new {mode}")
        async with http_client(balanced.url, mode, host) as client:
            result = await client.call_tool("generate", {"prompt": "new"})
        assert isinstance(result.content[0], TextContent) and result.content[0].text == f"new {mode}"


async def test_2026_rounds_complete_whichever_instance_takes_them(balanced: Balanced) -> None:
    for n in range(6):
        host = ScriptedHost(f"modern {n}")
        async with http_client(balanced.url, "2026-07-28", host) as client:
            result = await client.call_tool("chat_complete", ARGS)
        assert isinstance(result.content[0], TextContent) and result.content[0].text == f"modern {n}"
    # Round-robin spread the rounds: every instance answered some, so retries crossed instances.
    served = [s.log_text().count('"POST /mcp HTTP/1.1" 200') for s in balanced.instances]
    assert all(count > 0 for count in served), served
