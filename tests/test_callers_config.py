"""Callers and limits as the configuration file writes them: `[limits]` and `[callers]` read into
the callers' settings (defaults merged, `unlimited`, a tokens file beside the file), every bad
value refused at start-up naming the file, the line and the key and never showing a token;
what would be unsafe or meaningless refused (the sections without HTTP, in-memory counters under
several workers, a token naming two callers, a caller `default` beside `--auth-token`); the
door's token table; and `agent-as-model callers` when it has nothing to read.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_as_model.adapters.callers import (
    TOKEN_CALLER,
    Caller,
    CallerLimits,
    CallersSettings,
    digest_of,
    token_table,
)
from agent_as_model.commands import cli, http_options
from agent_as_model.commands.callers_options import callers_settings
from tests.callers_helpers import tokens_for, write_config
from tests.helpers import ROOT, run_command
from tests.test_config_file import read, refused

SECRET = "plain-bearer-token-never-shown-0123"
ALICE = digest_of("alice's token")
BOB = digest_of("bob's token")


def settings_of(tmp_path: Path, text: str, *argv: str, store: str | None = None) -> CallersSettings | None:
    args = read(tmp_path, text, "--http", *argv)
    return callers_settings(args.config_file, store, args.auth_token)


def test_limits_and_callers_are_read_with_the_defaults_merged(tmp_path: Path) -> None:
    (tmp_path / "more.tokens").write_text(f"# more callers\n\ncarol {digest_of('c')}  # ci\n")
    text = f"""
[limits]
requests-per-minute = 60
tokens-per-day = 1_000
counters = "sqlite:{tmp_path / "counters.db"}"
lease = 5

[callers]
tokens-file = "more.tokens"

[callers.alice]
token-sha256 = "{ALICE.upper()}"
tokens-per-day = "unlimited"
concurrent-calls = 2

