"""`agent-as-model fuzz`, over real stdio: it passes against this server on both eras,
and against deliberately broken servers (tests/broken_cursor_servers.py) it finds the failure,
shrinks it to at most three calls, and writes a recording that replays to the same divergence.

Every run uses a small --examples and a fixed --seed; the example counts are the budget, never a
clock. Each run starts a server per era, so these tests are the slow ones of this file's kind.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from agent_as_model.adapters.dialects.writing import Call, Said
from agent_as_model.commands.cli import main
from agent_as_model.commands.fuzz import MISSING_EXTRA
from agent_as_model.commands.fuzz.checks import Expected, Logged
from agent_as_model.commands.fuzz.conversation import HostAnswer, ToolTurn, Unit
from agent_as_model.commands.fuzz.machine import host_answers, openings, split_tools
from agent_as_model.commands.fuzz.recording import expect_in_recording
from agent_as_model.commands.fuzz.render import fuzzable, render
from agent_as_model.commands.fuzz.runner import Progress
from agent_as_model.commands.transcripts.command import DIVERGED, MATCHED, replay_file
from agent_as_model.commands.transcripts.fileformat import dump_record
from tests.broken_cursor_servers import ANSWERS_BEFORE_LOSS
from tests.helpers import ROOT

pytestmark = pytest.mark.stdio

BOTH = "legacy,2026-07-28"
SUMMARY = re.compile(r"^(?:incomplete \(the server was lost\): )?(\d+) chains, (\d+) calls, (\d+) failures$")
BY_RULE = "calls by rule: "
CHAIN = re.compile(r"The minimal chain \((\d+) calls?; the last one failed\)")
CURSOR = re.compile(r"cur_[0-9a-f]{64}")


def broken(mode: str) -> str:
    return f"{sys.executable} -m tests.broken_cursor_servers {mode}"


def fuzz(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["fuzz", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def summary(out: str) -> tuple[int, int, int]:
    match = SUMMARY.match(out.strip().splitlines()[-1])
    assert match, out
    chains, calls, failures = (int(n) for n in match.groups())
    return chains, calls, failures


@pytest.fixture(autouse=True)
def at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # `python -m tests.broken_cursor_servers` is found from here


def by_rule(out: str) -> dict[str, int]:
    """The report's `calls by rule: start 12, continue 9, ...` line, read back."""
    (line,) = [line for line in out.splitlines() if line.startswith(BY_RULE)]
    counts = (item.rsplit(" ", 1) for item in line.removeprefix(BY_RULE).split(", "))
    return {name: int(n) for name, n in counts}


# Every rule of a run on all four tools with tool turns, named here rather than taken from the
# fuzzer, so that a rule it stopped making (or stopped listing) fails the test too.
TAMPER_KINDS = ("user", "assistant", "arguments", "result", "reorder", "model", "tool")
EVERY_RULE = {
    "start",
    "continue",
    "branch",
    "anchor",
    *(f"tamper ({kind})" for kind in TAMPER_KINDS),
    "generate",
    "generate with a cur_ cursor",
}
STARTS_A_CHAIN = ("start", "anchor", "generate")


def test_it_passes_against_this_server_on_both_eras_and_every_rule_and_tampering_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # 100 examples (a few seconds): enough for every rule to reach the server under this seed; the
    # counts are the fuzzer's own, of calls that reached the server.
    status, out, err = fuzz(
        capsys, "--eras", BOTH, "--examples", "100", "--seed", "6", "--out", str(tmp_path)
    )
    chains, calls, failures = summary(out)
    assert (status, failures) == (0, 0), out + err
    assert not (tmp_path / "failure.jsonl").exists()
    counts = by_rule(out)
    assert set(counts) == EVERY_RULE, out
    assert [rule for rule, n in counts.items() if n == 0] == [], out
    # Each call counted once, under its rule; a chain only when its first call reached the server.
    assert sum(counts.values()) == calls, out
    assert chains == sum(counts[rule] for rule in STARTS_A_CHAIN), out


def wire(recording: Path) -> list[dict[str, Any]]:
    """The `tools/call` requests a recording holds, one per call (not the 2026-07-28 retries that
    carry the host's answer), as the server received them."""
    lines = recording.read_text(encoding="utf-8").split("\n")  # not splitlines(): texts hold U+2028
    records = [json.loads(line) for line in lines if line]
    frames = [r["frame"] for r in records if r.get("kind") == "frame" and r["dir"] == "c2s"]
    return [
        f["params"]
        for f in frames
        if f.get("method") == "tools/call" and "inputResponses" not in (f.get("params") or {})
    ]


