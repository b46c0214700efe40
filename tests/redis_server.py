"""A real `redis-server` for the tests that share counters or responses through it: on a free
port of 127.0.0.1, ready when it answers a ping (never a fixed sleep), always stopped. Skipped
only when the binary or the `[redis]` extra is absent (`.ci/run` installs both)."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.http_servers import free_port

READY_WAIT = 30.0


@contextmanager
def running_redis(directory: Path) -> Iterator[str]:
    """A redis-server keeping nothing on disk; yields its URL (database 0)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server; .ci/run installs it)")
    redis = pytest.importorskip("redis", reason="the [redis] extra is not installed")
    port = free_port()
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(
        [*command, "--dir", str(directory)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        client = redis.Redis(host="127.0.0.1", port=port)
        deadline = time.monotonic() + READY_WAIT
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("redis-server did not start") from None
                time.sleep(0.05)
        client.close()
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=20)
