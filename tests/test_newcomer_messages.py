"""A newcomer's first five minutes: every message a new user meets says what to do next.

The command-line tests run the installed `agent-as-model` console script as a subprocess; the
ones about terminals run it under a pseudo-terminal (stderr, and stdin where it matters, on the
pty's slave end; stdout on a pipe, to show it stays clean), and again through a pipe to show
that nothing meant for a person lands there.
"""

from __future__ import annotations

import json
import os
import pty
import select
import shlex
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, MCPError

from agent_as_model.adapters.dialects import tool_shapes
from agent_as_model.adapters.tools import models
from agent_as_model.commands import cli
from agent_as_model.commands.standin_provider import StandInProvider
from tests.helpers import (
    COMMAND,
    GUARD,
    ROOT,
    command_environment,
    listed_tools,
    run_command,
    server_params,
)
from tests.http_servers import free_port
from tests.provider_harness import provider_server
from tests.scripted_host import connect

pytestmark = pytest.mark.stdio

FIXTURE = ROOT / "tests" / "fixtures" / "transcripts" / "legacy-chat_complete.jsonl"


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """A start-up failure: status 2, nothing on stdout, one `agent-as-model:` line, no traceback."""
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("agent-as-model: "), lines[0]
    return lines[0]


def on_terminal(
    argv: Sequence[str], *, stdin_terminal: bool = False, then: tuple[bytes, bytes] | None = None, **env: str
) -> tuple[int, bytes, bytes]:
    """Run `argv` with stderr (and stdin, if asked) on a pseudo-terminal and stdout on a pipe.
    `then`: once the terminal shows the first bytes, type the second. Returns the exit status,
    stdout, and everything the terminal showed."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        list(argv),
        stdin=slave if stdin_terminal else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=command_environment(**env),
        cwd=ROOT,
    )
    os.close(slave)
    assert process.stdout is not None
    stdout: list[bytes] = []
    reader = threading.Thread(target=lambda: stdout.append(process.stdout.read()))  # type: ignore[union-attr]
    reader.start()
    shown = bytearray()
    try:
        while True:
            ready, _, _ = select.select([master], [], [], GUARD)
            assert ready, f"the terminal showed nothing new for {GUARD} s: {bytes(shown)!r}"
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the process and its children closed the terminal
                break
            if not chunk:
                break
            shown += chunk
            if then is not None and then[0] in shown:
                os.write(master, then[1])
                then = None
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
        process.wait(GUARD)
        reader.join(GUARD)
    return process.returncode, b"".join(stdout), bytes(shown)


# -- 1. banners -----------------------------------------------------------------------------------


def test_serve_http_says_where_it_serves_on_stderr_and_nothing_on_stdout() -> None:
    port = free_port()
    process = subprocess.Popen(
        [str(COMMAND), "serve", "--http", "--port", str(port)],
        env=command_environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        assert first == (
            f"agent-as-model: serving MCP over streamable HTTP at http://127.0.0.1:{port}/mcp (both eras; "
            "GET /healthz for probes); Ctrl-C stops\n"
        )
        _wait_healthy(f"http://127.0.0.1:{port}/healthz", process)
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=GUARD)
    assert out == ""


def _wait_healthy(url: str, process: subprocess.Popen[str]) -> None:
    # The banner comes just before uvicorn binds: poll until it answers (the process must live).
    import time

    while process.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                assert json.load(answer)["status"] == "ok"
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"the server ended with {process.returncode}")


def test_bare_command_on_a_terminal_says_what_it_waits_for_and_ends_at_ctrl_d() -> None:
    status, stdout, shown = on_terminal([str(COMMAND)], stdin_terminal=True, then=(b"Ctrl-D ends.", b"\x04"))
    assert status == 0, shown
    assert stdout == b""  # the protocol's stream carries no banner
    text = shown.decode()
    assert text.startswith(cli.STDIO_BANNER.rstrip("\n")), text
    assert "agent-as-model demo" in text and "serve --http" in text


def test_a_host_on_a_pipe_gets_no_banner() -> None:
    done = run_command()
    assert done.returncode == 0
    assert done.stdout == "" and done.stderr == ""


# -- 2. HTTP-only flags --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "flags"),
    [
        (("serve", "--port", "9000"), "--port is"),
        (("serve", "--port", "8000"), "--port is"),  # the default's value, given: still meaningless
        (("serve", "--po=9000"), "--port is"),  # an abbreviation
        (("serve", "--host", "0.0.0.0", "--workers", "2"), "--host, --workers are"),
        (("serve", "--path", "/x", "--allowed-origin", "https://a.example"), "--path, --allowed-origin are"),
        (("serve", "--auth-token", "t", "--max-body-bytes", "9"), "--auth-token, --max-body-bytes are"),
        (("serve", "--allowed-host", "a.example"), "--allowed-host is"),
    ],
)
def test_http_only_flags_without_http_are_refused(args: tuple[str, ...], flags: str) -> None:
    line = one_line(run_command(*args))
    assert f"{flags} for serving HTTP and would be ignored over stdio: add --http" in line, line
    assert f"`agent-as-model serve --http {shlex.join(args[1:])}`" in line, line


# -- 3. start-up failures of HTTP ----------------------------------------------------------------


def test_a_port_in_use_is_one_line_and_status_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_line(run_command("serve", "--http", "--port", str(port)))
    assert line == (
        f"agent-as-model: cannot listen on 127.0.0.1:{port}: the port is in use (another server runs "
        "there): stop it, or choose another --port"
    )


def test_an_address_that_is_not_this_machines_is_one_line_and_status_2() -> None:
    # 192.0.2.1 is TEST-NET-1: never this machine's. Off loopback a token is required first.
    done = run_command(
        "serve", "--http", "--host", "192.0.2.1", "--port", str(free_port()), AGENT_AS_MODEL_AUTH_TOKEN="t"
    )
    line = one_line(done)
    assert "cannot listen on 192.0.2.1:" in line and "choose another --host" in line, line


# -- 4. did you mean -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "suggestion"),
    [
        (
            ("--http",),
            "--http is an option of `serve`, not of the bare command; "
            "did you mean `agent-as-model serve --http`?",
        ),
        (("--http", "--port", "9000"), "did you mean `agent-as-model serve --http --port 9000`?"),
        (("serv",), "invalid choice: 'serv'"),
        (("serv",), "did you mean `agent-as-model serve`?"),
        (("fuz", "--examples", "3"), "did you mean `agent-as-model fuzz`?"),
        (("serve", "--htp"), "unrecognized arguments: --htp; did you mean `agent-as-model serve --http`?"),
        (("serve", "--recrd=x.jsonl"), "did you mean `agent-as-model serve --record=x.jsonl`?"),
        (
            ("demo", "--http"),
            "--http is an option of `serve`, not of `demo`; did you mean `agent-as-model serve --http`?",
        ),
        (
            ("export-tools", "--server", "x", "--formt", "chat"),
            "did you mean `agent-as-model export-tools --server x --format chat`?",
        ),
    ],
)
def test_a_close_misspelling_or_a_misplaced_flag_gets_a_did_you_mean(
    args: tuple[str, ...], suggestion: str
) -> None:
    line = one_line(run_command(*args))
    assert suggestion in line, line


def test_a_far_off_word_gets_no_guess() -> None:
    line = one_line(run_command("--zzzzzz"))
    assert line == "agent-as-model: unrecognized arguments: --zzzzzz (see agent-as-model --help)"


# -- 5 and 6. fuzz against something that is not an MCP server ------------------------------------


@pytest.mark.parametrize(
    ("against", "words"),
    [
        ("cat", "`cat` is not an MCP server"),
        ("no-such-command-here", "cannot start `no-such-command-here`: no such command"),
        (
            f"{sys.executable} -c \"import sys; print('first'); print('why', file=sys.stderr)\"",
            "is not an MCP server: it ended without answering `initialize` on legacy; it wrote a line on "
            "stdout that is not JSON-RPC, the first 'first'",
        ),
    ],
)
def test_fuzz_against_something_that_is_not_an_mcp_server_says_so_and_no_totals(
    against: str, words: str, tmp_path: Path
) -> None:
    done = run_command("fuzz", "--against", against, "--examples", "1", "--out", str(tmp_path))
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""  # no `0 chains, 0 calls, 0 failures`, which reads like a pass
    lines = done.stderr.splitlines()
    assert len(lines) == 2, done.stderr
    assert lines[0].startswith("agent-as-model fuzz: ") and words in lines[0], lines[0]
    assert lines[1] == "agent-as-model fuzz: nothing was fuzzed (exit status 2)"
    assert "ExceptionGroup" not in done.stderr and "Traceback" not in done.stderr


def test_fuzz_keeps_the_servers_stderr_out_of_the_report(tmp_path: Path) -> None:
    noisy = f"{sys.executable} -c \"import sys; print('the server', 'says why', file=sys.stderr)\""
    done = run_command("fuzz", "--against", noisy, "--examples", "1", "--out", str(tmp_path))
    log = tmp_path / "server-stderr.log"
    assert f"(its stderr is in {log}; its last line: the server says why)" in done.stderr
    assert done.stderr.count("the server says why") == 1  # quoted once, not passed through
    assert "the server says why" in log.read_text()


# -- 7. -32021 names both remedies ---------------------------------------------------------------


def _remedies(message: str) -> None:
    assert "Connect from a host that declares it" in message, message
    assert "serve --provider" in message and "docs/providers.md" in message, message
    assert message.endswith("Nothing was sent to the host."), message


@pytest.mark.anyio
async def test_a_host_without_sampling_is_told_both_remedies(era: str) -> None:
    async with connect(era) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("generate", {"prompt": "q"})
        listed = await client.call_tool("list_models", {})  # the next call works
    assert caught.value.error.code == -32021
    _remedies(caught.value.error.message)
    assert not listed.is_error


@pytest.mark.anyio
async def test_a_host_without_sampling_is_told_both_remedies_over_stdio(era: str) -> None:
    params = server_params(env=command_environment())
    async with Client(params, mode=era) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("chat_complete", {"messages": [{"role": "user", "content": "q"}]})
    assert caught.value.error.code == -32021
    _remedies(caught.value.error.message)


# -- 8. list_models says what the configuration serves --------------------------------------------


async def _listed(era: str, server: Any) -> list[dict[str, str]]:
    async with connect(era, server=server) as client:
        result = await client.call_tool("list_models", {})
    assert not result.is_error
    listed: list[dict[str, str]] = json.loads(result.content[0].text)
    return listed


@pytest.mark.anyio
async def test_list_models_without_a_provider_says_no_api_key(era: str) -> None:
    from agent_as_model.server import build_server

    assert await _listed(era, build_server()) == models.MODELS


@pytest.mark.anyio
async def test_list_models_with_a_provider_says_which_serves_agent_default(
    era: str, standin: StandInProvider
) -> None:
    default = (await _listed(era, provider_server(standin)))[0]
    assert default["id"] == "agent-default"
    assert "no API key" not in default["description"]
    assert "when the host cannot sample" in default["description"]
    assert "the provider openai's model model-one, with this server's API key" in default["description"]
    always = (await _listed(era, provider_server(standin, use="always")))[0]
    assert always["description"].startswith(
        "Served by the provider openai's model model-one, with this server's API key, whatever the host"
    )
    fallback = (await _listed(era, provider_server(standin, on_host_error=True)))[0]
    assert "or declines or fails a sampling request" in fallback["description"]


# -- 9. help texts from the registry -------------------------------------------------------------


def test_top_level_help_names_every_export_format_and_demo_help_every_tool() -> None:
    top = run_command("--help")
    assert top.returncode == 0
    flat = " ".join(top.stdout.split())
    assert f"(--format {'|'.join(tool_shapes())})" in flat.replace("| ", "|"), top.stdout
    assert "gemini" in tool_shapes()
    demo = run_command("demo", "--help")
    assert demo.returncode == 0
    described = " ".join(demo.stdout.split())
    for name in listed_tools():
        assert name in described, demo.stdout


# -- 10. progress on a terminal only --------------------------------------------------------------


def test_fuzz_shows_progress_on_a_terminal_and_none_through_a_pipe(tmp_path: Path) -> None:
    args = ["fuzz", "--examples", "2", "--seed", "1", "--eras", "legacy", "--tools", "generate"]
    status, stdout, shown = on_terminal([str(COMMAND), *args, "--out", str(tmp_path / "t")])
    assert status == 0, shown
    assert b"\rfuzzing: example " in shown
    assert b"0 failures" in stdout and b"fuzzing:" not in stdout
    piped = run_command(*args, "--out", str(tmp_path / "p"))
    assert piped.returncode == 0, piped.stderr
    assert "fuzzing:" not in piped.stderr and "\r" not in piped.stderr


def test_replay_shows_progress_on_a_terminal_and_none_through_a_pipe() -> None:
    # A server that takes a second to start: the replay then runs longer than the progress
    # line's delay, so the line must appear (a short replay ends before anyone could read it).
    slow = f"sh -c 'sleep 1; exec {COMMAND}'"
    status, stdout, shown = on_terminal([str(COMMAND), "replay", str(FIXTURE), "--against", slow])
    assert status == 0, shown
    assert b"\rreplaying: frame " in shown
    assert b"replaying:" not in stdout
    piped = run_command("replay", str(FIXTURE), "--against", slow)
    assert piped.returncode == 0, piped.stderr
    assert "replaying:" not in piped.stderr and "\r" not in piped.stderr


def test_the_soak_shows_progress_on_a_terminal_and_none_through_a_pipe(tmp_path: Path) -> None:
    soak = [sys.executable, str(ROOT / "benchmarks" / "soak.py"), "--calls", "4", "--seed", "0"]
    status, stdout, shown = on_terminal([*soak, "--json", str(tmp_path / "t.json")])
    assert status in (0, 1), shown  # the verdict of 4 calls is not this test's business
    assert b"\rsoak legacy: call " in shown and b"\rsoak 2026-07-28: call " in shown
    assert b"soak legacy:" not in stdout
    piped = subprocess.run(
        [*soak, "--json", str(tmp_path / "p.json")], capture_output=True, text=True, timeout=GUARD, cwd=ROOT
    )
    assert "soak legacy: call" not in piped.stderr and "\r" not in piped.stderr


def test_the_cursor_benchmark_shows_progress_on_a_terminal_and_none_through_a_pipe(tmp_path: Path) -> None:
    bench = [
        sys.executable,
        str(ROOT / "benchmarks" / "bench_cursors.py"),
        *("--turns", "10", "--repeats", "1", "--calls", "2", "--warmup", "0", "--no-pin"),
    ]
    status, _, shown = on_terminal([*bench, "--json", str(tmp_path / "t.json")])
    assert status == 0, shown
    assert b"\r  legacy: batch 0/" in shown and b"\r  2026-07-28: batch " in shown
    piped = subprocess.run(
        [*bench, "--json", str(tmp_path / "p.json")], capture_output=True, text=True, timeout=GUARD, cwd=ROOT
    )
    assert piped.returncode == 0, piped.stderr
    assert "batch 0/" not in piped.stderr and "\r" not in piped.stderr
