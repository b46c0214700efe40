"""Session cursors through the real server (spec section 6, docs/cursors.md), on both eras.

Every example drives the server in-process through the SDK `Client`, on legacy sampling and on
2026-07-28 MRTR, with a scripted host. The oracle is `cursor_oracle`, a reading of
docs/cursors.md that imports nothing from the server: every cursor the server returns must be
the one a caller recomputes from the request it sent, and every history the server refuses must
be refused naming the cursor the caller would recompute for it, before the host is asked.

The conversations (`conversations.py`) mix plain turns with tool turns in each dialect's native
shape, and vary what the docs say a cursor does not see (text as a string or as parts, null or
empty content beside tool calls, the spacing of `arguments`, `is_error`, ...). Each example
costs real round trips, so the budgets are small; `PROPERTY_SCALE` multiplies them.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, replace
from typing import Any

import anyio
import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st
from mcp import Client
from mcp_types import CallToolResult

from property_tests import cursor_oracle as oracle
from property_tests.budget import budget
from property_tests.conversations import (
    HISTORY_TOOLS,
    TOOL_DEFINITIONS,
    HostTurn,
    Said,
    ToolTurn,
    Unit,
    call_ids,
    committed,
    completion_of,
    continue_after,
    conversations,
    cursor_of,
    host_turns,
    inputs,
    last_assistant,
    models,
    render,
    roles_of,
    saids,
    tool_names,
    tool_turns,
    units,
    writing_of,
)
from property_tests.cursor_oracle import DEFAULT_MODEL, GENERATE, MESSAGES, RESPONSES
from property_tests.registry_cursors import written_tools
from property_tests.results import error_text
from property_tests.strategies import TOOLS, texts, valid_cases
from tests.helpers import text_of
from tests.scripted_host import ERAS, ScriptedHost, connect

NOTHING_SENT = "Nothing was sent to the host."
RESP_ID = re.compile(r"resp_[0-9a-f]{32}")
seeds = st.integers(0, 2**32 - 1)


def refusal(tool: str, result: CallToolResult) -> str:
    """The error text of a refused previous_response_id: it names the parameter and says that
    nothing reached the host."""
    text = error_text(result)
    assert text.startswith(f"{tool}: previous_response_id: "), text
    assert text.endswith(NOTHING_SENT), text
    return text


def expected_completion(turn: HostTurn) -> str:
    """What the caller must get back as the completion for this host answer (spec section 4)."""
    calls = [(c.id, c.name, c.input) for c in turn.calls]
    return oracle.envelope(turn.text, calls) if calls else turn.text


def first_request(
    tool: str, conversation: list[Unit], model: str | None, rnd: random.Random
) -> dict[str, Any]:
    """The request that starts a chain: tools forwarded, so the host may call them."""
    args = {**render(tool, conversation, rnd), "tools": TOOL_DEFINITIONS, "previous_response_id": ""}
    if model is not None:
        args["model"] = model
    return args


def next_cursor(tool: str, args: dict[str, Any], turn: HostTurn) -> str:
    """The cursor a caller recomputes for this request and the host's answer to it."""
    return oracle.next_cursor(tool, args, turn.text, [(c.id, c.name, c.input) for c in turn.calls])


# -- 1. chains: deterministic, equal across eras, and the cursors a caller recomputes ---------------------


@dataclass(frozen=True)
class Step:
    """One call of a chain: the request as sent, what came back, and the host answer behind it."""

    args: dict[str, Any]
    result: CallToolResult
    turn: HostTurn
    cursor: str


