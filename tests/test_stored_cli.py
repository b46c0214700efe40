"""Stored responses from the command line: `serve --store` / `--store-ttl` and their
environment variables, their usage errors, and a stored chain over real stdio with the installed
command."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from agent_as_model.server import STATE_KEY_ENV
from tests.helpers import COMMAND, server_params
from tests.scripted_host import ScriptedHost

STORE_ENV = ("AGENT_AS_MODEL_STORE", "AGENT_AS_MODEL_STORE_TTL")


def _env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in STORE_ENV}
    return {**base, **extra}


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(COMMAND), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(**env),
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    ("args", "env", "says"),
    [
        (["serve", "--store", "mysql://x"], {}, "--store: expected sqlite:PATH, redis://HOST:PORT/DB"),
        (["serve", "--store-ttl", "3d"], {}, "--store-ttl needs --store"),
        (["serve", "--store", "sqlite:x.db", "--store-ttl", "soon"], {}, "--store-ttl: expected seconds"),
        (["serve", "--store", "sqlite:x.db", "--store-ttl", "0"], {}, "must be a positive duration"),
        (
            ["serve", "--record", "r.jsonl", "--store", "sqlite:x.db"],
            {},
            "--record cannot be used with --store",
        ),
        (
            ["serve", "--record", "r.jsonl"],
            {"AGENT_AS_MODEL_STORE": "sqlite:x.db"},
            "--record cannot be used",
        ),
        (
            ["serve", "--store", "sqlite:/no/such/dir/r.db"],
            {STATE_KEY_ENV: "a-state-key-of-this-deployment-0123456789"},
            "cannot open the database",
        ),
        (
            ["serve", "--store", "sqlite:/no/such/dir/r.db"],
            {},
            "cannot make its key file /no/such/dir/r.db.key",
        ),
    ],
)
def test_bad_store_settings_are_one_line_with_status_2(
    args: list[str], env: dict[str, str], says: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        [str(COMMAND), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(**env),
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and says in done.stderr and done.stdout == ""
    assert "Traceback" not in done.stderr


def test_serve_help_names_the_store_options() -> None:
    done = _run(["serve", "--help"])
    assert "--store URL" in done.stdout and "--store-ttl DURATION" in done.stdout
    assert "AGENT_AS_MODEL_STORE" in done.stdout


@pytest.mark.stdio
@pytest.mark.anyio
@pytest.mark.parametrize("how", ["flag", "environment"])
async def test_a_stored_chain_over_real_stdio(era: str, how: str, tmp_path: Path) -> None:
    path = tmp_path / "responses.db"
    args, env = ["serve", "--store", f"sqlite:{path}"], _env()
    if how == "environment":  # what a host runs: the bare command, configured by its environment
        args, env = [], _env(AGENT_AS_MODEL_STORE=f"sqlite:{path}", AGENT_AS_MODEL_STORE_TTL="1h")
    host = ScriptedHost("Hello Ada.", "Ada.")
    params = server_params(*args, env=env)
    async with Client(params, mode=era, sampling_callback=host) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        first = json.loads(
            (await client.call_tool("responses_create", {"input": "I am Ada."})).content[0].text
        )
        second = await client.call_tool(
            "responses_create", {"input": "My name?", "previous_response_id": first["id"]}
        )
        got = await client.call_tool("responses_retrieve", {"response_id": first["id"]})
    assert {"responses_retrieve", "responses_delete"} <= listed
    assert not second.is_error and json.loads(second.content[0].text)["previous_response_id"] == first["id"]
    assert [m.role for m in host.seen[1].messages] == ["user", "assistant", "user"]
    assert json.loads(got.content[0].text) == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the owner's alone
