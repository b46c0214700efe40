"""Counters in one SQLite file (`[limits] counters = "sqlite:PATH"`, or `serve --store sqlite:PATH`
when no counters are named): one process, or the workers of one machine, which SQLite's file locks
let share it.

Each admission is one `BEGIN IMMEDIATE` transaction (the file's write lock), so its checks and
its counts are one step for every process that shares the file. WAL mode, as the response store:
a process killed mid-write leaves the file whole. Every database call runs in a worker thread
(`anyio.to_thread`), never on the event loop; one connection, used by one thread at a time. The
file is created for its owner alone. An in-flight entry carries an expiry (`leases`), renewed
while its call runs, so the place of a call whose process died comes back."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

import anyio.to_thread

from agent_as_model.adapters.callers.base import (
    DAY,
    MINUTE,
    CallerLimits,
    CountersUnavailable,
    Over,
    Use,
    day_of,
    reached,
)
from agent_as_model.adapters.store.sqlite import immediate, open_database

_T = TypeVar("_T")
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS caller_requests (caller TEXT NOT NULL, at REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS caller_requests_at ON caller_requests (caller, at)",
    "CREATE TABLE IF NOT EXISTS caller_in_flight "
    "(ticket TEXT PRIMARY KEY, caller TEXT NOT NULL, expires REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS caller_in_flight_expires ON caller_in_flight (caller, expires)",
    "CREATE TABLE IF NOT EXISTS caller_tokens (caller TEXT NOT NULL, day TEXT NOT NULL, "
    "tokens INTEGER NOT NULL, estimated INTEGER NOT NULL, PRIMARY KEY (caller, day))",
)


class SqliteCounters:
    leases = True

    def __init__(self, path: str) -> None:
        self.where = f"sqlite:{path}"
        self._db = open_database(path, _SCHEMA, f"counters {self.where}")
        self._lock = threading.Lock()

    async def admit(self, caller: str, limits: CallerLimits, ticket: str, lease: float) -> Over | None:
        return await anyio.to_thread.run_sync(self._admit, caller, limits, ticket, lease)

    async def settle(self, caller: str, ticket: str | None, tokens: int, estimated: int) -> None:
        await anyio.to_thread.run_sync(self._settle, caller, ticket, tokens, estimated)

    async def renew(self, tickets: Mapping[str, str], lease: float) -> None:
        await anyio.to_thread.run_sync(self._renew, list(tickets), lease)

    async def use(self, callers: Iterable[str]) -> dict[str, Use]:
        return await anyio.to_thread.run_sync(self._use, list(callers))

    async def aclose(self) -> None:
        await anyio.to_thread.run_sync(self._close)

    def _close(self) -> None:
        with self._lock:
            self._db.close()

    def _admit(self, caller: str, limits: CallerLimits, ticket: str, lease: float) -> Over | None:
        def admit(db: sqlite3.Connection, now: float) -> Over | None:
            requests, oldest, in_flight = self._counts(db, caller, now)
            tokens, estimated = self._tokens(db, caller, now)
            over = reached(limits, requests, oldest or now, in_flight, tokens, estimated, now)
            if over is None:
                db.execute("INSERT INTO caller_requests (caller, at) VALUES (?, ?)", (caller, now))
                db.execute(
                    "INSERT OR REPLACE INTO caller_in_flight (ticket, caller, expires) VALUES (?, ?, ?)",
                    (ticket, caller, now + lease),
                )
            return over

        return self._transaction(admit)

    def _settle(self, caller: str, ticket: str | None, tokens: int, estimated: int) -> None:
        def settle(db: sqlite3.Connection, now: float) -> None:
            if ticket is not None:
                db.execute("DELETE FROM caller_in_flight WHERE ticket = ?", (ticket,))
            if tokens:
                db.execute(
                    "INSERT INTO caller_tokens (caller, day, tokens, estimated) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (caller, day) DO UPDATE SET tokens = tokens + excluded.tokens, "
                    "estimated = estimated + excluded.estimated",
                    (caller, day_of(now), tokens, estimated),
                )
                # Days before yesterday are read by nothing: forget them as the counts go on.
                db.execute("DELETE FROM caller_tokens WHERE day < ?", (day_of(now - DAY),))

        self._transaction(settle)

    def _renew(self, tickets: list[str], lease: float) -> None:
        def renew(db: sqlite3.Connection, now: float) -> None:
            db.executemany(
                "UPDATE caller_in_flight SET expires = ? WHERE ticket = ?",
                [(now + lease, ticket) for ticket in tickets],
            )

        self._transaction(renew)

    def _use(self, callers: list[str]) -> dict[str, Use]:
        def use(db: sqlite3.Connection, now: float) -> dict[str, Use]:
            found = {}
            for caller in callers:
                requests, _, in_flight = self._counts(db, caller, now)
                found[caller] = Use(requests, in_flight, *self._tokens(db, caller, now))
            return found

        return self._transaction(use)

    @staticmethod
    def _counts(db: sqlite3.Connection, caller: str, now: float) -> tuple[int, float | None, int]:
        """Requests in the last minute and the oldest of them, and calls in flight, once the ones
        that have expired are gone."""
        db.execute("DELETE FROM caller_requests WHERE caller = ? AND at <= ?", (caller, now - MINUTE))
        db.execute("DELETE FROM caller_in_flight WHERE caller = ? AND expires <= ?", (caller, now))
        requests, oldest = db.execute(
            "SELECT COUNT(*), MIN(at) FROM caller_requests WHERE caller = ?", (caller,)
        ).fetchone()
        (in_flight,) = db.execute(
            "SELECT COUNT(*) FROM caller_in_flight WHERE caller = ?", (caller,)
        ).fetchone()
        return requests, oldest, in_flight

    @staticmethod
    def _tokens(db: sqlite3.Connection, caller: str, now: float) -> tuple[int, int]:
        row = db.execute(
            "SELECT tokens, estimated FROM caller_tokens WHERE caller = ? AND day = ?", (caller, day_of(now))
        ).fetchone()
        return (0, 0) if row is None else (row[0], row[1])

    def _transaction(self, work: Callable[[sqlite3.Connection, float], _T]) -> _T:
        """`work` in one write transaction, under the lock (one thread on the connection at once)
        and the file's write lock (one process at once)."""
        with self._lock:
            try:
                with immediate(self._db):
                    done = work(self._db, time.time())
            except sqlite3.Error as err:
                raise CountersUnavailable(f"{self.where}: {err}") from None
        return done
