"""The call machine, driven by hypothesis through random event sequences.

Records are real `CallRecord`s moved by `fire`, the one way production moves them, with arguments
and a host answer that make every state's work succeed, so what is explored is the machine's
structure: which trigger is legal where and where it leads, exactly as `TABLE` says. Separate
properties break the work on purpose (the state must not move), and run `drive` to its end on
every outcome. No `transitions.Machine` exists while they run (`engine/checked.py` builds one
from the table only to check it), so no record can be left on one.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from mcp import MCPError
from mcp_types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CallToolResult,
    CreateMessageRequest,
    CreateMessageRequestParams,
    ImageContent,
    InputRequiredResult,
    TextContent,
)

from agent_as_model.adapters.backends.base import (
    HostAnswer,
    Replayed,
    Resumption,
    Route,
    SamplingSupport,
    Suspension,
)
from agent_as_model.adapters.callers import Ticket
from agent_as_model.adapters.dialects import DIALECTS, Dialect
from agent_as_model.adapters.dialects.media import IMAGE_TYPES, Fetched
from agent_as_model.engine import checked, machine
from agent_as_model.engine.driver import drive
from agent_as_model.engine.machine import INITIAL, STATES, TABLE, TERMINAL, IllegalTrigger, Transition
from agent_as_model.errors import CallError, MissingCapability, host_error
from agent_as_model.limits import FetchPolicy, Limits
from agent_as_model.neutral import Request
from agent_as_model.states.call import CallRecord
from property_tests.budget import budget
from property_tests.results import completion_text
from property_tests.strategies import TOOLS, texts
from tests.test_media import PNG64

VALID_ARGUMENTS: dict[str, dict[str, Any]] = {
    "chat_complete": {"messages": [{"role": "user", "content": "hi"}]},
    "messages_create": {"messages": [{"role": "user", "content": "hi"}]},
    "responses_create": {"input": "hi"},
    "generate": {"prompt": "hi"},
}
# For the walks over the table: chat_complete asks for structured output with repairs allowed,
# so the walks also take the guarded `repair` cycle.
WALK_ARGUMENTS: dict[str, dict[str, Any]] = {
    **VALID_ARGUMENTS,
    "chat_complete": {
        "messages": [{"role": "user", "content": "hi"}],
        "output_schema": {"type": "object"},
        "repair_attempts": 3,
    },
}
# Several completions of one call: the walks also take the `fan_out` rows.
SEVERAL: dict[str, Any] = {"messages": [{"role": "user", "content": "hi"}], "n": 2, "result": "object"}
INVALID_ARGUMENTS: dict[str, dict[str, Any]] = {
    "chat_complete": {"messages": []},
    "messages_create": {"messages": "hi"},
    "responses_create": {"input": 7},
    "generate": {"prompt": None},
}


def text_answer(text: str = "fine", role: str = "assistant") -> HostAnswer:
    return HostAnswer(
        role=role, blocks=(TextContent(type="text", text=text),), model="stand-in", stop_reason=None
    )


ANSWER = text_answer('{"fine": true}')  # valid JSON: it meets chat_complete's output contract too
REPAIRABLE = host_error("output_schema", "a repairable violation", repair="Your answer is wrong.")


def sources(row: Transition) -> tuple[str, ...]:
    return (row.source,) if isinstance(row.source, str) else row.source


GUARDS = {
    (row.trigger, source): row.guard
    for row in TABLE.transitions
    if row.guard is not None
    for source in sources(row)
}


def legal_moves() -> dict[str, dict[str, str]]:
    """state -> {trigger: dest}, read from TABLE; a trigger must lead to one place from a state."""
    moves: dict[str, dict[str, str]] = {state: {} for state in STATES}
    for row in TABLE.transitions:
        for source in sources(row):
            assert row.trigger not in moves[source], f"{row.trigger} is ambiguous from {source}"
            moves[source][row.trigger] = row.dest
    return moves


MOVES = legal_moves()
TRIGGERS = tuple(dict.fromkeys(row.trigger for row in TABLE.transitions))


def new_record(
    tool: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    sampling: bool = True,
    era: FakeEra | None = None,
    dialect: Dialect | None = None,
) -> CallRecord:
    """A record routed to `era` (a stand-in that answers ANSWER when none is given)."""
    chosen = VALID_ARGUMENTS[tool] if arguments is None else arguments
    route = Route(era or FakeEra(ANSWER), SamplingSupport(declared=sampling))
    return CallRecord(dialect or DIALECTS[tool], chosen, route)


# What `suspend` is handed: the round's InputRequiredResult and the call's identity its state carries.
SUSPENSION = Suspension(InputRequiredResult(input_requests={}, request_state="{}"), "0" * 32)


# A stored response, as the store gives it back (`serve --store`): the input it answered and the
# Response object, whose output leads the next input with it.
STORED: dict[str, Any] = {
    "input": [{"role": "user", "content": "a"}],
    "response": {
        "output": [
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "b"}]}
        ]
    },
}
# What the driver's I/O hands each trigger its outcome fires, by what the state awaits.
AWAITED_OUTCOMES: dict[tuple[str, str], Any] = {
    ("host", "suspend"): SUSPENSION,
    ("choices", "answer"): None,
    ("choices", "suspend"): SUSPENSION.result,
    ("store_read", "read"): STORED,
    ("store_write", "kept"): None,
    ("store_write", "unkept"): "the store is down",
    ("admission", "enter"): Ticket("0" * 16, "alice"),
}


def trigger_args(state: str, trigger: str, answer: HostAnswer = ANSWER) -> tuple[Any, ...]:
    """What the driver hands a trigger it fires from `state`: in an I/O state, the outcome of
    what it awaited (the host's answer, the suspension whose round one's reading is kept for the
    retry, a stored response, ...); the state's `on_error` trigger, the error it repairs; nothing
    otherwise."""
    row = machine.STATE[state]
    if row.awaits is not None:
        return (AWAITED_OUTCOMES.get((row.awaits, trigger), answer),)
    return (REPAIRABLE,) if trigger == row.on_error else ()


def fire(record: CallRecord, trigger: str, answer: HostAnswer = ANSWER) -> bool:
    """The production path (`engine.machine.fire`), with the arguments the trigger takes. The
    completions of a call that asked for several are walked to their end first, as the driver
    walks them in `awaiting_choices` before it fires what they came to."""
    if record.state == "awaiting_choices":
        for choice in (c for c in record.choices if c.state == "validated"):
            for move in ("build", "dispatch", "answer", "interpret", "commit"):
                assert machine.fire(choice, move, *trigger_args(choice.state, move))
    return machine.fire(record, trigger, *trigger_args(record.state, trigger, answer))


@contextmanager
def walked(record: CallRecord) -> Iterator[CallRecord]:
    """The record for the block, moved only by `fire` as `drive` does; checks that it starts
    where the machine does."""
    assert record.state == INITIAL
    yield record


def step(record: CallRecord, trigger: str) -> None:
    """Fire one trigger and check it against TABLE: illegal ones raise and stay, legal ones move."""
    state = record.state
    dest = MOVES[state].get(trigger)
    if dest is None:
        with pytest.raises(IllegalTrigger):
            fire(record, trigger)
        assert record.state == state, f"illegal {trigger} moved {state} to {record.state}"
    else:
        guard = GUARDS.get((trigger, state))
        allowed = guard is None or guard(record, *trigger_args(state, trigger))
        assert fire(record, trigger) is allowed
        expected = dest if allowed else state  # a guard that says no leaves the state where it was
        assert record.state == expected, f"{trigger} from {state} went to {record.state}, expected {expected}"


# --------------------------------------------------------------------------------------------
# the table as a graph


def reachable(start: str) -> set[str]:
    seen = {start}
    queue = deque([start])
    while queue:
        for dest in MOVES[queue.popleft()].values():
            if dest not in seen:
                seen.add(dest)
                queue.append(dest)
    return seen


def test_table_names_only_known_states_and_the_machine_is_built_from_it() -> None:
    assert INITIAL in STATES and TERMINAL.issubset(STATES)
    for row in TABLE.transitions:
        assert row.dest in STATES and set(sources(row)) <= set(STATES), row
    built = checked.build_machine()
    for state in STATES:
        assert set(built.get_triggers(state)) == set(MOVES[state]), state
    checked.check()  # transitions' machine and the lookup `fire` uses take the same moves


def test_the_transitions_check_catches_a_lookup_that_differs_from_the_table() -> None:
    # One move left out, one sent elsewhere: transitions' machine of the table disagrees with both.
    (trigger, source), (dest, guard, work) = next(iter(machine.MOVES.items()))
    missing = {k: v for k, v in machine.MOVES.items() if k != (trigger, source)}
    with pytest.raises(ValueError, match=trigger):
        checked.check(TABLE, missing)
    elsewhere = {**machine.MOVES, (trigger, source): ("faulted", guard, work)}
    with pytest.raises(ValueError, match=trigger):
        checked.check(TABLE, elsewhere)


def test_nothing_leaves_a_terminal_state() -> None:
    for state in TERMINAL:
        assert MOVES[state] == {}, f"{state} is terminal but has {MOVES[state]}"


def test_every_state_is_reachable_and_every_live_state_can_finish() -> None:
    assert reachable(INITIAL) == set(STATES)
    for state in set(STATES) - TERMINAL:
        assert MOVES[state], f"{state} is a dead end that is not terminal"
        assert reachable(state) & TERMINAL, f"no terminal state is reachable from {state}"


# --------------------------------------------------------------------------------------------
# random sequences through the real machine


# Calls whose walks together take every row: the guards of some rows allow them only for such a
# call (several completions, ...). Each makes a fresh record that starts where the machine does.
SCENARIOS: dict[str, Callable[[], CallRecord]] = {
    "repairs": lambda: new_record("chat_complete", WALK_ARGUMENTS["chat_complete"]),
    "several": lambda: new_record("chat_complete", SEVERAL),
    # a 2026-07-28 retry its sealed state proves, and one of a repair round (round 0 replayed)
    "proven retry": lambda: proven_record(()),
    "proven repair": lambda: proven_record((Replayed(ANSWER, REPAIRABLE),)),
    # stored responses (`serve --store`): a call kept, one not kept, one continuing a stored
    # response read from the store, and the retry of one whose state carries it
    "stored": lambda: stored_record({"input": "hi"}),
    "not stored": lambda: stored_record({"input": "hi", "store": False}),
    "continued": lambda: stored_record({"input": "hi", "previous_response_id": RESP}),
    "carried": lambda: stored_record({"input": "hi", "previous_response_id": RESP}, STORED),
    # ... and the proven retries of those: of a call kept, of one continuing a stored response
    "stored proven retry": lambda: stored_record({"input": "hi"}, router=ProvingRouter(())),
    "carried proven retry": lambda: stored_record(
        {"input": "hi", "previous_response_id": RESP}, STORED, ProvingRouter(())
    ),
    # remote media the reading met, fetched in the machine's own state (`serve --fetch-media`)
    "fetches media": lambda: fetching_record(),
    # a retry proven only once its arguments are read, with the media they fetched
    "proven as read": lambda: CallRecord(
        FETCHING, VALID_ARGUMENTS["generate"], ProvingRouter((), media=True)
    ),
    # callers' limits (`serve --http` with [limits]): a call admitted first, one kept after its
    # admission, and a 2026-07-28 retry, admitted with its round one, which passes by
    "limited": lambda: limited(new_record("chat_complete", WALK_ARGUMENTS["chat_complete"])),
    "limited stored": lambda: limited(stored_record({"input": "hi"})),
    "limited proven retry": lambda: limited(proven_record(())),
}


def limited(record: CallRecord) -> CallRecord:
    """The record on a server whose callers have limits: the gate itself is the driver's to
    await, so the states see only that there is one."""
    record.gate = object()  # type: ignore[assignment]
    return record


RESP = "resp_" + "ab" * 16


def stored_record(
    arguments: dict[str, Any], carried: dict[str, Any] | None = None, router: Any = None
) -> CallRecord:
    """A responses_create record on a server that keeps responses: the store itself is the
    driver's to await, so the states see only that there is one."""
    route = router or Route(FakeEra(ANSWER), SamplingSupport(declared=True))
    store: Any = object()
    return CallRecord(DIALECTS["responses_create"], arguments, route, store=store, carried=carried)


