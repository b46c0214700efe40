"""Real `agent-as-model serve --http` processes for tests: on 127.0.0.1, on a free port, ready when
`/healthz` answers (never a fixed sleep), always stopped; and SDK clients that talk to them."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.helpers import COMMAND
from tests.scripted_host import ScriptedHost

READY_WAIT = 60.0  # seconds a server may take to import the SDK and bind on this loaded machine


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class HttpServer:
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        """End the process and remove its log (read it before: `log_text`)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)
        self.log.unlink(missing_ok=True)


def wait_ready(url: str, process: subprocess.Popen[bytes] | None, log: Path | None = None) -> None:
    """Poll `url` until it answers 200; fail at once if the process died."""
    deadline = time.monotonic() + READY_WAIT
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            text = log.read_text(errors="replace") if log else ""
            raise AssertionError(f"server exited with {process.returncode} before it was ready:\n{text}")
        try:
            if httpx2.get(url, timeout=2).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{url} not ready after {READY_WAIT}s")


def spawn(*args: str, env: dict[str, str] | None = None, port: int | None = None) -> HttpServer:
    """Start a server process; not yet ready (see `wait`)."""
    port = port or free_port()
    log = Path(tempfile.mkstemp(prefix="aam-http-", suffix=".log")[1])
    full_env = {**os.environ, **(env or {})}
    process = subprocess.Popen(
        [str(COMMAND), "serve", "--http", "--port", str(port), *args],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        env=full_env,
    )
    return HttpServer(port, process, log)


def start_many(count: int, *args: str, env: dict[str, str] | None = None) -> list[HttpServer]:
    """`count` servers started side by side (start-up is mostly imports), each waited on."""
    servers = [spawn(*args, env=env) for _ in range(count)]
    try:
        for server in servers:
            wait_ready(f"{server.base}/healthz", server.process, server.log)
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers


def start(*args: str, env: dict[str, str] | None = None) -> HttpServer:
    return start_many(1, *args, env=env)[0]


@contextmanager
def running(*args: str, env: dict[str, str] | None = None) -> Iterator[HttpServer]:
    server = start(*args, env=env)
    try:
        yield server
    finally:
        server.stop()


@asynccontextmanager
async def http_client(
    url: str,
    mode: str,
    host: ScriptedHost | None = None,
    *,
    token: str | None = None,
    on_response: Callable[[httpx2.Response], Awaitable[None]] | None = None,
    connections: int | None = None,
) -> AsyncIterator[Client]:
    """An SDK Client over streamable HTTP on `mode`, declaring sampling when a host is given;
    `on_response` sees every HTTP response (its headers: the session id); `connections` raises
    httpx's pool of 100 (a test that has more requests in flight at once)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    kwargs: dict[str, Any] = {"mode": mode}
    if host is not None:
        kwargs["sampling_callback"] = host
    hooks = {"response": [on_response]} if on_response else {}
    pool = {} if connections is None else {"limits": httpx2.Limits(max_connections=connections)}
    timeout = httpx2.Timeout(30, read=300)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout, event_hooks=hooks, **pool) as http,
        Client(streamable_http_client(url, http_client=http), **kwargs) as client,
    ):
        yield client