async def run_chain(
    client: Client,
    host: ScriptedHost,
    tool: str,
    args: dict[str, Any],
    turns: list[HostTurn],
    rnd: random.Random,
) -> list[Step]:
    """Call, pass the answer back as a caller would, call again; checking each cursor on the way."""
    steps: list[Step] = []
    for turn in turns:
        asked = host.asked
        result = await client.call_tool(tool, args)
        assert not result.is_error, text_of(result)
        assert host.asked == asked + 1
        completion = completion_of(tool, result)
        assert completion == expected_completion(turn)
        cursor = cursor_of(tool, result)
        assert cursor == next_cursor(tool, args, turn)
        steps.append(Step(args, result, turn, cursor))
        args = {**continue_after(tool, args, result, turn, rnd), "previous_response_id": cursor}
        # Passed back as received, the history's cut falls exactly on that answer.
        assert oracle.expected_previous(tool, args) == cursor
    return steps


async def chain_cursors(
    era: str, tool: str, start: list[Unit], turns: list[HostTurn], model: str | None, seed: int
) -> list[str]:
    host = ScriptedHost(*(turn.answer() for turn in turns))
    rnd = random.Random(seed)
    async with connect(era, host, tools=True) as client:
        steps = await run_chain(client, host, tool, first_request(tool, start, model, rnd), turns, rnd)
    return [step.cursor for step in steps]


@pytest.mark.parametrize("tool", HISTORY_TOOLS)
@budget(15)
@given(data=st.data())
def test_a_chain_returns_the_cursors_a_caller_recomputes_the_same_on_both_eras(
    tool: str, data: st.DataObject
) -> None:
    start = data.draw(conversations(tool, portable=False), label="conversation")
    turns = data.draw(st.lists(host_turns(), min_size=1, max_size=3), label="host answers")
    model = data.draw(st.none() | st.just(DEFAULT_MODEL) | models, label="model")
    seed = data.draw(seeds, label="seed")
    legacy, modern = (anyio.run(chain_cursors, era, tool, start, turns, model, seed) for era in ERAS)
    assert legacy == modern
    assert len(set(legacy)) == len(legacy)  # each turn commits to a longer history


@budget(15)
@given(prompt=texts, answer=texts, model=st.none() | models, previous=st.sampled_from(("", "anchor")))
def test_generate_mints_over_the_prompt_and_its_completion(
    prompt: str, answer: str, model: str | None, previous: str
) -> None:
    args: dict[str, Any] = {"prompt": prompt, "previous_response_id": previous}
    if previous == "anchor":
        args["previous_response_id"] = "resp_" + "0123456789abcdef" * 2
    if model is not None:
        args["model"] = model
    expected = oracle.mint(
        oracle.model_of(args),
        GENERATE,
        [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}],
    )

    async def on(era: str) -> str:
        host = ScriptedHost(answer)
        async with connect(era, host) as client:
            result = await client.call_tool(GENERATE, args)
            assert completion_of(GENERATE, result) == answer
            cursor = cursor_of(GENERATE, result)
            # generate has no history channel: its own cursor cannot continue it.
            again = await client.call_tool(GENERATE, {**args, "previous_response_id": cursor})
        assert "no history channel" in refusal(GENERATE, again)
        assert host.asked == 1
        return cursor

    assert [anyio.run(on, era) for era in ERAS] == [expected, expected]


# -- 2. any single change to a passed-back history is refused, naming expected and received -------------


@dataclass(frozen=True)
class History:
    """A history passed back with its cursor: committed units, then the caller's next turn."""

    tool: str
    units: list[Unit]
    tail: list[Unit]
    model: str | None

    def request(self, rnd: random.Random) -> dict[str, Any]:
        args = render(self.tool, [*self.units, *self.tail], rnd)
        if self.model is not None:
            args["model"] = self.model
        return args


@st.composite
def histories(draw: st.DrawFn, tool: str, portable: bool) -> History:
    body = draw(committed(tool, portable=portable))
    ends_with_results = isinstance(body[-1], ToolTurn)
    tail: list[Unit] = [] if ends_with_results and draw(st.booleans()) else [draw(saids(("user",)))]
    return History(tool, body, tail, draw(st.none() | st.just(DEFAULT_MODEL) | models))


