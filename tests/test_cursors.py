"""Unit tests for the pure cursor functions (spec section 6); byte compatibility is in
test_cursor_vectors.py, the worked example of docs/cursors.md is checked at the bottom."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_as_model.adapters.dialects.common import text_result
from agent_as_model.cursors import (
    Previous,
    assistant_entry,
    canonical,
    entry,
    history_cut,
    mint,
    read_previous,
    result_cursor,
    tool_calls_text,
    tool_result_entry,
    verify,
)
from agent_as_model.errors import CallError
from agent_as_model.neutral import Completion, ToolUse
from agent_as_model.states.commit import tool_result

DOC = Path(__file__).parent.parent / "docs" / "cursors.md"
MODEL = "agent-default"
TOOL = "chat_complete"
CUR = "cur_" + "0123456789abcdef" * 4
RESP = "resp_" + "0123456789abcdef" * 2

History = list[dict[str, str]]
Change = Callable[[History], History]

TURN_1 = [entry("system", "Be terse."), entry("user", "Hi"), entry("assistant", "Hello.")]
TURN_2 = [*TURN_1, entry("user", "Name a colour."), entry("assistant", "Blue.")]


def reason_of(err: pytest.ExceptionInfo[CallError]) -> str:
    assert err.value.path == "previous_response_id"
    assert err.value.kind == "caller" and not err.value.sent
    return err.value.reason


# ---------------------------------------------------------------- canonical form and minting


def test_canonical_is_compact_sorted_ascii() -> None:
    assert canonical({"b": "é😀", "a": [1, "\x7f"]}) == '{"a":[1,"\\u007f"],"b":"\\u00e9\\ud83d\\ude00"}'


def test_mint_is_the_documented_formula() -> None:
    text = json.dumps(
        {"model": MODEL, "tool": TOOL, "transcript": TURN_1}, sort_keys=True, separators=(",", ":")
    )
    assert mint(MODEL, TOOL, TURN_1) == "cur_" + hashlib.sha256(text.encode()).hexdigest()
    assert re.fullmatch(r"cur_[0-9a-f]{64}", mint(MODEL, TOOL, TURN_1))


def test_mint_takes_any_sequence_and_does_not_keep_it() -> None:
    assert mint(MODEL, TOOL, tuple(TURN_1)) == mint(MODEL, TOOL, TURN_1)


def test_entries() -> None:
    assert entry("user", "x") == {"role": "user", "content": "x"}
    assert tool_result_entry("call_1", "42") == {"role": "tool", "tool_call_id": "call_1", "content": "42"}
    assert assistant_entry("plain") == {"role": "assistant", "content": "plain"}


def test_tool_calls_text_is_the_section_4_envelope() -> None:
    calls = [ToolUse("call_1", "get_weather", {"unit": "c", "city": "Paris"})]
    text = tool_calls_text("", calls)
    assert text == (
        '{"text": "", "tool_calls": [{"id": "call_1", "input": {"city": "Paris", "unit": "c"}, '
        '"name": "get_weather"}]}'
    )
    assert assistant_entry("", calls) == {"role": "assistant", "content": text}


def test_result_cursor_and_text() -> None:
    cursor = result_cursor(MODEL, TOOL, TURN_1[:-1], "Hello.")
    assert cursor == mint(MODEL, TOOL, TURN_1)
    rendered = text_result(Completion(text="Hello."), None, cursor)  # type: ignore[arg-type]
    text = tool_result(rendered).content[0].text  # type: ignore[union-attr]
    assert text == f'{{"completion": "Hello.", "response_id": "{cursor}"}}'


# ---------------------------------------------------------------- reading previous_response_id


def test_absent_and_null_turn_cursors_off() -> None:
    assert read_previous(None, TOOL) is None


@pytest.mark.parametrize(
    ("value", "form"),
    [("", "start"), (CUR, "continue"), (RESP, "anchor")],
    ids=["start", "continue", "anchor"],
)
def test_the_three_forms(value: str, form: str) -> None:
    assert read_previous(value, TOOL) == Previous(form, value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("cur_" + "A" * 64, "must be lowercase"),
        ("cur_" + "0" * 63, "has 64 hex digits, not 63"),
        ("cur_" + "0" * 65, "has 64 hex digits, not 65"),
        ("cur_" + "0" * 63 + "g", "holds only hex digits"),
        (CUR + "\n", "not 65"),
        ("resp_", "has letters and digits after the prefix"),
        ("resp_abc-def", "holds only letters and digits"),
        ("resp_" + "a" * 201, "at most 200 characters"),
        ("CUR_" + "0" * 64, "not one of the accepted forms"),
        (" " + CUR, "not one of the accepted forms"),
        ("chatcmpl-123", "not one of the accepted forms"),
        ("msg_01", "not one of the accepted forms"),
        ("cur_", "not 0"),
    ],
)
def test_malformed_strings_are_refused_naming_the_forms(value: str, says: str) -> None:
    with pytest.raises(CallError) as err:
        read_previous(value, TOOL)
    reason = reason_of(err)
    assert says in reason
    assert (
        '"" (start a chain)' in reason
        and '"cur_" + 64 lowercase hex' in reason
        and '"resp_" + letters and digits' in reason
    )
    assert ascii(value)[:40] in reason


@pytest.mark.parametrize(
    "value",
    [
        "resp_" + "0" * 31,
        "resp_" + "AB" * 16,
        # An id the Responses API minted: resp_ and 48 hex digits.
        "resp_68b5f3c1d2e0819aa3c1f4b2e5d6a7b80c9d8e7f6a5b4c3d",
        "resp_" + "a" * 200,
    ],
)
def test_any_responses_id_anchors_whoever_minted_it(value: str) -> None:
    assert read_previous(value, TOOL) == Previous("anchor", value)


@pytest.mark.parametrize(
    ("value", "kind"), [(0, "number"), (1.5, "number"), (True, "boolean"), ([CUR], "array"), ({}, "object")]
)
def test_non_strings_are_refused(value: object, kind: str) -> None:
    with pytest.raises(CallError) as err:
        read_previous(value, TOOL)
    assert reason_of(err).endswith(f"got {kind}")


def test_a_huge_value_is_not_echoed_whole() -> None:
    with pytest.raises(CallError) as err:
        read_previous("x" * 1_000_000, TOOL)
    assert len(reason_of(err)) < 600
    assert "(1000000 characters)" in reason_of(err)


def test_generate_refuses_a_cur_cursor_and_mints_from_empty() -> None:
    with pytest.raises(CallError) as err:
        read_previous(CUR, "generate", has_history=False)
    assert "no history channel" in reason_of(err) and 'pass ""' in reason_of(err)
    assert read_previous("", "generate") == Previous("start", "")
    assert read_previous(RESP, "generate") == Previous("anchor", RESP)
    assert read_previous(None, "generate") is None
    prompt = [entry("user", "Say hi.")]
    assert result_cursor(MODEL, "generate", prompt, "hi") == mint(
        MODEL, "generate", [*prompt, entry("assistant", "hi")]
    )


# ---------------------------------------------------------------- history cut


def test_history_cut_keeps_through_the_last_assistant_entry() -> None:
    after = [entry("user", "next"), tool_result_entry("c1", "r")]
    assert history_cut([*TURN_2, *after]) == TURN_2
    assert history_cut(TURN_2) == TURN_2
    assert history_cut([*TURN_1, entry("user", "again")]) == TURN_1


def test_history_cut_without_an_assistant_entry_is_empty() -> None:
    assert history_cut([]) == []
    assert history_cut([entry("system", "s"), entry("user", "u"), tool_result_entry("c", "x")]) == []


def test_history_cut_after_a_tool_call_turn_keeps_that_turn() -> None:
    calls_turn = assistant_entry("", [ToolUse("c1", "f", {})])
    history = [entry("user", "go"), calls_turn, tool_result_entry("c1", "done")]
    assert history_cut(history) == history[:2]


# ---------------------------------------------------------------- verification


def continue_with(history: History, cursor: str, *, model: str = MODEL, tool: str = TOOL) -> None:
    verify(read_previous(cursor, tool), model, tool, history)


def test_the_cursor_of_a_turn_verifies_against_its_history_plus_the_next_user_turn() -> None:
    cursor = result_cursor(MODEL, TOOL, TURN_1[:-1], TURN_1[-1]["content"])
    continue_with([*TURN_1, entry("user", "Name a colour.")], cursor)
    continue_with(TURN_1, cursor)


def test_start_anchor_and_off_verify_nothing() -> None:
    for previous in (None, Previous("start", ""), Previous("anchor", RESP)):
        verify(previous, MODEL, TOOL, [entry("user", "anything"), entry("assistant", "goes")])
        verify(previous, MODEL, TOOL, [])


@pytest.mark.parametrize(
    "change",
    [
        lambda h: [entry("system", "Be verbose."), *h[1:]],
        lambda h: [*h[:-1], entry("assistant", "Hello!")],
        lambda h: h[1:],
        lambda h: [h[1], h[0], h[2]],
        lambda h: [*h[:-1], entry("user", "extra"), h[-1]],
    ],
    ids=["edited system", "edited assistant", "dropped", "reordered", "added"],
)
def test_a_changed_history_fails_naming_expected_and_received(change: Change) -> None:
    cursor = mint(MODEL, TOOL, TURN_1)
    history = change(TURN_1)
    with pytest.raises(CallError) as err:
        continue_with([*history, entry("user", "next")], cursor)
    reason = reason_of(err)
    expected = mint(MODEL, TOOL, history_cut(history))
    assert f"expected {expected} " in reason
    assert f"received {cursor}." in reason
    assert reason.index("expected") < reason.index("received")


@pytest.mark.parametrize("position", [4, 35, 67])
def test_a_cursor_with_one_digit_changed_fails(position: int) -> None:
    cursor = mint(MODEL, TOOL, TURN_1)
    digit = "0" if cursor[position] != "0" else "1"
    forged = cursor[:position] + digit + cursor[position + 1 :]
    with pytest.raises(CallError) as err:
        continue_with(TURN_1, forged)
    assert f"expected {cursor} " in reason_of(err) and f"received {forged}." in reason_of(err)


def test_another_model_or_tool_fails() -> None:
    cursor = mint(MODEL, TOOL, TURN_1)
    with pytest.raises(CallError) as err:
        continue_with(TURN_1, cursor, model="gpt-4o")
    assert "model 'gpt-4o', tool chat_complete" in reason_of(err)
    with pytest.raises(CallError) as err:
        continue_with(TURN_1, cursor, tool="messages_create")
    assert f"expected {mint(MODEL, 'messages_create', TURN_1)}" in reason_of(err)


def test_a_cursor_with_no_assistant_entry_to_check_says_so() -> None:
    with pytest.raises(CallError) as err:
        continue_with([entry("system", "s"), entry("user", "u")], CUR)
    assert "has no assistant entry" in reason_of(err) and CUR in reason_of(err)


def test_forking_by_truncation() -> None:
    """Every turn's cursor still verifies after the later turns are dropped and a new one asked."""
    cursor_1 = mint(MODEL, TOOL, TURN_1)
    cursor_2 = mint(MODEL, TOOL, TURN_2)
    continue_with([*TURN_2, entry("user", "Another?")], cursor_2)
    continue_with([*TURN_1, entry("user", "A different question.")], cursor_1)
    # The later cursor does not verify the truncated history, nor the earlier one the full history.
    with pytest.raises(CallError):
        continue_with([*TURN_1, entry("user", "x")], cursor_2)
    with pytest.raises(CallError):
        continue_with([*TURN_2, entry("user", "x")], cursor_1)


