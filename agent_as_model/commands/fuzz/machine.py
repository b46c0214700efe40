"""The rule-based state machine that hypothesis drives: cursor chains, grown call by call.

Each example starts with one chain. Rules start a chain with `""`, continue one with its last
cursor (on any era asked for: the cursor is the same on both), branch one at an earlier answer,
anchor a new one at a `resp_` id, pass one back tampered with (a rule per kind of tampering,
expecting a refusal that names expected and received and sent nothing to the host), and call a
tool without a history (`generate`), which mints but cannot continue. The tools are the
registered dialects asked for (`render.fuzzable`), each written and read through its own
`writing`; a conversation drawn for a chain is kept to what that tool's product can write.
The stand-in host answers with text, tool calls or
structured output, as drawn; tool calls come back in the next request as that dialect's tool
turn, with results.

Every call is counted by the name of the rule that made it (`Counters.by_rule`), once it reaches
the server: the report lists them, so a rule the draws never reached shows as 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.commands.fuzz.checks import Expected, FuzzFailure, Logged, ServerLost, check
from agent_as_model.commands.fuzz.conversation import (
    Call,
    HostAnswer,
    Said,
    ToolTurn,
    Unit,
    model_of,
    recomputed_previous,
    refusal_message,
    result_cursor,
    transcript,
)
from agent_as_model.commands.fuzz.render import fit, has_history, render, takes, tool_definitions, writing
from agent_as_model.commands.fuzz.session import Sessions, Unreachable

FORWARDED = ("get_weather", "lookup")
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


# The rules, by the names the log and the report give them; a tampering is named by its kind.
START, CONTINUE, BRANCH, ANCHOR = "start", "continue", "branch", "anchor"
GENERATE_RULE, GENERATE_REFUSED = "generate", "generate with a cur_ cursor"
TAMPERINGS = ("user", "assistant", "arguments", "result", "reorder", "model", "tool")
ON_TOOL_TURNS = ("arguments", "result")  # a tool call's arguments, a tool result


def tamper_rule(kind: str) -> str:
    return f"tamper ({kind})"


def tamperings_for(history_tools: Sequence[str], tool_turns: bool) -> tuple[str, ...]:
    """The kinds of tampering a run can make: with no tool turns (asked for, or written by none
    of the tools) there are no tool calls to change, and passing a history to another tool takes
    two history tools."""
    with_turns = tool_turns and any(writing(tool).tool_turns for tool in history_tools)
    return tuple(
        kind
        for kind in TAMPERINGS
        if (with_turns or kind not in ON_TOOL_TURNS) and (len(history_tools) > 1 or kind != "tool")
    )


def split_tools(tools: Sequence[str]) -> tuple[list[str], list[str]]:
    """The tools that take a history a cursor continues, and those (a raw prompt) that do not."""
    return [t for t in tools if has_history(t)], [t for t in tools if not has_history(t)]


def rules_for(tools: Sequence[str], tool_turns: bool) -> list[str]:
    """Every rule a run on these tools can make, in the order the report lists them."""
    history_tools, one_shot = split_tools(tools)
    rules: list[str] = []
    if history_tools:
        rules += [START, CONTINUE, BRANCH, ANCHOR]
        rules += [tamper_rule(kind) for kind in tamperings_for(history_tools, tool_turns)]
    if one_shot:
        rules += [GENERATE_RULE, GENERATE_REFUSED]
    return rules


def fit_answer(tool: str, answer: HostAnswer) -> HostAnswer:
    """The host's answer as this tool can carry it on: no structured output where the tool takes
    no `output_schema`, no tool calls where its product writes no tool turns to pass them back."""
    if answer.structured is not None and not takes(tool, "output_schema"):
        return HostAnswer(answer.text)
    if answer.calls and not (writing(tool).tool_turns and DIALECTS[tool].tools is not None):
        return HostAnswer(answer.text)
    return answer


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
    """What a run did. Only calls that reached the server count: shrinking replays the first calls
    of an example many times over, and those are answered from memory (`Sessions`)."""

    chains: int = 0  # chains whose first call reached the server (start, anchor, generate)
    calls: int = 0
    examples: int = 0
    by_rule: dict[str, int] = field(default_factory=dict)  # calls per rule, a tampering by its kind
    tick: Callable[[], None] = lambda: None  # a progress display, told after every call

    def expect(self, rules: Sequence[str]) -> None:
        """The rules this run can make, so that one that never ran shows as 0 in the report."""
        for name in rules:
            self.by_rule.setdefault(name, 0)

    def reached(self, rule: str, starts_chain: bool) -> None:
        self.by_rule[rule] = self.by_rule.get(rule, 0) + 1
        self.chains += starts_chain


class ChainMachine(RuleBasedStateMachine):
    """Configured by `machine_for`; one instance per hypothesis example."""

    sessions: Sessions
    eras: Sequence[str]
    history_tools: Sequence[str]
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
        starts_chain: bool = False,
    ) -> None:
        call = Logged(rule, era, tool, arguments, answer, expected)
        self.log.append(call)
        made = self.sessions.made
        try:
            outcome = self.sessions.call(era, tool, arguments, answer)
        except Unreachable as err:
            raise ServerLost(f"{rule} ({tool} on {era}): {err}", list(self.log)) from err
        finally:
            if self.sessions.made > made:  # it reached the server, rather than being answered from memory
                self.counters.reached(rule, starts_chain)
            self.counters.calls = self.sessions.made
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
        units, answer = fit(chain.tool, units), fit_answer(chain.tool, answer)
        arguments = self._arguments(chain.tool, chain.model, units, previous, answer)
        cursor = result_cursor(chain.model, chain.tool, transcript(units), answer.completion())
        expected = Expected(cursor, answer.completion())
        self._call(rule, era, chain.tool, arguments, answer, expected, starts_chain=not chain.steps)
        chain.steps.append(Step((*units, answer.as_unit()), cursor))

    def _holds(self, chain: Chain, kind: str) -> bool:
        """Whether the chain's history holds something of this kind to tamper with."""
        return (
            _tampering(chain, list(chain.steps[-1].units), kind, 0, "", None, self.history_tools) is not None
        )

    def _tamper(
        self, kind: str, pick: int, era: str, follow_up: FollowUp, spot: int, text: str, model: str | None
    ) -> None:
        """Pass a chain's history back changed, with its last cursor: refused, nothing sent."""
        chains = [chain for chain in self.chains if self._holds(chain, kind)]
        chain = chains[pick % len(chains)]
        received = chain.steps[-1].cursor
        units = _follow_up(chain.steps[-1], follow_up)
        made = _tampering(chain, units, kind, spot, text, model, self.history_tools)
        if made is None:
            return
        tool, changed_model, changed = made
        entries = transcript(changed)
        expected = recomputed_previous(changed_model, tool, entries)
        if expected is None or expected == received:  # nothing the cursor commits to changed
            return
        arguments = self._arguments(tool, changed_model, changed, received, None)
        message = refusal_message(changed_model, tool, received, entries)
        refusal = Expected(refusal=message, names=(expected, received))
        self._call(tamper_rule(kind), era, tool, arguments, None, refusal)

    def _generate_refused(self, tool: str, prompt: str, era: str, previous: str) -> None:
        """A `cur_` cursor on a tool without a history is refused: nothing to verify it against."""
        arguments = {**render(tool, [Said("user", prompt)]), "previous_response_id": previous}
        message = refusal_message(None, tool, previous, [], has_history=False)
        refusal = Expected(refusal=message, names=("previous_response_id",))
        self._call(GENERATE_REFUSED, era, tool, arguments, None, refusal)

    @staticmethod
    def _arguments(
        tool: str, model: str | None, units: Sequence[Unit], previous: str, answer: HostAnswer | None
    ) -> dict[str, Any]:
        arguments = {**render(tool, units), "previous_response_id": previous}
        if answer is not None and answer.structured is not None:
            arguments["output_schema"] = ANSWER_SCHEMA
        elif (definitions := tool_definitions(tool, FORWARDED)) is not None:
            arguments["tools"] = definitions
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
    history_tools, one_shot = split_tools(tools)
    tamperings = tamperings_for(history_tools, tool_turns)
    counters.expect(rules_for(tools, tool_turns))
    on_eras = st.sampled_from(list(eras))
    answers = st.booleans().flatmap(lambda structured: host_answers(structured, tool_turns))
    openings_drawn = openings(tool_turns)
    which = st.integers(0, 7)  # a chain, a step, a spot: taken modulo what there is
    follow_ups = st.tuples(st.lists(texts, min_size=2, max_size=2), texts, st.booleans())

    def tampering(kind: str) -> Callable[..., None]:
        """The rule for one kind of tampering. A rule per kind, not one rule drawing the kind:
        hypothesis draws each rule about as often as any other, so each kind gets its share, and
        its precondition keeps it to examples with a chain that holds something of the kind."""

        def tamper(
            self: ChainMachine,
            pick: int,
            era: str,
            follow_up: FollowUp,
            spot: int,
            text: str,
            model: str | None,
        ) -> None:
            self._tamper(kind, pick, era, follow_up, spot, text, model)

        tamper.__name__ = tamper.__qualname__ = f"tamper_{kind}"  # hypothesis tells rules apart by name
        drawn = rule(pick=which, era=on_eras, follow_up=follow_ups, spot=which, text=texts, model=models)
        return precondition(lambda self: any(self._holds(chain, kind) for chain in self.chains))(
            drawn(tamper)
        )

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
                self._advance(START, chain, era, units, "", answer)
                self.chains.append(chain)

            @initialize(
                tool=st.sampled_from(history_tools),
                model=models,
                era=on_eras,
                units=openings_drawn,
                answer=answers,
            )
            def first_chain(
                self, tool: str, model: str | None, era: str, units: list[Unit], answer: HostAnswer
            ) -> None:
                """Every example starts with a chain. Hypothesis turns rules off at random for each
                example (swarm testing): in about a third of them both `start_chain` and `anchor`
                are off, and those would continue, branch and tamper with nothing."""
                self.start_chain(tool, model, era, units, answer)

            @precondition(lambda self: bool(self.chains))
            @rule(pick=which, back=which, era=on_eras, follow_up=follow_ups, answer=answers)
            def continue_chain(
                self, pick: int, back: int, era: str, follow_up: FollowUp, answer: HostAnswer
            ) -> None:
                """Go on from the cursor of one of a chain's answers (`back`, counted from the first):
                from its last, continue; from an earlier one, branch (the history cut after it). On
                any era asked for: the cursor is the same on both. One rule, not two: a branch needs
                a chain of two answers, which a rule of its own met only when drawn right after a
                continue (measured: no branch at all in some runs of 100 examples)."""
                chain = self.chains[pick % len(self.chains)]
                at = back % len(chain.steps)
                units = _follow_up(chain.steps[at], follow_up)
                name = CONTINUE if at == len(chain.steps) - 1 else BRANCH
                cursor = chain.steps[at].cursor
                chain.steps = chain.steps[: at + 1]
                self._advance(name, chain, era, units, cursor, answer)

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
                self._advance(ANCHOR, chain, era, units, "resp_" + ident, answer)
                self.chains.append(chain)

        if one_shot:

            @rule(
                tool=st.sampled_from(one_shot),
                prompt=texts,
                model=models,
                era=on_eras,
                answer=texts,
                previous=st.sampled_from(("", "resp_", "cur_")),
                digits=hex32,
            )
            def generate(
                self,
                tool: str,
                prompt: str,
                model: str | None,
                era: str,
                answer: str,
                previous: str,
                digits: str,
            ) -> None:
                """A tool without a history (`generate`) mints over the prompt and its completion,
                from `""` or a `resp_` id; a `cur_` cursor is refused, for it has no history
                channel. One rule, not two:
                hypothesis orders rules by how many arguments they take and draws the first the
                most; a `cur_` rule of its own (three arguments) came before `continue_chain`, and
                measured, that left branches and tool-turn tamperings out of whole runs."""
                if previous == "cur_":
                    self._generate_refused(tool, prompt, era, "cur_" + digits * 2)
                    return
                given = previous + digits if previous else ""
                asked = [Said("user", prompt)]
                arguments: dict[str, Any] = {**render(tool, asked), "previous_response_id": given}
                if model is not None:
                    arguments["model"] = model
                host = HostAnswer(answer)
                cursor = result_cursor(model, tool, transcript(asked), host.completion())
                expected = Expected(cursor, host.completion())
                self._call(GENERATE_RULE, era, tool, arguments, host, expected, starts_chain=True)

    for kind in tamperings:
        setattr(CursorChains, f"tamper_{kind}", tampering(kind))
    CursorChains.sessions = sessions
    CursorChains.eras = list(eras)
    CursorChains.history_tools = history_tools
    CursorChains.counters = counters
    return CursorChains


