"""Session cursors at the pure level (spec section 6): a cursor verifies the history it was minted
over, through any later turns, and nothing else.

The oracle is the commitment itself: the continue form passes exactly when the history cut at its
last assistant entry, the model and the tool are the ones the cursor was minted over. Each
property changes one thing and checks the verdict.
"""

from __future__ import annotations

import copy
import json
import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.cursors import (
    Previous,
    canonical,
    entry,
    history_cut,
    mint,
    read_previous,
    result_cursor,
    tool_result_entry,
    verify,
)
from agent_as_model.errors import CallError
from property_tests.budget import budget

# The tool names a cursor commits to: the registry's (a tool with a history may be continued).
TOOLS = tuple(DIALECTS)
HISTORY_TOOLS = tuple(name for name, dialect in DIALECTS.items() if dialect.body.has_history)
ROLES = ("system", "developer", "user", "assistant")

Entry = dict[str, str]

# Text that stresses the canonical form: escapes, controls, BMP-high and astral characters.
# Lone surrogates are left out: the dialects refuse them before a transcript is built.
_TRICKY = ("é", "中", "😀", "𝄞", "\uffff", "\x00", "\x7f", "\n", '"', "\\", "\u2028")
texts = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(_TRICKY), max_size=16)
models = st.sampled_from(("agent-default", "gpt-4o", "claude-sonnet-4")) | texts.filter(bool)

plain_entries = st.builds(entry, st.sampled_from(ROLES), texts)
tool_entries = st.builds(tool_result_entry, texts, texts)
entries = plain_entries | tool_entries
not_assistant = st.builds(entry, st.sampled_from(("user", "system", "developer")), texts) | tool_entries


@st.composite
def transcripts(draw: st.DrawFn) -> list[Entry]:
    """A committed transcript: some entries, then the assistant entry a cursor is minted at."""
    return [*draw(st.lists(entries, max_size=8)), entry("assistant", draw(texts))]


def continue_with(cursor: str, model: str, tool: str, history: list[Entry]) -> None:
    verify(read_previous(cursor, tool), model, tool, history)


def refused(cursor: str, model: str, tool: str, history: list[Entry]) -> str:
    with pytest.raises(CallError) as err:
        continue_with(cursor, model, tool, history)
    assert err.value.path == "previous_response_id" and not err.value.sent
    return err.value.reason


@budget(60)
@given(model=models, tool=st.sampled_from(TOOLS), transcript=transcripts())
def test_minting_is_deterministic_and_well_formed(model: str, tool: str, transcript: list[Entry]) -> None:
    cursor = mint(model, tool, transcript)
    assert re.fullmatch(r"cur_[0-9a-f]{64}", cursor)
    assert mint(model, tool, copy.deepcopy(transcript)) == cursor
    assert mint(model, tool, tuple(transcript)) == cursor
    text = canonical({"model": model, "tool": tool, "transcript": transcript})
    assert text.isascii()
    assert json.loads(text) == {"model": model, "tool": tool, "transcript": transcript}
    assert read_previous(cursor, "chat_complete") == Previous("continue", cursor)


@budget(60)
@given(
    model=models,
    tool=st.sampled_from(HISTORY_TOOLS),
    transcript=transcripts(),
    tail=st.lists(not_assistant, max_size=4),
)
def test_a_cursor_verifies_its_history_with_any_later_non_assistant_entries(
    model: str, tool: str, transcript: list[Entry], tail: list[Entry]
) -> None:
    *history, answer = transcript
    cursor = result_cursor(model, tool, history, answer["content"])
    assert cursor == mint(model, tool, transcript)
    continue_with(cursor, model, tool, [*transcript, *tail])


