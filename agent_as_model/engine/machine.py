"""The call machine: every state and every transition of one tool call, in one table.

Read it top to bottom: the happy path first, then the ways out. `work` is the pure function of
`states/` that a transition runs before the state changes; if it raises, the state stays where
it was and the driver fires `reject`, `violate` or `fault`. The machine is built once and every
call is attached to it as a model for its lifetime (measured: attaching and detaching a record
costs about 45 µs; building a `Machine` per call would add about 70 µs). It never asks which
era it runs on: the era adapter does the I/O between `dispatch` and `answer`/`suspend`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from transitions import EventData, Machine

from agent_as_model.states.build import build_payload_for
from agent_as_model.states.commit import commit_result
from agent_as_model.states.interpret import interpret_answer, take_answer
from agent_as_model.states.validate import validate_call

Work = Callable[..., None]


class Row(NamedTuple):
    trigger: str
    source: str | tuple[str, ...]
    dest: str
    work: Work | None = None


STATES = (
    "received",
    "validated",
    "payload_ready",
    "awaiting_host",
    "suspended",
    "answered",
    "interpreted",
    "committed",
    "rejected",
    "violated",
    "faulted",
)
INITIAL = "received"
TERMINAL = frozenset({"suspended", "committed", "rejected", "violated", "faulted"})
_BEFORE_HOST = ("received", "validated", "payload_ready")
_LIVE = tuple(s for s in STATES if s not in TERMINAL)

TABLE: tuple[Row, ...] = (
    # trigger      source                                 dest             work
    Row("validate", "received", "validated", validate_call),
    Row("build", "validated", "payload_ready", build_payload_for),
    Row("dispatch", "payload_ready", "awaiting_host"),
    # the era adapter: the legacy era always answers; the modern era answers on a bound retry
    Row("answer", "awaiting_host", "answered", take_answer),
    Row("suspend", "awaiting_host", "suspended"),
    Row("interpret", "answered", "interpreted", interpret_answer),
    Row("commit", "interpreted", "committed", commit_result),
    # ways out: a caller error before anything was sent, a host contract violation after
    Row("reject", _BEFORE_HOST, "rejected"),
    Row("violate", ("awaiting_host", "answered", "interpreted"), "violated"),
    # an internal fault in any live state (a bug of ours: logged, never shown to the client)
    Row("fault", _LIVE, "faulted"),
)


# How a failed step leaves the machine, by what failed. When the named way out is not legal from
# the state the call is in (an error raised where it was not expected), the call faults instead.
WAY_OUT = {"caller": "reject", "capability": "reject", "host": "violate"}
# What a caller can be told about the host, by the state the call stopped in.
SENT = {
    **{state: "Nothing was sent to the host." for state in _BEFORE_HOST},
    "awaiting_host": "The host may have been asked.",
    "answered": "The host was asked.",
    "interpreted": "The host was asked.",
}


def _runner(work: Work) -> Callable[[EventData], None]:
    def run(event: EventData) -> None:
        work(event.model, *event.args, **event.kwargs)

    run.__name__ = work.__name__
    return run


def _build() -> Machine:
    transitions: list[dict[str, Any]] = []
    for row in TABLE:
        spec: dict[str, Any] = {"trigger": row.trigger, "source": list(row.source), "dest": row.dest}
        if isinstance(row.source, str):
            spec["source"] = row.source
        if row.work is not None:
            spec["before"] = _runner(row.work)
        transitions.append(spec)
    return Machine(
        model=None,
        states=list(STATES),
        transitions=transitions,
        initial=INITIAL,
        auto_transitions=False,
        send_event=True,
        ignore_invalid_triggers=False,
    )


MACHINE = _build()
