"""A configuration the server cannot start with is one clear line on stderr and
exit status 2, never a traceback. Run through the installed `agent-as-model` command."""

from __future__ import annotations

import pytest

from tests.helpers import run_command

pytestmark = pytest.mark.stdio


@pytest.mark.parametrize(
    ("args", "env", "words"),
    [
        (
            (),
            {"AGENT_AS_MODEL_STATE_KEY": "short"},
            "AGENT_AS_MODEL_STATE_KEY: request-state keys must be at least 32 bytes",
        ),
        (("serve",), {"AGENT_AS_MODEL_STATE_KEY": "short"}, "the key is 5 bytes"),
        (
            (),
            {"AGENT_AS_MODEL_LOG_LEVEL": "verbose"},
            "AGENT_AS_MODEL_LOG_LEVEL: unknown log level 'VERBOSE'",
        ),
        (("--bogus",), {}, "unrecognized arguments: --bogus"),
        (("serve", "--bogus"), {}, "unrecognized arguments: --bogus"),
        (("frob",), {}, "invalid choice: 'frob'"),
        (("serve", "--record", "/nonexistent-dir/x.jsonl"), {}, "cannot record to /nonexistent-dir/x.jsonl"),
    ],
)
def test_a_bad_start_is_one_line_and_status_2(args: tuple[str, ...], env: dict[str, str], words: str) -> None:
    done = run_command(*args, **env)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("agent-as-model: ") and words in lines[0], lines[0]
    assert "Traceback" not in done.stderr


def test_a_good_key_and_level_start_the_server() -> None:
    done = run_command(AGENT_AS_MODEL_STATE_KEY="k" * 32, AGENT_AS_MODEL_LOG_LEVEL="info")
    assert done.returncode == 0, done.stderr  # served until stdin ended
    assert "Traceback" not in done.stderr
