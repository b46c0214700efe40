"""The call machine: every state, transition, guard and way out of one tool call, in one table.

Read `TABLE` top to bottom. Its states say what a call that stops there tells its caller about
the host, and what the driver does next from there: fire the state's trigger (or a guarded one
tried before it, when its guard allows), or in an I/O state await what the state names (the
backend's exchange, the completions of a call that asked for several) and fire the trigger its
outcome names. Its transitions come happy path first, then the ways out; `work` is the pure
function of `states/` that a transition runs before the state changes, `guard` decides whether
it is taken. If the work raises, the state stays where it was and the driver takes the way out
the table names for that kind of failure. Every way a call can go is a row: nothing beside the
table decides a path. Everything else here (`STATES`, `INITIAL`, `TERMINAL`, `STATE`, the lookup
`fire` uses) is derived from the table, and checked as it is derived.

`fire` moves a record through that lookup, not through a `transitions.Machine` (why, with the
measured cost: benchmarks/README.md, "The call machine"). transitions earns its place where it
costs a call nothing: `engine/checked.py` builds a `transitions.Machine` from this same table and
checks it against the lookup, in the tests and in `make docs` before the diagram is drawn. No
machine is built at import. Nothing here asks which era a call runs on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from agent_as_model.errors import NOTHING_SENT
from agent_as_model.records import Record
from agent_as_model.states.admission import must_admit, take_admission
from agent_as_model.states.build import build_payload_for
from agent_as_model.states.call import CallRecord
from agent_as_model.states.choices import asks_several, split_choices, take_asked
from agent_as_model.states.commit import commit_choices, commit_result
from agent_as_model.states.interpret import checks_output, interpret_answer, take_answer
from agent_as_model.states.recall import remember_read
from agent_as_model.states.repair import ask_again, may_repair
from agent_as_model.states.resume import (
    proven_as_read,
    proven_retry,
    repair_replayed,
    replays_round,
    resume_as_read,
    resume_call,
    resumes_off_loop,
    take_bound_answer,
    take_replayed,
)
from agent_as_model.states.stored import (
    carries_stored,
    commit_stamped,
    continue_carried,
    continue_stored,
    keeps_responses,
    plan_store,
    reads_stored,
    stamps_response,
    stores_response,
    take_fetched,
    take_kept,
    validate_continued,
    warn_unkept,
)
from agent_as_model.states.validate import (
    large_fetched,
    large_input,
    validate_call,
    validates_off_loop,
    wants_media,
)

Work = Callable[..., None]
Guard = Callable[..., bool]

# What a caller is told about the host, by where its call stopped (see State.host).
HOST = "The host"
MAY_HAVE_ASKED = "The host may have been asked."  # the backend may have failed before or after sending
ASKED = "The host was asked."
NOT_USED = "The host was asked; its answer was not used."


class State(Record):
    name: str
    # What a call that stops here tells its caller about the host. None: what the state the call
    # came from tells (a fault says nothing of its own about the host).
    host: str | None
    # What the driver does from here: fire `then`, unless one of the guarded triggers in `first`
    # is allowed (the first that is, in order); or, in an I/O state, await what `awaits` names
    # and fire the trigger its outcome names (`AWAITED`).
    then: str | None = None
    first: tuple[str, ...] = ()
    awaits: str | None = None
    # The guarded trigger the driver tries when the work of the trigger it fired raises a
    # CallError; when its guard says no, the call takes its way out.
    on_error: str | None = None
    terminal: bool = False


class Transition(Record):
    trigger: str
    source: str | tuple[str, ...]
    dest: str
    work: Work | None = None
    guard: Guard | None = None  # the transition is taken only when this says so
    # When this says so for a call, the driver runs the work in one of the server's worker
    # threads (`engine/offload.py`): it checks an instance against a caller's JSON Schema, or
    # reads a large conversation, bounded but long enough to hold up the other requests.
    off_loop: Guard | None = None


class WaysOut(Record):
    """How a failed step leaves the machine, by what failed: a CallError's kind, "capability"
    for MissingCapability. Anything else (our bug), or a way out that is not legal from where the
    call is (an error raised where it was not expected), takes `otherwise`."""

    by_failure: Mapping[str, str]
    otherwise: str


class Table(Record):
    states: tuple[State, ...]  # the first is where every call starts
    transitions: tuple[Transition, ...]
    ways_out: WaysOut


TABLE = Table(
    states=(
        # State(name, what a call that stops here tells its caller about the host, what the driver
        #       does next from here)
        State("received", NOTHING_SENT, then="validate", first=("admit", "plan_store", "resume")),
        # callers' limits (`serve --http` with [limits]): the caller's use counted, or the call
        # refused, before anything else is done for it
        State("awaiting_admission", NOTHING_SENT, awaits="admission"),
        State("admitted", NOTHING_SENT, then="validate", first=("plan_store",)),
        # stored responses (`serve --store`): which stored response the call continues, read
        # from the store (or carried by a 2026-07-28 retry's state) before the arguments are read
        State("store_planned", NOTHING_SENT, then="validate", first=("load", "carry", "resume")),
        State("awaiting_store_read", NOTHING_SENT, awaits="store_read"),
        State("continued", NOTHING_SENT, then="validate", first=("resume",)),
        State("validated", NOTHING_SENT, then="build", first=("fetch", "fan_out", "resume")),
        # remote media fetched for the call (`serve --fetch-media`), before anything is built
        State("awaiting_media", NOTHING_SENT, awaits="media"),
        State("payload_ready", NOTHING_SENT, then="dispatch"),
        State("awaiting_host", MAY_HAVE_ASKED, awaits="host"),
        State("answered", ASKED, then="interpret", on_error="repair"),
        State("interpreted", ASKED, then="commit", first=("keep", "stamp")),
        # the response kept under its id (`serve --store`)
        State("awaiting_store_write", ASKED, awaits="store_write"),
        # a 2026-07-28 retry proven by its sealed state: round one's reading, the state's answers
        State("resumed", ASKED, then="answer", first=("replay",)),
        State("replayed", ASKED, then="repair"),
        # several completions (`n`): each walks the machine on its own record, side by side
        State("awaiting_choices", MAY_HAVE_ASKED, awaits="choices"),
        State("chosen", ASKED, then="commit"),
        State("committed", ASKED, terminal=True),
        # the 2026-07-28 round trip: this request ends with the InputRequiredResult
        State("suspended", ASKED, terminal=True),
        State("rejected", NOTHING_SENT, terminal=True),
        State("violated", NOT_USED, terminal=True),
        State("faulted", None, terminal=True),
    ),
    transitions=(
        # Transition(trigger, source(s), dest, work, guard, off_loop)
        # a caller with limits is admitted first (a 2026-07-28 retry was, with its call's round
        # one): at a limit, refused with nothing sent
        Transition("admit", "received", "awaiting_admission", guard=must_admit),
        Transition("enter", "awaiting_admission", "admitted", take_admission),
        Transition(
            "validate",
            ("received", "admitted", "store_planned"),
            "validated",
            validate_call,
            off_loop=validates_off_loop,
        ),
        # remote media the reading met (`serve --fetch-media`): the one I/O this server does on a
        # caller's behalf, before anything is built; the fetched parts take the place of what
        # stood in for them in the request, the arguments not read again
        Transition("fetch", "validated", "awaiting_media", guard=wants_media),
        Transition("fetched", "awaiting_media", "validated", take_fetched, off_loop=large_fetched),
        # who serves the call, chosen from the parsed request (the era, the operator's provider),
        # then what it is sent
        Transition("build", "validated", "payload_ready", build_payload_for, off_loop=large_input),
        Transition("dispatch", "payload_ready", "awaiting_host"),
        # the backend answers: the host through sampling, or a provider (on 2026-07-28 the host's
        # answer comes with the call's retry, which resumes: below)
        Transition("answer", "awaiting_host", "answered", take_answer),
        # the modern era's round that asks: what it read is remembered for its retry
        Transition("suspend", "awaiting_host", "suspended", remember_read),
        Transition("interpret", "answered", "interpreted", interpret_answer, off_loop=checks_output),
        # an answer that broke the output contract: ask again with the error, while
        # repair_attempts allow
        Transition("repair", "answered", "awaiting_host", ask_again, guard=may_repair),
        Transition("commit", "interpreted", "committed", commit_result, off_loop=large_input),
        # stored responses (`serve --store`), for a product whose API keeps them: before anything
        # is read, which stored response the call continues and whether its own is kept; the
        # stored one read (or carried by a 2026-07-28 retry's state), its items leading the input
        # the arguments are then read with, once; after the answer, the response stamped with its
        # id and kept, or, when the store fails, returned with a warning
        Transition(
            "plan_store", ("received", "admitted"), "store_planned", plan_store, guard=keeps_responses
        ),
        Transition("load", "store_planned", "awaiting_store_read", guard=reads_stored),
        Transition("read", "awaiting_store_read", "continued", continue_stored),
        Transition("carry", "store_planned", "continued", continue_carried, guard=carries_stored),
        Transition("validate", "continued", "validated", validate_continued, off_loop=validates_off_loop),
        Transition(
            "keep",
            "interpreted",
            "awaiting_store_write",
            commit_stamped,
            guard=stores_response,
            off_loop=large_input,
        ),
        Transition("kept", "awaiting_store_write", "committed", take_kept),
        Transition("unkept", "awaiting_store_write", "committed", warn_unkept),
        Transition(
            "stamp", "interpreted", "committed", commit_stamped, guard=stamps_response, off_loop=large_input
        ),
        # a 2026-07-28 retry whose sealed state binds the host's answers to the payload these
        # arguments make: round one's reading (read again only when none is remembered), routed and
        # planned as round one was, no checks again, no payload; the answers from the state
        Transition(
            "resume",
            ("received", "store_planned", "continued"),
            "resumed",
            resume_call,
            guard=proven_retry,
            off_loop=resumes_off_loop,
        ),
        # ... proven once the arguments are read (fetched media), or one completion of several
        Transition(
            "resume", "validated", "resumed", resume_as_read, guard=proven_as_read, off_loop=large_input
        ),
        # a repair round's retry: each earlier round's answer and the repair it led to, again
        Transition("replay", "resumed", "replayed", take_replayed, guard=replays_round),
        Transition("repair", "replayed", "resumed", repair_replayed),
        Transition("answer", "resumed", "answered", take_bound_answer),
        # several independent completions (`n`): one record each, from here, walked side by side
        # (the arguments are read once); answered, they are joined into the product's object; on
        # 2026-07-28 the ones still to be answered go in one round
        Transition("fan_out", "validated", "awaiting_choices", split_choices, guard=asks_several),
        Transition("answer", "awaiting_choices", "chosen"),
        Transition("suspend", "awaiting_choices", "suspended", take_asked),
        Transition("commit", "chosen", "committed", commit_choices),
        # ways out: a caller error before anything was sent, a host contract violation after;
        # a completion of several that failed ends the call by the way out its own call took
        Transition(
            "reject",
            (
                "received",
                "awaiting_admission",
                "admitted",
                "store_planned",
                "awaiting_store_read",
                "continued",
                "validated",
                "awaiting_media",
                "payload_ready",
                "awaiting_choices",
            ),
            "rejected",
        ),
        Transition(
            "violate", ("awaiting_host", "resumed", "answered", "interpreted", "awaiting_choices"), "violated"
        ),
        # an internal fault in any live state (a bug of ours: logged, never shown to the client)
        Transition(
            "fault",
            (
                "received",
                "awaiting_admission",
                "admitted",
                "store_planned",
                "awaiting_store_read",
                "continued",
                "validated",
                "awaiting_media",
                "payload_ready",
                "awaiting_host",
                "resumed",
                "replayed",
                "answered",
                "interpreted",
                "awaiting_choices",
                "chosen",
                "awaiting_store_write",
            ),
            "faulted",
        ),
    ),
    ways_out=WaysOut({"caller": "reject", "capability": "reject", "host": "violate"}, otherwise="fault"),
)

# What the driver awaits in an I/O state, and the triggers its outcomes fire: the caller's
# admission (admitted: a refusal is a caller error, the way out), the backend's exchange (an
# answer, or on 2026-07-28 the round that asks), the completions of a call that asked for several
# (all answered, or some still to be asked), the stored response a call continues (read: a
# failure is a caller error, the way out), the response kept (or not), and the call's remote
# media (fetched: a failure is a caller error, the way out).
AWAITED: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "admission": ("enter",),
        "host": ("answer", "suspend"),
        "choices": ("answer", "suspend"),
        "store_read": ("read",),
        "store_write": ("kept", "unkept"),
        "media": ("fetched",),
    }
)


# Derived from the table, for the driver, the diagram and the tests.
STATES: tuple[str, ...] = tuple(state.name for state in TABLE.states)
INITIAL: str = STATES[0]
TERMINAL: frozenset[str] = frozenset(state.name for state in TABLE.states if state.terminal)
STATE: Mapping[str, State] = MappingProxyType({state.name: state for state in TABLE.states})


def sources(transition: Transition) -> tuple[str, ...]:
    source = transition.source
    return (source,) if isinstance(source, str) else source


Move = tuple[str, Guard | None, Work | None]  # dest, guard, work


class IllegalTrigger(Exception):
    """A trigger fired from a state the table gives no such transition (our bug, never a caller's)."""


def _compile(table: Table) -> dict[tuple[str, str], Move]:
    """{(trigger, source): (dest, guard, work)} from the table's rows, and the checks the driver
    relies on: each row names known states, one transition per trigger and state (`fire` takes
    the one it finds), a state is terminal exactly when nothing leaves it, each live state's next
    step (its `then`, each guarded trigger of `first`, or every outcome of what it awaits) and the
    catch-all way out are in the table."""
    moves: dict[tuple[str, str], Move] = {}
    names = {state.name for state in table.states}
    for row in table.transitions:
        if row.dest not in names or not set(sources(row)) <= names:
            raise ValueError(f"{row} names a state the table does not have")
        for source in sources(row):
            if (row.trigger, source) in moves:
                raise ValueError(f"two transitions for '{row.trigger}' from {source}")
            moves[row.trigger, source] = (row.dest, row.guard, row.work)
    for state in table.states:
        triggers = {trigger for trigger, source in moves if source == state.name}
        if state.terminal != (not triggers):
            raise ValueError(f"{state.name}: a state is terminal exactly when nothing leaves it")
        if state.terminal:
            continue
        steps = [trigger for trigger in (state.then, state.on_error, *state.first) if trigger is not None]
        awaits = state.awaits is not None
        if awaits:
            steps += AWAITED[state.awaits]  # type: ignore[index]  # not None, just checked
        if awaits == (state.then is not None) or not set(steps) <= triggers:
            raise ValueError(f"{state.name}: the driver's next step from here is not in the table")
        if any(moves[trigger, state.name][1] is None for trigger in state.first):
            raise ValueError(f"{state.name}: a trigger tried before `then` needs a guard")
        if (table.ways_out.otherwise, state.name) not in moves or state.host is None:
            raise ValueError(f"{state.name}: a live state needs the way out for anything and a text")
    return moves


# `fire` reads the dict itself: a read through the read-only view costs a call more per step.
_MOVES = _compile(TABLE)
MOVES: Mapping[tuple[str, str], Move] = MappingProxyType(_MOVES)
# The driver's next step from each live state that awaits nothing, in the order it tries them:
# (trigger, guard, off_loop) for each trigger of `first`, then `then`'s, unguarded. The driver
# fires the first whose guard allows it; `off_loop` says when its work leaves the event loop.
Step = tuple[str, Guard | None, Guard | None]
_OFF_LOOP = {(row.trigger, source): row.off_loop for row in TABLE.transitions for source in sources(row)}
# When the work of a trigger fired by what an I/O state awaited leaves the event loop, by
# (trigger, state): the fetched media's, when it is large.
OFF_LOOP: Mapping[tuple[str, str], Guard | None] = MappingProxyType(_OFF_LOOP)
STEPS: Mapping[str, tuple[Step, ...]] = MappingProxyType(
    {
        state.name: tuple(
            (
                trigger,
                _MOVES[trigger, state.name][1] if trigger != state.then else None,
                _OFF_LOOP[trigger, state.name],
            )
            for trigger in (*state.first, state.then)
        )
        for state in TABLE.states
        if state.then is not None
    }
)


def next_trigger(record: CallRecord, state: State) -> str:
    """The trigger the driver fires next from `state`, a live state that awaits nothing: the
    first guarded trigger of `first` whose guard allows it, else `then`."""
    for trigger, guard, _ in STEPS[state.name]:
        if guard is None or guard(record):
            return trigger
    raise AssertionError(f"{state.name}: `then` is tried last, unguarded")


def fire(record: CallRecord, trigger: str, *args: Any) -> bool:
    """Move a call record along the machine: the one way the driver changes a state.

    Exactly what the table uses: the source check (an illegal trigger raises `IllegalTrigger`
    and the state stays), the guard (False: not taken, the state stays), the work (if it raises,
    the state stays), the state change. transitions' own firing does more, none of which this
    table uses (hooks, event data, logging at each step), at a measured cost per call
    (benchmarks/README.md, "The call machine").
    """
    state = record.state
    move = _MOVES.get((trigger, state))
    if move is None:
        raise IllegalTrigger(f"can't trigger {trigger} from state {state}")
    dest, guard, work = move
    if guard is not None and not guard(record, *args):
        return False
    if work is not None:
        work(record, *args)
    record.state = dest
    return True


def way_out(state: str, failure: str) -> str | None:
    """The trigger that ends a call whose step failed in `state`, by what failed (a CallError's
    kind, "capability", anything else); None when the call has already ended."""
    if STATE[state].terminal:
        return None
    ways = TABLE.ways_out
    trigger = ways.by_failure.get(failure, ways.otherwise)
    return trigger if (trigger, state) in MOVES else ways.otherwise


def what_reached_host(left: str, now: str, who: str | None = None) -> str:
    """What a caller is told about the host when its call was in `left` and is now in `now`: what
    `now` tells, or for a state that tells nothing of its own (a fault), what `left` told.

    The table's texts name the host; a call served by another backend (a provider) names that
    one instead (`who`, e.g. "The provider openai (not the host)"), so the caller learns that the
    host was not asked."""
    text = STATE[now].host or STATE[left].host
    if text is None:
        raise ValueError(f"neither {left} nor {now} says what reached the host")
    if who is not None and text.startswith(HOST):
        return who + text[len(HOST) :]
    return text
