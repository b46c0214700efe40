"""The provider backend's registry, policies and settings, apart from the backend itself.

The bare invocation (what a host runs) reads the provider settings before it builds the server,
and must not load the MCP SDK for that: importing anything under `adapters/backends/` loads it.
So the registry names each provider module by its import path; `key_variables` imports them, for
`serve --help` (the parser is built only when arguments are given). The settings of one provider
(`ProviderSettings`, in `provider_settings.py`, which the provider modules import) are named here
too, for the same reason: the command line and the configuration file make them before anything
is served.
"""

from __future__ import annotations

import importlib

# The settings live in a leaf module the provider modules import (the registry names those
# modules, so they must not import it back); they are named here too, as before.
from agent_as_model.adapters.provider_settings import POLICIES, ProviderName, ProviderSettings

__all__ = ["POLICIES", "PROVIDER_MODULES", "ProviderName", "ProviderSettings"]

# The provider APIs, each one module (what it declares: `provider.ProviderModule`): to add one,
# write the module and add its line here. A test may register a module of its own.
PROVIDER_MODULES: dict[str, str] = {
    "openai": "agent_as_model.adapters.backends.providers.openai",
    "anthropic": "agent_as_model.adapters.backends.providers.anthropic",
    "gemini": "agent_as_model.adapters.backends.providers.gemini",
}


def providers() -> tuple[ProviderName, ...]:
    """The registered provider names, in order (read when needed: a test may register one)."""
    return tuple(PROVIDER_MODULES)


def key_variables() -> dict[ProviderName, str]:
    """Each registered provider's key variable, as its module declares it (loads the modules)."""
    return {name: importlib.import_module(path).KEY_VARIABLE for name, path in PROVIDER_MODULES.items()}
