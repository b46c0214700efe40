"""The host first, a provider when the host declines or fails (`--provider-on-host-error`).

The host is asked exactly as without a provider; only when it answers the sampling request with
an error (the person declined, or the host failed) does the same payload go to the provider. A
host answer that breaks the contract is not a decline: it is told as the host's, as ever. On
2026-07-28 a host that declines does not retry the call, so the server never hears of it and
there is nothing to fall back from (docs/providers.md).
"""

from __future__ import annotations

import logging

from mcp_types import CreateMessageRequestParams

from agent_as_model import telemetry
from agent_as_model.adapters.backends.base import Backend, HostAnswer, HostDeclined, Suspension
from agent_as_model.errors import CallError

log = logging.getLogger("agent_as_model")


class HostThenProvider:
    """Until the host declines, this is the host: every round goes to it, with the findings of the
    rounds before (on 2026-07-28 its rounds carry them across requests)."""

    def __init__(self, host: Backend, provider: Backend, provider_name: str) -> None:
        self._host = host
        self._provider = provider
        self._name = provider_name
        self.who: str | None = None  # the host, until it declines

    def source(self, model: str) -> str:
        return "host" if self.who is None else self._provider.source(model)

    def admit(self, payload: CreateMessageRequestParams) -> None:
        # The host first: what the provider could not take is found if and when it is asked.
        self._host.admit(payload)

    async def exchange(
        self, payload: CreateMessageRequestParams, round_no: int, findings: tuple[CallError, ...]
    ) -> HostAnswer | Suspension:
        if self.who is None:
            try:
                return await self._host.exchange(payload, round_no, findings)
            except HostDeclined as err:
                log.info("the host declined (%s): asking the provider %s instead", err.reason, self._name)
                telemetry.fell_back(self._name)
                self.who = f"The host declined; the provider {self._name}"
        return await self._provider.exchange(payload, round_no, findings)
