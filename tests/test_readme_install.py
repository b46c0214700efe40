"""The README installs *this* project. Its install snippet is followed into a
fresh virtual environment, and the command it installs must print this checkout's version.

The snippet's lines run as written, with two test-only changes so the test needs no network and
stays fast: the environment lives in tmp_path, and `pip install .` gets `--no-deps --no-index
--no-build-isolation` (the dependencies are made importable from this project's own environment
by a `.pth` file, and hatchling builds the checkout from there). The package itself is built from
the checkout and installed into the fresh environment, and is imported from there.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import agent_as_model
from tests.helpers import ROOT

pytestmark = pytest.mark.stdio

SNIPPET = re.compile(r"<!-- install:begin -->\n```sh\n(.*?)```\n<!-- install:end -->", re.DOTALL)
HOME_ENV = "~/.agent-as-model"
OFFLINE = ["--no-deps", "--no-index", "--no-build-isolation"]
GUARD = 600  # a hang guard, not a budget: creating a venv runs ensurepip, slow on a loaded machine


def snippet() -> list[list[str]]:
    found = SNIPPET.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert found, "README.md has no install snippet between <!-- install:begin/end -->"
    return [shlex.split(line) for line in found.group(1).splitlines() if line.strip()]


def test_the_readme_installs_this_project(tmp_path: Path) -> None:
    lines = snippet()
    assert lines[0] == ["cd", "/path/to/checkout"]
    assert lines[1][1:] == ["-m", "venv", HOME_ENV]
    assert lines[2] == [f"{HOME_ENV}/bin/pip", "install", "."]
    assert lines[3] == [f"{HOME_ENV}/bin/agent-as-model", "--version"]
    venv = tmp_path / "env"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}

    def run(argv: list[str], cwd: Path) -> str:
        argv = [a.replace(HOME_ENV, str(venv)) for a in argv]
        done = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=GUARD, check=False
        )
        assert done.returncode == 0, f"{shlex.join(argv)}:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    base = getattr(sys, "_base_executable", sys.executable)  # a plain python3, as a reader has
    run([base, *lines[1][1:]], tmp_path)
    site = Path(
        subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
            timeout=GUARD,
        ).stdout.strip()
    )
    (site / "project-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    run([*lines[2], *OFFLINE], ROOT)  # line 0: `cd` to the checkout
    printed = run(lines[3], tmp_path)
    assert printed == f"agent-as-model {agent_as_model.__version__}\n"
    where = run(
        [str(venv / "bin" / "python"), "-c", "import agent_as_model; print(agent_as_model.__file__)"],
        tmp_path,
    )
    assert Path(where.strip()).is_relative_to(venv), where  # the copy installed there, not the checkout