def head(history: History) -> int:
    """Messages takes its system prompt only as a leading parameter: nothing moves before it."""
    first = history.units[0]
    return int(history.tool == MESSAGES and isinstance(first, Said) and first.role == "system")


def portable(history: History) -> bool:
    """Whether every dialect can write this history with the same transcript."""
    return all(
        isinstance(u, ToolTurn) or u.role in ("user", "assistant") or (i == 0 and u.role == "system")
        for i, u in enumerate(history.units)
    )


def unlike(text: str) -> str:
    """A text certainly different from `text`."""
    return text + "\u00b7"


def other_than(old: str, drawn: str) -> str:
    """The drawn text, or one certainly different from `old` when the draw gave `old` back (a
    filter would throw away the examples where hypothesis tries the same small text twice)."""
    return drawn if drawn != old else unlike(old)


@st.composite
def edited_unit(draw: st.DrawFn, history: History, index: int) -> Unit:
    """The unit at `index` with one thing in it changed."""
    unit = history.units[index]
    if isinstance(unit, Said):
        said = draw(saids((unit.role,)))
        return said if said.text != unit.text else said._replace(text=unlike(said.text))
    last = index == last_assistant(history.units)  # its results come after the cut
    what = draw(st.sampled_from(["text", "name", "input", "id"] + ([] if last else ["result"])))
    n = draw(st.integers(0, len(unit.calls) - 1))
    call = unit.calls[n]
    if what == "text":
        return unit._replace(text=other_than(unit.text, draw(texts)))
    if what == "result":
        k = draw(st.integers(0, len(unit.results) - 1))
        ident, old = unit.results[k]
        new = (ident, other_than(old, draw(texts)))
        return unit._replace(results=(*unit.results[:k], new, *unit.results[k + 1 :]))
    if what == "name":
        changed = call._replace(name=other_than(call.name, draw(tool_names)))
    elif what == "input":
        given = draw(inputs)
        if oracle.canonical(given) == oracle.canonical(call.input):
            given = {**given, "changed": not given.get("changed", False)}
        changed = call._replace(input=given)
    else:  # the call id, and its result's with it, so the turn stays answered
        taken = {c.id for c in unit.calls}
        ident = draw(call_ids)
        while ident in taken:
            ident = unlike(ident)
        changed = call._replace(id=ident)
        results = tuple((ident if r == call.id else r, text) for r, text in unit.results)
        unit = unit._replace(results=results)
    return unit._replace(calls=(*unit.calls[:n], changed, *unit.calls[n + 1 :]))


@st.composite
def changed(draw: st.DrawFn, history: History, can_port: bool) -> tuple[str, History]:
    """One change that the cut must see: inside the committed units, or an assistant turn added
    after them, or another model, or the same history passed to another tool."""
    tool, body = history.tool, list(history.units)
    k = last_assistant(body)
    first = head(history)
    said = [i for i in range(k + 1) if isinstance(body[i], Said)]
    kinds = (
        ["edit", "drop", "add", "model"]
        + (["role"] if said else [])
        + (["swap"] if k - first >= 1 else [])
        + (["tool", "tool"] if can_port else [])  # weighted: only portable histories can move
    )
    kind = draw(st.sampled_from(kinds))
    if kind == "edit":
        i = draw(st.integers(0, k))
        body[i] = draw(edited_unit(history, i))
    elif kind == "role":
        i = draw(st.sampled_from(said))
        old = body[i]
        assert isinstance(old, Said)
        allowed = roles_of(tool, portable=False) if i >= first else ("user", "assistant")
        body[i] = old._replace(role=draw(st.sampled_from([r for r in allowed if r != old.role])))
    elif kind == "drop":
        del body[draw(st.integers(0, k))]
    elif kind == "add":
        at = draw(st.integers(first, k + 1))
        # After the last assistant entry only another assistant turn is inside the commitment.
        body.insert(
            at, draw(units(tool, portable=False) if at <= k else (saids(("assistant",)) | tool_turns()))
        )
    elif kind == "swap":
        i, j = draw(st.lists(st.integers(first, k), min_size=2, max_size=2, unique=True))
        body[i], body[j] = body[j], body[i]
    elif kind == "model":
        now = history.model or DEFAULT_MODEL
        model = other_than(now, draw(st.just(DEFAULT_MODEL) | models))
        return kind, replace(history, model=None if model == DEFAULT_MODEL and draw(st.booleans()) else model)
    else:
        other = draw(st.sampled_from([t for t in HISTORY_TOOLS if t != tool]))
        return kind, replace(history, tool=other)
    # A request of system messages alone is refused for that, before its cursor is read.
    assume(any(isinstance(u, ToolTurn) or u.role in ("user", "assistant") for u in [*body, *history.tail]))
    return kind, replace(history, units=body)