[callers.bob]
token-sha256 = ["{BOB}", "{digest_of("rotated")}"]
"""
    settings = settings_of(tmp_path, text)
    assert settings is not None and settings.limited()
    by_name = {caller.name: caller for caller in settings.callers}
    assert by_name["alice"].digests == (ALICE,)  # lower-cased
    assert by_name["alice"].limits == CallerLimits(60, 2, None)
    assert by_name["bob"].digests == (BOB, digest_of("rotated")) and by_name["bob"].limits == CallerLimits(
        60, None, 1000
    )
    assert by_name["carol"].limits == settings.defaults == CallerLimits(60, None, 1000)
    assert settings.counters == f"sqlite:{tmp_path / 'counters.db'}" and settings.lease == 5.0
    # The workers get it as JSON, and read back the same.
    assert CallersSettings.from_json(settings.to_json()) == settings


def test_counters_default_to_the_store_else_memory(tmp_path: Path) -> None:
    text = "[limits]\nconcurrent-calls = 3\n"
    assert settings_of(tmp_path, text, store="redis://db:6379/0").counters == "redis://db:6379/0"  # type: ignore[union-attr]
    assert settings_of(tmp_path, text).counters is None  # type: ignore[union-attr]
    memory = settings_of(tmp_path, text + 'counters = "memory"\n', store="redis://db:6379/0")
    assert memory is not None and memory.counters is None
    assert settings_of(tmp_path, "[serve]\nresult = 'object'\n") is None  # neither section: no callers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[limits]\nrequests-per-minute = -1\n",
            ":2: limits.requests-per-minute: expected a whole number, 0 or more",
        ),
        ("[limits]\ntokens-per-day = 'unlimited'\n", ":2: limits.tokens-per-day: expected a whole number"),
        ("[limits]\nrpm = 5\n", ":2: limits.rpm: unknown key ([limits] takes requests-per-minute"),
        ("[limits]\ncounters = 'mysql://x'\n", ":2: limits.counters: memory, or expected sqlite:PATH"),
        ("[limits]\nlease = 0\n", ":2: limits.lease: expected a positive number of seconds"),
        ("[callers.alice]\nconcurrent-calls = 1\n", ":1: callers.alice: needs token-sha256"),
        (f"[callers.alice]\ntoken-sha256 = '{ALICE}'\nrpm = 1\n", ":3: callers.alice.rpm: unknown key"),
        (f"[callers.alice]\ntoken-sha256 = '{ALICE}'\ntokens-per-day = 1.5\n", '0 or more or "unlimited"'),
        (f"[callers.'a b']\ntoken-sha256 = '{ALICE}'\n", "a caller's name is 1 to 64 letters"),
        ("[callers]\nalice = 1\n", ":2: callers.alice: expected a caller's table"),
        (
            f"[callers.alice]\ntoken-sha256 = '{ALICE}'\n[callers.bob]\ntoken-sha256 = '{ALICE}'\n",
            ":3: callers.bob: has the token of caller 'alice': a token names one caller",
        ),
    ],
)
def test_a_bad_value_names_the_file_its_line_and_the_key(tmp_path: Path, text: str, expected: str) -> None:
    assert expected in refused(tmp_path, text, "--http")


@pytest.mark.parametrize(
    "text",
    [
        f"[callers.alice]\ntoken = '{SECRET}'\n",
        f"[callers.alice]\nbearer-token = '{SECRET}'\n",
        f"[callers.alice]\ntoken-sha256 = '{SECRET}'\n",
        f"[callers.alice]\ntoken-sha256 = ['{ALICE}', '{SECRET}']\n",
    ],
)
def test_a_token_written_where_its_digest_belongs_is_refused_and_never_shown(
    tmp_path: Path, text: str
) -> None:
    told = refused(tmp_path, text, "--http")
    assert "callers.alice" in told and "never written here" in told and "sha256sum" in told
    assert SECRET not in told


def test_a_tokens_file_is_read_beside_the_configuration_and_its_errors_show_no_token(tmp_path: Path) -> None:
    tokens = tmp_path / "callers.tokens"
    for line, expected in (
        (f"alice {SECRET}\n", ":1: expected NAME SHA256HEX: a caller's name"),
        (f"# ok\nalice {ALICE}\n{SECRET}\n", ":3: expected NAME SHA256HEX"),
        (f"alice {ALICE} extra-{SECRET}\n", ":1: expected NAME SHA256HEX"),
    ):
        tokens.write_text(line)
        told = refused(tmp_path, "[callers]\ntokens-file = 'callers.tokens'\n", "--http")
        assert f"{tokens}{expected}" in told and SECRET not in told
    missing = refused(tmp_path, "[callers]\ntokens-file = 'nowhere.tokens'\n", "--http")
    assert f"{tmp_path / 'nowhere.tokens'}: cannot read the tokens file" in missing


def test_callers_and_limits_without_http_are_refused(tmp_path: Path) -> None:
    for section in ("[limits]\nconcurrent-calls = 1\n", f"[callers.alice]\ntoken-sha256 = '{ALICE}'\n"):
        told = refused(tmp_path, "[serve]\nresult = 'object'\n" + section)
        assert ":3: " in told and "are for serving HTTP and would be ignored over stdio" in told
    assert settings_of(tmp_path, "[serve]\nhttp = true\n[limits]\nconcurrent-calls = 1\n") is not None


def test_a_caller_named_default_beside_the_auth_token_is_refused(tmp_path: Path) -> None:
    text = f"[callers.default]\ntoken-sha256 = '{ALICE}'\n"
    with pytest.raises(Exception, match="'default' is the caller of --auth-token"):
        settings_of(tmp_path, text, "--auth-token", SECRET)
    alone = settings_of(tmp_path, text)  # without --auth-token, 'default' is a name like any
    assert alone is not None and alone.callers[0].name == TOKEN_CALLER


def test_named_callers_stand_in_for_the_token_a_non_loopback_bind_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(http_options.AUTH_TOKEN_ENV, raising=False)
    parser = cli._parser()
    args = parser.parse_args(["serve", "--http", "--host", "0.0.0.0"])
    settings = http_options.settings_from_args(parser, args, named_callers=True)
    assert settings is not None and settings.auth_token is None and settings.host == "0.0.0.0"


def test_several_workers_counting_in_memory_cannot_start(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", tokens_for("alice"), {}, {"concurrent-calls": 2})
    done = run_command("serve", "--http", "--port", "1", "--workers", "2", "--config", str(config))
    assert done.returncode == 2
    assert "--workers 2 would each count their callers' use alone in memory" in done.stderr
    assert "counters" in done.stderr and "Traceback" not in done.stderr


def test_the_door_finds_each_callers_token_and_no_other() -> None:
    settings = CallersSettings(
        (Caller("alice", (ALICE,), CallerLimits()), Caller("bob", (BOB,), CallerLimits()))
    )
    table = token_table(settings, "the operator's token")
    assert table.caller_of(b"Bearer alice's token") == "alice"
    assert table.caller_of(b"Bearer bob's token") == "bob"
    assert table.caller_of(b"Bearer the operator's token") == TOKEN_CALLER
    for wrong in (b"Bearer alice's token ", b"Basic alice's token", b"alice's token", b"Bearer ", b""):
        assert table.caller_of(wrong) is None
    assert not token_table(None, None) and token_table(None, "t")


def test_callers_needs_a_file_that_names_callers(tmp_path: Path) -> None:
    done = run_command("callers")
    assert done.returncode == 2 and "callers needs the configuration file" in done.stderr
    plain = tmp_path / "plain.toml"
    plain.write_text("[serve]\nresult = 'object'\n")
    done = run_command("callers", "--config", str(plain))
    assert done.returncode == 2 and "names no callers and no limits" in done.stderr
    memory = write_config(tmp_path / "memory.toml", tokens_for("alice"), {}, {"concurrent-calls": 2})
    done = run_command("callers", "--config", str(memory))
    assert done.returncode == 0 and "limit 2" in done.stdout
    assert "cannot be read from here" in done.stdout


def test_the_three_callers_of_docs_deploy_load_as_documented(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "deploy.md").read_text()
    block = re.search(r"<!-- callers-example -->\n```toml\n(.*?)```", text, re.DOTALL)
    assert block is not None, "docs/deploy.md has no <!-- callers-example --> toml block"
    settings = settings_of(tmp_path, block.group(1))
    assert settings is not None and settings.counters == "redis://redis.internal:6379/1"
    by_name = {caller.name: caller for caller in settings.callers}
    assert list(by_name) == ["ci", "alice", "research-bot"]
    assert by_name["ci"].limits == CallerLimits(600, 16, 200_000)
    assert by_name["alice"].limits == settings.defaults == CallerLimits(60, 4, 200_000)
    assert by_name["research-bot"].limits == CallerLimits(None, 1, 2_000_000)
    # The digests are those of the example tokens the page names.
    for name, caller in by_name.items():
        assert digest_of(f"example-token-for-{name}") == caller.digests[0]
    assert by_name["research-bot"].digests[1] == digest_of("example-token-for-research-bot-next")
