"""`benchmarks/soak.py` still runs and prints its table: a smoke run (a few calls per era, a fixed
hypothesis seed) against the real server over stdio.

No figure is asserted: the soak's goal (0 opaque, 0 hang, 0 dead, flat RSS) is read from
`make soak`, over 20,000 calls, not from a handful here, and a hang is a timing. What is checked
is that the soak works end to end: it covers every tool the server lists, each era's counts add
up to its calls, the table has its rows, and the exit status is the verdict it printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.helpers import ROOT, listed_tools

SCRIPT = ROOT / "benchmarks" / "soak.py"
CALLS_PER_ERA = 15
KINDS = ("ok", "clear", "opaque", "hang", "dead")


@pytest.fixture(scope="module")
def smoke(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    out = tmp_path_factory.mktemp("soak") / "soak.json"
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--calls", str(2 * CALLS_PER_ERA), "--seed", "0", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert out.exists(), completed.stderr
    return completed, json.loads(out.read_text())


def test_every_listed_tool_is_soaked(smoke: tuple[subprocess.CompletedProcess[str], dict[str, Any]]) -> None:
    _, document = smoke
    assert set(document["tools"]) == set(listed_tools())


def test_each_eras_counts_add_up_to_its_calls(
    smoke: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    _, document = smoke
    assert [era["era"] for era in document["eras"]] == ["legacy", "2026-07-28"]
    for era in document["eras"]:
        assert set(era["counts"]) == set(KINDS)
        assert era["calls"] == CALLS_PER_ERA == sum(era["counts"].values())


def test_the_table_has_a_row_per_era_whose_counts_add_up(
    smoke: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    completed, _ = smoke
    lines = completed.stdout.splitlines()
    header = next(line for line in lines if line.startswith("era "))
    assert header.split()[:7] == ["era", "calls", *KINDS]
    for era in ("legacy", "2026-07-28"):
        row = next(line for line in lines if line.startswith(era + " ")).split()
        calls, *counts = (int(cell) for cell in row[1:7])
        assert calls == CALLS_PER_ERA == sum(counts)


def test_the_exit_status_is_the_printed_verdict(
    smoke: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    completed, document = smoke
    verdict = next(line for line in completed.stdout.splitlines() if "goal (" in line)
    met = verdict.split(": ")[-1].startswith("MET")
    assert met == document["goal_met"]
    assert completed.returncode == (0 if met else 1), completed.stderr