class ProvingRouter:
    """The router of a 2026-07-28 retry whose sealed state binds the host's answers (`earlier`
    rounds replayed, then ANSWER), routed to a stand-in era that asks any later round."""

    def __init__(self, earlier: tuple[Replayed, ...], media: bool = False) -> None:
        self.resumption = Resumption("0" * 32, earlier, ANSWER)
        self.served = Route(FakeEra(SUSPENSION), SamplingSupport(declared=True))
        self.media = media  # the state binds fetched media: it proves nothing before they are

    def route(self, request: Request, proven: Resumption | None = None) -> Route:
        return self.served

    def proven(self, fetched: tuple[str, ...] = ()) -> Resumption | None:
        return self.resumption if bool(fetched) == self.media else None

    def continues(self) -> bool:
        return True

    def choices(self, n: int) -> list[ProvingRouter]:
        return [self] * n

    def suspend(self, suspended: list[InputRequiredResult | None]) -> InputRequiredResult:
        raise RuntimeError("one completion only")


def proven_record(earlier: tuple[Replayed, ...]) -> CallRecord:
    return CallRecord(DIALECTS["chat_complete"], WALK_ARGUMENTS["chat_complete"], ProvingRouter(earlier))


WAYS_OUT = frozenset(("reject", "violate", "fault"))


