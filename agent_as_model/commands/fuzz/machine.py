"""The rule-based state machine that hypothesis drives: cursor chains, grown call by call.

Each example starts with no chains. Rules start a chain with `""`, continue one with its last
cursor (on any era asked for: the cursor is the same on both), branch one at an earlier answer,
anchor a new one at a `resp_` id, pass one back tampered with (expecting a refusal that names
expected and received and sent nothing to the host), and call `generate`, which mints but cannot
continue. The stand-in host answers with text, tool calls or structured output, as drawn; tool
calls come back in the next request as that dialect's tool turn, with results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from agent_as_model.commands.fuzz.checks import Expected, FuzzFailure, Logged, check
from agent_as_model.commands.fuzz.conversation import (
    GENERATE,
    HISTORY_TOOLS,
    Call,
    HostAnswer,
    Said,
    ToolTurn,
    Unit,
    generate_transcript,
    model_of,
    recomputed_previous,
    refusal_message,
    result_cursor,
    transcript,
)
from agent_as_model.commands.fuzz.render import render
from agent_as_model.commands.fuzz.session import Sessions, Unreachable

FORWARDED = ("get_weather", "lookup")
TOOL_DEFINITIONS = [
    {"name": name, "description": f"The {name} tool.", "input_schema": {"type": "object"}}
    for name in FORWARDED
]
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}

texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=8)
call_ids = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=8)
scalars = st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=8)
inputs = st.dictionaries(st.text(max_size=5), scalars | st.lists(scalars, max_size=2), max_size=3)
models = st.none() | st.sampled_from(("agent-default", "gpt-4o", "claude-sonnet-4")) | texts.filter(bool)
hex32 = st.text(alphabet="0123456789abcdef", min_size=32, max_size=32)


@st.composite
def tool_calls(draw: st.DrawFn) -> tuple[Call, ...]:
    ids = draw(st.lists(call_ids, min_size=1, max_size=2, unique=True))
    return tuple(Call(ident, draw(st.sampled_from(FORWARDED)), draw(inputs)) for ident in ids)


@st.composite
def host_answers(draw: st.DrawFn, structured: bool, tool_use: bool = True) -> HostAnswer:
    if structured:
        return HostAnswer("", structured={"answer": draw(texts)})
    calls = draw(st.just(()) | tool_calls()) if tool_use else ()
    return HostAnswer(draw(texts), calls)


@st.composite
def tool_turns(draw: st.DrawFn) -> ToolTurn:
    made = draw(tool_calls())
    return ToolTurn(draw(texts), made, tuple((c.id, draw(texts)) for c in made))


@st.composite
def openings(draw: st.DrawFn, tool_use: bool = True) -> list[Unit]:
    """A conversation to start from: an optional system text, earlier exchanges (plain or tool
    turns), and a user message."""
    units: list[Unit] = []
    if draw(st.booleans()):
        units.append(Said("system", draw(texts)))
    for _ in range(draw(st.integers(0, 2))):
        units.append(Said("user", draw(texts)))
        said = st.builds(Said, st.just("assistant"), texts)
        units.append(draw(said | tool_turns() if tool_use else said))
    units.append(Said("user", draw(texts)))
    return units


@dataclass
class Step:
    units: tuple[Unit, ...]  # the conversation through this step's answer, as the caller passes it back
    cursor: str


@dataclass
class Chain:
    tool: str
    model: str | None
    steps: list[Step] = field(default_factory=list)


@dataclass
class Counters:
    chains: int = 0
    calls: int = 0
    examples: int = 0
    tick: Callable[[], None] = lambda: None  # a progress display, told after every call


class ChainMachine(RuleBasedStateMachine):
    """Configured by `machine_for`; one instance per hypothesis example."""

    sessions: Sessions
    eras: Sequence[str]
    tools: Sequence[str]
    counters: Counters

    def __init__(self) -> None:
        super().__init__()
        self.chains: list[Chain] = []
        self.log: list[Logged] = []
        self.counters.examples += 1

    # -- the one way a call is made and judged -------------------------------------------------------

    def _call(
        self,
        rule: str,
        era: str,
        tool: str,
        arguments: dict[str, Any],
        answer: HostAnswer | None,
        expected: Expected,
    ) -> None:
        call = Logged(rule, era, tool, arguments, answer, expected)
        self.log.append(call)
        try:
            outcome = self.sessions.call(era, tool, arguments, answer)
        except Unreachable as err:
            raise FuzzFailure(f"{rule} ({tool} on {era}): {err}", list(self.log), unreachable=True) from err
        finally:
            self.counters.calls = self.sessions.made  # what reached the server, not answered from memory
            self.counters.tick()
        try:
            check(call, outcome)
        except FuzzFailure as failure:
            failure.log = list(self.log)
            raise

    def _advance(
        self, rule: str, chain: Chain, era: str, units: Sequence[Unit], previous: str, answer: HostAnswer
    ) -> None:
        """Send `units` with `previous`; the host answers; expect the oracle's cursor; grow the chain."""
        arguments = self._arguments(chain.tool, chain.model, units, previous, answer)
        cursor = result_cursor(chain.model, chain.tool, transcript(units), answer.completion())
        self._call(rule, era, chain.tool, arguments, answer, Expected(cursor, answer.completion()))
        chain.steps.append(Step((*units, answer.as_unit()), cursor))

    @staticmethod
    def _arguments(
        tool: str, model: str | None, units: Sequence[Unit], previous: str, answer: HostAnswer | None
    ) -> dict[str, Any]:
        arguments = {**render(tool, units), "previous_response_id": previous}
        if answer is not None and answer.structured is not None:
            arguments["output_schema"] = ANSWER_SCHEMA
        else:
            arguments["tools"] = TOOL_DEFINITIONS
        if model is not None:
            arguments["model"] = model
        return arguments


