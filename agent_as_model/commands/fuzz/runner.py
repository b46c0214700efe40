"""One fuzzing run: start the server per era, let hypothesis explore, report and keep a failure.

The output: a progress line on stderr while on a terminal; on a failure, the report of the
minimal chain (also written to DIR/failure.txt) and its recording (DIR/failure.jsonl); always
the calls made by each rule, and a last line `N chains, M calls, K failures` (what reached the
server). Exit status 0, 1 (a failure) or 2 (the server could not be started, or stopped answering:
the run ends there).
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.reporting import with_reporter
from hypothesis.stateful import get_state_machine_test

from agent_as_model.commands.fuzz.checks import FuzzFailure, Logged, ServerLost, check
from agent_as_model.commands.fuzz.machine import Counters, machine_for
from agent_as_model.commands.fuzz.recording import record_chain
from agent_as_model.commands.fuzz.session import Sessions, Unreachable
from agent_as_model.commands.fuzz.status import FAILED, PASSED, UNREACHABLE

STEPS = 6  # rules per example: chains of a few calls, several chains an example
REPORT, RECORDING, DATABASE = "failure.txt", "failure.jsonl", "examples"
SERVER_LOG = "server-stderr.log"  # the fuzzed server's own stderr, kept out of the report


class Progress:
    """`fuzzing: example 12/100, 30 chains, 85 calls` on one line, on a terminal only."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self._total, self._stream = total, stream
        try:
            self._enabled = stream.isatty()
        except (AttributeError, ValueError):
            self._enabled = False
        self._last = 0.0

    def update(self, counters: Counters, phase: str = "fuzzing") -> None:
        now = time.monotonic()
        if not self._enabled or now - self._last < 0.1:
            return
        self._last = now
        self._stream.write(
            f"\r{phase}: example {counters.examples}/{self._total}, {counters.chains} chains, "
            f"{counters.calls} calls\x1b[K"
        )
        self._stream.flush()

    def clear(self) -> None:
        if self._enabled and self._last:
            self._stream.write("\r\x1b[K")
            self._stream.flush()