async def passed_back(
    era: str, valid: dict[str, Any], tool: str, changed_args: dict[str, Any], changed_tool: str
) -> str:
    """The valid request is answered; the changed one is refused, and the host is not asked."""
    host = ScriptedHost("answered")
    async with connect(era, host, tools=True) as client:
        answered = await client.call_tool(tool, valid)
        assert not answered.is_error, text_of(answered)
        assert host.asked == 1
        refused = await client.call_tool(changed_tool, changed_args)
        assert host.asked == 1
    return refusal(changed_tool, refused)


@pytest.mark.parametrize("tool", HISTORY_TOOLS)
@budget(25)
@given(data=st.data())
def test_any_single_change_to_a_passed_back_history_is_refused_naming_expected_and_received(
    tool: str, data: st.DataObject
) -> None:
    history = data.draw(histories(tool, portable=data.draw(st.booleans(), label="portable")), label="history")
    seed = data.draw(seeds, label="seed")
    valid = history.request(random.Random(seed))
    cursor = oracle.expected_previous(tool, valid)
    assert cursor is not None
    valid["previous_response_id"] = cursor
    kind, other = data.draw(changed(history, portable(history)), label="change")
    event(f"change: {kind}")
    changed_args = {**other.request(random.Random(seed + 1)), "previous_response_id": cursor}
    if kind == "tool":  # an equivalent history: the same entries, another tool
        assert oracle.transcript(other.tool, changed_args) == oracle.transcript(tool, valid)
    expected = oracle.expected_previous(other.tool, changed_args)
    if kind == "swap":
        assume(expected != cursor)  # two units with the same entries
    assert expected != cursor, kind
    for era in ERAS:
        text = anyio.run(passed_back, era, valid, tool, changed_args, other.tool)
        if expected is None:  # the change left no assistant entry to verify against
            assert "no assistant entry" in text and cursor in text
        else:
            assert f"expected {expected} " in text and f"received {cursor}." in text, text


# -- 3. a history cut after an earlier answer forks with that answer's cursor ---------------------------


async def fork(
    era: str,
    tool: str,
    start: list[Unit],
    turns: list[HostTurn],
    at: int,
    branch: HostTurn,
    question: Said,
    seed: int,
) -> None:
    host = ScriptedHost(*(turn.answer() for turn in turns), branch.answer())
    rnd = random.Random(seed)
    async with connect(era, host, tools=True) as client:
        steps = await run_chain(client, host, tool, first_request(tool, start, None, rnd), turns, rnd)
        earlier, latest = steps[at], steps[-1]
        # The caller keeps the conversation through that answer and asks something else.
        cut = continue_after(
            tool, earlier.args, earlier.result, replace(earlier.turn, follow_up=question), rnd
        )
        asked = host.asked
        # The latest cursor commits to the longer history: it does not verify the cut one.
        refused = await client.call_tool(tool, {**cut, "previous_response_id": latest.cursor})
        text = refusal(tool, refused)
        assert f"expected {earlier.cursor} " in text and f"received {latest.cursor}." in text
        assert host.asked == asked
        forked = await client.call_tool(tool, {**cut, "previous_response_id": earlier.cursor})
        assert not forked.is_error, text_of(forked)
        assert host.asked == asked + 1
        completion = completion_of(tool, forked)
        assert completion == expected_completion(branch)
        assert cursor_of(tool, forked) == next_cursor(tool, cut, branch)


