"""Issue 26 items 1-3: the work of one request is linear and bounded, and stops when its bound is
hit. A conversation and its tool results are read in one pass; a host's fenced answer is found
by a scan, never a backtracking regular expression; a caller's schema has a budget of steps
counted inside the validator, and patterns a bound on their compiled size; large inputs and
schema checks run in the server's own worker threads, never in the transport's. (How long a
concurrent call waits meanwhile is measured by benchmarks/bench_hostile.py, not here.)"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_as_model.states.fence import fenced_body

# The expression the scan replaces: what it finds is what the scan must find.
OLD_FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\r?\n(.*?)\r?\n?```", re.DOTALL | re.IGNORECASE)


def old_fence(text: str) -> str | None:
    found = OLD_FENCE.search(text)
    return found.group(1) if found else None


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(st.sampled_from(["`", "```", " ", "\t", "\n", "\r", "json", "JSON", "Json", "x", "{}"])).map(
        "".join
    )
)
def test_the_fence_scan_finds_what_the_expression_found(text: str) -> None:
    assert fenced_body(text) == old_fence(text)


def test_the_fence_scan_reads_a_fence_and_a_long_run_of_blanks() -> None:
    # The answer: the expression's two `[ \t]*` side by side backtracked in its square.
    assert fenced_body("```" + " " * 60_000) is None
    assert fenced_body("```" + " \t" * 30_000 + "json" + " " * 30_000 + "\n{}\n```") == "{}"
