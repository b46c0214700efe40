"""Regular expressions of a caller's JSON Schema, matched in bounded time.

A `pattern` (or a `patternProperties` name) comes from the caller and the string it is matched
against from the caller or the host, so a pattern with catastrophic backtracking (`^(a+)+$`
against thirty `a`s and a `b`) would otherwise run for minutes. Every such match made while a
schema check runs (`bounded`) goes to the `regex` package with a `timeout`: the whole check
shares one budget, `TIME_BOUND` seconds of CPU time (`serve --schema-timeout`), and the first
match that runs out ends the check (`SchemaTimeout`). `regex` also releases the GIL while it
matches a `str`, so a check running in a worker thread leaves the event loop free.

jsonschema has no hook for its regex engine: its `pattern`, `patternProperties`,
`additionalProperties` and `unevaluatedProperties` all call `re.search` from its `_keywords` and
`_utils` modules. `install` points those modules' `re` at a stand-in whose `search` uses the
budget inside a bounded check and is `re.search` itself everywhere else, so every one of those
keywords is bounded alike. The ECMA-262 differences this accepts are in docs/decisions.md.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from agent_as_model.limits import DEFAULT_SCHEMA_TIMEOUT as DEFAULT_TIME_BOUND

SETTING = "--schema-timeout"

# The bound of the checks made in this context (the server sets it per call from its settings).
TIME_BOUND: ContextVar[float] = ContextVar("schema_time_bound", default=DEFAULT_TIME_BOUND)


class SchemaTimeout(Exception):
    """A schema check ran out of its time bound; names the pattern, where it is, and the bound."""

    def __init__(self, pattern: str, where: str, bound: float) -> None:
        super().__init__(pattern, where, bound)
        self.pattern = pattern
        self.where = where
        self.bound = bound

    def reason(self) -> str:
        shown = ascii(self.pattern) if len(self.pattern) <= 80 else "(a long pattern)"
        return (
            f"could not be checked in time: matching the pattern {shown} (schema {self.where}) ran "
            f"past the time bound of {self.bound:g} s ({SETTING})"
        )


class _Budget:
    __slots__ = ("bound", "started", "timed_out")

    def __init__(self, bound: float, started: float) -> None:
        self.bound = bound
        self.started = started
        self.timed_out: str | None = None  # the pattern that ran out of time, once one has

    def search(self, pattern: str, string: str) -> Any:
        if self.timed_out is not None:
            return None  # the check is over: it ends in SchemaTimeout whatever this says
        left = self.bound - (time.thread_time() - self.started)
        if left <= 0:
            self.timed_out = pattern
            return None
        try:
            return _compiled(pattern).search(string, timeout=left)
        except TimeoutError:
            self.timed_out = pattern
            return None


_BUDGET: ContextVar[_Budget | None] = ContextVar("schema_budget", default=None)


# `regex` is imported on the first pattern, as jsonschema is on the first schema: start-up does
# not pay for either (benchmarks/README.md, "Figures the code cites").
@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> Any:
    import regex

    return regex.compile(pattern)


def pattern_error() -> type[Exception]:
    """What the engine raises for a pattern it cannot compile."""
    import regex

    return regex.error  # type: ignore[no-any-return]


def compiles(pattern: str) -> bool:
    """Whether `pattern` is one the bounded engine takes (the schema check's `regex` format)."""
    _compiled(pattern)  # raises regex.error
    return True


@contextmanager
def bounded(schema: Mapping[str, Any]) -> Iterator[None]:
    """Match every pattern inside this block within one budget of `TIME_BOUND` seconds; raise
    `SchemaTimeout` at the end of the block when a match ran out of it."""
    install()
    budget = _Budget(TIME_BOUND.get(), time.thread_time())
    token = _BUDGET.set(budget)
    try:
        yield
    finally:
        _BUDGET.reset(token)
    if budget.timed_out is not None:
        raise SchemaTimeout(budget.timed_out, _where(schema, budget.timed_out), budget.bound)


class _Re:
    """`re` for jsonschema's modules: `search` is bounded inside a check, the rest is `re`."""

    def search(self, pattern: str, string: str, flags: int = 0) -> Any:
        budget = _BUDGET.get()
        if budget is None or flags or not isinstance(pattern, str) or not isinstance(string, str):
            return re.search(pattern, string, flags)
        return budget.search(pattern, string)

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)


_STAND_IN = _Re()


def install() -> None:
    """Point jsonschema's keyword modules at the bounded `search` (idempotent)."""
    from jsonschema import _keywords, _utils

    for module in (_keywords, _utils):
        if getattr(module, "re", None) is not _STAND_IN:
            if getattr(module, "re", None) is not re:  # a jsonschema we do not know: fail loudly
                raise RuntimeError(f"{module.__name__} no longer matches patterns with re")
            module.re = _STAND_IN  # type: ignore[attr-defined]


def _where(schema: Any, pattern: str, pointer: str = "") -> str:
    """The JSON pointer of the first `pattern` keyword or `patternProperties` name in `schema`
    that is `pattern` (the pattern alone is what the engine is handed)."""
    try:
        found = _find(schema, pattern, pointer)
    except RecursionError:
        found = None
    return found if found is not None else "(a pattern of the schema)"


def _find(node: Any, pattern: str, pointer: str) -> str | None:
    if isinstance(node, dict):
        if node.get("pattern") == pattern:
            return f"{pointer}/pattern"
        names = node.get("patternProperties")
        if isinstance(names, dict) and pattern in names:
            return f"{pointer}/patternProperties/{_escape(pattern)}"
        # additionalProperties matches them joined (in the key order of the validator's copy: sorted)
        if isinstance(names, dict) and pattern in ("|".join(names), "|".join(sorted(names))):
            return f"{pointer}/patternProperties"
        children: Iterator[tuple[str, Any]] = iter(node.items())
    elif isinstance(node, list):
        children = ((str(i), item) for i, item in enumerate(node))
    else:
        return None
    for key, child in children:
        found = _find(child, pattern, f"{pointer}/{_escape(key)}")
        if found is not None:
            return found
    return None


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")