@pytest.mark.parametrize("tool", HISTORY_TOOLS)
@budget(15)
@given(data=st.data())
def test_a_history_cut_after_an_earlier_answer_forks_with_that_answers_cursor(
    tool: str, data: st.DataObject
) -> None:
    start = data.draw(conversations(tool, portable=False), label="conversation")
    turns = data.draw(st.lists(host_turns(), min_size=2, max_size=3), label="host answers")
    at = data.draw(st.integers(0, len(turns) - 2), label="fork after answer")
    branch = data.draw(host_turns(), label="branch answer")
    question = data.draw(saids(("user",)), label="new question")
    seed = data.draw(seeds, label="seed")
    for era in ERAS:
        anyio.run(fork, era, tool, start, turns, at, branch, question, seed)


# -- 4. resp_ ids anchor a new chain -------------------------------------------------------------------------


async def anchor(
    era: str, tool: str, start: list[Unit], first: HostTurn, other: Any, answer: str, seed: int
) -> None:
    host = ScriptedHost(first.answer(), answer)
    rnd = random.Random(seed)
    async with connect(era, host, tools=True) as client:
        opening = {**render(RESPONSES, start, rnd), "tools": TOOL_DEFINITIONS}
        off = await client.call_tool(RESPONSES, opening)
        ident = json.loads(text_of(off))["id"]
        assert RESP_ID.fullmatch(ident), ident  # cursors off: an opaque Responses id
        if tool == RESPONSES:  # the same conversation, continued
            args = continue_after(RESPONSES, opening, off, first, rnd)
        elif tool == GENERATE:
            args = {"prompt": other}
        else:
            args = render(tool, other, rnd)
        args["previous_response_id"] = ident
        anchored = await client.call_tool(tool, args)
        assert not anchored.is_error, text_of(anchored)
        assert host.asked == 2
    assert completion_of(tool, anchored) == answer
    assert cursor_of(tool, anchored) == oracle.next_cursor(tool, args, answer)


@pytest.mark.parametrize("tool", TOOLS)
@budget(12)
@given(data=st.data())
def test_a_resp_id_anchors_a_new_chain_at_the_history_passed(tool: str, data: st.DataObject) -> None:
    start = data.draw(conversations(RESPONSES, portable=False), label="opening conversation")
    first = data.draw(host_turns(), label="first answer")
    other = (
        data.draw(texts if tool == GENERATE else conversations(tool, portable=False), label="other")
        if tool != RESPONSES
        else None
    )
    answer = data.draw(texts, label="answer")
    seed = data.draw(seeds, label="seed")
    for era in ERAS:
        anyio.run(anchor, era, tool, start, first, other, answer, seed)


# -- 5. malformed cursors are refused before anything is sent ------------------------------------------------

HEX = "0123456789abcdef"
# A Responses id is taken whoever minted it: `resp_` and letters and digits, at most 200.
WELL_FORMED = re.compile(r"|cur_[0-9a-f]{64}|resp_[0-9A-Za-z]{1,200}")


def hex_digits(n: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=HEX, min_size=n, max_size=n)


@st.composite
def uppercased(draw: st.DrawFn) -> str:
    """A minted form with some of its hex letters in upper case."""
    prefix, digits = draw(st.sampled_from((("cur_", 64), ("resp_", 32))))
    tail = list(draw(hex_digits(digits)))
    letters = [i for i, c in enumerate(tail) if c in "abcdef"]
    assume(letters)
    for i in draw(st.lists(st.sampled_from(letters), min_size=1, unique=True)):
        tail[i] = tail[i].upper()
    return prefix + "".join(tail)