@pytest.mark.parametrize(
    ("tools", "era"), [("generate", "legacy"), ("messages_create,responses_create", "2026-07-28")]
)
def test_only_the_tools_asked_for_are_called_and_the_last_line_counts_what_reached_the_server(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tools: str, era: str
) -> None:
    # The server runs behind the fuzzer's recording relay, so what it was sent is read off the wire,
    # not from the fuzzer's account of itself.
    recording = tmp_path / "wire.jsonl"
    relay = [sys.executable, "-m", "agent_as_model.commands.fuzz.tee", str(recording), "--"]
    against = shlex.join([*relay, sys.executable, "-m", "agent_as_model"])
    status, out, err = fuzz(
        capsys,
        "--against",
        against,
        "--eras",
        era,
        "--tools",
        tools,
        "--examples",
        "30",
        "--seed",
        "3",
        "--out",
        str(tmp_path / "out"),
    )
    assert status == 0, out + err
    sent = wire(recording)
    assert {params["name"] for params in sent} == set(tools.split(",")), out
    chains, calls, _ = summary(out)
    assert calls == len(sent), out
    previous = [params["arguments"]["previous_response_id"] for params in sent]
    assert chains == sum(1 for p in previous if p == "" or p.startswith("resp_")), out


# The era each broken server is fuzzed on, so that both eras meet a broken server.
BROKEN = [("separators", "legacy"), ("tampered", "2026-07-28"), ("tool-turn", BOTH), ("whole-turn", "legacy")]


@pytest.mark.parametrize(("mode", "eras"), BROKEN)
def test_it_finds_a_broken_server_shrinks_the_chain_and_records_a_replayable_divergence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mode: str, eras: str
) -> None:
    command = broken(mode)
    status, out, err = fuzz(
        capsys,
        "--against",
        command,
        "--eras",
        eras,
        "--examples",
        "25",  # enough draws that each broken rule meets a chain it breaks, whatever the tools list
        "--seed",
        "5",
        "--out",
        str(tmp_path),
    )
    assert status == 1, out + err
    assert summary(out)[2] == 1
    chain = CHAIN.search(out)
    assert chain and 1 <= int(chain.group(1)) <= 3, out
    problem = out.split("\n", 1)[0]
    report = (tmp_path / "failure.txt").read_text(encoding="utf-8")
    assert report.startswith(problem) and f"--against {shlex.quote(command)}" in report

    recording = tmp_path / "failure.jsonl"
    replayed = io.StringIO()
    assert replay_file(recording, against=command, out=replayed, err=io.StringIO()) == DIVERGED
    diff = replayed.getvalue()
    if "must be refused was answered" in problem:
        # The recorded frame is the refusal; the broken server asks the host and answers instead.
        assert "unexpected frame from the replayed server: server → host: sampling/createMessage" in diff or (
            "input_required" in diff
        ), diff
        assert re.search(
            r"^-.*previous_response_id: does not match .*Nothing was sent to the host\.", diff, re.M
        )
    else:
        expected, received = CURSOR.findall(problem.split("the cursor is ", 1)[1])[:2][::-1]
        assert re.search(rf"^-.*{expected}", diff, re.M) and re.search(rf"^\+.*{received}", diff, re.M), diff
    # The same file against a server that keeps the contract: every frame matches.
    assert replay_file(recording, out=io.StringIO(), err=io.StringIO()) == MATCHED


def test_a_rerun_starts_with_the_known_failures(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # Without --seed (hypothesis leaves its example database alone under a fixed seed). Any
    # cursor this server mints is wrong, so the first example fails.
    args = ["--against", broken("separators"), "--eras", "legacy", "--out", str(tmp_path)]
    first, out, _ = fuzz(capsys, *args, "--examples", "3")
    assert first == 1, out
    assert any(path.is_file() for path in (tmp_path / "examples").rglob("*")), "kept in the example database"
    again, out_again, _ = fuzz(capsys, *args, "--examples", "1")
    assert again == 1, out_again
    assert out_again.split("\n", 1)[0] == out.split("\n", 1)[0]  # the same minimal failure, at once
    assert summary(out_again)[1] <= summary(out)[1]


def test_a_server_that_cannot_be_started_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = fuzz(capsys, "--against", str(tmp_path / "no-such-server"), "--out", str(tmp_path))
    assert status == 2
    assert "cannot start" in err and "no-such-server" in err and "no such command" in err
    assert "nothing was fuzzed" in err
    assert out == ""  # no `0 chains, 0 calls, 0 failures`: it would read like a pass


def test_a_server_that_exits_at_once_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = fuzz(
        capsys, "--against", f"{sys.executable} -c pass", "--eras", "legacy", "--out", str(tmp_path)
    )
    assert status == 2, out + err
    assert "is not an MCP server: it ended without answering `initialize` on legacy" in err
    assert out == ""


@pytest.mark.parametrize(("mode", "why"), [("exits", "closed the connection"), ("stalls", "no answer to")])
def test_a_server_that_stops_answering_mid_run_exits_2_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mode: str, why: str
) -> None:
    # It answers a few calls, then exits or hangs in the middle of one: the run ends there, with
    # no shrinking (which would start it again and wait out the timeout, step after step).
    args = ["--against", broken(mode), "--eras", "legacy", "--examples", "50", "--seed", "1"]
    status, out, err = fuzz(capsys, *args, "--timeout", "2", "--out", str(tmp_path))
    assert status == 2, out + err
    assert why in err, err
    chains, calls, failures = summary(out)
    assert failures == 0 and calls > ANSWERS_BEFORE_LOSS, out  # it had been spoken to: a loss mid-run
    assert out.strip().splitlines()[-1].startswith("incomplete (the server was lost): "), out
    assert out.startswith("LOST: ") and "stopped answering during the last call" in out, out
    assert not (tmp_path / "failure.jsonl").exists()