def test_verification_of_a_long_history_is_fast() -> None:
    history = [entry("user" if i % 2 else "assistant", f"turn {i} é😀") for i in range(20_000)]
    cursor = mint(MODEL, TOOL, history_cut(history))
    continue_with(history, cursor)  # linear: well under a second for 20,000 entries


# ---------------------------------------------------------------- docs/cursors.md


def documented_examples() -> list[tuple[str, str]]:
    """Each `$ python -c '...'` block of docs/cursors.md with the output the doc shows for it."""
    blocks = re.findall(r"```console\n\$ (python -c .*?)\n(.*?)\n```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks, "docs/cursors.md lost its worked examples"
    return blocks


EXAMPLES = documented_examples()


@pytest.mark.parametrize(
    ("command", "output"), EXAMPLES, ids=[f"example {i + 1}" for i in range(len(EXAMPLES))]
)
def test_the_worked_examples_print_what_the_doc_shows(command: str, output: str) -> None:
    argv = shlex.split(command)
    assert argv[:2] == ["python", "-c"] and len(argv) == 3
    done = subprocess.run(
        [sys.executable, "-c", argv[2]], capture_output=True, text=True, encoding="utf-8", check=True
    )
    assert done.stdout.rstrip("\n") == output


def test_the_worked_example_agrees_with_mint() -> None:
    # The first example recomputes the cursor of this exchange; mint must give the same.
    (_, output), *_ = EXAMPLES
    transcript = [entry("user", "What is the capital of France?"), entry("assistant", "Paris.")]
    assert output == mint(MODEL, TOOL, transcript)


def test_the_documented_errors_are_current() -> None:
    doc = DOC.read_text(encoding="utf-8")
    cursor = "cur_5c443089e4792950f92b9c7f04bbf3188339e4aea93464a2fa91fce72bb4ea00"
    edited = [entry("user", "What is the capital of France?"), entry("assistant", "Paris!")]
    with pytest.raises(CallError) as err:
        continue_with([*edited, entry("user", "And of Spain?")], cursor)
    assert err.value.message(TOOL) in doc
    with pytest.raises(CallError) as err:
        read_previous(cursor.upper().replace("CUR_", "cur_"), TOOL)
    assert err.value.message(TOOL) in doc
