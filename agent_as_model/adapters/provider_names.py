"""The provider backend's registry and policies, apart from the backend itself.

The bare invocation (what a host runs) reads the provider settings before it builds the server,
and must not load the MCP SDK for that: importing anything under `adapters/backends/` loads it.
So the registry names each provider module by its import path; `key_variables` imports them, for
`serve --help` (the parser is built only when arguments are given).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# The provider APIs, each one module (what it declares: `provider.ProviderModule`): to add one,
# write the module and add its line here. A test may register a module of its own.
PROVIDER_MODULES: dict[str, str] = {
    "openai": "agent_as_model.adapters.backends.providers.openai",
    "anthropic": "agent_as_model.adapters.backends.providers.anthropic",
}
ProviderName = str  # a key of PROVIDER_MODULES, checked where it is read (flag, environment, recording)
if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    from typing import Literal

    UsePolicy = Literal["when-host-cannot", "always"]

POLICIES: tuple[UsePolicy, ...] = ("when-host-cannot", "always")


def providers() -> tuple[ProviderName, ...]:
    """The registered provider names, in order (read when needed: a test may register one)."""
    return tuple(PROVIDER_MODULES)


def key_variables() -> dict[ProviderName, str]:
    """Each registered provider's key variable, as its module declares it (loads the modules)."""
    return {name: importlib.import_module(path).KEY_VARIABLE for name, path in PROVIDER_MODULES.items()}
