"""The settings of one provider and the policies that say when it serves: a leaf module.

The provider modules read these settings, and the registry (`adapters/provider_names.py`) names
those modules by their import paths, so the settings live below both: nothing here imports the
registry or a provider module, and no import circle forms even counting the registry's strings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_as_model.neutral import DEFAULT_MODEL
from agent_as_model.records import Record

ProviderName = str  # a key of PROVIDER_MODULES, checked where it is read (flag, environment, recording)
if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    from typing import Literal

    UsePolicy = Literal["when-host-cannot", "always"]

POLICIES: tuple[UsePolicy, ...] = ("when-host-cannot", "always")


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
    # Whether a call whose product its API speaks goes to it as written (docs/providers.md); False:
    # every call goes through the neutral conversation.
    pass_through: bool = True

    @property
    def label(self) -> str:
        """The provider's name: its own, or its API's."""
        return self.name or self.provider

    def allowed(self) -> tuple[str, ...]:
        """Every model name a call may ask the provider for, `agent-default` first."""
        names = [DEFAULT_MODEL, self.model, *self.models] if self.model else list(self.models)
        return tuple(dict.fromkeys(names))
