"""The operator's providers and routes, as the configuration file writes them: `[providers.NAME]`
(each named, with its API, endpoint, key variable and models) and `[routes]` (a model name or
glob pattern -> the chain of backends that serve it), read into `adapters/routes.py`'s values.

    [providers.local]
    kind = "openai"                      # openai (any OpenAI-compatible endpoint), anthropic, gemini
    base-url = "http://localhost:11434/v1"
    key-variable = "LOCAL_KEY"           # the variable its key is read from; never the key itself
    default-model = "llama3.1"           # what agent-default means there
    models = ["llama3.1", "qwen*"]       # what it serves: names and glob patterns
    pass-through = false                 # its own product's calls too through the neutral conversation

    [routes]
    "agent-default" = ["host", "local"]  # the host, and the provider when the host cannot serve
    "gpt-*" = ["openai", "local/llama3.1"]
"""

from __future__ import annotations

import re
from typing import Any

from agent_as_model.adapters.provider_names import ProviderSettings, providers
from agent_as_model.adapters.routes import HOST, NAME_PATTERN, Hop, RouteRule
from agent_as_model.commands.config_file import Section
from agent_as_model.neutral import DEFAULT_MODEL

# The keys of a [providers.NAME] table.
PROVIDER_KEYS = (
    "kind",
    "base-url",
    "key-variable",
    "default-model",
    "models",
    "timeout",
    "max-retries",
    "pass-through",
)
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def read_providers(section: Section) -> tuple[ProviderSettings, ...]:
    """Each `[providers.NAME]` table, in the file's order."""
    read = []
    for name, table in section.value.items():
        if not NAME_PATTERN.fullmatch(name) or name == HOST:
            raise section.error(
                name,
                message="a provider's name is 1 to 64 letters, digits, '.', '_' or '-', and not 'host'",
            )
        if not isinstance(table, dict):
            raise section.error(
                name, message=f"expected a table of the provider's settings, [providers.{name}]"
            )
        read.append(_provider(section, name, table))
    return tuple(read)


def _provider(section: Section, name: str, table: dict[str, Any]) -> ProviderSettings:
    for key in table:
        if key not in PROVIDER_KEYS:
            raise section.error(
                name, key, message=f"unknown key (a provider takes {', '.join(PROVIDER_KEYS)})"
            )
    kinds = providers()
    kind = table.get("kind", name if name in kinds else None)
    if kind is None:
        raise section.error(name, message=f"needs kind, its API: one of {', '.join(kinds)}")
    if kind not in kinds:
        raise section.error(name, "kind", message=f"expected one of {', '.join(kinds)}, got {kind!r}")
    base_url = _string(section, name, table, "base-url")
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise section.error(
            name, "base-url", message=f"expected an http:// or https:// URL, got {base_url!r}"
        )
    variable = _string(section, name, table, "key-variable")
    if variable is not None and not _VARIABLE.fullmatch(variable):
        raise section.error(
            name,
            "key-variable",
            message=f"expected the name of an environment variable (the key itself never goes here), "
            f"got {'a value that is none' if len(variable) > 8 else repr(variable)}",
        )
    models = table.get("models", [])
    models = [models] if isinstance(models, str) else models
    if not isinstance(models, list) or not all(isinstance(m, str) and m for m in models):
        raise section.error(name, "models", message="expected an array of model names or glob patterns")
    return ProviderSettings(
        provider=kind,
        model=_string(section, name, table, "default-model") or "",
        models=tuple(models),
        base_url=base_url,
        timeout=_number(section, name, table, "timeout", DEFAULT_TIMEOUT),
        max_retries=int(_number(section, name, table, "max-retries", DEFAULT_MAX_RETRIES, whole=True)),
        name=name,
        key_variable=variable or "",
        pass_through=_switch(section, name, table, "pass-through", True),
    )


def _string(section: Section, name: str, table: dict[str, Any], key: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise section.error(name, key, message="expected a non-empty string")
    return value


def _switch(section: Section, name: str, table: dict[str, Any], key: str, default: bool) -> bool:
    value = table.get(key, default)
    if type(value) is not bool:
        raise section.error(name, key, message=f"expected true or false, got {value!r}")
    return value


def _number(
    section: Section, name: str, table: dict[str, Any], key: str, default: float, *, whole: bool = False
) -> float:
    value = table.get(key, default)
    if whole:
        if type(value) is not int or value < 0:
            raise section.error(name, key, message=f"expected a whole number, 0 or more, got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < float("inf"):
        raise section.error(name, key, message=f"expected a positive number of seconds, got {value!r}")
    return float(value)


def read_routes(section: Section) -> tuple[RouteRule, ...]:
    """Each route of `[routes]`, in the file's order: a model name or glob pattern -> its hops."""
    named = {p.label: p for p in section.reading("providers") or ()}
    rules = []
    for pattern, value in section.value.items():
        if not pattern:
            raise section.error(pattern, message="a route names a model, or a glob pattern of models")
        written = [value] if isinstance(value, str) else value
        if not isinstance(written, list) or not written or not all(isinstance(h, str) for h in written):
            raise section.error(
                pattern,
                message='expected the backends that serve it, in order: ["host", "NAME", "NAME/MODEL"]',
            )
        hops = tuple(_hop(section, pattern, hop, named) for hop in written)
        seen = set()
        for hop in hops:
            if hop in seen:
                raise section.error(pattern, message=f"names {hop} twice")
            seen.add(hop)
        rules.append(RouteRule(pattern, hops))
    return tuple(rules)


def _hop(section: Section, pattern: str, written: str, named: dict[str, ProviderSettings]) -> Hop:
    name, slash, model = written.partition("/")
    if name == HOST:
        if slash:
            raise section.error(
                pattern, message=f"{written!r}: the host answers with its own model (write 'host' alone)"
            )
        return Hop(HOST)
    settings = named.get(name)
    if settings is None:
        backends = ", ".join([HOST, *named])
        raise section.error(
            pattern,
            message=f"{written!r} is no backend of this file (backends: {backends}; a provider is "
            "a [providers.NAME] table)",
        )
    if slash and not model:
        raise section.error(
            pattern, message=f"{written!r}: name the model after the '/', or leave the '/' out"
        )
    if not slash and pattern == DEFAULT_MODEL and not settings.model:
        raise section.error(
            pattern,
            message=f"the provider {name} has no default-model to answer agent-default with: set one, or "
            f"write '{name}/MODEL'",
        )
    return Hop(name, model or None)
