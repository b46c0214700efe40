"""What one schema step and one compiled pattern item cost: the figures `limits.py` and
`patterns.py` cite (benchmarks/README.md, "Figures the code cites").

* A step (a keyword applied, `--schema-steps`): the thread CPU time of checks that run out of
  their budget on a `$ref` fan-out schema (the hostile case) and of checks of a plain schema
  over a large answer (the ordinary case), each divided by the steps it took.
* What a spent budget leaves for the cyclic collector, per step, and what collecting it costs.
* A compiled pattern item (`patterns.compiled_size`): the memory `regex.compile` keeps
  (tracemalloc, the compiled object alive) and its compile time, over patterns of known size,
  divided by that size.

    .venv/bin/python benchmarks/bench_schema_units.py
"""

from __future__ import annotations

import contextlib
import gc
import time
import tracemalloc
from typing import Any

import regex

from agent_as_model import patterns, schemas

BUDGETS = (10_000, 50_000, 200_000)
PATTERNS = ("(?:a{100}){10}", "(?:a{100}){100}", "(?:ab{50}c){200}", "[a-z]{20000}")


def fan_out(depth: int) -> dict[str, Any]:
    defs: dict[str, Any] = {
        f"d{i}": {"oneOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(depth)
    }
    defs[f"d{depth}"] = {"type": "integer"}
    return {"type": "object", "$defs": defs, "properties": {"a": {"$ref": "#/$defs/d0"}}}


def hostile_step_us(budget: int) -> float:
    schema = fan_out(40)
    token = patterns.STEP_BOUND.set(budget)
    try:
        spent = []
        for _ in range(2):  # the first compiles and caches the validator; the second is timed
            start = time.thread_time()
            with contextlib.suppress(patterns.TooManySteps):
                schemas.first_violation(schema, {"a": "s"})
            spent.append(time.thread_time() - start)
        return spent[-1] / budget * 1e6
    finally:
        patterns.STEP_BOUND.reset(token)


def hostile_step_garbage(budget: int) -> tuple[float, float, float]:
    """What a spent budget leaves behind: the bytes a step left alive (tracemalloc, after the
    check), and the full collection that frees them (its milliseconds). jsonschema links each
    combinator's errors to their parent, so they are cycles only the collector frees."""
    schema = fan_out(40)
    token = patterns.STEP_BOUND.set(budget)
    try:
        gc.collect()
        tracemalloc.start()
        with contextlib.suppress(patterns.TooManySteps):
            schemas.first_violation(schema, {"a": "s"})
        left, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        start = time.perf_counter()
        gc.collect()
        return left / budget, peak / budget, (time.perf_counter() - start) * 1000
    finally:
        patterns.STEP_BOUND.reset(token)


def plain_step_us() -> tuple[float, int]:
    """A plain answer schema: 1,000 objects of three typed properties. Steps counted by a budget
    large enough to finish, read back from what is left."""
    schema = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "n": {"type": "integer"},
                "s": {"type": "string", "maxLength": 9},
                "b": {"type": "boolean"},
            },
            "required": ["n", "s"],
        },
    }
    answer = [{"n": i, "s": "x", "b": True} for i in range(1000)]
    schemas.first_violation(schema, answer)
    steps = 0
    original = patterns.step

    def counting() -> None:
        nonlocal steps
        steps += 1
        original()

    patterns.step = counting  # type: ignore[assignment]
    try:
        start = time.thread_time()
        schemas.first_violation(schema, answer)
        spent = time.thread_time() - start
    finally:
        patterns.step = original  # type: ignore[assignment]
    return (spent / steps * 1e6 if steps else float("nan")), steps


def pattern_item(pattern: str) -> tuple[int, float, float]:
    """Items, bytes kept per item (tracemalloc), and compile time per item (timed apart: tracing
    slows compiling several times)."""
    size = patterns.compiled_size(pattern)
    start = time.perf_counter()
    regex.compile(pattern, cache_pattern=False)
    seconds = time.perf_counter() - start
    gc.collect()
    tracemalloc.start()
    compiled = regex.compile(pattern, cache_pattern=False)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del compiled
    return size, held / size, seconds / size * 1e6


def main() -> None:
    for budget in BUDGETS:
        each = hostile_step_us(budget)
        print(f"$ref fan-out check, budget {budget:>7} steps: {each:.2f} us a step (thread CPU)")
    left, peak, ms = hostile_step_garbage(50_000)
    print(
        f"$ref fan-out, 50,000 steps: {left:.0f} bytes a step left for the collector (peak {peak:.0f}); "
        f"the full collection freeing them took {ms:.0f} ms"
    )
    per, steps = plain_step_us()
    print(f"plain schema, 1,000 objects: {steps} steps, {per:.2f} us a step (thread CPU)")
    for pattern in PATTERNS:
        size, per_item, us = pattern_item(pattern)
        print(f"compile {pattern!r}: {size} items, {per_item:.0f} bytes and {us:.2f} us an item")


if __name__ == "__main__":
    main()
