"""The call record: everything one tool call knows, filled in by the states that own each field.

It lives with the states (the floor that does the work on it). The engine moves it along the
machine by `state`, and its driver reads what the I/O it awaits for the call needs (the route and
the round's payload, the completions of several, the store) and what the call ends with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from mcp_types import CallToolResult, CreateMessageRequestParams, InputRequiredResult, SamplingMessage

from agent_as_model.adapters.backends.base import Backend, HostAnswer, Resumption, Route, Router
from agent_as_model.adapters.dialects.media import Fetched
from agent_as_model.errors import CallError
from agent_as_model.limits import DEFAULT_LIMITS, Limits
from agent_as_model.neutral import EMPTY, Completion, Request
from agent_as_model.records import Record

if TYPE_CHECKING:
    from agent_as_model.adapters.callers import Gate, Ticket, Visit
    from agent_as_model.adapters.dialects import Dialect
    from agent_as_model.adapters.dialects.parse import Unfetched
    from agent_as_model.adapters.dialects.storage import Keep
    from agent_as_model.adapters.store import SealedStore

# How an output contract travels: as one required tool when the host takes tools, otherwise as
# the schema in the system prompt (spec section 3).
Structured = Literal["tool", "prompt"]
# What became of the caller's tools on a host without `sampling.tools` (`serve
# --host-without-tools`): dropped (and said so in the result) or emulated in the prompt.
WithoutTools = Literal["dropped", "emulated"]


class HostPlan(Record):
    """How this call's request was put to this host, decided once at build time.

    `host_tools`: the host declared `sampling.tools`, so tool blocks and definitions may travel.
    `structured` is how an output contract travels (None: the call has none). `names` maps the
    names the host saw back to the caller's tool names. `offered`: the host-side names of the
    tools the payload offers (what the host may call), so the answer is read without the payload.
    `without_tools`: the caller gave tools and the host cannot take them: what became of them.
    """

    host_tools: bool = False
    structured: Structured | None = None
    names: Mapping[str, str] = EMPTY
    offered: frozenset[str] = frozenset()
    without_tools: WithoutTools | None = None


NO_PLAN = HostPlan()


class Unset(RuntimeError):
    """A step read a field of the record before the step that owns it filled it: our bug."""


class CallRecord:
    """One call, moved along the machine. Each field is filled by the step that owns it (named
    beside it); reading one before then raises `Unset` (an internal fault, never a caller's), so
    no step needs to check what the machine's order already guarantees."""

    __slots__ = (
        "dialect",
        "arguments",
        "router",
        "limits",
        "state",
        "plan",
        "round_no",
        "findings",
        "repairs",
        "route",
        "large",
        "resumption",
        "fetched",
        "unfetched",
        "choices",
        "asked",
        "store",
        "carried",
        "storing",
        "given",
        "stored",
        "to_keep",
        "gate",
        "visit",
        "ticket",
        "answered",
        "_request",
        "_payload",
        "_host_answer",
        "_completion",
        "_result",
    )

    def __init__(
        self,
        dialect: Dialect,
        arguments: Mapping[str, Any],
        router: Router,
        limits: Limits = DEFAULT_LIMITS,
        store: SealedStore | None = None,
        carried: Mapping[str, Any] | None = None,
        gate: Gate | None = None,
        visit: Visit | None = None,
    ) -> None:
        self.dialect = dialect
        self.arguments = arguments
        # The server's bound on completions per call and its default result shape (validate).
        self.limits = limits
        # Remote media (`serve --fetch-media`): None while it is refused; else what the driver
        # fetched for this call so far, by URL (validate reads the arguments with it).
        self.fetched: dict[str, Fetched] | None = {} if limits.fetch.enabled else None
        # validate: the remote media its reading met, still to fetch (the driver fetches them in
        # `awaiting_media`, and `take_fetched` puts them in the request).
        self.unfetched: Unfetched | None = None
        # Chooses who serves this call from its parsed request (the build step). A `Route` is
        # the router of a call it always serves.
        self.router = router
        self.state = "received"  # owned by the machine: only engine.machine.fire changes it
        self.plan = NO_PLAN  # build (shared: a plan is never changed, only replaced)
        self.round_no = 0  # 0 for the first ask; one more for each repair (spec section 3)
        # What each earlier round's answer was found to break, in order (repair appends): the
        # backend is handed them with each round (`Backend.exchange`).
        self.findings: tuple[CallError, ...] = ()
        # What each repair added to the conversation, in order: the host's answer and what was
        # wrong with it (repair appends; every later round's payload ends with them).
        self.repairs: tuple[SamplingMessage, ...] = ()
        # build (or resume), first: who serves the call (None before: nothing can have been sent).
        # A plain field, not a checked one: the driver reads it on every round, and `backend`
        # says None.
        self.route: Route | None = None
        # Whether the conversation counts as large (`validate.large_input`): counted once, read by
        # the two states that may leave the loop for it.
        self.large: bool | None = None
        # resume: what a 2026-07-28 retry's sealed state binds, the host's answers of the rounds
        # up to the one it was minted for (`states/resume.py`). None: the call is no such retry.
        self.resumption: Resumption | None = None
        # fan_out: one record per completion of a call that asked for several (`states/choices.py`).
        self.choices: tuple[CallRecord, ...] = ()
        # suspend: the round that asks (2026-07-28), what this request returns instead of a result.
        self.asked: InputRequiredResult | None = None
        # Stored responses (`serve --store`, a product whose API keeps them: `states/stored.py`).
        # The store, given only for such a product; what a 2026-07-28 retry's state carried of
        # the stored response the call continues (read by its round one).
        self.store = store
        self.carried = carried
        # plan_store: which stored response the call continues, and whether its response is kept.
        self.storing: Keep | None = None
        # read (or carry): the stored response the call continues, and the caller's arguments
        # before its items were put in front of the input (errors name the caller's paths).
        self.stored: Mapping[str, Any] | None = None
        self.given: Mapping[str, Any] = arguments
        # keep: what is written under the response's id (its input and the Response object).
        self.to_keep: dict[str, Any] | None = None
        # Callers' limits (`serve --http` with [limits]): the server's gate, and the caller the
        # door found for this request (None: no door named one; the gate's anonymous caller).
        self.gate = gate
        self.visit = visit
        # admit: the call's place in its caller's counters, given back when the call ends.
        self.ticket: Ticket | None = None
        # answer: each answer this request took, in order (what its caller is counted for).
        self.answered: tuple[HostAnswer, ...] = ()
        self._request: Request | None = None
        self._payload: CreateMessageRequestParams | None = None
        self._host_answer: HostAnswer | None = None
        self._completion: Completion | None = None
        self._result: CallToolResult | None = None

    @property
    def tool(self) -> str:
        return self.dialect.NAME

    @property
    def backend(self) -> Backend | None:
        """Who serves the call, once routed (None before: nothing can have been sent)."""
        route = self.route
        return None if route is None else route.backend

    @property
    def request(self) -> Request:  # validate
        value = self._request  # a step reads it several times a call: checked inline
        if value is None:
            raise _unset("request", "validate")
        return value

    @request.setter
    def request(self, request: Request) -> None:
        self._request = request

    @property
    def payload(self) -> CreateMessageRequestParams:  # build; a repair builds its round's
        value = self._payload  # a step reads it several times a call: checked inline
        if value is None:
            raise _unset("payload", "build")
        return value

    @payload.setter
    def payload(self, payload: CreateMessageRequestParams) -> None:
        self._payload = payload

    @property
    def host_answer(self) -> HostAnswer:  # answer
        value = self._host_answer  # a step reads it several times a call: checked inline
        if value is None:
            raise _unset("host_answer", "answer")
        return value

    @host_answer.setter
    def host_answer(self, answer: HostAnswer) -> None:
        self._host_answer = answer

    def forget_answer(self) -> None:
        """A repair round asks again: the answer it repaired is no longer this call's answer."""
        self._host_answer = None

    @property
    def completion(self) -> Completion:  # interpret
        value = self._completion  # a step reads it several times a call: checked inline
        if value is None:
            raise _unset("completion", "interpret")
        return value

    @completion.setter
    def completion(self, completion: Completion) -> None:
        self._completion = completion

    @property
    def result(self) -> CallToolResult:  # commit
        value = self._result  # a step reads it several times a call: checked inline
        if value is None:
            raise _unset("result", "commit")
        return value

    @result.setter
    def result(self, result: CallToolResult) -> None:
        self._result = result


def _unset(name: str, owner: str) -> Unset:
    return Unset(f"the call record's {name} was read before {owner} filled it")