def machine_for(
    sessions: Sessions,
    eras: Sequence[str],
    tools: Sequence[str],
    counters: Counters,
    tool_turns: bool = True,
) -> type[ChainMachine]:
    """The machine class for one run: hypothesis makes one instance per example.

    The rules take their draws as arguments (not from `st.data()`), which is what lets hypothesis
    shrink a failure to its fewest calls; they are defined here because their strategies depend
    on the eras and tools asked for.
    """
    history_tools = [tool for tool in tools if tool in HISTORY_TOOLS]
    on_eras = st.sampled_from(list(eras))
    answers = st.booleans().flatmap(lambda structured: host_answers(structured, tool_turns))
    openings_drawn = openings(tool_turns)
    which = st.integers(0, 7)  # a chain, a step, a spot: taken modulo what there is
    follow_ups = st.tuples(st.lists(texts, min_size=2, max_size=2), texts, st.booleans())

    class CursorChains(ChainMachine):
        if history_tools:

            @rule(
                tool=st.sampled_from(history_tools),
                model=models,
                era=on_eras,
                units=openings_drawn,
                answer=answers,
            )
            def start_chain(
                self, tool: str, model: str | None, era: str, units: list[Unit], answer: HostAnswer
            ) -> None:
                chain = Chain(tool, model)
                self.counters.chains += 1
                self._advance("start", chain, era, units, "", answer)
                self.chains.append(chain)

            @precondition(lambda self: bool(self.chains))
            @rule(pick=which, era=on_eras, follow_up=follow_ups, answer=answers)
            def continue_chain(self, pick: int, era: str, follow_up: FollowUp, answer: HostAnswer) -> None:
                """Go on from the last cursor, on any era asked for: the cursor is the same on both."""
                chain = self.chains[pick % len(self.chains)]
                units = _follow_up(chain.steps[-1], follow_up)
                self._advance("continue", chain, era, units, chain.steps[-1].cursor, answer)

            @precondition(lambda self: any(len(chain.steps) > 1 for chain in self.chains))
            @rule(pick=which, at=which, era=on_eras, follow_up=follow_ups, answer=answers)
            def branch(self, pick: int, at: int, era: str, follow_up: FollowUp, answer: HostAnswer) -> None:
                """Cut the history after an earlier answer and go on from that answer's cursor."""
                long_enough = [c for c in self.chains if len(c.steps) > 1]
                chain = long_enough[pick % len(long_enough)]
                earlier = chain.steps[at % (len(chain.steps) - 1)]
                units = _follow_up(earlier, follow_up)
                chain.steps = chain.steps[: chain.steps.index(earlier) + 1]
                self._advance("branch", chain, era, units, earlier.cursor, answer)

            @rule(
                tool=st.sampled_from(history_tools),
                model=models,
                era=on_eras,
                units=openings_drawn,
                answer=answers,
                ident=hex32,
            )
            def anchor(
                self,
                tool: str,
                model: str | None,
                era: str,
                units: list[Unit],
                answer: HostAnswer,
                ident: str,
            ) -> None:
                """A `resp_` id starts a chain at the history passed: there is nothing to verify."""
                chain = Chain(tool, model)
                self.counters.chains += 1
                self._advance("anchor", chain, era, units, "resp_" + ident, answer)
                self.chains.append(chain)

            @precondition(lambda self: bool(self.chains))
            @rule(
                pick=which,
                era=on_eras,
                follow_up=follow_ups,
                kind=st.sampled_from(TAMPERINGS),
                spot=which,
                text=texts,
                model=models,
                other=st.sampled_from(history_tools),
            )
            def tamper(
                self,
                pick: int,
                era: str,
                follow_up: FollowUp,
                kind: str,
                spot: int,
                text: str,
                model: str | None,
                other: str,
            ) -> None:
                """Pass a chain's history back changed, with its last cursor: refused, nothing sent."""
                chain = self.chains[pick % len(self.chains)]
                received = chain.steps[-1].cursor
                units = _follow_up(chain.steps[-1], follow_up)
                tool, model = chain.tool, (model if kind == "model" else chain.model)
                if kind == "model" and model_of(model) == model_of(chain.model):
                    model = model_of(model) + "\u00b7"
                elif kind == "tool":
                    others = [t for t in history_tools if t != chain.tool]
                    if not others:
                        return
                    tool = others[history_tools.index(other) % len(others)]
                elif kind != "model":
                    changed = _tampered(units, kind, spot, text)
                    if changed is None:
                        return
                    units = changed
                entries = transcript(units)
                expected = recomputed_previous(model, tool, entries)
                if expected is None or expected == received:  # nothing the cursor commits to changed
                    return
                arguments = self._arguments(tool, model, units, received, None)
                message = refusal_message(model, tool, received, entries)
                refusal = Expected(refusal=message, names=(expected, received))
                self._call(f"tamper ({kind})", era, tool, arguments, None, refusal)

        if GENERATE in tools:

            @rule(
                prompt=texts,
                model=models,
                era=on_eras,
                answer=texts,
                previous=st.sampled_from(("", "anchor")),
            )
            def generate(self, prompt: str, model: str | None, era: str, answer: str, previous: str) -> None:
                """`generate` mints over the prompt and its completion (from `""` or a `resp_` id)."""
                given = "" if previous == "" else "resp_" + "0" * 32
                arguments: dict[str, Any] = {"prompt": prompt, "previous_response_id": given}
                if model is not None:
                    arguments["model"] = model
                host = HostAnswer(answer)
                cursor = result_cursor(model, GENERATE, generate_transcript(prompt), host.completion())
                self.counters.chains += 1
                self._call("generate", era, GENERATE, arguments, host, Expected(cursor, host.completion()))

            @rule(prompt=texts, era=on_eras, digits=hex32)
            def generate_cannot_continue(self, prompt: str, era: str, digits: str) -> None:
                """A `cur_` cursor on `generate` is refused: it has no history channel."""
                previous = "cur_" + digits * 2
                arguments = {"prompt": prompt, "previous_response_id": previous}
                message = refusal_message(None, GENERATE, previous, [], has_history=False)
                refusal = Expected(refusal=message, names=("previous_response_id",))
                self._call("generate with a cur_ cursor", era, GENERATE, arguments, None, refusal)

    CursorChains.sessions = sessions
    CursorChains.eras = list(eras)
    CursorChains.tools = list(tools)
    CursorChains.counters = counters
    return CursorChains


