"""`serve --config FILE`: every `serve` flag is a key of [serve], a flag or its variable wins over the
file, named providers and routes are read, and an unknown key or a bad value stops start-up with
the file, the line and the key; the commented example in docs/ loads. Over real stdio: a setting of
the file changes what a call returns, and a bad file exits 2 with one line."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from agent_as_model.adapters.routes import HOST, Hop, RouteRule
from agent_as_model.commands import cli, config_file
from agent_as_model.commands.config_file import ConfigError, Section
from agent_as_model.commands.toml_lines import key_lines
from tests import http_servers
from tests.helpers import ROOT, run_command, server_params
from tests.http_servers import http_client
from tests.scripted_host import ERAS, ScriptedHost

EXAMPLE = ROOT / "docs" / "config.example.toml"


def read(tmp_path: Path, text: str, *argv: str, env: dict[str, str] | None = None) -> argparse.Namespace:
    """`serve --config FILE *argv` parsed and the file applied, as `main` does."""
    path = tmp_path / "config.toml"
    path.write_text(text)
    given = ["serve", "--config", str(path), *argv]
    parser = cli._parser()
    args, extras = parser.parse_known_args(given)
    assert not extras
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update({k: v for k, v in saved.items() if not k.startswith("AGENT_AS_MODEL_")})
    os.environ.update(env or {})
    try:
        cli._read_config(parser, args, given)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return args


def refused(tmp_path: Path, text: str, *argv: str) -> str:
    with pytest.raises(ConfigError) as caught:
        read(tmp_path, text, *argv)
    return str(caught.value)


def serve_actions() -> dict[str, argparse.Action]:
    cli._parser()
    return config_file.keyed_actions(cli._COMMANDS["serve"])


def _sample(action: argparse.Action) -> tuple[Any, list[str]]:
    """A value of the flag as the file writes it, and as the command line writes it."""
    if action.nargs == 0:
        return True, []
    if action.choices is not None:
        choice = list(action.choices)[-1]
        return choice, [str(choice)]
    if isinstance(action.default, int | float) and not isinstance(action.default, bool):
        value = action.default * 2
        return value, [str(value)]
    value = "sqlite::memory:" if action.dest == "store" else "7"
    if isinstance(action, argparse._AppendAction):
        return [value, "8"], [value, "8"]
    return value, [value]


@pytest.mark.parametrize("key", list(serve_actions()))
def test_every_serve_flag_is_a_key_of_the_file_with_the_same_meaning(tmp_path: Path, key: str) -> None:
    action = serve_actions()[key]
    written, argv = _sample(action)
    http = ["--http"] if action.dest not in ("http",) else []
    toml_value = _toml(written)
    from_file = read(tmp_path, f"[serve]\n{key} = {toml_value}\n", *http)
    flags: list[str] = []
    if isinstance(action, argparse._AppendAction):
        for item in argv:
            flags += [f"--{key}", item]
    else:
        flags = [f"--{key}", *argv]
    parser = cli._parser()
    from_flags, _ = parser.parse_known_args(["serve", *http, *flags])
    assert getattr(from_file, action.dest) == getattr(from_flags, action.dest)
    assert getattr(from_file, action.dest) != action.default or action.nargs == 0


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value + '"'
    return repr(value)


def test_a_flag_and_a_variable_win_over_the_file_and_the_file_over_the_default(tmp_path: Path) -> None:
    text = '[serve]\nresult = "object"\nschema-timeout = 0.5\nhost-without-tools = "refuse"\n'
    args = read(tmp_path, text, "--schema-timeout", "0.75", env={"AGENT_AS_MODEL_RESULT": "text"})
    assert args.schema_timeout == 0.75  # the flag
    assert args.result is None  # the variable is set: the flag's reader finds it there
    assert args.host_without_tools == "refuse"  # the file
    assert read(tmp_path, "[serve]\n").schema_timeout == 0.25  # the default


def test_repeated_flags_given_replace_the_files_list(tmp_path: Path) -> None:
    text = '[serve]\nhttp = true\nallowed-host = ["a.example", "b.example"]\n'
    assert read(tmp_path, text).allowed_host == ["a.example", "b.example"]
    assert read(tmp_path, text, "--allowed-host", "c.example").allowed_host == ["c.example"]


def test_the_commented_example_in_docs_loads() -> None:
    parser = cli._parser()
    config = config_file.load(str(EXAMPLE), cli._COMMANDS["serve"])
    assert {setting.key for setting in config.serve.values()} >= {"result", "schema-timeout"}
    providers = {p.label: p for p in config.sections["providers"]}
    assert set(providers) == {"openai", "local", "claude", "gemini"}
    assert providers["local"].base_url == "http://localhost:11434/v1"
    assert providers["local"].key_variable == "OLLAMA_KEY"
    assert providers["local"].model == "llama3.1"
    assert providers["local"].pass_through is False and providers["openai"].pass_through is True
    assert providers["claude"].provider == "anthropic"
    assert providers["gemini"].provider == "gemini"
    assert providers["gemini"].key_variable == "GEMINI_API_KEY"
    assert providers["gemini"].models == ("gemini-2.5-flash", "gemini-2.5-pro")
    routes = {rule.pattern: rule.hops for rule in config.sections["routes"]}
    assert routes["agent-default"] == (Hop(HOST), Hop("local"))
    assert routes["fast"] == (Hop("local", "qwen2.5"), Hop("openai", "gpt-4.1-mini"))
    assert routes["gemini-*"] == (Hop("gemini"), Hop("openai", "gpt-4.1-mini"))
    assert parser is not None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "[serve]\nschema-timout = 1\n",
            ":2: serve.schema-timout: unknown key ([serve] takes serve's flags "
            "without the leading --); did you mean schema-timeout?",
        ),
        ('[serve]\nresult = "json"\n', ":2: serve.result: expected one of text, object, got 'json'"),
        ("[serve]\nmax-n = 0\n", ":2: serve.max-n: expected at least 1, got 0"),
        ("[serve]\nport = 80.5\nhttp = true\n", ":2: serve.port: expected a whole number, got 80.5"),
        ('[serve]\nhttp = "yes"\n', ":2: serve.http: expected true or false, got 'yes'"),
        (
            "[serve]\nschema-timeout = true\n",
            ":2: serve.schema-timeout: expected a string or a number, got true",
        ),
        (
            "[serve]\nschema-timeout = [1]\n",
            ":2: serve.schema-timeout: expected a string or a number, got an array",
        ),
        ('[serve]\nconfig = "other.toml"\n', ":2: serve.config: a configuration file cannot name another"),
        (
            "[serv]\nhttp = true\n",
            ":1: serv: unknown section (sections: serve, providers, routes, limits, callers); "
            "did you mean [serve]?",
        ),
        (
            "http = true\n",
            ":1: http: unknown key outside any section (sections: serve, providers, routes, limits, callers)",
        ),
        (
            "[serve]\nport = 9000\n",
            ":2: serve.port: is for serving HTTP and would be ignored over stdio: set "
            "http = true (or give --http), or leave it out to serve stdio",
        ),
    ],
)
def test_a_bad_key_or_value_names_the_file_its_line_and_the_key(tmp_path: Path, text: str, said: str) -> None:
    message = refused(tmp_path, text)
    assert message == f"{tmp_path / 'config.toml'}{said}"


def test_the_line_is_found_past_multi_line_strings_arrays_and_comments(tmp_path: Path) -> None:
    text = (
        "# a comment with key = 1 in it\n"
        '[serve]\nauth-token = """\nport = 1\n"""\n'
        "allowed-host = [\n  'x = 2',\n  \"y\",\n]\n"
        "http = true # port = 3\n"
        "'max-n' = -1\n"
    )
    assert refused(tmp_path, text).endswith(":11: serve.max-n: expected at least 1, got -1")


def test_key_lines_reads_dotted_quoted_and_array_table_keys() -> None:
    text = '[a]\nb.c = 1\n"d.e" = 2\n[[f]]\ng = 3\n[[f]]\ng = 4\n[f.h]\ni = """x\n\n"""\nj = 5\n'
    lines = key_lines(text)
    assert lines[("a", "b", "c")] == 2
    assert lines[("a", "d.e")] == 3
    assert lines[("f", 0, "g")] == 5
    assert lines[("f", 1, "g")] == 7
    assert lines[("f", 1, "h", "i")] == 9
    assert lines[("f", 1, "h", "j")] == 12


def test_not_toml_and_a_missing_file_are_one_line_errors(tmp_path: Path) -> None:
    assert "config.toml: not valid TOML: " in refused(tmp_path, "[serve\n")
    assert "(at line 1, column 7)" in refused(tmp_path, "[serve\n")
    parser = cli._parser()
    with pytest.raises(ConfigError) as caught:
        config_file.load(str(tmp_path / "absent.toml"), cli._COMMANDS["serve"])
    assert str(caught.value).startswith(f"{tmp_path / 'absent.toml'}: cannot read the configuration file")
    assert parser is not None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[providers.a]\nkind = "cohere"\n', ":2: providers.a.kind: expected one of openai, anthropic"),
        (
            '[providers.a]\nkind = "openai"\nmodels = [1]\n',
            ":3: providers.a.models: expected an array of model names",
        ),
        (
            '[providers.a]\nkind = "openai"\nbase-url = "localhost"\n',
            ":3: providers.a.base-url: expected an http",
        ),
        ('[providers.a]\nkind = "openai"\napi-key = "sk-1"\n', ":3: providers.a.api-key: unknown key"),
        (
            '[providers.a]\nkind = "openai"\nkey-variable = "sk-secret-value-1"\n',
            ":3: providers.a.key-variable: "
            "expected the name of an environment variable (the key itself never goes here), got a value that",
        ),
        (
            '[providers.a]\nkind = "openai"\ntimeout = 0\n',
            ":3: providers.a.timeout: expected a positive number",
        ),
        (
            '[providers.a]\nkind = "openai"\nmax-retries = -1\n',
            ":3: providers.a.max-retries: expected a whole",
        ),
        (
            '[providers.a]\nkind = "openai"\npass-through = "no"\n',
            ":3: providers.a.pass-through: expected true or false, got 'no'",
        ),
        ("[providers.host]\nkind = 'openai'\n", ":1: providers.host: a provider's name is"),
        ("[providers.a]\n", ":1: providers.a: needs kind, its API: one of openai, anthropic"),
        (
            '[routes]\n"gpt-*" = ["host", "nope"]\n',
            ":2: routes.\"gpt-*\": 'nope' is no backend of this file "
            "(backends: host; a provider is a [providers.NAME] table)",
        ),
        (
            '[providers.a]\nkind = "openai"\n[routes]\nagent-default = ["a"]\n',
            ":4: routes.agent-default: the "
            "provider a has no default-model to answer agent-default with: set one, or write 'a/MODEL'",
        ),
        ('[routes]\nx = ["host/m"]\n', ":2: routes.x: 'host/m': the host answers with its own model"),
        ('[routes]\nx = ["host", "host"]\n', ":2: routes.x: names host twice"),
        ("[routes]\nx = []\n", ":2: routes.x: expected the backends that serve it, in order"),
    ],
)
def test_providers_and_routes_errors_name_the_line(tmp_path: Path, text: str, said: str) -> None:
    message = refused(tmp_path, text)
    assert message.startswith(f"{tmp_path / 'config.toml'}{said}"), message


def test_a_section_is_added_by_one_registration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []

    def read_teams(section: Section) -> dict[str, Any]:
        for name, value in section.value.items():
            if not isinstance(value, dict):
                raise section.error(name, message="expected a table")
        seen.append(section.reading("routes"))
        return dict(section.value)

    monkeypatch.setitem(config_file.SECTIONS, "teams", f"{__name__}:_reader")
    monkeypatch.setattr(f"{__name__}._reader", read_teams, raising=False)
    args = read(tmp_path, '[routes]\nx = "host"\n[teams.ci]\nrpm = 60\n')
    assert args.config_file.sections["teams"] == {"ci": {"rpm": 60}}
    assert seen == [(RouteRule("x", (Hop(HOST),)),)]
    assert refused(tmp_path, "[teams]\nci = 1\n").endswith(":2: teams.ci: expected a table")


_reader = None  # replaced by the test that registers a section


def test_a_bad_file_stops_the_installed_command_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[serve]\nresult = "object"\nmax-n = "many"\n')
    done = run_command("serve", "--config", str(path))
    assert done.returncode == 2
    assert done.stderr == f"agent-as-model: {path}:3: serve.max-n: expected a whole number, got 'many'\n"
    by_variable = run_command(AGENT_AS_MODEL_CONFIG=str(path))  # the bare command, as a host runs it
    assert by_variable.returncode == 2
    assert by_variable.stderr == done.stderr
    over_http = run_command("serve", "--http", "--port", "0", "--config", str(path))  # before binding
    assert over_http.returncode == 2
    assert over_http.stderr == done.stderr


@pytest.mark.stdio
@pytest.mark.anyio
@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("how", ["flag", "variable"])
async def test_the_files_settings_are_served_over_real_stdio(era: str, how: str, tmp_path: Path) -> None:
    path = tmp_path / "served.toml"
    path.write_text('[serve]\nresult = "object"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_AS_MODEL_")}
    args: list[str] = []
    if how == "flag":
        args = ["serve", "--config", str(path)]
    else:
        env["AGENT_AS_MODEL_CONFIG"] = str(path)
    host = ScriptedHost("from the host")
    async with Client(server_params(*args, env=env), mode=era, sampling_callback=host) as client:
        result = await client.call_tool("chat_complete", {"messages": [{"role": "user", "content": "q"}]})
    assert not result.is_error, result.content[0].text
    assert result.structured_content is not None
    assert result.structured_content["object"] == "chat.completion"
    assert result.structured_content["choices"][0]["message"]["content"] == "from the host"


@pytest.mark.stdio
@pytest.mark.anyio
@pytest.mark.parametrize("era", ERAS)
async def test_the_files_settings_are_served_over_http(era: str, tmp_path: Path) -> None:
    path = tmp_path / "served.toml"
    path.write_text('[serve]\nresult = "object"\nauth-token = "a-token-from-the-file-0123456789"\n')
    host = ScriptedHost("from the host")
    with http_servers.running("--config", str(path)) as server:
        async with http_client(server.url, era, host, token="a-token-from-the-file-0123456789") as client:
            result = await client.call_tool("chat_complete", {"messages": [{"role": "user", "content": "q"}]})
    assert not result.is_error, result.content[0].text
    assert result.structured_content is not None
    assert result.structured_content["object"] == "chat.completion"
    assert result.structured_content["choices"][0]["message"]["content"] == "from the host"


def test_every_serve_flag_with_its_own_variable_lets_the_variable_win_over_the_file() -> None:
    """A flag whose help names its own variable (AGENT_AS_MODEL_ and the destination) has it in
    `environment()`, so a set variable wins over the file as the documented rule says."""
    variables = config_file.environment()
    named = {
        action.dest: f"AGENT_AS_MODEL_{action.dest.upper()}"
        for action in serve_actions().values()
        if f"AGENT_AS_MODEL_{action.dest.upper()}" in (action.help or "")
    }
    assert {"otel", "otel_content", "store", "provider"} <= set(named)  # the derivation finds them
    assert {dest: variables.get(dest) for dest in named} == named


def test_the_telemetry_variables_win_over_the_file(tmp_path: Path) -> None:
    text = '[serve]\notel = true\notel-content = "full"\n'
    assert read(tmp_path, text).otel is True
    args = read(tmp_path, text, env={"AGENT_AS_MODEL_OTEL": "0", "AGENT_AS_MODEL_OTEL_CONTENT": "redacted"})
    assert args.otel is None and args.otel_content is None  # the flag's reader finds the variable


def test_the_telemetry_docs_config_block_loads(tmp_path: Path) -> None:
    """docs/telemetry.md's [serve] block is a file `serve --config` reads, each key its flag's."""
    text = (ROOT / "docs" / "telemetry.md").read_text()
    block = text.split("```toml\n", 1)[1].split("```", 1)[0]
    args = read(tmp_path, block)
    assert (args.otel, args.otel_content, args.http, args.metrics) == (True, "redacted", True, True)


# The checks made after the parse, each as (the settings it needs beside, the value it refuses,
# its reason when the value is the file's), all as command-line words; the file writes the same.
PROVIDER = ["--provider", "openai", "--provider-model", "m"]
HTTP = ["--http"]
STORE = ["--store", "sqlite::memory:"]
AFTER_THE_PARSE = [
    (PROVIDER, ["--cooldown-for", "-5"], "must be positive, got -5"),
    (PROVIDER, ["--route-deadline", "0"], "must be positive, got 0"),
    (PROVIDER, ["--cooldown-after", "abc"], "expected a whole number, got 'abc'"),
    (PROVIDER, ["--cooldown-after", "0"], "must be positive, got 0"),
    (PROVIDER, ["--provider-timeout", "-1"], "must be positive, got -1.0"),
    (PROVIDER, ["--provider-max-retries", "-1"], "must be positive, got -1"),
    (
        [],
        ["--cooldown-for", "5"],
        "--cooldown-for need(s) a provider (--provider, or --config's [providers])",
    ),
    ([], ["--provider-model", "m"], "--provider-model need(s) --provider (or AGENT_AS_MODEL_PROVIDER)"),
    (
        [],
        ["--provider", "openai"],
        "--provider openai needs --provider-model (or AGENT_AS_MODEL_PROVIDER_MODEL)",
    ),
    (
        [],
        ["--store", "bogus:x"],
        "expected sqlite:PATH, redis://HOST:PORT/DB or rediss://HOST:PORT/DB, got 'bogus:x'",
    ),
    ([], ["--store-ttl", "5d"], "--store-ttl needs --store (or AGENT_AS_MODEL_STORE)"),
    (STORE, ["--store-ttl", "-1"], "must be a positive duration, got '-1'"),
    (STORE, ["--store-ttl", "zz"], "expected seconds or a number with s, m, h or d (30d), got 'zz'"),
    (
        HTTP,
        ["--store", "redis://127.0.0.1:1/0"],
        "--store redis://...: a Redis store needs AGENT_AS_MODEL_STATE_KEY, the key its values are sealed",
    ),
    (HTTP, ["--port", "-1"], "must be between 1 and 65535, got -1"),
    (HTTP, ["--workers", "0"], "must be at least 1, got 0"),
    (HTTP, ["--max-body-bytes", "0"], "must be at least 1, got 0"),
    (HTTP, ["--max-sessions", "-3"], "must be positive, got -3"),
    (HTTP, ["--path", "x"], "must start with '/' and not be /healthz, got 'x'"),
    (
        [*HTTP, "--metrics"],
        ["--path", "/metrics"],
        "--path /metrics is where --metrics serves the metrics: choose another --path",
    ),
    (HTTP, ["--host", "0.0.0.0"], "--host 0.0.0.0 is not a loopback address: set a bearer token"),
    (HTTP, ["--allowed-host", "*"], "--allowed-host '*' switches the Host/Origin check off"),
    (
        [*HTTP, "--provider-model", "m"],
        ["--provider", "openai"],
        "a provider backend is configured (openai): set a bearer token with --auth-token",
    ),
    (
        [],
        ["--fetch-media-allow", "a.example"],
        "--fetch-media-allow names hosts to fetch from: it needs --fetch-media",
    ),
    ([], ["--redact"], "--redact needs --record FILE"),
    (STORE, ["--record", "r.jsonl"], "--record cannot be used with --store (or AGENT_AS_MODEL_STORE)"),
    (HTTP, ["--record", "r.jsonl"], "--record cannot be used with --http"),
]


def _as_toml(words: list[str]) -> list[str]:
    """Command-line words as the [serve] lines that say the same (a repeated flag, an array)."""
    lines: dict[str, list[str]] = {}
    switches: list[str] = []
    at = 0
    while at < len(words):
        key = words[at][2:]
        if at + 1 < len(words) and not words[at + 1].startswith("--"):
            lines.setdefault(key, []).append(words[at + 1])
            at += 2
        else:
            switches.append(key)
            at += 1
    written = [f"{key} = true" for key in switches]
    for key, values in lines.items():
        action = serve_actions()[key]
        value = values if isinstance(action, argparse._AppendAction) else values[0]
        written.append(f"{key} = {_toml(value)}")
    return written


def started(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    env: dict[str, str] | None = None,
) -> str:
    """`agent-as-model *argv` run in this process to its refusal (exit 2): what it wrote on stderr."""
    for name in list(os.environ):
        if name.startswith("AGENT_AS_MODEL_"):
            monkeypatch.delenv(name)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    interval = sys.getswitchinterval()  # the serving commands shorten it for the whole process
    capsys.readouterr()
    try:
        try:
            status = cli.main(argv)
        except SystemExit as stopped:
            status = stopped.code  # type: ignore[assignment]
    finally:
        sys.setswitchinterval(interval)
    assert status == cli.STARTUP_FAILED
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


@pytest.mark.parametrize(("beside", "refused_words", "reason"), AFTER_THE_PARSE)
def test_a_value_checked_after_the_parse_names_the_files_line_and_key(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    beside: list[str],
    refused_words: list[str],
    reason: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "config.toml"
    context = _as_toml(beside)
    (line,) = _as_toml(refused_words)
    path.write_text("\n".join(["[serve]", *context, line]) + "\n")
    key = refused_words[0][2:]
    said = started(monkeypatch, capsys, ["serve", "--config", str(path)])
    assert said.startswith(f"agent-as-model: {path}:{len(context) + 2}: serve.{key}: {reason}"), said
    assert said.count("\n") == 1 and said.endswith("\n")

    # The same settings by flag, beside a file that sets something else: today's message, as
    # without a file.
    path.write_text('[serve]\nresult = "object"\n')
    by_flag = started(monkeypatch, capsys, ["serve", "--config", str(path), *beside, *refused_words])
    without_file = started(monkeypatch, capsys, ["serve", *beside, *refused_words])
    assert by_flag == without_file
    assert str(path) not in by_flag and reason.split(" ")[-1] in by_flag


def test_named_providers_served_over_http_without_a_token_are_refused_at_their_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[serve]\nhttp = true\n\n[providers.a]\nkind = "openai"\nmodels = ["x"]\n')
    said = started(monkeypatch, capsys, ["serve", "--config", str(path)])
    assert said == (
        f"agent-as-model: {path}:4: providers: a provider backend is configured (a): set a bearer token "
        "with --auth-token or AGENT_AS_MODEL_AUTH_TOKEN, or anyone who reaches the port could spend its key\n"
    )


def test_a_value_from_a_variable_keeps_the_variables_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[serve]\nprovider = "openai"\nprovider-model = "m"\ncooldown-for = 5\n')
    said = started(
        monkeypatch, capsys, ["serve", "--config", str(path)], env={"AGENT_AS_MODEL_COOLDOWN_FOR": "-5"}
    )
    assert said == "agent-as-model: --cooldown-for: must be positive, got -5 (see agent-as-model --help)\n"


def test_a_flag_that_wins_over_the_file_is_not_blamed_on_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file sets a good value that the flag replaces with a bad one: the flag's message, no line."""
    path = tmp_path / "config.toml"
    path.write_text("[serve]\nhttp = true\nworkers = 2\n")
    said = started(monkeypatch, capsys, ["serve", "--config", str(path), "--workers", "0"])
    assert said == "agent-as-model: --workers must be at least 1, got 0 (see agent-as-model --help)\n"


def test_a_value_checked_after_the_parse_stops_the_installed_command_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "after.toml"
    path.write_text('[serve]\nprovider = "openai"\nprovider-model = "m"\ncooldown-for = -5\n')
    done = run_command("serve", "--config", str(path))
    assert done.returncode == 2
    assert done.stderr == f"agent-as-model: {path}:4: serve.cooldown-for: must be positive, got -5\n"
    by_variable = run_command(AGENT_AS_MODEL_CONFIG=str(path))  # the bare command, as a host runs it
    assert (by_variable.returncode, by_variable.stderr) == (2, done.stderr)
    path.write_text("[serve]\nworkers = 0\n")
    over_http = run_command("serve", "--http", "--config", str(path))  # refused before binding
    assert over_http.returncode == 2
    assert over_http.stderr == f"agent-as-model: {path}:2: serve.workers: must be at least 1, got 0\n"
