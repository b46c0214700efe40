"""The call record: everything one tool call knows, moved along by the shared machine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mcp_types import CallToolResult, CreateMessageRequestParams, InputRequiredResult

from agent_as_model.neutral import Completion, Request

if TYPE_CHECKING:
    from agent_as_model.adapters.dialects import Dialect


@dataclass(frozen=True, slots=True)
class SamplingSupport:
    """What the host declared it can answer."""

    declared: bool
    tools: bool = False


@dataclass(frozen=True, slots=True)
class HostAnswer:
    """The host's sampling result, normalised: its blocks as a tuple, whichever era carried it."""

    role: str
    blocks: tuple[Any, ...]
    model: str
    stop_reason: str | None


@dataclass(frozen=True, slots=True)
class HostPlan:
    """How this call's request was put to this host, decided once at build time.

    `host_tools`: the host declared `sampling.tools`, so tool blocks and definitions may travel.
    `structured` is how an output contract travels: "tool" (one required tool) when the host
    takes tools, "prompt" (the schema in the system prompt) when it does not. `names` maps the
    names the host saw back to the caller's tool names.
    """

    host_tools: bool = False
    structured: str | None = None
    names: Mapping[str, str] = field(default_factory=dict)


NO_PLAN = HostPlan()


@dataclass(frozen=True, slots=True)
class Suspension:
    """The modern era ends this request here: the host must answer and retry."""

    result: InputRequiredResult


class Era(Protocol):
    """The one I/O step: hand the payload to the host, get an answer or a suspension back."""

    async def exchange(
        self, payload: CreateMessageRequestParams, round_no: int
    ) -> HostAnswer | Suspension: ...


@dataclass(eq=False)
class CallRecord:
    dialect: Dialect
    arguments: Mapping[str, Any]
    sampling: SamplingSupport
    state: str = "received"  # owned by the machine: only engine.machine.fire changes it
    request: Request | None = None
    payload: CreateMessageRequestParams | None = None
    plan: HostPlan = NO_PLAN  # shared: a plan is never changed, only replaced
    host_answer: HostAnswer | None = None
    completion: Completion | None = None
    output: str | dict[str, Any] | None = None
    result: CallToolResult | None = None
    error: Exception | None = None
    round_no: int = 0  # 0 for the first ask; one more for each repair (spec section 3)

    @property
    def tool(self) -> str:
        return self.dialect.NAME