FollowUp = tuple[list[str], str, bool]  # tool results (taken in order), a question, ask it too?


def _tampering(
    chain: Chain,
    units: list[Unit],
    kind: str,
    spot: int,
    text: str,
    model: str | None,
    history_tools: Sequence[str],
) -> tuple[str, str | None, list[Unit]] | None:
    """The tool, model and conversation that a tampering of this kind passes back with the chain's
    last cursor, or None when the chain holds nothing of the kind."""
    if kind == "model":
        if model_of(model) == model_of(chain.model):
            model = model_of(model) + "\u00b7"
        return chain.tool, model, units
    if kind == "tool":
        others = [t for t in history_tools if t != chain.tool and writing(t).fits(units)]
        if not others:
            return None
        return others[spot % len(others)], chain.model, units
    changed = _tampered(units, kind, spot, text)
    return None if changed is None else (chain.tool, chain.model, changed)


def _answered(step: Step, results: Sequence[str]) -> list[Unit]:
    """The conversation through a step, with the caller's results for its tool calls."""
    units = list(step.units)
    last = units[-1]
    if isinstance(last, ToolTurn) and not last.results:
        units[-1] = last._replace(
            results=tuple((c.id, text) for c, text in zip(last.calls, results, strict=False))
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
        units[i] = old._replace(text=text if text != old.text else old.text + "\u00b7")
        return units
    # A tool call's arguments are in its turn's assistant entry; the results come after it, so
    # the last turn's results are outside the commitment (they arrived after its cursor).
    if kind == "arguments":
        turns = [i for i, u in enumerate(units[:end]) if isinstance(u, ToolTurn)]
    else:
        turns = [i for i, u in enumerate(units[: end - 1]) if isinstance(u, ToolTurn) and u.results]
    if not turns:
        return None
    i = turns[spot % len(turns)]
    turn = units[i]
    assert isinstance(turn, ToolTurn)
    n = spot % len(turn.calls)
    if kind == "arguments":
        call = turn.calls[n]
        given = {**call.input, "tampered": not call.input.get("tampered", False)}
        units[i] = turn._replace(calls=(*turn.calls[:n], call._replace(input=given), *turn.calls[n + 1 :]))
    else:
        ident, old_text = turn.results[n]
        new = (ident, text if text != old_text else old_text + "\u00b7")
        units[i] = turn._replace(results=(*turn.results[:n], new, *turn.results[n + 1 :]))
    return units
