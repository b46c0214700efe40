"""A recording of a provider-served session holds the provider exchanges (the
request body and the answer; never the key nor the auth headers), `replay` plays them back with no
network and no key, and `--redact` covers their text. Over real stdio with the installed command."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from agent_as_model.commands.standin_provider import StandInProvider, Status, openai_reply
from agent_as_model.commands.transcripts.command import replay_path
from tests.helpers import COMMAND, server_params
from tests.provider_harness import OPENAI_KEY
from tests.scripted_host import ERAS

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]

SECRET = "the secret words of the caller"
TOOL = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}


async def _record(path: Path, era: str, standin: StandInProvider, redact: bool) -> list[object]:
    standin.script += [
        openai_reply("an answer with private text"),
        openai_reply(
            None, tool_calls=[("call_1", "lookup", '{"q": "private query"}')], finish_reason="tool_calls"
        ),
        Status(500),
    ]
    args = ["serve", "--record", str(path), *(["--redact"] if redact else [])]
    args += ["--provider", "openai", "--provider-base-url", standin.openai_base_url]
    args += ["--provider-model", "model-one", "--provider-max-retries", "0"]
    env = {**os.environ, "OPENAI_API_KEY": OPENAI_KEY}
    results = []
    async with Client(server_params(*args, env=env), mode=era) as client:
        results.append(await client.call_tool("generate", {"prompt": SECRET}))
        chat = {"messages": [{"role": "user", "content": SECRET}], "tools": [TOOL]}
        results.append(await client.call_tool("chat_complete", chat))
        results.append(await client.call_tool("generate", {"prompt": "fails"}))
    return results


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("redact", [False, True], ids=["plain", "redacted"])
async def test_a_provider_session_records_and_replays_offline(
    era: str, redact: bool, standin: StandInProvider, tmp_path: Path
) -> None:
    path = tmp_path / "session.jsonl"
    results = await _record(path, era, standin, redact)
    assert [r.is_error for r in results] == [False, False, True]
    text = path.read_text(encoding="utf-8")
    assert OPENAI_KEY not in text
    assert "authorization" not in text.lower() and "bearer" not in text.lower()
    lines = _lines(path)
    assert lines[1]["kind"] == "providerSettings"
    assert lines[1]["settings"] == {
        "provider": "openai",
        "model": "model-one",
        "models": [],
        "use": "when-host-cannot",
        "onHostError": False,
    }
    exchanges = [line for line in lines if line["kind"] == "provider"]
    assert len(exchanges) == 3
    assert [("reply" in e, "failure" in e) for e in exchanges] == [
        (True, False),
        (True, False),
        (False, True),
    ]
    said = exchanges[2]["failure"]["said"]
    assert exchanges[2]["failure"] == {
        "status": 500,
        "what": "the provider failed (a server error), still after the configured retries; it said: " + said,
        "said": said,
    }
    # The provider's own words, redacted like any text (issue 49 item 6).
    assert (
        (said != "stand-in error" and len(said) == len("stand-in error"))
        if redact
        else said == "stand-in error"
    )
    assert exchanges[1]["request"]["tools"][0]["function"]["name"] == "lookup"
    if redact:
        assert SECRET not in text and "private text" not in text and "private query" not in text
        assert len(exchanges[0]["request"]["messages"][0]["content"]) == len(SECRET)
    else:
        assert exchanges[0]["request"]["messages"] == [{"role": "user", "content": SECRET}]
        assert exchanges[0]["reply"]["blocks"] == [{"type": "text", "text": "an answer with private text"}]

    # Offline: a separate process with no key (an SDK client could not even be made), and the
    # stand-in, still listening at the recorded URL, hears nothing.
    asked = len(standin.seen)
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [str(COMMAND), "replay", str(path)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all match" in done.stdout
    assert len(standin.seen) == asked


async def test_a_changed_provider_answer_diverges(standin: StandInProvider, tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    await _record(path, "legacy", standin, redact=False)
    lines = _lines(path)
    first = next(line for line in lines if line["kind"] == "provider")
    first["reply"]["blocks"][0]["text"] = "another answer"  # type: ignore[index]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = io.StringIO()
    assert await replay_path(path, out=out, err=io.StringIO()) == 1
    assert "another answer" in out.getvalue()


async def test_a_changed_request_is_not_answered_from_the_recording(
    tmp_path: Path, standin: StandInProvider
) -> None:
    path = tmp_path / "session.jsonl"
    await _record(path, "legacy", standin, redact=False)
    lines = _lines(path)
    first = next(line for line in lines if line["kind"] == "provider")
    first["request"]["messages"][0]["content"] = "asked something else"  # type: ignore[index]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = io.StringIO()
    asked = len(standin.seen)
    assert await replay_path(path, out=out, err=io.StringIO()) == 1
    assert len(standin.seen) == asked
    assert "this request differs from the recorded provider request" in out.getvalue()


def test_a_recorded_reply_keeps_the_apis_counts_and_refuses_bad_ones() -> None:
    from mcp_types import TextContent

    from agent_as_model.adapters.backends.provider import Reply
    from agent_as_model.adapters.backends.recorded import reply_from_json, reply_json
    from agent_as_model.neutral import Usage

    reply = Reply((TextContent(type="text", text="hi"),), "m", "endTurn", Usage(9, 4, "provider"))
    written = reply_json(reply)
    assert written["usage"] == {"inputTokens": 9, "outputTokens": 4}
    assert reply_from_json(written) == reply
    uncounted = reply_json(reply._replace(usage=None))
    assert "usage" not in uncounted and reply_from_json(uncounted).usage is None
    for bad in ({"inputTokens": -1, "outputTokens": 4}, {"inputTokens": "9"}, [9, 4]):
        with pytest.raises(ValueError, match="usage"):
            reply_from_json({**written, "usage": bad})


@pytest.mark.parametrize("era", ERAS)
async def test_redact_covers_a_providers_error_excerpt(
    era: str, standin: StandInProvider, tmp_path: Path
) -> None:
    """Issue 49 item 6: a provider's error message may quote the prompt; `--redact` makes it a
    placeholder in the provider exchange and in the error result that tells it, the same one in
    both, so the redacted recording still replays clean."""
    quoting = f"this request is refused: '{SECRET}' breaks the policy"
    standin.script += [Status(400, quoting), Status(400, quoting), Status(500, "the same words again")]
    path = tmp_path / "session.jsonl"
    args = ["serve", "--record", str(path), "--redact", "--provider", "openai"]
    args += ["--provider-base-url", standin.openai_base_url, "--provider-model", "model-one"]
    args += ["--provider-max-retries", "0"]
    env = {**os.environ, "OPENAI_API_KEY": OPENAI_KEY}
    async with Client(server_params(*args, env=env), mode=era) as client:
        results = [await client.call_tool("generate", {"prompt": SECRET}) for _ in range(3)]
    told = [r.content[0].text for r in results]
    assert all(r.is_error for r in results) and SECRET in told[0]  # the caller reads the message
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text and "breaks the policy" not in text and "the same words again" not in text
    lines = _lines(path)
    failures = [line["failure"] for line in lines if line["kind"] == "provider"]
    said = [failure["said"] for failure in failures]
    assert len(said[0]) == len(quoting) and said[0] == said[1] != said[2]
    assert failures[0]["what"] == f"the provider refused the request; it said: {said[0]}"
    errors = [
        line["frame"]["result"]["content"][0]["text"]
        for line in lines
        if line["kind"] == "frame" and line["frame"].get("result", {}).get("isError")
    ]
    assert [e.replace(s, "<said>") for e, s in zip(errors, said, strict=True)] == [
        t.replace(quoting, "<said>").replace("the same words again", "<said>") for t in told
    ]
    done = subprocess.run([str(COMMAND), "replay", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all match" in done.stdout
