"""The server's `tools/call`: a dialect's call made into a record with its router and handed to the
driver, a stored response's tool answered from the store, `list_models` answered as it is.

server.py imports this module on a server's first call, not at start-up: a host waits for start-up
to list the tools, and the engine, the states and the backends that only a call uses are a share
of it (benchmarks/README.md, "What each cache, ContextVar and late import buys"). A server that is
only listed never needs them; the first call imports them once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from mcp.server import ServerRequestContext
from mcp_types import CallToolRequestParams, CallToolResult, InputRequiredResult

from agent_as_model import patterns, schemas, telemetry
from agent_as_model.adapters import backends
from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.tools import models
from agent_as_model.arguments import reject_unknown
from agent_as_model.engine import admission, observed, stored_responses
from agent_as_model.engine.driver import drive, refuse
from agent_as_model.errors import CallError
from agent_as_model.limits import Limits
from agent_as_model.states.call import CallRecord
from agent_as_model.states.commit import error_result, tool_result

if TYPE_CHECKING:
    from agent_as_model.adapters.backends import Pool
    from agent_as_model.adapters.callers import Gate, Visit
    from agent_as_model.adapters.dialects.storage import Storage
    from agent_as_model.adapters.store import SealedStore

CallHandler = Callable[
    [ServerRequestContext[Any], CallToolRequestParams],
    Awaitable[CallToolResult | InputRequiredResult | dict[str, Any]],
]


def call_handler(
    pool: Pool | None,
    limits: Limits,
    store: SealedStore | None,
    stored_tools: dict[str, tuple[Storage, models.StaticTool]],
    listed_models: list[dict[str, Any]],
    gate: Gate | None = None,
) -> CallHandler:
    """The `tools/call` handler of one server (`server.build_server` says what each is)."""

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult | InputRequiredResult | dict[str, Any]:
        arguments = params.arguments or {}
        dialect = DIALECTS.get(params.name)
        if dialect is None:
            if params.name in stored_tools and store is not None:
                storage, tool = stored_tools[params.name]
                return await stored_responses.answer_stored_tool(tool, storage, arguments, store)
            return _static_tool(params.name, arguments, listed_models, list(stored_tools))
        # Each request runs in its own task, so this bounds the schema checks of this call only.
        patterns.TIME_BOUND.set(limits.schema_timeout)
        patterns.STEP_BOUND.set(limits.schema_steps)
        schemas.remember_per_request()
        responses = store if dialect.storage is not None else None  # a product that keeps responses
        carried = None
        refusal = None
        if responses is not None:
            # A continued call's retry carries the stored response in its (sealed) state: the
            # backend gets its own state back, and the call continues the one carried.
            try:
                opened = stored_responses.unwrap(params.request_state)
            except CallError as err:
                opened, refusal = None, err
            if opened is not None:
                inner, carried = opened
                params = params.model_copy(update={"request_state": inner})
        # Who serves is decided by the machine's build step (or a proven retry's resume), from
        # the parsed request; the providers' cooldowns it reads are as a shared store has them now.
        if pool is not None:
            await pool.cooldowns.refresh()
        router = backends.CallRouter(ctx, params, pool, limits)
        watch = telemetry.WATCH
        # The caller the door named, for the limits and the tool span: read only for them.
        visit = None if gate is None and watch is None else _visit(ctx)
        record = CallRecord(dialect, arguments, router, limits, responses, carried, gate, visit)
        # A state this server cannot open ends the call by the table's way out, before its walk.
        walk = drive if refusal is None else partial(refuse, err=refusal, told=stored_responses.ANSWER_UNUSED)
        if gate is None:
            result = await (walk(record) if watch is None else _drive_watched(watch, record, walk))
        else:  # callers' limits: admitted by the machine, settled here however the call ends
            try:
                result = await (walk(record) if watch is None else _drive_watched(watch, record, walk))
            finally:
                await admission.settle(record)
        if not isinstance(result, InputRequiredResult):
            return result
        if record.stored is not None:
            # Every round that asks, repair rounds too: the next retry must not need the store.
            result = result.model_copy(
                update={"request_state": stored_responses.wrap(result.request_state, record.stored)}
            )
        # A round that asks sends the host's tools in the form kept for them (`backends.wire_result`):
        # not dumped again on every round one.
        return backends.wire_result(result)

    return call_tool


def _visit(ctx: ServerRequestContext[Any]) -> Visit | None:
    """The caller the HTTP door found for this request (None: no door, as in-process)."""
    from agent_as_model.adapters.callers import VISIT_KEY

    scope = getattr(ctx.request, "scope", None)
    return None if scope is None else scope.get(VISIT_KEY)


async def _drive_watched(
    watch: telemetry.Watch,
    record: CallRecord,
    walk: Callable[[CallRecord], Awaitable[CallToolResult | InputRequiredResult]],
) -> CallToolResult | InputRequiredResult:
    """The call, counted in flight while it runs, and its tool span told what it ended with."""
    watch.in_flight(record.tool, 1)
    result = None
    try:
        result = await walk(record)
        return result
    finally:
        watch.in_flight(record.tool, -1)
        watch.call_ended(observed.call_seen(record, result))


def _static_tool(
    name: str, arguments: dict[str, Any], listed_models: list[dict[str, Any]], stored: list[str]
) -> CallToolResult:
    if name != models.NAME:
        known = ", ".join([*DIALECTS, models.NAME, *stored])
        return error_result(f"unknown tool '{name}' (tools: {known}). Nothing was sent to the host.")
    try:
        reject_unknown(arguments, ())
    except CallError as err:
        return error_result(err.message(name))
    return tool_result(listed_models)
