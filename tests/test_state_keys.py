"""Issue 49 items 4 and 5: the state key. Without `AGENT_AS_MODEL_STATE_KEY`, `serve --store
sqlite:PATH` keeps a key in a file beside the database (0600, made on first use, read after), so
stored responses (and 2026-07-28 states) survive a restart; a Redis store without the key does
not start. Older keys (`AGENT_AS_MODEL_STATE_KEY_FALLBACKS`) still open the stored responses and
states they sealed, while everything new is sealed under the current key: across a restart over
real stdio, and across `serve --http --workers 2`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, InputRequiredResult, TextContent

from agent_as_model import server as aam_server
from agent_as_model.errors import StartupError
from agent_as_model.server import STATE_KEY_ENV, STATE_KEY_FALLBACKS_ENV
from tests import http_servers
from tests.helpers import COMMAND, server_params
from tests.http_servers import HttpServer, http_client
from tests.scripted_host import ScriptedHost, text_answer

KEY_A = "key-of-the-first-deployment-0123456789abcdef"
KEY_B = "key-of-the-second-deployment-0123456789abcde"
MODERN = "2026-07-28"
ARGS = {"messages": [{"role": "user", "content": "which key?"}]}
INVALID_PARAMS = -32602
_OURS = (STATE_KEY_ENV, STATE_KEY_FALLBACKS_ENV, "AGENT_AS_MODEL_STORE", "AGENT_AS_MODEL_STORE_TTL")


def environment(key: str | None = None, older: str | None = None) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in _OURS}
    if key is not None:
        env[STATE_KEY_ENV] = key
    if older is not None:
        env[STATE_KEY_FALLBACKS_ENV] = older
    return env


def stdio(
    store: Path | None = None, *, key: str | None = None, older: str | None = None
) -> StdioServerParameters:
    args = ["serve", "--store", f"sqlite:{store}"] if store is not None else ["serve"]
    return server_params(*args, env=environment(key, older))


async def store_one(params: StdioServerParameters, era: str, words: str, previous: str | None = None) -> Any:
    """One responses_create call (continuing `previous`), its result, and the host's request."""
    host = ScriptedHost(f"noted: {words}")
    args: dict[str, Any] = {"input": words}
    if previous is not None:
        args["previous_response_id"] = previous
    async with Client(params, mode=era, sampling_callback=host) as client:
        done = await client.call_tool("responses_create", args)
    return done, host


async def retrieve(params: StdioServerParameters, ident: str) -> CallToolResult:
    async with Client(params, mode="legacy") as client:
        return await client.call_tool("responses_retrieve", {"response_id": ident})


async def first_round(params: StdioServerParameters) -> InputRequiredResult:
    async with Client(params, mode=MODERN, sampling_callback=ScriptedHost()) as client:
        result = await client.session.call_tool("chat_complete", ARGS, allow_input_required=True)
    assert isinstance(result, InputRequiredResult), result
    return result


async def retry(params: StdioServerParameters, first: InputRequiredResult, answer: str) -> Any:
    """The host's retry with its answer and the sealed state, on another process; a refusal is
    returned (inside the client's context it would be wrapped in an ExceptionGroup)."""
    async with Client(params, mode=MODERN, sampling_callback=ScriptedHost()) as client:
        try:
            return await client.session.call_tool(
                "chat_complete",
                ARGS,
                input_responses={"completion": text_answer(answer)},
                request_state=first.request_state,
                allow_input_required=True,
            )
        except MCPError as refused:
            return refused


def completed_with(result: Any, text: str) -> bool:
    return (
        isinstance(result, CallToolResult)
        and not result.is_error
        and isinstance(result.content[0], TextContent)
        and result.content[0].text == text
    )


def refused_state(result: Any) -> bool:
    return (
        isinstance(result, MCPError)
        and result.error.code == INVALID_PARAMS
        and "requestState" in result.error.message
    )