def driver_triggers(record: CallRecord) -> list[str]:
    """The triggers the driver may fire from where `record` stands: the state's next step (the
    first guarded trigger its guard allows, else `then`; or each outcome of what it awaits), its
    `on_error` trigger, and its ways out."""
    state = machine.STATE[record.state]
    if state.terminal:
        return []
    if state.awaits is not None:
        onward = list(machine.AWAITED[state.awaits])
    else:
        onward = [machine.next_trigger(record, state)]
    if state.on_error is not None:
        onward.append(state.on_error)
    return onward + sorted(WAYS_OUT & set(MOVES[record.state]))


def walks_of(scenario: str) -> tuple[dict[str, list[str]], set[tuple[str, str]]]:
    """state -> the triggers of a shortest walk the driver takes a real record of `scenario` to
    it, every guard on the way allowing it and every work succeeding (found by firing, not read
    off the graph); and the rows, (trigger, source), those walks take."""
    paths: dict[str, list[str]] = {INITIAL: []}
    taken: set[tuple[str, str]] = set()
    queue = deque([INITIAL])
    while queue:
        state = queue.popleft()
        here = SCENARIOS[scenario]()
        for move in paths[state]:
            assert fire(here, move)
        for trigger in driver_triggers(here):
            dest = MOVES[state][trigger]
            record = SCENARIOS[scenario]()
            for move in paths[state]:
                assert fire(record, move)
            moved = fire(record, trigger)  # every work succeeds on the way the driver takes
            if not moved or record.state != dest:
                continue
            taken.add((trigger, state))
            if dest not in paths:
                paths[dest] = [*paths[state], trigger]
                queue.append(dest)
    return paths, taken


