"""The SQLite store's own promises: the file is in WAL mode; every database
call, closing included, runs in a worker thread under the store's lock, never on the event loop;
and the store is closed when the server stops, over stdio and in an HTTP worker."""

from __future__ import annotations

import signal
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from agent_as_model.adapters.store.sqlite import SqliteStore
from agent_as_model.server import STATE_KEY_ENV, build_server
from tests import http_servers
from tests.helpers import server_params
from tests.http_servers import http_client
from tests.scripted_host import ScriptedHost, connect
from tests.test_stored_cli import _env
from tests.test_stored_faults import SECRET as KEY
from tests.test_stored_responses import body, sqlite_store

pytestmark = pytest.mark.anyio


def test_the_file_is_in_wal_mode(tmp_path: Path) -> None:
    sqlite_store(tmp_path / "r.db")
    with sqlite3.connect(tmp_path / "r.db") as db:  # WAL is a property of the file, kept on disk
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


class Watched:
    """Stands for a connection (or a cursor) and records, for each call made on it, the thread
    it ran in and whether the store's lock was held."""

    def __init__(self, real: Any, lock: threading.Lock, calls: list[tuple[str, int, bool]]) -> None:
        self._real, self._lock, self._calls = real, lock, calls

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._real, name)
        if not callable(attribute):
            self._calls.append((name, threading.get_ident(), self._lock.locked()))
            return attribute

        def call(*args: Any) -> Any:
            self._calls.append((name, threading.get_ident(), self._lock.locked()))
            value = attribute(*args)
            return Watched(value, self._lock, self._calls) if isinstance(value, sqlite3.Cursor) else value

        return call


async def test_every_database_call_leaves_the_event_loop(era: str, tmp_path: Path) -> None:
    store = sqlite_store(tmp_path / "r.db")
    sqlite = store.store
    assert isinstance(sqlite, SqliteStore)
    calls: list[tuple[str, int, bool]] = []
    sqlite._db = Watched(sqlite._db, sqlite._lock, calls)  # type: ignore[assignment]
    loop_thread = threading.get_ident()
    async with connect(era, ScriptedHost("one", "two"), server=build_server(store=store)) as client:
        first = body(await client.call_tool("responses_create", {"input": "a"}))
        body(await client.call_tool("responses_create", {"input": "b", "previous_response_id": first["id"]}))
        assert not (await client.call_tool("responses_retrieve", {"response_id": first["id"]})).is_error
        assert not (await client.call_tool("responses_delete", {"response_id": first["id"]})).is_error
    await store.aclose()
    names = {name for name, _, _ in calls}
    assert {"execute", "fetchone", "rowcount", "close"} <= names  # reads, writes, deletes, closing
    assert all(thread != loop_thread for _, thread, _ in calls), calls
    assert all(locked for _, _, locked in calls), calls  # the fetch too, under the lock


# -- closed when the server stops: a closed SQLite connection folds its write-ahead log back into
# the file and removes it; a process that exits without closing leaves the -wal file behind.


@pytest.mark.stdio
async def test_stdio_closes_the_store_when_the_host_closes(era: str, tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    params = server_params("serve", "--store", f"sqlite:{path}", env=_env())
    async with Client(params, mode=era, sampling_callback=ScriptedHost("kept")) as client:
        made = body(await client.call_tool("responses_create", {"input": "q"}))
        assert Path(f"{path}-wal").exists()  # open: the write is in the log
    assert not Path(f"{path}-wal").exists()  # closed at the end of the session
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT key FROM responses").fetchall() == [(made["id"],)]


async def test_an_http_worker_closes_the_store_when_it_stops(era: str, tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    server = http_servers.start("--store", f"sqlite:{path}", env={STATE_KEY_ENV: KEY})
    try:
        async with http_client(server.url, era, ScriptedHost("kept")) as client:
            made = body(await client.call_tool("responses_create", {"input": "q"}))
        assert Path(f"{path}-wal").exists()
        server.process.send_signal(signal.SIGTERM)  # what a supervisor sends
        server.process.wait(timeout=60)  # uvicorn shuts down, then re-raises the signal
    finally:
        server.stop()
    assert not Path(f"{path}-wal").exists()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT key FROM responses").fetchall() == [(made["id"],)]
