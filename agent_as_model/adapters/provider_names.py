"""The provider backend's names and policies, apart from the backend itself.

`serve`'s flags need them to build the command line, and the command line must start without the
MCP SDK (`--version`, `--help`): importing anything under `adapters/backends/` loads it.
"""

from __future__ import annotations

from typing import Literal

# The provider APIs, each one module under adapters/backends/ (its mapping through its official
# SDK, which declares `Api`, `request_body` and `KEY_VARIABLE`): to add one, write the module and
# add its line here.
PROVIDER_MODULES: dict[str, str] = {
    "openai": "agent_as_model.adapters.backends.provider_openai",
    "anthropic": "agent_as_model.adapters.backends.provider_anthropic",
}
ProviderName = str  # a key of PROVIDER_MODULES, checked where it is read (flag, environment, recording)
UsePolicy = Literal["when-host-cannot", "always"]
PROVIDERS: tuple[ProviderName, ...] = tuple(PROVIDER_MODULES)
POLICIES: tuple[UsePolicy, ...] = ("when-host-cannot", "always")