@functools.cache
def all_walks() -> dict[str, tuple[dict[str, list[str]], set[tuple[str, str]]]]:
    return {scenario: walks_of(scenario) for scenario in SCENARIOS}


def walk_to(target: str) -> tuple[str, list[str]]:
    """The scenario and the triggers of the shortest real walk to `target` of any scenario."""
    walks = {scenario: paths for scenario, (paths, _) in all_walks().items()}
    found = [(len(paths[target]), scenario) for scenario, paths in walks.items() if target in paths]
    assert found, f"no scenario's call reaches {target}"
    scenario = min(found)[1]
    return scenario, walks[scenario][target]


def test_every_state_is_reached_by_a_real_walk() -> None:
    reached = set().union(*(paths for paths, _ in all_walks().values()))
    assert reached == set(STATES)


def test_every_row_is_taken_by_a_real_walk() -> None:
    """Each transition, from each of its sources, is fired on some kind of call and moves it
    where the table says: no row is there for a call that cannot go that way."""
    taken = set().union(*(rows for _, rows in all_walks().values()))
    rows = {(row.trigger, source) for row in TABLE.transitions for source in sources(row)}
    assert rows - taken == set()


@pytest.mark.parametrize("state", STATES)
def test_every_trigger_from_every_state_does_what_the_table_says(state: str) -> None:
    """The exhaustive version of the random walks below: small enough to enumerate."""
    scenario, path = walk_to(state)
    for trigger in TRIGGERS:
        with walked(SCENARIOS[scenario]()) as record:
            for move in path:
                fire(record, move)
            assert record.state == state
            step(record, trigger)


def any_or_legal(state: str) -> st.SearchStrategy[str]:
    """Any trigger at all, a legal one, or a legal one that does not end the call, a third of the
    time each: uniform random triggers would almost never get past the first few states."""
    legal = sorted(MOVES[state])
    onward = [trigger for trigger in legal if MOVES[state][trigger] not in TERMINAL]
    choices = [st.sampled_from(TRIGGERS)] + [st.sampled_from(ts) for ts in (legal, onward) if ts]
    return st.one_of(choices)


