"""The call record: everything one tool call knows, filled in by the states that own each field.

It lives with the states (the floor that does the work on it); the engine moves it along the
machine and never looks inside beyond `state`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mcp_types import CallToolResult, CreateMessageRequestParams

from agent_as_model.adapters.backends.base import HostAnswer, SamplingSupport
from agent_as_model.errors import CallError
from agent_as_model.neutral import Completion, Request

if TYPE_CHECKING:
    from agent_as_model.adapters.dialects import Dialect

# How an output contract travels: as one required tool when the host takes tools, otherwise as
# the schema in the system prompt (spec section 3).
Structured = Literal["tool", "prompt"]


@dataclass(frozen=True, slots=True)
class HostPlan:
    """How this call's request was put to this host, decided once at build time.

    `host_tools`: the host declared `sampling.tools`, so tool blocks and definitions may travel.
    `structured` is how an output contract travels (None: the call has none). `names` maps the
    names the host saw back to the caller's tool names.
    """

    host_tools: bool = False
    structured: Structured | None = None
    names: Mapping[str, str] = field(default_factory=dict)


NO_PLAN = HostPlan()


@dataclass(eq=False)
class CallRecord:
    dialect: Dialect
    arguments: Mapping[str, Any]
    # What the backend serving this call can take: the host's declared sampling, or all of it
    # for a provider's API (the backend is chosen before the record is made).
    sampling: SamplingSupport
    # The call asked for a backend this server cannot give it: raised at build, before anything
    # is sent (after the arguments are checked, so their errors come first).
    refused: CallError | None = None
    state: str = "received"  # owned by the machine: only engine.machine.fire changes it
    request: Request | None = None  # validate
    payload: CreateMessageRequestParams | None = None  # build; repair extends it
    plan: HostPlan = NO_PLAN  # build (shared: a plan is never changed, only replaced)
    host_answer: HostAnswer | None = None  # answer
    completion: Completion | None = None  # interpret
    result: CallToolResult | None = None  # commit
    round_no: int = 0  # 0 for the first ask; one more for each repair (spec section 3)

    @property
    def tool(self) -> str:
        return self.dialect.NAME
