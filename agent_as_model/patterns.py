"""Regular expressions of a caller's JSON Schema, matched in bounded time.

A `pattern` (or a `patternProperties` name) comes from the caller and the string it is matched
against from the caller or the host, so a pattern with catastrophic backtracking (`^(a+)+$`
against thirty `a`s and a `b`) would otherwise run for minutes. Every such match made while a
schema check runs (`bounded`) goes to the `regex` package with a `timeout`: the whole check
shares one budget, `TIME_BOUND` seconds of CPU time (`serve --schema-timeout`), and the first
match that runs out ends the check there and then (`SchemaTimeout`), inside jsonschema's loop.
`regex` also releases the GIL while it matches a `str`, so a check running in a worker thread
leaves the event loop free.

jsonschema has no hook for its regex engine: its `pattern`, `patternProperties`,
`additionalProperties` and `unevaluatedProperties` all call `re.search` from its `_keywords` and
`_utils` modules. `install` points those modules' `re` at a stand-in whose `search` uses the
budget inside a bounded check and is `re.search` itself everywhere else, so every one of those
keywords is bounded alike. The ECMA-262 differences this accepts are in docs/decisions.md.

Matching is not the only cost a caller's schema sets. The whole check has a budget of steps
(`STEP_BOUND`, `serve --schema-steps`): the validator counts one for each keyword it applies
(`step`, called from inside jsonschema by `schemas`) and one for each pattern it searches (a
`patternProperties` of P patterns over an object of N properties is P x N searches in one keyword),
so `$ref` fan-out, nested combinators, pattern searches and large `uniqueItems` end in
`TooManySteps` once it is spent, and the thread doing the check stops there: nothing runs on after
the call has ended. A pattern is compiled only when its compiled size
(`compiled_size`, its counted repeats multiplied out) is within `MAX_PATTERN_SIZE`, else refused
(`PatternTooLarge`): `(?:a{1000}){1000}`, 17 bytes, would compile to some 140 MB. Compiled
patterns are cached within `CACHE_SIZE` of that same measure, not by count.
"""

from __future__ import annotations

import re
import time
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from agent_as_model.caches import BoundedCache
from agent_as_model.limits import DEFAULT_SCHEMA_STEPS as DEFAULT_STEP_BOUND
from agent_as_model.limits import DEFAULT_SCHEMA_TIMEOUT as DEFAULT_TIME_BOUND

SETTING = "--schema-timeout"
STEPS_SETTING = "--schema-steps"

# The bounds of the checks made in this context (the server sets them per call from its settings).
TIME_BOUND: ContextVar[float] = ContextVar("schema_time_bound", default=DEFAULT_TIME_BOUND)
STEP_BOUND: ContextVar[int] = ContextVar("schema_step_bound", default=DEFAULT_STEP_BOUND)

# The largest compiled size of a pattern (`compiled_size`, in units of one matched item): it bounds
# both what a compiled pattern keeps and how long compiling it takes (what a unit weighs:
# benchmarks/README.md, "Figures the code cites").
MAX_PATTERN_SIZE = 20_000
# The compiled patterns kept, in that same measure: ten of the largest, however many come.
CACHE_SIZE = 10 * MAX_PATTERN_SIZE


class OverBudget(Exception):
    """A schema check that could not be finished within one of its bounds; `reason()` says which."""

    def reason(self) -> str:
        raise NotImplementedError


class SchemaTimeout(OverBudget):
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


class TooManySteps(OverBudget):
    """A schema check spent its budget of steps (keywords applied, patterns searched). When the
    last step was a pattern search, `pattern` is that pattern and `where` its place in the schema."""

    def __init__(self, bound: int, pattern: str | None = None, where: str | None = None) -> None:
        super().__init__(bound)
        self.bound = bound
        self.pattern = pattern
        self.where = where

    def reason(self) -> str:
        told = (
            f"could not be checked within its budget: the check took more than {self.bound} steps "
            f"({STEPS_SETTING}; $ref fan-out, nested combinators, pattern searches or uniqueItems "
            "over a large array)"
        )
        if self.pattern is None:
            return told
        shown = ascii(self.pattern) if len(self.pattern) <= 80 else "(a long pattern)"
        return f"{told}, the last a search of the pattern {shown} (schema {self.where})"