@budget(200)
@given(tool=st.sampled_from(TOOLS), length=st.integers(0, 25), data=st.data())
def test_random_triggers_follow_the_table(tool: str, length: int, data: st.DataObject) -> None:
    with walked(new_record(tool, WALK_ARGUMENTS[tool])) as record:
        for _ in range(length):
            step(record, data.draw(any_or_legal(record.state), label=record.state))


@budget(100)
@given(scenario=st.sampled_from(sorted(SCENARIOS)), length=st.integers(0, 25), data=st.data())
def test_random_triggers_follow_the_table_on_every_kind_of_call(
    scenario: str, length: int, data: st.DataObject
) -> None:
    with walked(SCENARIOS[scenario]()) as record:
        for _ in range(length):
            step(record, data.draw(any_or_legal(record.state), label=record.state))


def moving(record: CallRecord) -> list[str]:
    """The legal triggers from where `record` stands that move it: a guarded one whose guard
    says no for this call (a store, a retry, a caller's limits it does not have) leaves it there."""
    state = record.state
    return [
        trigger
        for trigger in sorted(MOVES[state])
        if (guard := GUARDS.get((trigger, state))) is None or guard(record, *trigger_args(state, trigger))
    ]


@budget(200)
@given(tool=st.sampled_from(TOOLS), data=st.data())
def test_a_legal_walk_ends_in_a_terminal_state_that_refuses_everything(
    tool: str, data: st.DataObject
) -> None:
    with walked(new_record(tool, WALK_ARGUMENTS[tool])) as record:
        for _ in range(4 * len(STATES)):  # the repair cycle is bounded by repair_attempts
            if record.state in TERMINAL:
                break
            step(record, data.draw(st.sampled_from(moving(record)), label=record.state))
        assert record.state in TERMINAL, f"a legal walk stopped in {record.state}"
        for trigger in TRIGGERS:
            step(record, trigger)  # every one of them is illegal here, so each raises and stays


@dataclass(frozen=True)
class BrokenWork:
    """A legal trigger whose work fails, and the legal way out afterwards."""

    path: tuple[str, ...]  # the triggers that reach the failing one
    trigger: str
    error: type[Exception]
    way_out: str


def _bug(*args: object) -> Any:
    raise RuntimeError("a bug in a dialect")


class StandInDialect:
    """Reads and renders like `generate`, except where a test plants a bug: in its conversation
    reader (the dialect's own code the parse path runs) or in its renderer."""

    NAME = "generate"
    DESCRIPTION = "stand-in"
    INPUT_SCHEMA = DIALECTS["generate"].INPUT_SCHEMA
    body = DIALECTS["generate"].body
    tools = DIALECTS["generate"].tools
    render_object = DIALECTS["generate"].render_object
    describe = staticmethod(DIALECTS["generate"].describe)
    storage = DIALECTS["generate"].storage
    PRODUCT = DIALECTS["generate"].PRODUCT
    answers_media = False

    def __init__(
        self,
        *,
        read_conversation: Callable[..., None] | None = None,
        render: Callable[..., Any] | None = None,
    ):
        self.read_conversation = read_conversation or DIALECTS["generate"].read_conversation
        self.render = render or DIALECTS["generate"].render


FAULTY_PARSE: Dialect = StandInDialect(read_conversation=_bug)
FAULTY_RENDER: Dialect = StandInDialect(render=_bug)


def _with_fetched_media(args: Mapping[str, Any], turns: Any) -> None:
    DIALECTS["generate"].read_conversation(args, turns)
    turns.fetched_digests.append("0" * 64)


# Reads as if the arguments' media had been fetched (`serve --fetch-media`).
FETCHING: Dialect = StandInDialect(read_conversation=_with_fetched_media)


REMOTE = "https://images.example/pixel.png"


def _with_remote_media(args: Mapping[str, Any], turns: Any) -> None:
    DIALECTS["generate"].read_conversation(args, turns)
    turns.media(turns.remote(REMOTE, "prompt", IMAGE_TYPES), "prompt")


class FetchedOnAwait(dict[str, Fetched]):
    """What the driver will have fetched when `fetched` fires: nothing yet while the arguments
    are read, so the reading leaves a stand-in."""

    def get(self, key: str, default: Any = None) -> Any:
        return default