wrong_lengths = st.one_of(
    st.builds(lambda n, d: "cur_" + d[:n], st.integers(0, 80).filter(lambda n: n != 64), hex_digits(80)),
    st.builds(lambda n, d: "resp_" + d[:n], st.integers(0, 80).filter(lambda n: n != 32), hex_digits(80)),
)
wrong_prefixes = st.builds(
    lambda prefix, d: prefix + d,
    st.sampled_from(
        ("CUR_", "Cur_", "cur-", "cur", "cur__", "resp-", "RESP_", "chatcmpl-", "msg_", "cursor_", "_cur_")
    ),
    st.sampled_from((32, 64)).flatmap(hex_digits),
)
padded = st.builds(
    lambda pad, front, minted: pad + minted if front else minted + pad,
    st.sampled_from((" ", "\n", "\t", "\u00a0", "\x00")),
    st.booleans(),
    st.one_of(st.builds("cur_".__add__, hex_digits(64)), st.builds("resp_".__add__, hex_digits(32))),
)
not_hex = st.builds(
    lambda prefix, digits, at, char: prefix + digits[:at] + char + digits[at + 1 :],
    st.just("cur_"),
    hex_digits(64),
    st.integers(0, 63),
    st.characters(codec="utf-8").filter(lambda c: c not in HEX and c not in "ABCDEF"),
)
# A Responses id with a character that is not a letter or a digit, or longer than any id.
not_an_id = st.one_of(
    st.builds(
        lambda digits, at, char: "resp_" + digits[:at] + char + digits[at + 1 :],
        hex_digits(48),
        st.integers(0, 47),
        st.characters(codec="utf-8").filter(lambda c: not (c.isascii() and c.isalnum())),
    ),
    st.builds(lambda n, d: "resp_" + (d * 4)[:n], st.integers(201, 260), hex_digits(80)),
)
malformed_strings = (
    st.text(max_size=80) | uppercased() | wrong_lengths | wrong_prefixes | padded | not_hex | not_an_id
).filter(lambda value: not WELL_FORMED.fullmatch(value))
# JSON values only: the SDK client sends NaN and the infinities as null (cursors off).
non_strings = (
    st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
    | st.lists(st.text(max_size=4), max_size=2)
    | st.dictionaries(st.text(max_size=4), st.integers(), max_size=2)
)


def minimal(tool: str) -> dict[str, Any]:
    """A small valid request in the tool's own shape, written by its dialect's writing: a history
    with an assistant turn where the tool has one, else one user message."""
    units: list[Unit] = [Said("user", "Hi")]
    if writing_of(tool).roles != ("user",):
        units += [Said("assistant", "Hello."), Said("user", "Bye")]
    return render(tool, units, random.Random(0))


@pytest.mark.parametrize("tool", written_tools())
@budget(30)
@given(value=malformed_strings | non_strings)
def test_a_malformed_previous_response_id_is_refused_before_anything_is_sent(
    tool: str, value: object
) -> None:
    async def on(era: str) -> str:
        host = ScriptedHost("never")
        async with connect(era, host) as client:
            result = await client.call_tool(tool, {**minimal(tool), "previous_response_id": value})
        assert host.asked == 0
        return refusal(tool, result)

    for era in ERAS:
        text = anyio.run(on, era)
        # The accepted forms are named, so the caller can fix it.
        assert '"" (start a chain)' in text and '"cur_" + 64 lowercase hex digits' in text, text


@budget(10)
@given(digits=hex_digits(64))
def test_generate_refuses_a_cur_cursor_before_anything_is_sent(digits: str) -> None:
    async def on(era: str) -> str:
        host = ScriptedHost("never")
        async with connect(era, host) as client:
            result = await client.call_tool(
                GENERATE, {"prompt": "Hi", "previous_response_id": "cur_" + digits}
            )
        assert host.asked == 0
        return refusal(GENERATE, result)

    for era in ERAS:
        assert "no history channel" in anyio.run(on, era)


