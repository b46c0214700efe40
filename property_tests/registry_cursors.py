"""Cursor properties for any registered dialect, driven through its own `writing`.

Each property is made for one tool by a function here (`chains_hold`, `changes_are_refused`,
`one_shot_mints`), so `test_registry_cursors.py` runs them over the dialect registry and a test
with a dialect of its own (tests/test_extra_dialect.py) runs them for it with no other change.
The conversations are the neutral units of `adapters/dialects/writing.py`, kept to what the
dialect declares it can write; every request goes through the dialect's writer (varying the
spellings a cursor must not see) and every result through its reader. The oracle is
`cursor_oracle.units_transcript`, the docs' reading of those units, which imports nothing from
the server: the cursors a call returns must be the ones a caller recomputes from what it sent.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import anyio
from hypothesis import assume, event, given
from hypothesis import strategies as st

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.writing import Said, ToolTurn, Unit, Writing
from agent_as_model.commands.fuzz.render import tool_definitions
from property_tests import cursor_oracle as oracle
from property_tests.budget import budget
from property_tests.conversations import (
    FORWARDED,
    HostTurn,
    completion_of,
    cursor_of,
    host_turns,
    models,
    saids,
    tool_turns,
    writing_of,
)
from property_tests.results import error_text
from property_tests.strategies import texts
from tests.helpers import text_of
from tests.scripted_host import ERAS, ScriptedHost, connect

NOTHING_SENT = "Nothing was sent to the host."
seeds = st.integers(0, 2**32 - 1)


def written_tools() -> list[str]:
    """The registered tools that declare their writing, in listing order."""
    return [name for name, dialect in DIALECTS.items() if dialect.writing is not None]


def history_tools() -> list[str]:
    return [name for name in written_tools() if DIALECTS[name].body.has_history]


def one_shot_tools() -> list[str]:
    return [name for name in written_tools() if not DIALECTS[name].body.has_history]


def calls_tools(tool: str) -> bool:
    """Whether the host may call tools in this dialect and the caller pass the turn back."""
    return writing_of(tool).tool_turns and DIALECTS[tool].tools is not None


@st.composite
def openings(draw: st.DrawFn, writing: Writing) -> list[Unit]:
    """What a caller asks: a leading system message or not, earlier units, and the caller's turn
    last (a user message, or a tool turn with its results)."""
    units: list[Unit] = []
    if writing.leading_system and draw(st.booleans()):
        units.append(draw(saids(("system",))))
    earlier = saids(writing.roles) | tool_turns() if writing.tool_turns else saids(writing.roles)
    units += draw(st.lists(earlier, max_size=3))
    if not units or not isinstance(units[-1], ToolTurn) or draw(st.booleans()):
        units.append(draw(saids(("user",))))
    return units


def answered(turn: HostTurn, completion: str) -> list[Unit]:
    """The host's answer as the caller passes it back (its tool calls with their outputs), then
    the caller's follow-up, if any."""
    said: Unit = (
        ToolTurn(
            turn.text, turn.calls, tuple((c.id, out) for c, out in zip(turn.calls, turn.outputs, strict=True))
        )
        if turn.calls
        else Said("assistant", completion)
    )
    return [said] if turn.follow_up is None else [said, turn.follow_up]


def expected_completion(turn: HostTurn) -> str:
    calls = [(c.id, c.name, c.input) for c in turn.calls]
    return oracle.envelope(turn.text, calls) if calls else turn.text


def request(
    tool: str, units: list[Unit], model: str | None, previous: str, rnd: random.Random
) -> dict[str, Any]:
    args = {**writing_of(tool).write(units, rnd), "previous_response_id": previous}
    offered = tool_definitions(tool, FORWARDED)
    if offered is not None:
        args["tools"] = offered
    if model is not None:
        args["model"] = model
    return args


def model_of(model: str | None) -> str:
    return oracle.model_of({"model": model})


async def _chain(
    era: str, tool: str, start: list[Unit], turns: list[HostTurn], model: str | None, seed: int
) -> list[str]:
    host = ScriptedHost(*(turn.answer() for turn in turns))
    rnd = random.Random(seed)
    units, previous, cursors = list(start), "", []
    async with connect(era, host, tools=True) as client:
        for turn in turns:
            asked = host.asked
            result = await client.call_tool(tool, request(tool, units, model, previous, rnd))
            assert not result.is_error, text_of(result)
            assert host.asked == asked + 1
            completion = completion_of(tool, result)
            assert completion == expected_completion(turn)
            entries = [*oracle.units_transcript(units), oracle.completion_entry(completion)]
            previous = cursor_of(tool, result)
            assert previous == oracle.mint(model_of(model), tool, entries)
            cursors.append(previous)
            units += answered(turn, completion)
    return cursors