FollowUp = tuple[list[str], str, bool]  # tool results (taken in order), a question, ask it too?
TAMPERINGS = ("user", "assistant", "arguments", "result", "reorder", "model", "tool")


def _answered(step: Step, results: Sequence[str]) -> list[Unit]:
    """The conversation through a step, with the caller's results for its tool calls."""
    units = list(step.units)
    last = units[-1]
    if isinstance(last, ToolTurn) and not last.results:
        units[-1] = replace(
            last, results=tuple((c.id, text) for c, text in zip(last.calls, results, strict=False))
        )
    return units


def _follow_up(step: Step, follow_up: FollowUp) -> list[Unit]:
    """What a caller sends next: the results of the tools the model called and/or a question."""
    results, question, ask_too = follow_up
    units = _answered(step, results)
    if not isinstance(units[-1], ToolTurn) or ask_too:
        units.append(Said("user", question))
    return units


def _committed(units: list[Unit]) -> int:
    """The index of the last assistant unit: a change after it is outside the cursor's commitment."""
    return max(i for i, u in enumerate(units) if isinstance(u, ToolTurn) or u.role == "assistant")


def _tampered(units: list[Unit], kind: str, spot: int, text: str) -> list[Unit] | None:
    """The conversation with one thing changed inside what the last cursor commits to (through the
    last assistant unit), or None when that part holds nothing of the kind."""
    units = list(units)
    end = _committed(units) + 1
    if kind == "reorder":
        pairs = [
            i
            for i in range(end - 1)
            if isinstance(a := units[i], Said)
            and isinstance(b := units[i + 1], Said)
            and a != b
            and "system" not in (a.role, b.role)
        ]
        if not pairs:
            return None
        i = pairs[spot % len(pairs)]
        units[i], units[i + 1] = units[i + 1], units[i]
        return units
    if kind in ("user", "assistant"):
        spots = [
            i
            for i, u in enumerate(units[:end])
            if (isinstance(u, Said) and u.role == kind) or (kind == "assistant" and isinstance(u, ToolTurn))
        ]
        if not spots:
            return None
        i = spots[spot % len(spots)]
        old = units[i]
        units[i] = replace(old, text=text if text != old.text else old.text + "\u00b7")
        return units
    turns = [i for i, u in enumerate(units[:end]) if isinstance(u, ToolTurn) and u.results]
    if not turns:
        return None
    i = turns[spot % len(turns)]
    turn = units[i]
    assert isinstance(turn, ToolTurn)
    n = spot % len(turn.calls)
    if kind == "arguments":
        call = turn.calls[n]
        given = {**call.input, "tampered": not call.input.get("tampered", False)}
        units[i] = replace(turn, calls=(*turn.calls[:n], replace(call, input=given), *turn.calls[n + 1 :]))
    else:
        ident, old_text = turn.results[n]
        new = (ident, text if text != old_text else old_text + "\u00b7")
        units[i] = replace(turn, results=(*turn.results[:n], new, *turn.results[n + 1 :]))
    return units
