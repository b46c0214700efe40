"""What every way to reach a model shares: the one protocol and the values that cross it.

A backend takes the sampling payload (the same `CreateMessageRequestParams` on every backend) and
gives back the model's answer as a `HostAnswer`, or a `Suspension` when this request must end
here and the host answer on a retry (the 2026-07-28 round trip). The engine never learns which
backend it talks to.
"""

# No `from __future__ import annotations`: this module defines NamedTuples (docs/architecture.md).

from typing import Any, NamedTuple, Protocol

from mcp_types import (
    ClientCapabilities,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    InputRequiredResult,
)

from agent_as_model.errors import CallError


class SamplingSupport(NamedTuple):
    """What the host declared it can answer."""

    declared: bool
    tools: bool = False

    @classmethod
    def of(cls, caps: ClientCapabilities | None) -> "SamplingSupport":
        sampling = caps.sampling if caps is not None else None
        if sampling is None:
            return NO_SAMPLING
        return SUPPORT[sampling.tools is not None]


NO_SAMPLING = SamplingSupport(declared=False)
SUPPORT = {False: SamplingSupport(declared=True), True: SamplingSupport(declared=True, tools=True)}


class HostAnswer(NamedTuple):
    """The model's sampling result, normalised: its blocks as a tuple, whichever backend carried it."""

    role: str
    blocks: tuple[Any, ...]
    model: str
    stop_reason: str | None
    # Which backend answered (spec section 9): "host", or "provider:<name>/<model>".
    source: str = "host"
    # What an earlier request of this call already established about this answer (a replayed
    # round on 2026-07-28): the output-contract error it led to, so it is not checked again.
    established: CallError | None = None

    @classmethod
    def of(
        cls, result: CreateMessageResult | CreateMessageResultWithTools, established: CallError | None = None
    ) -> "HostAnswer":
        content = result.content
        blocks = tuple(content) if isinstance(content, list) else (content,)
        return cls(
            role=result.role,
            blocks=blocks,
            model=result.model,
            stop_reason=result.stop_reason,
            established=established,
        )


class Suspension(NamedTuple):
    """This request ends here: the host must answer and retry (2026-07-28)."""

    result: InputRequiredResult


class HostDeclined(CallError):
    """The host did not serve the sampling request: it answered with an error (it declined or
    failed) or not at all within `--host-timeout`. Told like any host error, unless the operator
    lets a provider answer instead (`--provider-on-host-error`)."""


class ProviderUnavailable(Exception):
    """The provider cannot be set up (its SDK extra is missing, or the SDK refused its settings):
    a one-line start-up error. Here, not with the provider, so that catching it loads no provider."""


def host_declined(path: str, reason: str) -> HostDeclined:
    return HostDeclined(path, reason, "host")


class Backend(Protocol):
    """The one I/O step: hand the payload to the model, get an answer or a suspension back.

    `who` names what this backend asks, for the errors' last sentence ("The host was asked; ...");
    None for the host itself."""

    @property
    def who(self) -> str | None: ...

    # True when this request is a retry whose answer the backend already holds, bound (sealed) to
    # exactly the payload this request would build: the request was validated and its payload
    # built by an earlier round, and nothing it could prove again has changed. The call record
    # carries this (`CallRecord.proven`), so the state work skips what would prove nothing new.
    proven: bool

    async def exchange(
        self, payload: CreateMessageRequestParams | None, round_no: int
    ) -> HostAnswer | Suspension:
        """`payload` is None only for a proven record, for the rounds the backend holds answers to."""
        ...

    def repaired(self, err: CallError) -> None:
        """The last answer broke the output contract (`err`) and a repair round follows. A backend
        that carries rounds across requests (2026-07-28) keeps the finding; the others ignore it."""
        ...
