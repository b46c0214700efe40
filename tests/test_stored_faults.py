"""Stored responses at rest and under faults: values sealed so the file
reveals no conversation and a changed value is refused; a store that cannot be reached before the
host is asked stops the call with nothing sent, after it loses no answer; a process killed in the
middle of writes leaves the file readable."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_as_model.adapters.store import StoreSettings, open_store
from agent_as_model.adapters.store.sealing import Unreadable
from agent_as_model.server import build_server
from tests.http_servers import free_port
from tests.scripted_host import ScriptedHost, connect
from tests.test_stored_responses import body, sqlite_store, warnings_of

pytestmark = pytest.mark.anyio

SECRET = "a-state-key-of-this-deployment-0123456789"
SECRET_WORDS = "My passport number is XK-4471"


async def test_the_file_reveals_no_conversation(era: str, tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    store = open_store(StoreSettings(f"sqlite:{path}"), SECRET)
    async with connect(era, ScriptedHost("Noted, XK-4471."), server=build_server(store=store)) as client:
        made = body(await client.call_tool("responses_create", {"input": SECRET_WORDS}))
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())  # the database, its WAL and shm
    assert made["id"].encode() in raw  # the key is there (ids are unguessable, not secret)
    assert b"XK-4471" not in raw and b"passport" not in raw and b"Noted" not in raw


async def test_a_changed_value_is_an_error_not_data(era: str, tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    store = open_store(StoreSettings(f"sqlite:{path}"), SECRET)
    host = ScriptedHost("first", "unused")
    async with connect(era, host, server=build_server(store=store)) as client:
        made = body(await client.call_tool("responses_create", {"input": "q"}))
        with sqlite3.connect(path) as db:  # flip one byte of the sealed value
            (value,) = db.execute("SELECT value FROM responses WHERE key = ?", (made["id"],)).fetchone()
            changed = bytes(value[:-1]) + bytes([value[-1] ^ 1])
            db.execute("UPDATE responses SET value = ? WHERE key = ?", (changed, made["id"]))
        continued = await client.call_tool(
            "responses_create", {"input": "q", "previous_response_id": made["id"]}
        )
        got = await client.call_tool("responses_retrieve", {"response_id": made["id"]})
    assert continued.is_error and got.is_error and host.asked == 1
    assert "cannot be read" in continued.content[0].text and "Nothing was sent" in continued.content[0].text


async def test_another_key_or_another_id_cannot_open_a_value(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    ours = open_store(StoreSettings(f"sqlite:{path}"), SECRET)
    theirs = open_store(StoreSettings(f"sqlite:{path}"), "another-key-of-another-deployment-0123456")
    ident, other = "resp_" + "1" * 32, "resp_" + "2" * 32
    assert await ours.add(ident, {"input": [], "response": {"id": ident}})
    assert await ours.get(ident) == {"input": [], "response": {"id": ident}}
    with pytest.raises(Unreadable):
        await theirs.get(ident)
    sealed = await ours.store.get(ident)
    assert sealed is not None and await ours.store.add(other, sealed, 60)  # moved under another id
    with pytest.raises(Unreadable):
        await ours.get(other)


async def test_an_unreachable_store_before_the_host_is_asked_sends_nothing(era: str) -> None:
    pytest.importorskip("redis", reason="the [redis] extra is not installed")
    store = open_store(StoreSettings(f"redis://127.0.0.1:{free_port()}/0"), SECRET)  # nothing listens
    host = ScriptedHost("unused")
    async with connect(era, host, server=build_server(store=store)) as client:
        result = await client.call_tool(
            "responses_create", {"input": "q", "previous_response_id": "resp_" + "3" * 32}
        )
        got = await client.call_tool("responses_retrieve", {"response_id": "resp_" + "3" * 32})
    text = result.content[0].text
    assert result.is_error and host.asked == 0
    assert "the response store cannot be reached" in text and text.endswith("Nothing was sent to the host.")
    assert got.is_error and "cannot be reached" in got.content[0].text


async def test_a_store_failing_after_the_answer_loses_nothing(era: str) -> None:
    pytest.importorskip("redis", reason="the [redis] extra is not installed")
    store = open_store(StoreSettings(f"redis://127.0.0.1:{free_port()}/0"), SECRET)
    async with connect(era, ScriptedHost("the answer"), server=build_server(store=store)) as client:
        result = await client.call_tool("responses_create", {"input": "q"})
    made = body(result)
    assert made["output"][0]["content"][0]["text"] == "the answer"
    (warning,) = warnings_of(result)
    assert "was not stored" in warning and made["id"] in warning


WRITER = """
import sys, anyio
from agent_as_model.adapters.store import StoreSettings, open_store

async def main():
    store = open_store(StoreSettings(sys.argv[1]), "k" * 40)
    n = 0
    while True:
        await store.add("resp_%032x" % n, {"input": [{"role": "user", "content": "x" * 4000}], "n": n})
        n += 1
        if n == 50:
            print("writing", flush=True)

anyio.run(main)
"""


async def test_a_process_killed_mid_write_leaves_the_store_readable(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, f"sqlite:{path}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == b"writing\n"
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    store = open_store(StoreSettings(f"sqlite:{path}"), "k" * 40)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        keys = [k for (k,) in db.execute("SELECT key FROM responses")]
    assert len(keys) >= 50
    values: list[Any] = [await store.get(k) for k in keys]
    assert sorted(v["n"] for v in values) == list(range(len(keys)))  # every committed write whole
    assert await store.add("resp_" + "f" * 32, {"after": True})  # and still writable


def test_sqlite_store_is_private(tmp_path: Path) -> None:
    sqlite_store(tmp_path / "r.db")
    assert (tmp_path / "r.db").stat().st_mode & 0o077 == 0