class PatternTooLarge(OverBudget):
    """A pattern whose compiled size is over `MAX_PATTERN_SIZE` (or that the engine ran out of
    memory compiling): refused, never compiled."""

    def __init__(self, pattern: str, size: int | None) -> None:
        super().__init__(pattern, size)
        self.pattern = pattern
        self.size = size

    def reason(self) -> str:
        shown = ascii(self.pattern) if len(self.pattern) <= 80 else "(a long pattern)"
        if self.size is None:
            return f"the pattern {shown} is refused: the engine ran out of memory compiling it"
        return (
            f"the pattern {shown} is refused: it would compile to more than {MAX_PATTERN_SIZE} items "
            "(its counted repeats, such as {1000}, multiply out when nested)"
        )


class _Ended(Exception):
    """Raised by `step` inside a check whose pattern ran out of time: the check stops there."""


class _Budget:
    __slots__ = ("bound", "started", "timed_out", "steps", "step_bound", "grouped")

    def __init__(self, bound: float | None, started: float, step_bound: int) -> None:
        self.bound = bound  # None: no time bound (the check searches the server's own patterns)
        self.started = started
        self.timed_out: str | None = None  # the pattern that ran out of time, once one has
        self.steps = step_bound  # left
        self.step_bound = step_bound
        self.grouped: list[weakref.ref[Any]] = []  # errors with context, see `grouped`

    def untangle(self) -> None:
        """Drop the children of every grouped error still alive (its `context`, and its `args`,
        where jsonschema keeps the same list): a check that stopped early leaves them only in
        reference cycles (each child's `parent` points back), which only the
        collector would free, all at once, holding the GIL for a second or more; without the
        cycles they go as soon as the stopped check's frames do (benchmarks/README.md)."""
        for ref in self.grouped:
            error = ref()
            if error is not None:
                error.context = []
                error.args = ()
        self.grouped.clear()

    def spend(self) -> None:
        """One step: raises when the budget is spent, or when a pattern has run out of time."""
        if self.timed_out is not None:
            raise _Ended
        self.steps -= 1
        if self.steps < 0:
            raise TooManySteps(self.step_bound)

    def search(self, pattern: str, string: str) -> Any:
        """`pattern` searched in `string`: one step of the budget, within what is left of the time
        bound. Running out of either ends the check here: jsonschema's loops (`patternProperties`
        over every property, `additionalProperties` over every name) go no further."""
        try:
            self.spend()
        except TooManySteps as spent:
            spent.pattern = str(pattern)
            raise
        if self.bound is None:
            return _compiled(pattern).search(string)
        left = self.bound - (time.thread_time() - self.started)
        if left > 0:
            try:
                return _compiled(pattern).search(string, timeout=left)
            except TimeoutError:
                pass
        self.timed_out = str(pattern)
        raise _Ended


_BUDGET: ContextVar[_Budget | None] = ContextVar("schema_budget", default=None)


def grouped(error: Any) -> Any:
    """Note an error that holds others (`oneOf`, `anyOf`) made in the check running here, so a
    check that stops early can untangle it; the error is returned as it is."""
    budget = _BUDGET.get()
    if budget is not None:
        budget.grouped.append(weakref.ref(error))
    return error


def step() -> None:
    """One step of the check running in this context (a keyword applied): raises when the budget
    is spent, or when a pattern has run out of time, so the check stops at once. Outside a
    bounded check it does nothing."""
    budget = _BUDGET.get()
    if budget is not None:
        budget.spend()


# Compiled patterns, bounded by their total compiled size.
_CACHE = BoundedCache(CACHE_SIZE)


def cached_size() -> int:
    """The total compiled size of the patterns cached now (at most `CACHE_SIZE`)."""
    return _CACHE.held


# `regex` is imported on the first pattern, as jsonschema is on the first schema: start-up does
# not pay for either (benchmarks/README.md, "Figures the code cites").
def _compiled(pattern: str) -> Any:
    found = _CACHE.get(pattern)
    if found is not None:
        return found
    size = compiled_size(pattern)
    if size > MAX_PATTERN_SIZE:
        raise PatternTooLarge(pattern, size)
    import regex

    try:
        # Not regex's own cache (500 patterns, whatever their size): ours is bounded by size.
        compiled = regex.compile(pattern, cache_pattern=False)
    except (MemoryError, RecursionError, OverflowError):
        raise PatternTooLarge(pattern, None) from None
    _CACHE.put(pattern, compiled, size + 1)
    return compiled


