"""The operator's settings as flags and environment variables of `serve`,
start-up errors as one line with exit status 2, and a provider-served call over real stdio."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from mcp import Client

from agent_as_model.commands.standin_provider import StandInProvider
from tests.helpers import COMMAND, GUARD, command_environment, run_command, server_params
from tests.provider_harness import OPENAI_KEY, backend_of
from tests.scripted_host import ERAS


def test_a_provider_without_a_model_is_a_usage_error() -> None:
    done = run_command("serve", "--provider", "openai")
    assert done.returncode == 2
    assert "--provider openai needs --provider-model (or AGENT_AS_MODEL_PROVIDER_MODEL)" in done.stderr
    assert done.stdout == ""


def test_provider_settings_without_a_provider_are_a_usage_error() -> None:
    done = run_command("serve", "--provider-model", "m", AGENT_AS_MODEL_USE_PROVIDER="always")
    assert done.returncode == 2
    assert "--provider-model, --use-provider need(s) --provider (or AGENT_AS_MODEL_PROVIDER)" in done.stderr


def test_a_bad_environment_value_is_a_usage_error() -> None:
    done = run_command("serve", AGENT_AS_MODEL_PROVIDER="cohere", AGENT_AS_MODEL_PROVIDER_MODEL="m")
    assert done.returncode == 2
    assert "AGENT_AS_MODEL_PROVIDER: expected one of openai, anthropic, gemini, got 'cohere'" in done.stderr


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_missing_extra_is_one_line_naming_it(provider: str) -> None:
    code = (
        f"import sys; sys.modules[{provider!r}] = None\n"  # as if the extra were not installed
        "from agent_as_model.commands.cli import main\n"
        f"sys.exit(main(['serve', '--provider', {provider!r}, '--provider-model', 'm']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=command_environment(OPENAI_API_KEY="k", ANTHROPIC_API_KEY="k"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=GUARD,
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"agent-as-model: --provider {provider} needs the {provider} SDK: install this project with "
        f"its {provider} extra (pip install '/path/to/checkout[{provider}]'), "
        f"or pip install {provider} beside it\n"
    )


@pytest.mark.parametrize(
    ("provider", "variables"),
    [("openai", ("OPENAI_API_KEY",)), ("anthropic", ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"))],
)
@pytest.mark.parametrize("http", [False, True])
def test_a_missing_key_is_one_line(provider: str, variables: tuple[str, ...], http: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k not in variables}
    extra = ["--http", "--port", "1", "--auth-token", "t" * 32] if http else []  # never bound: it fails first
    done = subprocess.run(
        [str(COMMAND), "serve", "--provider", provider, "--provider-model", "m", *extra],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"agent-as-model: --provider {provider}: "), lines
    assert f"set {variables[0]}" in lines[0]
    if provider == "openai":  # the one remedy for a local server that needs no key
        assert lines[0].endswith("any value for a local server that needs no key)"), lines


@pytest.mark.stdio
@pytest.mark.anyio
@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("how", ["flags", "environment"])
async def test_a_provider_served_call_over_real_stdio(era: str, how: str, standin: StandInProvider) -> None:
    env = {**os.environ, "OPENAI_API_KEY": OPENAI_KEY}
    args = ["serve"]
    settings = {
        "PROVIDER": "openai",
        "PROVIDER_BASE_URL": standin.openai_base_url,
        "PROVIDER_MODEL": "model-one",
        "PROVIDER_MAX_RETRIES": "0",
    }
    if how == "flags":
        for name, value in settings.items():
            args += [f"--{name.lower().replace('_', '-')}", value]
    else:
        env.update({f"AGENT_AS_MODEL_{name}": value for name, value in settings.items()})
    params = server_params(*args, env=env)
    async with Client(params, mode=era) as client:  # declares no sampling
        result = await client.call_tool("generate", {"prompt": "over stdio"})
        models = await client.call_tool("list_models", {})
    assert not result.is_error, result.content[0].text
    assert result.content[0].text == "stand-in answer to: over stdio"
    assert backend_of(result) == "provider:openai/model-one"
    assert "model-one" in models.content[0].text
    assert [s.body["model"] for s in standin.seen] == ["model-one"]


# By the option's name (its argparse dest, the key of provider_options.ENV): flag, value.
_EVERY_SETTING = {
    "provider": ("--provider", "anthropic"),
    "provider_base_url": ("--provider-base-url", "http://127.0.0.1:9/v1"),
    "provider_model": ("--provider-model", "m-default"),
    "provider_models": ("--provider-models", " m-two, m-three ,"),
    "use_provider": ("--use-provider", "always"),
    "provider_timeout": ("--provider-timeout", "2.5"),
    "provider_max_retries": ("--provider-max-retries", "7"),
}
_PARSED = {
    "provider": "anthropic",
    "base_url": "http://127.0.0.1:9/v1",
    "model": "m-default",
    "models": ("m-two", "m-three"),
    "use": "always",
    "on_host_error": True,
    "timeout": 2.5,
    "max_retries": 7,
}


@pytest.mark.parametrize("how", ["flags", "environment"])
def test_every_provider_setting_is_read_from_its_flag_or_its_variable(how: str) -> None:
    from agent_as_model.commands import cli
    from agent_as_model.commands.provider_options import ENV, provider_settings

    parser = cli._parser()
    if how == "flags":
        argv = ["serve", "--provider-on-host-error"]
        for flag, value in _EVERY_SETTING.values():
            argv += [flag, value]
        settings = provider_settings(parser, parser.parse_args(argv), env={})
    else:
        env = {ENV[name]: value for name, (_, value) in _EVERY_SETTING.items()}
        env[ENV["provider_on_host_error"]] = "yes"
        settings = provider_settings(parser, parser.parse_args(["serve"]), env=env)
    assert settings is not None
    assert {name: getattr(settings, name) for name in _PARSED} == _PARSED


def test_a_flag_wins_over_its_variable_and_defaults_apply() -> None:
    from agent_as_model.commands import cli
    from agent_as_model.commands.provider_options import (
        DEFAULT_MAX_RETRIES,
        DEFAULT_TIMEOUT,
        ENV,
        provider_settings,
    )

    parser = cli._parser()
    args = parser.parse_args(["serve", "--provider", "openai", "--provider-model", "from-flag"])
    settings = provider_settings(parser, args, env={ENV["provider_model"]: "from-env"})
    assert settings is not None and settings.model == "from-flag"
    assert (settings.use, settings.on_host_error, settings.models) == ("when-host-cannot", False, ())
    assert (settings.timeout, settings.max_retries) == (DEFAULT_TIMEOUT, DEFAULT_MAX_RETRIES)
