"""The official MCP conformance suite (`@modelcontextprotocol/conformance`) against
`agent-as-model serve --http`, once per spec version the suite covers.

The suite and the Node 22 it needs (`fs.globSync`; the npm package `node@22`) are installed from
the committed tests/conformance/package-lock.json with `npm ci`. The committed baseline
tests/conformance/expected-failures.yml lists only scenarios that call the suite's own fixtures
(tools, resources, prompts named test_*), each with its reason; the suite's own baseline check
fails on any other failure and on a listed scenario that starts to pass. Skipped only when npm is
absent.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import http_servers
from tests.http_servers import HttpServer

HERE = Path(__file__).parent / "conformance"
BASELINE = HERE / "expected-failures.yml"
BIN = HERE / "node_modules" / ".bin"


def installed() -> bool:
    """The packages in node_modules are exactly the lock's (npm writes its own copy there)."""
    hidden = HERE / "node_modules" / ".package-lock.json"
    if not hidden.exists() or not (BIN / "conformance").exists():
        return False
    wanted = json.loads((HERE / "package-lock.json").read_text())["packages"]
    have = json.loads(hidden.read_text())["packages"]
    return {k: v.get("version") for k, v in wanted.items() if k} == {
        k: v.get("version") for k, v in have.items()
    }


@pytest.fixture(scope="module")
def suite() -> Path:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm not installed: the conformance suite installs from the npm registry")
    if not installed():
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=HERE,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert done.returncode == 0, f"npm ci failed in {HERE}:\n{done.stdout}\n{done.stderr}"
    version = subprocess.run([BIN / "node", "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith("v22."), version
    return BIN


def conformance(bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The suite's shebang runs `node`: put the Node 22 from node_modules first on PATH.
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    return subprocess.run(
        [str(bin_dir / "conformance"), *args],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        check=False,
    )


def spec_versions(bin_dir: Path) -> list[str]:
    listed = conformance(bin_dir, "list", "--server")
    assert listed.returncode == 0, listed.stderr
    versions = {v for group in re.findall(r"\[([^\]]+)\]", listed.stdout) for v in group.split(",")}
    return sorted(versions)


@pytest.fixture(scope="module")
def server() -> Iterator[HttpServer]:
    with http_servers.running() as running:
        yield running


def test_the_suite_is_pinned() -> None:
    manifest = json.loads((HERE / "package.json").read_text())["dependencies"]
    lock = json.loads((HERE / "package-lock.json").read_text())["packages"]
    for name in ("@modelcontextprotocol/conformance", "node"):
        assert lock[f"node_modules/{name}"]["version"] == manifest[name]


def test_every_baseline_entry_needs_a_fixture_and_says_why() -> None:
    entries = [line for line in BASELINE.read_text().splitlines() if line.lstrip().startswith("- ")]
    assert entries
    for entry in entries:
        name, _, reason = entry.strip()[2:].partition("#")
        assert re.fullmatch(r"[a-z0-9-]+ ", name), entry
        assert "fixture" in reason and len(reason.strip()) > 20, entry


def test_conformance_per_spec_version(suite: Path, server: HttpServer) -> None:
    versions = spec_versions(suite)
    assert "2025-11-25" in versions, versions
    outcomes = {}
    for version in versions:
        run = conformance(
            suite,
            "server",
            "--url",
            server.url,
            "--spec-version",
            version,
            "--expected-failures",
            str(BASELINE),
        )
        outcomes[version] = run.returncode
        assert run.returncode == 0, f"conformance on {version}:\n{run.stdout[-6000:]}\n{run.stderr[-3000:]}"
        assert "Baseline check passed" in run.stdout, run.stdout[-3000:]
    assert set(outcomes) == set(versions)