def compiled_size(pattern: str) -> int:
    """An upper estimate of what `pattern` compiles to, in units of one matched item: its atoms,
    with each counted repeat (`{m}`, `{m,n}`) multiplying what it repeats, nested repeats
    multiplying out (the engine unrolls them). Linear in the pattern; capped just over the bound.
    Alternatives add up, as does every other character (a group's syntax, a flag), which only
    over-estimates."""
    cap = MAX_PATTERN_SIZE + 1
    outer: list[tuple[int, int]] = []  # (committed total, last item) of each enclosing group
    total = last = 0
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "(":
            outer.append((total, last))
            total = last = 0
            i += 1
            continue
        if c == ")" and outer:
            size = min(total + last, cap)
            total, last = outer.pop()
            total, last = min(total + last, cap), size
            i += 1
            continue
        if c in "*+?":
            i += 1  # repeats what it follows without multiplying it
            continue
        if c == "{":
            count, after = _count(pattern, i)
            if count is not None:
                last = min(last * count, cap)
                i = after
                continue
        total = min(total + last, cap)
        last = 1
        if c == "\\":
            i += 2
        elif c == "[":
            i = _class_end(pattern, i)
        else:
            i += 1
    size = total + last
    while outer:
        enclosing, previous = outer.pop()
        size = enclosing + previous + size
    return min(size, cap)


def _count(pattern: str, at: int) -> tuple[int | None, int]:
    """The largest count of a quantifier `{m}`, `{m,}`, `{,n}`, `{m,n}` at `at`, and where it ends;
    (None, at) when the brace is a literal one."""
    end = pattern.find("}", at)
    if end < 0:
        return None, at
    low, comma, high = pattern[at + 1 : end].partition(",")
    low, high = low.strip(), high.strip()
    if not (low.isdigit() or (comma and high.isdigit())) or (low and not low.isdigit()):
        return None, at
    if high and not high.isdigit():
        return None, at
    counts = [int(part) for part in (low, high) if part]
    return max(counts), end + 1


def _class_end(pattern: str, at: int) -> int:
    """Where the character class opening at `at` ends (past its `]`)."""
    i = at + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1  # a leading `]` is a member
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
        elif pattern[i] == "]":
            return i + 1
        else:
            i += 1
    return i


def pattern_error() -> type[Exception]:
    """What the engine raises for a pattern it cannot compile."""
    import regex

    return regex.error  # type: ignore[no-any-return]


def compiles(pattern: str) -> bool:
    """Whether `pattern` is one the bounded engine takes (the schema check's `regex` format)."""
    _compiled(pattern)  # raises regex.error
    return True


@contextmanager
def bounded(schema: Mapping[str, Any], *, timed: bool = True) -> Iterator[None]:
    """Run a check of `schema` inside this block within its budgets: `STEP_BOUND` steps (each
    keyword applied and each pattern searched) and, when `timed`, `TIME_BOUND` seconds of
    matching. A pattern that runs out of time ends the block at once with `SchemaTimeout`; a spent
    budget with `TooManySteps`. A check whose patterns are the server's own (the draft's
    meta-schema, whose patterns match in linear time) is not timed: its time bound would count
    the keywords' own work before each search, and name a pattern the caller never wrote."""
    install()
    budget = _Budget(TIME_BOUND.get() if timed else None, time.thread_time(), STEP_BOUND.get())
    token = _BUDGET.set(budget)
    try:
        yield
    except _Ended:
        pass  # a pattern ran out of time, said below
    except OverBudget as err:
        budget.untangle()
        if isinstance(err, TooManySteps) and err.pattern is not None:
            err.where = where(schema, err.pattern)
        raise
    finally:
        _BUDGET.reset(token)
    if budget.timed_out is not None and budget.bound is not None:
        budget.untangle()
        raise SchemaTimeout(budget.timed_out, where(schema, budget.timed_out), budget.bound)


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


def where(schema: Any, pattern: str, pointer: str = "") -> str:
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