def chains_hold(tool: str) -> Callable[[], None]:
    """A chain (the answer passed back as received, with its cursor, call after call) returns the
    cursors a caller recomputes, the same on both eras."""
    writing = writing_of(tool)
    # Without tool turns to pass back, the host answers text and the caller asks again.
    text_turns = st.builds(HostTurn, texts, st.just(()), st.just(()), saids(("user",)))
    answers = host_turns() if calls_tools(tool) else text_turns

    @budget(10)
    @given(
        start=openings(writing),
        turns=st.lists(answers, min_size=1, max_size=3),
        model=st.none() | models,
        seed=seeds,
    )
    def prop(start: list[Unit], turns: list[HostTurn], model: str | None, seed: int) -> None:
        legacy, modern = (anyio.run(_chain, era, tool, start, turns, model, seed) for era in ERAS)
        assert legacy == modern
        assert len(set(legacy)) == len(legacy)  # each turn commits to a longer history

    return prop


@st.composite
def changes(draw: st.DrawFn, opening: list[Unit]) -> tuple[str, list[Unit], str | None]:
    """One change to the opening, which the answer after it puts inside the cursor's commitment:
    a unit's text edited, a unit dropped, or another model."""
    kind = draw(st.sampled_from(("edit", "drop", "model")))
    changed = list(opening)
    if kind == "model":
        drawn = draw(models)
        return kind, changed, drawn if drawn != model_of(None) else drawn + "\u00b7"
    at = draw(st.integers(0, len(opening) - 1))
    if kind == "drop":
        del changed[at]
    else:
        unit = changed[at]
        drawn = draw(texts)
        changed[at] = unit._replace(text=drawn if drawn != unit.text else unit.text + "\u00b7")
    return kind, changed, None


async def _refused(era: str, tool: str, units: list[Unit], turn: HostTurn, change: Any, seed: int) -> None:
    host = ScriptedHost(turn.answer())
    rnd = random.Random(seed)
    kind, changed, model = change
    async with connect(era, host, tools=True) as client:
        first = await client.call_tool(tool, request(tool, units, None, "", rnd))
        assert not first.is_error, text_of(first)
        cursor = cursor_of(tool, first)
        history = [*units, *answered(turn, completion_of(tool, first))]
        if isinstance(history[-1], Said) and history[-1].role == "assistant":
            history.append(Said("user", "next"))
        tampered = [*changed, *history[len(units) :]]
        cut = oracle.cut(oracle.units_transcript(tampered))
        expected = oracle.mint(model_of(model), tool, cut) if cut else None
        assume(expected != cursor)  # e.g. an edit that left the same entries
        refused = await client.call_tool(tool, request(tool, tampered, model, cursor, rnd))
        assert host.asked == 1  # the change was refused before anything was sent
    text = error_text(refused)
    assert text.startswith(f"{tool}: previous_response_id: ") and text.endswith(NOTHING_SENT), text
    if expected is None:
        assert "no assistant entry" in text and cursor in text, text
    else:
        assert f"expected {expected} " in text and f"received {cursor}." in text, text


def changes_are_refused(tool: str) -> Callable[[], None]:
    """The history passed back with one change inside its commitment (a message's text, a unit
    dropped, another model) is refused naming the expected and the received cursor, and the
    host is not asked, on both eras."""
    writing = writing_of(tool)

    @st.composite
    def cases(draw: st.DrawFn) -> tuple[list[Unit], HostTurn, Any]:
        units = draw(openings(writing))
        turn = draw(host_turns()) if calls_tools(tool) else HostTurn(draw(texts), (), (), None)
        change = draw(changes(units))
        event(f"change: {change[0]}")
        return units, turn, change

    @budget(10)
    @given(case=cases(), seed=seeds)
    def prop(case: tuple[list[Unit], HostTurn, Any], seed: int) -> None:
        units, turn, change = case
        # A history of system messages alone is refused for that, before its cursor is read.
        assume(any(isinstance(u, ToolTurn) or u.role != "system" for u in change[1]))
        for era in ERAS:
            anyio.run(_refused, era, tool, units, turn, change, seed)

    return prop


def one_shot_mints(tool: str) -> Callable[[], None]:
    """A tool without a history mints over its one user message and the completion, from `""`
    or a `resp_` id, and refuses its own `cur_` cursor before anything is sent."""

    @budget(10)
    @given(prompt=texts, answer=texts, model=st.none() | models, anchored=st.booleans())
    def prop(prompt: str, answer: str, model: str | None, anchored: bool) -> None:
        previous = "resp_" + "0123456789abcdef" * 2 if anchored else ""
        asked = [Said("user", prompt)]
        expected = oracle.mint(
            model_of(model), tool, oracle.units_transcript([*asked, Said("assistant", answer)])
        )

        async def on(era: str) -> str:
            host = ScriptedHost(answer)
            async with connect(era, host) as client:
                result = await client.call_tool(tool, request(tool, asked, model, previous, random.Random(0)))
                assert completion_of(tool, result) == answer
                cursor = cursor_of(tool, result)
                again = await client.call_tool(tool, request(tool, asked, model, cursor, random.Random(0)))
            assert host.asked == 1
            text = error_text(again)
            assert text.startswith(f"{tool}: previous_response_id: ") and text.endswith(NOTHING_SENT), text
            return cursor

        assert [anyio.run(on, era) for era in ERAS] == [expected, expected]

    return prop


__all__ = ["chains_hold", "changes_are_refused", "history_tools", "one_shot_mints", "one_shot_tools"]
