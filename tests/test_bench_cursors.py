"""`benchmarks/bench_cursors.py` still runs and prints its table: a smoke run (one short chain, one
repeat, two calls a batch) against the real server over stdio.

No figure is asserted: speed is never a test verdict here (`make bench-cursors` is for reading
it). What is checked is that the benchmark works end to end: every call it times returned what it
must (the benchmark raises otherwise, a valid chain included), and the table has its rows.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "bench_cursors.py"


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, object]]:
    out = tmp_path_factory.mktemp("bench") / "cursors.json"
    smoke_run = ["--turns", "10", "--repeats", "1", "--calls", "2", "--warmup", "0", "--no-pin"]
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), *smoke_run, "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout, json.loads(out.read_text())


def test_the_table_has_the_plain_call_the_chain_and_its_control_on_both_eras(
    smoke: tuple[str, dict[str, object]],
) -> None:
    table, _ = smoke
    lines = table.splitlines()
    header = next(line for line in lines if line.startswith("era "))
    for column in ("history entries", "µs/call", "× plain", "cursor µs/call", "cursor µs/entry"):
        assert column in header
    for era in ("legacy", "2026-07-28"):
        rows = [line for line in lines if line.startswith(era)]
        assert [label in row for row, label in zip(rows, _LABELS, strict=True)] == [True] * 3, rows
        assert rows[0].split()[-1] == "1.00x"  # the plain call is the yardstick


_LABELS = ("plain call, cursors off", "10 turns + cursor", "10 turns, cursors off")


def test_the_json_summary_has_a_cursor_cost_per_entry_for_the_chain(
    smoke: tuple[str, dict[str, object]],
) -> None:
    _, document = smoke
    summary = document["summary"]
    assert isinstance(summary, list)
    chains = [row for row in summary if row["config"] == "chain-10"]
    assert [row["era"] for row in chains] == ["legacy", "2026-07-28"]
    for row in chains:
        assert row["entries"] == 20 and isinstance(row["cursor_per_entry"], float)