@st.composite
def changed(draw: st.DrawFn, transcript: list[Entry]) -> tuple[str, list[Entry]]:
    """One change to a committed transcript that the cut must see."""
    n = len(transcript)
    kinds = ["edit content", "edit role", "drop", "add"] + (["swap"] if n > 1 else [])
    kind = draw(st.sampled_from(kinds))
    out = copy.deepcopy(transcript)
    if kind == "edit content":
        i = draw(st.integers(0, n - 1))
        out[i]["content"] = draw(texts.filter(lambda t: t != transcript[i]["content"]))
    elif kind == "edit role":
        i = draw(st.integers(0, n - 1))
        role = draw(st.sampled_from(ROLES).filter(lambda r: r != transcript[i]["role"]))
        out[i] = entry(role, out[i]["content"])
    elif kind == "drop":
        del out[draw(st.integers(0, n - 1))]
    elif kind == "add":
        # Anywhere before the last assistant entry, or an assistant entry after it: an entry of
        # another role after it is the next turn, outside the commitment (the other property).
        i = draw(st.integers(0, n))
        out.insert(i, draw(entries if i < n else st.builds(entry, st.just("assistant"), texts)))
    else:
        i, j = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
        assume(transcript[i] != transcript[j])
        out[i], out[j] = out[j], out[i]
    return kind, out


@budget(100)
@given(
    model=models,
    tool=st.sampled_from(HISTORY_TOOLS),
    data=st.data(),
    tail=st.lists(not_assistant, max_size=2),
)
def test_any_single_change_to_the_history_fails_naming_expected_and_received(
    model: str, tool: str, data: st.DataObject, tail: list[Entry]
) -> None:
    transcript = data.draw(transcripts(), label="transcript")
    cursor = mint(model, tool, transcript)
    kind, history = data.draw(changed(transcript), label="change")
    reason = refused(cursor, model, tool, [*history, *tail])
    cut = history_cut([*history, *tail])
    if cut:
        assert f"expected {mint(model, tool, cut)} " in reason, kind
        assert f"received {cursor}." in reason
    else:
        assert "no assistant entry" in reason and cursor in reason


@budget(60)
@given(
    model=models,
    tool=st.sampled_from(HISTORY_TOOLS),
    transcript=transcripts(),
    position=st.integers(4, 67),
    digit=st.sampled_from("0123456789abcdef"),
)
def test_a_cursor_with_any_digit_changed_fails(
    model: str, tool: str, transcript: list[Entry], position: int, digit: str
) -> None:
    cursor = mint(model, tool, transcript)
    assume(cursor[position] != digit)
    forged = cursor[:position] + digit + cursor[position + 1 :]
    reason = refused(forged, model, tool, transcript)
    assert f"expected {cursor} " in reason and f"received {forged}." in reason


@budget(60)
@given(
    model=models,
    tool=st.sampled_from(HISTORY_TOOLS),
    transcript=transcripts(),
    other_model=models,
    other_tool=st.sampled_from(HISTORY_TOOLS),
)
def test_another_model_or_tool_fails(
    model: str, tool: str, transcript: list[Entry], other_model: str, other_tool: str
) -> None:
    assume((model, tool) != (other_model, other_tool))
    cursor = mint(model, tool, transcript)
    reason = refused(cursor, other_model, other_tool, [*transcript, entry("user", "next")])
    assert f"expected {mint(other_model, other_tool, transcript)} " in reason


@budget(60)
@given(
    model=models,
    tool=st.sampled_from(HISTORY_TOOLS),
    turns=st.lists(st.tuples(st.lists(not_assistant, min_size=1, max_size=3), texts), min_size=1, max_size=5),
    fork=st.lists(not_assistant, max_size=2),
)
def test_truncating_at_any_turn_forks_with_that_turns_cursor(
    model: str, tool: str, turns: list[tuple[list[Entry], str]], fork: list[Entry]
) -> None:
    conversation: list[Entry] = []
    cursors = []
    for asked, answer in turns:
        cursors.append(result_cursor(model, tool, [*conversation, *asked], answer))
        conversation += [*asked, entry("assistant", answer)]
    ends = [i + 1 for i, e in enumerate(conversation) if e["role"] == "assistant"]
    for end, cursor in zip(ends, cursors, strict=True):
        continue_with(cursor, model, tool, [*conversation[:end], *fork])
    # An earlier turn's cursor does not verify the full conversation: its cut is longer.
    for cursor in cursors[:-1]:
        refused(cursor, model, tool, conversation)
