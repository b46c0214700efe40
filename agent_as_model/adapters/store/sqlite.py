"""The embedded store: one SQLite file, no server to run (`--store sqlite:PATH`).

WAL mode, so readers never wait for the writer and a process killed mid-write leaves the file
readable (the write-ahead log is replayed or discarded whole on the next open). Every database
call, closing included, runs in a worker thread (`anyio.to_thread`), never on the event loop; one
connection, used by one thread at a time (under a lock, reading a cursor too). The file is created
readable and writable by its owner only (SQLite gives its -wal and -shm files the same
permissions). Expired rows are never returned, and each
write first deletes the rows that have expired (an index on `expires` keeps that cheap).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import anyio.to_thread

from agent_as_model.adapters.store.base import StoreUnavailable
from agent_as_model.errors import StartupError

# How long a call waits for another process's write lock (several `--workers` share one file).
BUSY_TIMEOUT = 5.0
_T = TypeVar("_T")
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value BLOB NOT NULL, expires REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS responses_expires ON responses (expires)",
    # The providers' cooldowns (adapters/backends/cooldown.py), shared by every process of the file.
    "CREATE TABLE IF NOT EXISTS cooldowns"
    " (name TEXT PRIMARY KEY, failures INTEGER NOT NULL, until REAL NOT NULL)",
)


class SqliteStore:
    def __init__(self, path: str) -> None:
        self.where = f"sqlite:{path}"
        self._db = open_database(path, _SCHEMA, f"--store {self.where}")
        self._lock = threading.Lock()

    async def get(self, key: str) -> bytes | None:
        return await anyio.to_thread.run_sync(self._get, key)

    async def add(self, key: str, value: bytes, ttl: float) -> bool:
        return await anyio.to_thread.run_sync(self._add, key, value, ttl)

    async def delete(self, key: str) -> bool:
        return await anyio.to_thread.run_sync(self._delete, key)

    async def aclose(self) -> None:
        await anyio.to_thread.run_sync(self._close)

    # The providers' cooldowns (`cooldown.CooldownState`): not sealed, they hold no conversation.

    async def read_cooldowns(self) -> dict[str, tuple[int, float]]:
        rows = await anyio.to_thread.run_sync(
            self._run, "SELECT name, failures, until FROM cooldowns", (), lambda cursor: cursor.fetchall()
        )
        return {name: (failures, until) for name, failures, until in rows}

    async def cooldown_failed(
        self, name: str, opens_at: int, seconds: float, at_least: float
    ) -> tuple[int, float]:
        return await anyio.to_thread.run_sync(self._cooldown_failed, name, opens_at, seconds, at_least)

    async def cooldown_succeeded(self, name: str) -> None:
        await anyio.to_thread.run_sync(
            self._run, "UPDATE cooldowns SET failures = 0 WHERE name = ?", (name,), lambda cursor: None
        )

    def _cooldown_failed(
        self, name: str, opens_at: int, seconds: float, at_least: float
    ) -> tuple[int, float]:
        now = time.time()
        with self._lock:
            try:
                with immediate(self._db):
                    self._db.execute(
                        "INSERT INTO cooldowns (name, failures, until) VALUES (?, 1, 0) "
                        "ON CONFLICT (name) DO UPDATE SET failures = failures + 1",
                        (name,),
                    )
                    failures, until = self._db.execute(
                        "SELECT failures, until FROM cooldowns WHERE name = ?", (name,)
                    ).fetchone()
                    if failures >= opens_at:
                        until = max(until, now + seconds)
                    until = max(until, at_least)
                    self._db.execute("UPDATE cooldowns SET until = ? WHERE name = ?", (until, name))
            except sqlite3.Error as err:
                raise StoreUnavailable(f"{self.where}: {err}") from None
        return failures, until

    def _close(self) -> None:
        with self._lock:
            self._db.close()

    def _get(self, key: str) -> bytes | None:
        row = self._run(
            "SELECT value FROM responses WHERE key = ? AND expires > ?",
            (key, time.time()),
            lambda cursor: cursor.fetchone(),
        )
        return None if row is None else bytes(row[0])

    def _add(self, key: str, value: bytes, ttl: float) -> bool:
        now = time.time()
        with self._lock:
            try:
                with immediate(self._db):
                    self._db.execute("DELETE FROM responses WHERE expires <= ?", (now,))
                    added = self._db.execute(
                        "INSERT OR IGNORE INTO responses (key, value, expires) VALUES (?, ?, ?)",
                        (key, value, now + ttl),
                    ).rowcount
            except sqlite3.Error as err:
                raise StoreUnavailable(f"{self.where}: {err}") from None
        return added == 1

    def _delete(self, key: str) -> bool:
        deleted: int = self._run(
            "DELETE FROM responses WHERE key = ? AND expires > ?",
            (key, time.time()),
            lambda cursor: cursor.rowcount,
        )
        return deleted > 0

    def _run(self, sql: str, params: tuple[object, ...], read: Callable[[sqlite3.Cursor], _T]) -> _T:
        """`sql`, then `read` of its cursor, both under the lock: the one connection is never
        touched by two threads at once (a cursor reads through its connection)."""
        with self._lock:
            try:
                return read(self._db.execute(sql, params))
            except sqlite3.Error as err:
                raise StoreUnavailable(f"{self.where}: {err}") from None


def open_database(path: str, schema: Iterable[str], label: str) -> sqlite3.Connection:
    """The file at `path` made private to its owner, opened in WAL mode with `schema` created;
    `label` names it in the start-up error. One connection, autocommit (each caller runs its own
    transactions), usable from the worker threads that take turns with it."""
    try:
        create_private(path)
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        # NORMAL under WAL: a killed process loses nothing committed; only a power cut may lose
        # the last transactions, never the file.
        db.execute("PRAGMA synchronous=NORMAL")
        for statement in schema:
            db.execute(statement)
    except (OSError, sqlite3.Error) as err:
        raise StartupError(f"{label}: cannot open the database ({err})") from None
    return db


@contextmanager
def immediate(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction (`BEGIN IMMEDIATE`: the file's write lock, so one process at a time),
    committed when the block ends, rolled back when it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def create_private(path: str) -> None:
    """Create the file for its owner alone (0600) before SQLite opens it, so there is no moment
    when another user could read it; a file that exists keeps the permissions it has."""
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