def start(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The server with stdin at its end at once: it starts (or refuses to) and stops."""
    return subprocess.run(
        [str(COMMAND), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
    )


# --- the embedded store keeps its key -----------------------------------------------------------


@pytest.mark.stdio
@pytest.mark.anyio
async def test_an_embedded_store_keeps_its_key_across_a_restart(era: str, tmp_path: Path) -> None:
    """Two server processes one after the other, no state key: the second continues and reads
    the response the first stored, with the key the first left beside the database."""
    database, key_file = tmp_path / "responses.db", tmp_path / "responses.db.key"
    first, _ = await store_one(stdio(database), era, "I am Ada.")
    assert not first.is_error, first.content[0].text
    stored = json.loads(first.content[0].text)
    made = key_file.read_text()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and len(made.strip()) >= 32

    second, host = await store_one(stdio(database), era, "My name?", previous=stored["id"])
    assert not second.is_error, second.content[0].text
    assert [m.role for m in host.seen[0].messages] == ["user", "assistant", "user"]
    assert host.seen[0].messages[1].content_as_list[0].text == "noted: I am Ada."
    got = await retrieve(stdio(database), stored["id"])
    assert json.loads(got.content[0].text) == stored
    assert key_file.read_text() == made  # read, not made again


@pytest.mark.stdio
@pytest.mark.anyio
async def test_a_2026_state_survives_a_restart_with_the_kept_key(tmp_path: Path) -> None:
    database = tmp_path / "responses.db"
    first = await first_round(stdio(database))
    final = await retry(stdio(database), first, "answered after the restart")
    assert completed_with(final, "answered after the restart"), final


@pytest.mark.stdio
def test_with_the_variable_set_no_key_file_is_made(tmp_path: Path) -> None:
    done = start(["serve", "--store", f"sqlite:{tmp_path / 'r.db'}"], environment(KEY_A), tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r.db").exists() and not (tmp_path / "r.db.key").exists()


@pytest.mark.stdio
@pytest.mark.parametrize(
    ("content", "mode", "says"),
    [
        (
            "k" * 43 + "\n",
            0o644,
            "may be read or changed by others (mode 0644); make it its owner's alone: chmod 600",
        ),
        ("short\n", 0o600, "holds no key of 32 bytes or more"),
    ],
    ids=["readable-by-others", "short"],
)
def test_a_key_file_that_cannot_be_trusted_is_refused(
    content: str, mode: int, says: str, tmp_path: Path
) -> None:
    key_file = tmp_path / "r.db.key"
    key_file.write_text(content)
    key_file.chmod(mode)
    done = start(["serve", "--store", f"sqlite:{tmp_path / 'r.db'}"], environment(), tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert f"--store sqlite:{tmp_path / 'r.db'}: its key file {key_file}" in done.stderr
    assert says in done.stderr and "Traceback" not in done.stderr


@pytest.mark.stdio
@pytest.mark.parametrize("http", [False, True], ids=["stdio", "http"])
def test_a_redis_store_without_the_key_does_not_start(http: bool, tmp_path: Path) -> None:
    args = ["serve", *(["--http", "--port", str(http_servers.free_port())] if http else [])]
    done = start([*args, "--store", "redis://:pa55word@127.0.0.1:1/0"], environment(), tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert f"a Redis store needs {STATE_KEY_ENV}" in done.stderr
    assert "pa55word" not in done.stderr and "Traceback" not in done.stderr


# --- rotation --------------------------------------------------------------------------------------


def test_older_keys_are_read_in_order_without_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_KEY_ENV, KEY_B)
    monkeypatch.setenv(STATE_KEY_FALLBACKS_ENV, f" {KEY_A},{KEY_B}\n{'c' * 40} , {KEY_A} ")
    assert aam_server.state_keys() == (KEY_B, (KEY_A, "c" * 40))
    monkeypatch.delenv(STATE_KEY_FALLBACKS_ENV)
    assert aam_server.state_keys() == (KEY_B, ())


def test_a_short_older_key_is_refused_naming_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_KEY_ENV, KEY_B)
    monkeypatch.setenv(STATE_KEY_FALLBACKS_ENV, f"{KEY_A},short")
    with pytest.raises(StartupError) as refused:
        aam_server.state_security()
    assert str(refused.value).startswith(
        f"{STATE_KEY_FALLBACKS_ENV}: request-state keys must be at least 32 bytes of secret randomness; "
        "its key number 2 is 5 bytes"
    )


@pytest.mark.stdio
@pytest.mark.anyio
async def test_a_state_sealed_under_the_old_key_completes_after_a_rotation(tmp_path: Path) -> None:
    """Round one under key A; a restart with key B and A as the fallback takes the retry. What the
    rotated server seals is under B: a server with B alone takes it, one with A alone does not."""
    first = await first_round(stdio(key=KEY_A))
    final = await retry(stdio(key=KEY_B, older=KEY_A), first, "answered under B")
    assert completed_with(final, "answered under B"), final
    assert refused_state(await retry(stdio(key=KEY_B), first, "B alone cannot open A's"))

    rotated = await first_round(stdio(key=KEY_B, older=KEY_A))
    assert completed_with(await retry(stdio(key=KEY_B), rotated, "sealed under B"), "sealed under B")
    assert refused_state(await retry(stdio(key=KEY_A), rotated, "never used"))


@pytest.mark.stdio
@pytest.mark.anyio
async def test_a_response_stored_under_the_old_key_is_read_after_a_rotation(era: str, tmp_path: Path) -> None:
    database = tmp_path / "responses.db"
    old, _ = await store_one(stdio(database, key=KEY_A), era, "stored under A")
    old_id = json.loads(old.content[0].text)["id"]

    new, host = await store_one(stdio(database, key=KEY_B, older=KEY_A), era, "and now?", previous=old_id)
    assert not new.is_error, new.content[0].text
    assert host.seen[0].messages[1].content_as_list[0].text == "noted: stored under A"
    new_id = json.loads(new.content[0].text)["id"]

    # Sealed under B: B alone reads the new one, and no longer the one A sealed.
    assert json.loads((await retrieve(stdio(database, key=KEY_B), new_id)).content[0].text)["id"] == new_id
    unread = await retrieve(stdio(database, key=KEY_B), old_id)
    assert unread.is_error and f"the stored response {old_id} cannot be read" in unread.content[0].text
    assert not (tmp_path / "responses.db.key").exists()  # the variable was set every time


# --- rotation across workers ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rotation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, HttpServer]]:
    """One store; a process of the old deployment (A), one with B alone, and `--workers 2` in the
    middle of the rotation (B, with A as the fallback)."""
    store = ["--store", f"sqlite:{tmp_path_factory.mktemp('rotation') / 'responses.db'}"]
    servers = {
        "A": http_servers.start(*store, env=environment(KEY_A)),
        "B": http_servers.start(*store, env=environment(KEY_B)),
        "B+A": http_servers.start("--workers", "2", *store, env=environment(KEY_B, KEY_A)),
    }
    try:
        yield servers
    finally:
        for server in servers.values():
            server.stop()


async def http_first_round(url: str) -> InputRequiredResult:
    async with http_client(url, MODERN, ScriptedHost()) as client:
        result = await client.session.call_tool("chat_complete", ARGS, allow_input_required=True)
    assert isinstance(result, InputRequiredResult), result
    return result


async def http_retry(url: str, first: InputRequiredResult, answer: str) -> Any:
    async with http_client(url, MODERN, ScriptedHost()) as client:
        try:
            return await client.session.call_tool(
                "chat_complete",
                ARGS,
                input_responses={"completion": text_answer(answer)},
                request_state=first.request_state,
                allow_input_required=True,
            )
        except MCPError as refused:
            return refused


@pytest.mark.stdio
@pytest.mark.anyio
async def test_workers_in_a_rotation_take_old_states_and_seal_new_ones_under_the_new_key(
    rotation: dict[str, HttpServer],
) -> None:
    """Every request on a fresh connection, so either worker may take it."""
    for n in range(4):
        old = await http_first_round(rotation["A"].url)
        assert completed_with(await http_retry(rotation["B+A"].url, old, f"old {n}"), f"old {n}")
        new = await http_first_round(rotation["B+A"].url)
        assert completed_with(await http_retry(rotation["B"].url, new, f"new {n}"), f"new {n}")
        assert refused_state(await http_retry(rotation["A"].url, new, "never used"))


@pytest.mark.stdio
@pytest.mark.anyio
async def test_workers_in_a_rotation_read_responses_stored_under_the_old_key(
    rotation: dict[str, HttpServer],
) -> None:
    async with http_client(rotation["A"].url, MODERN, ScriptedHost("under A")) as client:
        old = json.loads((await client.call_tool("responses_create", {"input": "first"})).content[0].text)
    for n in range(4):
        host = ScriptedHost(f"under B {n}")
        async with http_client(rotation["B+A"].url, MODERN, host) as client:
            done = await client.call_tool(
                "responses_create", {"input": "next", "previous_response_id": old["id"]}
            )
        assert not done.is_error, done.content[0].text
        assert host.seen[0].messages[1].content_as_list[0].text == "under A"
        new = json.loads(done.content[0].text)
        async with http_client(rotation["B"].url, MODERN, ScriptedHost()) as client:
            read = await client.call_tool("responses_retrieve", {"response_id": new["id"]})
        assert json.loads(read.content[0].text)["id"] == new["id"]
