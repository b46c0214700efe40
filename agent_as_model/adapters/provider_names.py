"""The provider backend's names and policies, apart from the backend itself.

`serve`'s flags need them to build the command line, and the command line must start without the
MCP SDK (`--version`, `--help`): importing anything under `adapters/backends/` loads it.
"""

from __future__ import annotations

from typing import Literal

ProviderName = Literal["openai", "anthropic"]
UsePolicy = Literal["when-host-cannot", "always"]
PROVIDERS: tuple[ProviderName, ...] = ("openai", "anthropic")
POLICIES: tuple[UsePolicy, ...] = ("when-host-cannot", "always")