# -- 6. with cursors off every result keeps its default shape ------------------------------------------------


async def off_and_on(era: str, tool: str, args: dict[str, Any], turn: HostTurn, null: bool) -> None:
    host = ScriptedHost(turn.answer())
    async with connect(era, host, tools=True) as client:
        off = await client.call_tool(tool, {**args, "previous_response_id": None} if null else args)
        on = await client.call_tool(tool, {**args, "previous_response_id": ""})
    assert host.asked == 2
    text = text_of(off)
    if tool == RESPONSES:
        body = json.loads(text)
        assert RESP_ID.fullmatch(body["id"]) and off.structured_content == body
        with_cursor = json.loads(text_of(on))
        assert with_cursor["id"] == cursor_of(tool, on) != body["id"]
        assert _without_ids(with_cursor["output"]) == _without_ids(body["output"])
    elif turn.calls:  # the tool-call envelope, as text and as structuredContent
        assert text == expected_completion(turn) and off.structured_content == json.loads(text)
        assert completion_of(tool, on) == text
    else:  # the completion itself, no JSON around it
        assert text == turn.text and off.structured_content is None
        assert completion_of(tool, on) == text
    assert cursor_of(tool, on) == next_cursor(tool, args, turn)


def _without_ids(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Output items minus the random message id (a function_call's id derives from the host's)."""
    return [
        {k: v for k, v in item.items() if not (item["type"] == "message" and k == "id")} for item in output
    ]


@pytest.mark.parametrize("tool", TOOLS)
@budget(15)
@given(data=st.data(), null=st.booleans())
def test_with_cursors_off_results_keep_their_default_shape(
    tool: str, data: st.DataObject, null: bool
) -> None:
    case = data.draw(valid_cases(tool), label="request")
    if tool == GENERATE:
        turn = HostTurn(data.draw(texts, label="answer"), (), (), None)
        args = case.arguments
    else:
        turn = data.draw(host_turns(), label="answer")
        args = {**case.arguments, "tools": TOOL_DEFINITIONS}
    for era in ERAS:
        anyio.run(off_and_on, era, tool, args, turn, null)


# -- examples the generators do not reach --------------------------------------------------------------
# Units are atomic (`conversations.py`), so no generated chat history puts a message between two
# tool results of one turn; these pin down that such a message keeps its place in the transcript.


async def _first_cursor(era: str, tool: str, args: dict[str, Any], answer: str) -> str:
    async with connect(era, ScriptedHost(answer), tools=True) as client:
        result = await client.call_tool(tool, {**args, "previous_response_id": ""})
    return cursor_of(tool, result)


def _chat_calls(*ids: str) -> dict[str, Any]:
    calls = [{"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids]
    return {"role": "assistant", "content": None, "tool_calls": calls}


PLACED: dict[str, tuple[str, dict[str, Any]]] = {
    # "the messages as given, one entry each ... system messages stay where they are"
    "chat: a system message between two tool results": (
        "chat_complete",
        {
            "messages": [
                {"role": "user", "content": "go"},
                _chat_calls("c1", "c2"),
                {"role": "tool", "tool_call_id": "c1", "content": "r1"},
                {"role": "system", "content": "s"},
                {"role": "tool", "tool_call_id": "c2", "content": "r2"},
            ]
        },
    ),
    # function_call items join an assistant message item right before them, not one before a
    # system item: the calls are an assistant entry of their own after the system entry.
    "responses: a function_call after a system item": (
        "responses_create",
        {
            "input": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": "x"},
                {"role": "system", "content": "s"},
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": "r1"},
            ]
        },
    ),
}


@pytest.mark.parametrize("case", sorted(PLACED))
def test_a_system_message_keeps_its_place_among_tool_turns(case: str) -> None:
    tool, args = PLACED[case]
    expected = oracle.next_cursor(tool, args, "ok")
    assert [anyio.run(_first_cursor, era, tool, args, "ok") for era in ERAS] == [expected, expected]
