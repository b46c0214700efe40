"""The provider backend's registry, policies and settings, apart from the backend itself.

The bare invocation (what a host runs) reads the provider settings before it builds the server,
and must not load the MCP SDK for that: importing anything under `adapters/backends/` loads it.
So the registry names each provider module by its import path; `key_variables` imports them, for
`serve --help` (the parser is built only when arguments are given). The settings of one provider
(`ProviderSettings`) live here too, for the same reason: the command line and the configuration
file make them before anything is served.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from agent_as_model.neutral import DEFAULT_MODEL
from agent_as_model.records import Record

# The provider APIs, each one module (what it declares: `provider.ProviderModule`): to add one,
# write the module and add its line here. A test may register a module of its own.
PROVIDER_MODULES: dict[str, str] = {
    "openai": "agent_as_model.adapters.backends.providers.openai",
    "anthropic": "agent_as_model.adapters.backends.providers.anthropic",
    "gemini": "agent_as_model.adapters.backends.providers.gemini",
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


class ProviderSettings(Record):
    """One provider the operator configured: the flags of `serve` (one provider, named by its API),
    or a `[providers.NAME]` table of the configuration file (several, each named)."""

    provider: ProviderName  # its API: a key of PROVIDER_MODULES
    model: str  # what agent-default means there ("": nothing, so agent-default is not its to serve)
    models: tuple[str, ...] = ()  # other names a call may ask for (a configured provider's: globs too)
    base_url: str | None = None
    use: UsePolicy = "when-host-cannot"
    on_host_error: bool = False  # also serve when the host declined or failed the sampling request
    timeout: float = 60.0
    max_retries: int = 2
    # The name calls and results know it by ("": its API's name, as `--provider` configures it).
    name: str = ""
    # The environment variable its key is read from ("": the one its SDK reads by itself).
    key_variable: str = ""

    @property
    def label(self) -> str:
        """The provider's name: its own, or its API's."""
        return self.name or self.provider

    def allowed(self) -> tuple[str, ...]:
        """Every model name a call may ask the provider for, `agent-default` first."""
        names = [DEFAULT_MODEL, self.model, *self.models] if self.model else list(self.models)
        return tuple(dict.fromkeys(names))