def fetching_record() -> CallRecord:
    route = Route(FakeEra(ANSWER), SamplingSupport(declared=True))
    record = CallRecord(
        StandInDialect(read_conversation=_with_remote_media),
        VALID_ARGUMENTS["generate"],
        route,
        Limits(fetch=FetchPolicy(enabled=True)),
    )
    record.fetched = FetchedOnAwait({REMOTE: Fetched("image/png", PNG64)})
    return record


def broken_work(tool: str, broken: str) -> tuple[CallRecord, HostAnswer, BrokenWork]:
    """A record whose `broken` work raises, the host answer it gets, and the plan around it."""
    if broken == "validate":
        plan = BrokenWork((), "validate", CallError, "reject")
        return new_record(tool, INVALID_ARGUMENTS[tool]), ANSWER, plan
    if broken == "build":
        plan = BrokenWork(("validate",), "build", MissingCapability, "reject")
        return new_record(tool, sampling=False), ANSWER, plan
    if broken == "interpret":
        plan = BrokenWork(("validate", "build", "dispatch", "answer"), "interpret", CallError, "violate")
        return new_record(tool), text_answer(role="user"), plan
    plan = BrokenWork(
        ("validate", "build", "dispatch", "answer", "interpret"), "commit", RuntimeError, "fault"
    )
    return new_record("generate", dialect=FAULTY_RENDER), ANSWER, plan


@budget(50)
@given(tool=st.sampled_from(TOOLS), broken=st.sampled_from(("validate", "build", "interpret", "commit")))
def test_work_that_raises_leaves_the_state_where_it_was(tool: str, broken: str) -> None:
    record, answer, plan = broken_work(tool, broken)
    with walked(record):
        for trigger in plan.path:
            fire(record, trigger, answer)
        state = record.state
        with pytest.raises(plan.error):
            fire(record, plan.trigger, answer)
        assert record.state == state
        step(record, plan.way_out)
        assert record.state in TERMINAL


class SharedMachine(RuleBasedStateMachine):
    """Several records are fired through the one lookup at once, interleaved: none disturbs
    another."""

    def __init__(self) -> None:
        super().__init__()
        self.live: list[CallRecord] = []
        self.expected: dict[int, str] = {}

    @rule(tool=st.sampled_from(TOOLS))
    def start(self, tool: str) -> None:
        record = new_record(tool)
        assert record.state == INITIAL
        self.live.append(record)
        self.expected[id(record)] = INITIAL

    @precondition(lambda self: self.live)
    @rule(pick=st.integers(min_value=0), trigger=st.sampled_from(TRIGGERS))
    def fire_one(self, pick: int, trigger: str) -> None:
        record = self.live[pick % len(self.live)]
        step(record, trigger)
        self.expected[id(record)] = record.state

    @precondition(lambda self: self.live)
    @rule(pick=st.integers(min_value=0))
    def drop(self, pick: int) -> None:
        self.live.pop(pick % len(self.live))

    @invariant()
    def each_record_is_where_it_was_moved(self) -> None:
        for record in self.live:
            assert record.state == self.expected[id(record)]


TestSharedMachine = SharedMachine.TestCase
TestSharedMachine.settings = budget(50, stateful_step_count=30)


# --------------------------------------------------------------------------------------------
# drive() runs to its end, whatever happens, and leaves nothing on the machine

FINAL_STATE = {
    "success": "committed",
    "suspended": "suspended",
    "caller error": "rejected",
    "no sampling": "rejected",
    "host violation": "violated",
    "host error": "violated",
    "fault before sending": "faulted",
    "fault in the era": "faulted",
    "fault after the answer": "faulted",
}
OUTCOMES = tuple(FINAL_STATE)
NOT_ASKED = ("caller error", "no sampling", "fault before sending")
TAILS = {
    "caller error": "Nothing was sent to the host.",
    "host violation": "The host was asked; its answer was not used.",
    "host error": "The host was asked; its answer was not used.",
    "fault before sending": "Nothing was sent to the host.",
    "fault in the era": "The host may have been asked.",  # the era may have failed before or after sending
    "fault after the answer": "The host was asked.",
}


