"""Every shell example in README.md and docs/ runs as written.

A fenced ```sh block is preceded by one marker comment:

- `<!-- runnable -->`: each command runs (in a temporary directory shared by the document's
  blocks, in order, with the venv's bin first on PATH) and must exit 0. A line `$ CMD` followed
  by lines without `$` is a command and its exact stdout. A line ending in `\\` goes on.
  A command that serves MCP over stdio gets a stand-in host on its stdin: the handshake and a
  `list_models` call, each answer awaited before the next frame, then the end of input.
- `<!-- runnable: serves -->`: each command starts a server that must print its one start-up
  line on stderr and keep serving; it is then stopped. `export` lines apply to the commands after
  them.
- `<!-- not-runnable: WHY -->`: an example that cannot run here (a real host's command, an
  install into your environment, a synopsis), with the reason. The install block between
  `<!-- install:begin/end -->` is tests/test_readme_install.py's.

Test-only changes, the same for every block: HOME is the temporary directory, whose
`~/.agent-as-model` is this venv (what the README's install block makes); a `serve --http`
without `--port` gets a free port (tests run side by side); nothing else is rewritten.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.helpers import BIN, INITIALIZED, ROOT, command_environment, initialize_request
from tests.http_servers import free_port

pytestmark = pytest.mark.stdio

VENV = BIN.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(
    r"(?:<!-- (?P<marker>[^>]*?) -->\n)?```(?:sh|bash|shell|console)\n(?P<body>.*?)```", re.DOTALL
)
GUARD = 600  # a hang guard, not a budget
BANNER = "agent-as-model: serving MCP"
COMMENT = re.compile(r"\s+#.*$")
HOST_FRAMES = [
    initialize_request(),
    INITIALIZED,
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_models", "arguments": {}}},
]


class Block(NamedTuple):
    document: Path
    line: int
    marker: str
    body: str

    @property
    def name(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"


def blocks() -> list[Block]:
    found = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text[: match.start("body")].count("\n")
            found.append(Block(document, line, (match.group("marker") or "").strip(), match.group("body")))
    return found


def commands(body: str) -> list[tuple[str, str | None]]:
    """The block's commands, each with its expected stdout (None: not shown)."""
    lines = body.replace("\\\n", " ").splitlines()
    console = any(line.startswith("$ ") for line in lines)
    if not console:
        return [(line, None) for line in lines if line.strip() and not line.lstrip().startswith("#")]
    found: list[tuple[str, str | None]] = []
    for line in lines:
        if line.startswith("$ "):
            found.append((line[2:], ""))
        else:
            command, shown = found[-1]
            found[-1] = (command, f"{shown}{line}\n")
    return found


RUNNABLE = [b for b in blocks() if b.marker == "runnable"]
SERVES = [b for b in blocks() if b.marker == "runnable: serves"]


def test_every_shell_example_is_marked() -> None:
    unmarked = [
        b.name
        for b in blocks()
        if b.marker not in ("runnable", "runnable: serves", "install:begin")
        and not re.fullmatch(r"not-runnable: \S.*", b.marker)
    ]
    assert not unmarked, f"mark each as runnable or say why not: {unmarked}"
    skipped = [b for b in blocks() if b.marker.startswith("not-runnable")]
    assert len(skipped) < len(RUNNABLE) + len(SERVES), "runnable examples must be the rule"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("home")
    (home / ".agent-as-model").symlink_to(VENV)  # what the README's install block makes
    return home


def serves_stdio(command: str) -> bool:
    words = shlex.split(command, comments=True)
    at = next((i for i, w in enumerate(words) if w.endswith("agent-as-model")), None)
    if at is None or any(w in words for w in ("--http", "--help", "--version")):
        return False
    rest = words[at + 1 :]
    return not rest or rest[0] == "serve" or rest[0].startswith("-")


def with_host(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The command as a stdio server, driven by the stand-in host (each answer awaited)."""
    process = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    answers = []
    for frame in HOST_FRAMES:
        process.stdin.write(json.dumps(frame) + "\n")
        process.stdin.flush()
        if "id" in frame:
            answers.append(json.loads(process.stdout.readline()))
    process.stdin.close()
    process.stdin = None  # closed: the end of input, which ends a stdio server
    rest, err = process.communicate(timeout=GUARD)
    assert [a.get("id") for a in answers] == [1, 2] and "result" in answers[1], (answers, err)
    assert rest == "", rest  # nothing but the answers on stdout
    return subprocess.CompletedProcess(command, process.returncode, "", err)


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.name for b in RUNNABLE])
def test_a_runnable_example_runs_as_written(block: Block, workdir: Path) -> None:
    env = command_environment(HOME=str(workdir))
    for command, shown in commands(block.body):
        if serves_stdio(command):
            done = with_host(command, workdir, env)
        else:
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=GUARD,
                check=False,
            )
        assert done.returncode == 0, f"{block.name}: {command}\n{done.stdout}\n{done.stderr}"
        if shown is not None:
            assert done.stdout == shown, f"{block.name}: {command}"


@pytest.mark.parametrize("block", SERVES, ids=[b.name for b in SERVES])
def test_a_serving_example_starts_and_says_where(block: Block, workdir: Path) -> None:
    env = command_environment(HOME=str(workdir))
    exports: list[str] = []
    for command, _ in commands(block.body):
        if command.startswith("export "):
            exports.append(command)
            continue
        words = shlex.split(command, comments=True)
        if "--http" in words and "--port" not in words:
            command = f"{COMMENT.sub('', command)} --port {free_port()}"
        script = "; ".join([*exports, command])
        process = subprocess.Popen(
            ["bash", "-c", script],
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its workers stop with it
        )
        assert process.stderr is not None
        try:
            first = process.stderr.readline()
            assert first.startswith(BANNER), f"{block.name}: {command}: {first}{process.stderr.read()}"
            assert process.poll() is None, f"{block.name}: {command} ended: {process.returncode}"
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            out, _ = process.communicate(timeout=GUARD)
        assert out == "", out
