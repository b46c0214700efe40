"""The operator's provider settings (spec section 8): flags of `serve`, each with an environment
variable, read into one `ProviderSettings` (or None: no provider, the default; no key is read).

Keys are never flags: the official SDKs read them from the environment variable each provider
module declares (`KEY_VARIABLE`), which the help text names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from agent_as_model.adapters.provider_names import POLICIES, key_variables, providers

if TYPE_CHECKING:  # the backend loads the MCP SDK: imported only when a provider is configured
    import argparse

    from agent_as_model.adapters.backends.provider import ProviderSettings


class UsageErrors(Protocol):
    """Where a bad setting is reported: the parser, or the command line's own reporter when a host
    runs the command with no arguments and no parser is built."""

    def error(self, message: str) -> NoReturn: ...


ENV = {
    "provider": "AGENT_AS_MODEL_PROVIDER",
    "provider_base_url": "AGENT_AS_MODEL_PROVIDER_BASE_URL",
    "provider_model": "AGENT_AS_MODEL_PROVIDER_MODEL",
    "provider_models": "AGENT_AS_MODEL_PROVIDER_MODELS",
    "use_provider": "AGENT_AS_MODEL_USE_PROVIDER",
    "provider_on_host_error": "AGENT_AS_MODEL_PROVIDER_ON_HOST_ERROR",
    "provider_timeout": "AGENT_AS_MODEL_PROVIDER_TIMEOUT",
    "provider_max_retries": "AGENT_AS_MODEL_PROVIDER_MAX_RETRIES",
}
LATE_DESCRIPTION = "late_description"  # a group's description made when its help is formatted
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
TRUE = ("1", "true", "yes", "on")


def _description() -> str:
    keys = " / ".join(f"{variable} ({name})" for name, variable in key_variables().items())
    return (
        "Let a provider's model answer when the host cannot sample (or always). Off by default: "
        f"without --provider no key is read. Keys come only from {keys}."
    )


def add_provider_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("provider (opt-in; see docs/providers.md)")
    # Written only when the help is: the key variables are the provider modules' own, and loading
    # them loads the MCP SDK, which `--version` and every other parse need not pay for.
    setattr(group, LATE_DESCRIPTION, _description)
    group.add_argument("--provider", choices=providers(), help=f"the provider ({ENV['provider']})")
    group.add_argument(
        "--provider-base-url",
        metavar="URL",
        help="an OpenAI-compatible endpoint (Ollama, vLLM, LM Studio, llama.cpp, a router) or another "
        f"Anthropic endpoint ({ENV['provider_base_url']})",
    )
    group.add_argument(
        "--provider-model", metavar="NAME", help=f"what agent-default means there ({ENV['provider_model']})"
    )
    group.add_argument(
        "--provider-models",
        metavar="A,B",
        help=f"other model names a call may ask for; any other is an error ({ENV['provider_models']})",
    )
    group.add_argument(
        "--use-provider",
        choices=POLICIES,
        help=f"when the provider answers a call with backend 'auto' ({ENV['use_provider']}; "
        "default when-host-cannot)",
    )
    group.add_argument(
        "--provider-on-host-error",
        action="store_true",
        default=None,
        help=f"also when the host declines or fails the sampling request ({ENV['provider_on_host_error']})",
    )
    group.add_argument(
        "--provider-timeout",
        type=float,
        metavar="SECONDS",
        help=f"the bound of one attempt, from the request to the answer's last byte "
        f"({ENV['provider_timeout']}; default {DEFAULT_TIMEOUT:g}); each request to the provider, its "
        "retries and the waits between them (Retry-After included), takes at most "
        "SECONDS x (retries + 1); a call with repair rounds makes one such request per round",
    )
    group.add_argument(
        "--provider-max-retries",
        type=int,
        metavar="N",
        help=f"attempts after the first, on a timeout, a lost connection, 408, 409, 429 or 5xx "
        f"({ENV['provider_max_retries']}; default {DEFAULT_MAX_RETRIES})",
    )


def provider_settings(
    parser: UsageErrors, args: Any, env: Mapping[str, str] | None = None
) -> ProviderSettings | None:
    """The settings from the flags, each falling back to its environment variable; None when no
    provider is configured. A bad value is a usage error (exit status 2)."""
    env = os.environ if env is None else env

    def value(name: str) -> str | None:
        given = getattr(args, name, None)
        if given is not None:
            return str(given) if not isinstance(given, bool) else ("1" if given else "")
        return env.get(ENV[name]) or None

    provider = value("provider")
    others = [f"--{name.replace('_', '-')}" for name in ENV if name != "provider" and value(name) is not None]
    if provider is None:
        if others:
            parser.error(f"{', '.join(others)} need(s) --provider (or {ENV['provider']})")
        return None
    if provider not in providers():
        parser.error(f"{ENV['provider']}: expected one of {', '.join(providers())}, got {provider!r}")
    model = value("provider_model")
    if not model:
        parser.error(f"--provider {provider} needs --provider-model (or {ENV['provider_model']})")
    use = value("use_provider") or "when-host-cannot"
    if use not in POLICIES:
        parser.error(f"{ENV['use_provider']}: expected one of {', '.join(POLICIES)}, got {use!r}")
    models = tuple(m.strip() for m in (value("provider_models") or "").split(",") if m.strip())
    from agent_as_model.adapters.backends.provider import ProviderSettings

    return ProviderSettings(
        provider=provider,  # type: ignore[arg-type]  # checked against providers() above
        model=model,
        models=models,
        base_url=value("provider_base_url"),
        use=use,  # type: ignore[arg-type]  # checked against POLICIES above
        on_host_error=(value("provider_on_host_error") or "").lower() in TRUE,
        timeout=_number(parser, "provider_timeout", value("provider_timeout"), DEFAULT_TIMEOUT, float),
        max_retries=int(
            _number(parser, "provider_max_retries", value("provider_max_retries"), DEFAULT_MAX_RETRIES, int)
        ),
    )


def _number(parser: UsageErrors, name: str, raw: str | None, default: float, kind: type) -> float:
    if raw is None:
        return default
    try:
        number = kind(raw)
    except ValueError:
        parser.error(f"{ENV[name]}: expected a number, got {raw!r}")
    if number < 0 or (kind is float and number == 0):
        parser.error(f"--{name.replace('_', '-')}: must be positive, got {raw}")
    return float(number)