def test_without_hypothesis_it_says_which_extra_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # `import hypothesis` now raises ImportError
    status, out, err = fuzz(capsys, "--out", str(tmp_path))
    assert status == 2
    assert MISSING_EXTRA in err and "pip install '/path/to/checkout[fuzz]'" in err
    assert out == ""


def test_a_recording_is_read_record_by_record_whatever_its_texts_and_however_it_was_cut(
    tmp_path: Path,
) -> None:
    # The transcript format keeps non-ASCII unescaped; U+2028 and U+0085 are line breaks to
    # str.splitlines() but not to the format, which ends a record at "\n" only. And a relay stopped
    # in the middle of a frame leaves its last line cut short.
    got, wanted = "cur_" + "1" * 64, "cur_" + "2" * 64
    text = "a\u2028b\x85c"
    body = json.dumps({"completion": text, "response_id": got}, ensure_ascii=False)  # as it travels
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chat_complete"}},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"content": [{"type": "text", "text": body}], "isError": False},
        },
    ]
    records = [{"kind": "frame", "dir": d, "frame": f} for d, f in zip(("c2s", "s2c"), frames, strict=True)]
    recording = tmp_path / "failure.jsonl"
    cut_short = dump_record(records[0])[:40]
    recording.write_text("".join(dump_record(r) + "\n" for r in records) + cut_short, encoding="utf-8")
    assert "\u2028" in recording.read_text(encoding="utf-8")  # unescaped in the file, as said above
    failed = Logged("start", "legacy", "chat_complete", {}, None, Expected(wanted, text))
    assert wanted in expect_in_recording(recording, failed)
    result = json.loads(recording.read_text(encoding="utf-8").split("\n")[1])["frame"]["result"]
    assert json.loads(result["content"][0]["text"]) == {"completion": text, "response_id": wanted}


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_only() -> None:
    from agent_as_model.commands.fuzz.machine import Counters

    counters = Counters(chains=3, calls=7, examples=2)
    shown, piped = Terminal(), io.StringIO()
    for stream in (shown, piped):
        progress = Progress(10, stream)
        progress.update(counters)
        progress.clear()
    assert "fuzzing: example 2/10, 3 chains, 7 calls" in shown.getvalue()
    assert shown.getvalue().endswith("\r\x1b[K")
    assert piped.getvalue() == ""


TOOL_TURN_WORDS = ("tool_call", "tool_use", "functionCall", "function_call")


@example(units=[Said("user", "tool_use")], answer=HostAnswer("", (), None))  # a word said, not a tool turn
@given(
    units=openings(tool_use=False),
    answer=st.booleans().flatmap(lambda structured: host_answers(structured, tool_use=False)),
)
def test_without_tool_turns_no_conversation_or_answer_holds_a_tool_call(
    units: list[Unit], answer: HostAnswer
) -> None:
    # --no-tool-turns: what a server without native tool-call turns can take (the seed shape).
    assert not any(isinstance(unit, ToolTurn) for unit in units)
    assert answer.calls == ()
    history_tools, _ = split_tools(fuzzable())
    for tool in history_tools:
        # The shape, not the words said: a user may well write "tool_use" in a message's text.
        shape = list(_keys_and_types(render(tool, units)))
        assert not any(word in part for part in shape for word in TOOL_TURN_WORDS), shape


def test_the_shape_check_sees_a_tool_turn_in_every_product() -> None:
    # The check above can fail: a real tool turn shows in the keys or types of each product's request.
    turn = ToolTurn("", (Call("call_1", "lookup", {"q": "x"}),), (("call_1", "found"),))
    units: list[Unit] = [Said("user", "look it up"), turn]
    history_tools, _ = split_tools(fuzzable())
    assert history_tools
    for tool in history_tools:
        shape = list(_keys_and_types(render(tool, units)))
        assert any(word in part for part in shape for word in TOOL_TURN_WORDS), (tool, shape)


def _keys_and_types(value: Any) -> Any:
    """Every key of the rendered request and every value of a "type" field, where a tool turn shows."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            if key == "type" and isinstance(item, str):
                yield item
            yield from _keys_and_types(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys_and_types(item)
