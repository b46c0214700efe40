"""What the oracle expects of one call, the log of calls an example made, the failure raised when
a server's answer differs from the expectation, and what ends a run when the server is lost."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent_as_model.commands.fuzz.conversation import HostAnswer
from agent_as_model.commands.fuzz.render import Unreadable, read_result
from agent_as_model.commands.fuzz.session import Outcome


@dataclass(frozen=True)
class Expected:
    """A success with this completion and cursor, or a refusal (`refusal` holds the message this
    project's server gives, `names` the cursors any server's refusal must name)."""

    cursor: str | None = None
    completion: str | None = None
    refusal: str | None = None
    names: tuple[str, ...] = ()

    @property
    def refused(self) -> bool:
        return self.refusal is not None


@dataclass
class Logged:
    """One call as made: enough to make it again, and what the oracle expected of it."""

    rule: str
    era: str
    tool: str
    arguments: dict[str, Any]
    answer: HostAnswer | None
    expected: Expected
    seen: str = ""  # a one-line summary of what came back

    def describe(self) -> str:
        previous = self.arguments.get("previous_response_id")
        shown = {k: v for k, v in self.arguments.items() if k not in ("tools", "previous_response_id")}
        body = json.dumps(shown, ensure_ascii=False)
        if len(body) > 300:
            body = body[:300] + f"... ({len(body)} characters)"
        lines = [f"{self.rule}: {self.tool} on {self.era}, previous_response_id={json.dumps(previous)}"]
        lines.append(f"    arguments: {body}")
        if self.answer is not None:
            lines.append(f"    host answers: {_answer(self.answer)}")
        if self.expected.refused:
            lines.append(f"    expected: refused, naming {', '.join(self.expected.names) or 'the cursor'}")
        else:
            lines.append(f"    expected: completion {json.dumps(self.expected.completion)[:120]}")
            lines.append(f"              cursor {self.expected.cursor}")
        if self.seen:
            lines.append(f"    got: {self.seen}")
        return "\n".join(lines)


def _answer(answer: HostAnswer) -> str:
    if answer.structured is not None:
        return f"structured output {json.dumps(answer.structured, ensure_ascii=False)}"
    text = f"text {json.dumps(answer.text, ensure_ascii=False)}"
    if answer.calls:
        text += " and tool calls " + ", ".join(
            f"{c.name}#{c.id}({json.dumps(c.input)})" for c in answer.calls
        )
    return text


@dataclass
class FuzzFailure(AssertionError):
    """A server answer that differs from the oracle; `log` is the example's calls, the last one
    the call that failed."""

    problem: str
    log: list[Logged] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(self.problem)

    def __str__(self) -> str:
        return self.problem


class ServerLost(BaseException):
    """The server stopped answering in the middle of a run (it exited, or a call timed out).

    Not an Exception, so hypothesis does not take it for a failure to shrink but lets it end the
    run at once: every shrinking step would start the server again and, if it is wedged, wait out
    the timeout each time, to arrive at no finding about cursors. `log` is the example's calls so
    far, the last one the call in flight.
    """

    def __init__(self, problem: str, log: list[Logged]) -> None:
        super().__init__(problem)
        self.problem, self.log = problem, log


def check(call: Logged, outcome: Outcome) -> None:
    """Compare one outcome with what the oracle expected; raise FuzzFailure when they differ."""
    expected = call.expected
    if outcome.rpc_error is not None:
        call.seen = f"JSON-RPC error {outcome.rpc_error}"
    elif outcome.is_error:
        call.seen = f"an error result: {outcome.text[:300]}"
    if expected.refused:
        _check_refusal(call, outcome)
    else:
        _check_success(call, outcome)


def _fail(call: Logged, problem: str) -> None:
    raise FuzzFailure(f"{call.rule} ({call.tool} on {call.era}): {problem}")


def _check_success(call: Logged, outcome: Outcome) -> None:
    expected = call.expected
    if outcome.rpc_error is not None or outcome.is_error:
        _fail(call, f"a valid request was not answered: {call.seen}")
    if outcome.asked != 1:
        _fail(call, f"the host was asked {_times(outcome.asked)} for one call (expected once)")
    try:
        completion, cursor = read_result(call.tool, outcome.text, outcome.structured)
    except Unreadable as err:
        call.seen = f"an unreadable result: {outcome.text[:200]}"
        _fail(call, f"the result is not what cursors on return: {err}")
    call.seen = f"completion {json.dumps(completion)[:120]}, cursor {cursor}"
    if completion != expected.completion:
        _fail(call, f"the completion is {json.dumps(completion)}, expected {json.dumps(expected.completion)}")
    if cursor != expected.cursor:
        _fail(
            call,
            f"the cursor is {cursor}, expected {expected.cursor} (recomputed from the transcript the "
            "caller sent plus the completion)",
        )


def _check_refusal(call: Logged, outcome: Outcome) -> None:
    if not (outcome.is_error or outcome.rpc_error is not None):
        call.seen = f"an answer: {outcome.text[:200]}"
        _fail(
            call, f"a history that must be refused was answered (the host was asked {_times(outcome.asked)})"
        )
    if outcome.asked:
        _fail(call, f"the request was refused, but only after the host was asked {_times(outcome.asked)}")
    text = outcome.text or outcome.rpc_error or ""
    missing = [name for name in call.expected.names if name not in text]
    if missing:
        _fail(call, f"the refusal does not name {' and '.join(missing)}: {text[:300]}")
    # How a refusal is worded beyond that is each server's own; that nothing was sent is observed
    # above (the host was not asked), not read from the text.


def _times(n: int) -> str:
    return {0: "not once", 1: "once", 2: "twice"}.get(n, f"{n} times")