class FakeEra:
    """The one I/O step, scripted: an answer, a suspension, or an exception. It yields to the event
    loop first, so concurrent drives interleave on the shared machine."""

    who = None  # the host

    def __init__(self, outcome: HostAnswer | Suspension | Exception) -> None:
        self.outcome = outcome
        self.asked: list[CreateMessageRequestParams] = []

    def source(self, model: str) -> str:
        return "host"

    def admit(self, payload: CreateMessageRequestParams) -> None:
        return None

    async def exchange(
        self, payload: CreateMessageRequestParams, round_no: int, findings: tuple[CallError, ...]
    ) -> HostAnswer | Suspension:
        self.asked.append(payload)
        await anyio.sleep(0)
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


@dataclass
class Drive:
    outcome: str
    record: CallRecord
    era: FakeEra
    text: str
    result: CallToolResult | InputRequiredResult | None = None
    raised: Exception | None = None


def plan_drive(tool: str, outcome: str, text: str) -> Drive:
    era = FakeEra(text_answer(text))
    arguments: Mapping[str, Any] | None = None
    dialect: Dialect | None = None
    sampling = True
    if outcome == "suspended":
        params = CreateMessageRequestParams(messages=[], max_tokens=1)
        era = FakeEra(
            Suspension(InputRequiredResult(input_requests={"k": CreateMessageRequest(params=params)}))
        )
    elif outcome == "caller error":
        arguments = INVALID_ARGUMENTS[tool]
    elif outcome == "host violation":
        image = ImageContent(type="image", data="aGk=", mime_type="image/png")
        era = FakeEra(HostAnswer(role="assistant", blocks=(image,), model="stand-in", stop_reason=None))
    elif outcome == "host error":
        era = FakeEra(host_error("sampling/createMessage", "the host answered with error -1: no"))
    elif outcome == "no sampling":
        sampling = False
    elif outcome == "fault before sending":
        tool, dialect = "generate", FAULTY_PARSE
    elif outcome == "fault in the era":
        era = FakeEra(RuntimeError("a bug in an era"))
    elif outcome == "fault after the answer":
        tool, dialect = "generate", FAULTY_RENDER
    record = new_record(tool, arguments, sampling=sampling, era=era, dialect=dialect)
    return Drive(outcome, record, era, text)


async def run_drive(planned: Drive) -> None:
    try:
        planned.result = await drive(planned.record)
    except MCPError as err:
        planned.raised = err


def check_drive(planned: Drive) -> None:
    record, outcome = planned.record, planned.outcome
    assert record.state == FINAL_STATE[outcome], f"{outcome}: ended in {record.state}"
    assert record.state in TERMINAL
    asked = len(planned.era.asked)
    assert asked == (0 if outcome in NOT_ASKED else 1), f"{outcome}: asked {asked} times"
    if outcome == "no sampling":
        assert isinstance(planned.raised, MCPError)
        assert planned.raised.error.code == MISSING_REQUIRED_CLIENT_CAPABILITY
        assert planned.raised.error.data == {"requiredCapabilities": {"sampling": {}}}
        return
    assert planned.raised is None
    if outcome == "suspended":
        assert isinstance(planned.result, InputRequiredResult)
        return
    assert isinstance(planned.result, CallToolResult)
    [content] = planned.result.content
    assert isinstance(content, TextContent)
    if outcome == "success":
        assert not planned.result.is_error
        assert completion_text(record.tool, planned.result) == planned.text
        return
    assert planned.result.is_error
    assert content.text.startswith(f"{record.tool}: ")
    assert content.text.endswith(TAILS[outcome]), content.text
    if outcome.startswith("fault"):
        assert "internal error" in content.text and "a bug" not in content.text  # no internals shown


@budget(60)
@given(tool=st.sampled_from(TOOLS), outcome=st.sampled_from(OUTCOMES), text=texts)
def test_drive_ends_every_outcome_where_the_table_says(tool: str, outcome: str, text: str) -> None:
    planned = plan_drive(tool, outcome, text)
    anyio.run(run_drive, planned)
    check_drive(planned)


async def run_concurrently(drives: list[Drive]) -> None:
    async with anyio.create_task_group() as group:
        for planned in drives:
            group.start_soon(run_drive, planned)


@budget(30)
@given(
    plans=st.lists(
        st.tuples(st.sampled_from(TOOLS), st.sampled_from(OUTCOMES), texts), min_size=1, max_size=12
    )
)
def test_concurrent_drives_share_the_machine_cleanly(plans: list[tuple[str, str, str]]) -> None:
    drives = [plan_drive(tool, outcome, text) for tool, outcome, text in plans]
    anyio.run(run_concurrently, drives)
    for planned in drives:
        check_drive(planned)