def fuzz(
    command: Sequence[str],
    *,
    eras: Sequence[str],
    examples: int,
    seed: int | None,
    tools: Sequence[str],
    out: str | Path,
    timeout: float,
    tool_turns: bool = True,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    out = Path(out)
    counters = Counters()
    progress = Progress(examples, stderr)
    counters.tick = lambda: progress.update(counters)
    failure: FuzzFailure | None = None
    out.mkdir(parents=True, exist_ok=True)
    errlog = out / SERVER_LOG
    errlog.write_text("", encoding="utf-8")  # this run's only
    sessions = Sessions(command, eras, timeout, errlog)
    try:
        with sessions:
            failure = _explore(machine_for(sessions, eras, tools, counters, tool_turns), examples, seed, out)
            if failure is not None:
                failure = trim(failure, sessions)
    except Unreachable as err:  # it could not be started, or did not answer `initialize`
        # No summary: `0 chains, 0 calls, 0 failures` would read like a pass.
        progress.clear()
        print(f"agent-as-model fuzz: {err}{_server_said(errlog)}", file=stderr)
        print("agent-as-model fuzz: nothing was fuzzed (exit status 2)", file=stderr)
        return UNREACHABLE
    except ServerLost as lost:
        why = f"agent-as-model fuzz: {lost}{sessions.not_json.said()}{_server_said(errlog)}"
        _end(progress, counters, stdout, stderr, why, _lost_report(lost), incomplete=True)
        return UNREACHABLE
    if failure is None:
        _end(progress, counters, stdout, stderr)
        return PASSED
    _end(progress, counters, stdout, stderr, report=_report(failure, command, out, timeout), failures=1)
    return FAILED


def _end(
    progress: Progress,
    counters: Counters,
    stdout: TextIO,
    stderr: TextIO,
    why: str = "",
    report: str = "",
    failures: int = 0,
    incomplete: bool = False,
) -> None:
    """The end of the output: why the server was lost (stderr), the report, the calls by rule,
    and the last line. A lost server is no failure found: its status (2) says the run is incomplete."""
    progress.clear()
    if why:
        print(why, file=stderr)
    if report:
        print(report, file=stdout)
    print(_by_rule(counters), file=stdout)
    ended = "incomplete (the server was lost): " if incomplete else ""
    print(ended + _summary(counters, failures), file=stdout)


def _server_said(errlog: Path) -> str:
    """Where the server's stderr is, and its last line, when it wrote anything."""
    try:
        lines = [
            line for line in errlog.read_text(encoding="utf-8").splitlines() if not line.startswith("--- ")
        ]
    except OSError:
        return ""
    if not lines:
        return ""
    return f" (its stderr is in {errlog}; its last line: {lines[-1][:200]})"


def lineage(log: Sequence[Logged]) -> list[Logged]:
    """The failing call and the calls whose cursors it continues, back to the chain's start.

    Hypothesis shrinks the example, but an example may still hold calls the failure does not
    involve (another chain, a `generate` beside it): every call carries its whole history, so
    they can go.
    """
    kept = [log[-1]]
    for call in reversed(log[:-1]):
        wanted = kept[0].arguments.get("previous_response_id")
        if call.expected.cursor is not None and call.expected.cursor == wanted:
            kept.insert(0, call)
    return kept


def trim(failure: FuzzFailure, sessions: Sessions) -> FuzzFailure:
    """The failure with only its lineage, when that alone fails the same way (checked by making
    those calls again); otherwise the failure as hypothesis left it."""
    kept = lineage(failure.log)
    if len(kept) == len(failure.log):
        return failure
    again = [replace(call, seen="") for call in kept]
    try:
        for call in again[:-1]:
            check(call, sessions.call(call.era, call.tool, call.arguments, call.answer))
        check(again[-1], sessions.call(again[-1].era, again[-1].tool, again[-1].arguments, again[-1].answer))
    except FuzzFailure as repeated:
        if repeated.problem == failure.problem:
            return FuzzFailure(failure.problem, again)
        return failure
    except Unreachable:
        return failure
    return failure


def _summary(counters: Counters, failures: int) -> str:
    return f"{counters.chains} chains, {counters.calls} calls, {failures} failures"


def _by_rule(counters: Counters) -> str:
    """`calls by rule: start 12, continue 9, ...`: every rule the run could make, 0 for one that
    never reached the server, so that a rule the draws missed shows."""
    return "calls by rule: " + ", ".join(f"{rule} {n}" for rule, n in counters.by_rule.items())


def _lost_report(lost: ServerLost) -> str:
    """The example's calls up to the one in flight, not shrunk: if the server fell over on what it
    was sent, that is where to look."""
    calls = "\n".join(f"  {n}. {call.describe()}" for n, call in enumerate(lost.log, start=1))
    heading = "The example so far (the server stopped answering during the last call):"
    return f"LOST: {lost.problem}\n{heading}\n{calls}"


def _explore(machine: type, examples: int, seed: int | None, out: Path) -> FuzzFailure | None:
    out.mkdir(parents=True, exist_ok=True)
    chosen = settings(
        max_examples=examples,
        stateful_step_count=STEPS,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=DirectoryBasedExampleDatabase(out / DATABASE),
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
        print_blob=False,
        # No explain phase: it reruns the minimal example many times over to annotate lines of
        # code, which costs more real calls than the shrinking itself; the report says it all.
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
    )
    test = get_state_machine_test(machine, settings=chosen)
    if seed is not None:
        test = hypothesis.seed(seed)(test)
    try:
        with with_reporter(lambda _text: None):
            test()
    except FuzzFailure as failure:
        return failure
    except Exception as error:  # a failure that did not reproduce comes wrapped in a group (Flaky)
        found = _first_failure(error)
        if found is None:
            raise
        found.problem += " (it did not fail again on the same chain: the server is not deterministic)"
        return found
    return None


def _first_failure(error: BaseException) -> FuzzFailure | None:
    """The FuzzFailure inside an exception group (the builtin one, or the backport on 3.10)."""
    if isinstance(error, FuzzFailure):
        return error
    for inner in getattr(error, "exceptions", ()):
        if (found := _first_failure(inner)) is not None:
            return found
    return None


def _report(failure: FuzzFailure, command: Sequence[str], out: Path, timeout: float) -> str:
    recording = out / RECORDING
    try:
        note = record_chain(command, failure.log, recording, timeout, out / SERVER_LOG)
        kept = [
            f"Recording: {recording} (on {failure.log[-1].era}; {note})",
            f"Reproduce: agent-as-model replay {shlex.quote(str(recording))} --against "
            f"{shlex.quote(shlex.join(command))}",
        ]
    except Unreachable as err:
        kept = [f"No recording: the chain could not be made again ({err})"]
    calls = "\n".join(f"  {n}. {call.describe()}" for n, call in enumerate(failure.log, start=1))
    text = "\n".join(
        [
            f"FAILED: {failure.problem}",
            f"The minimal chain ({len(failure.log)} {'call' if len(failure.log) == 1 else 'calls'}; "
            "the last one failed):",
            calls,
            *kept,
        ]
    )
    (out / REPORT).write_text(text + "\n", encoding="utf-8")
    return text
