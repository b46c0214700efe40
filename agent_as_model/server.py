"""Wires the tools onto an MCP server: one per registered dialect, and the static `list_models`.
Thin: the engine does the work.

A low-level `Server` is used rather than `MCPServer`: the tools take product-shaped bodies whose
schemas are written by hand, argument errors must name JSON paths and say that nothing was sent,
and results must be exactly what the dialect made (no wrapping). The `RequestStateBoundary` that
`MCPServer` would add is added here, so MRTR state is sealed all the same.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from mcp import MCPError
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    ListToolsResult,
)
from pydantic import ValidationError

from agent_as_model import __version__
from agent_as_model.adapters import store as stores
from agent_as_model.adapters.dialects import DIALECTS, Dialect
from agent_as_model.adapters.tools import models
from agent_as_model.arguments import path_of
from agent_as_model.errors import NOTHING_SENT, StartupError
from agent_as_model.limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:
    from agent_as_model.adapters.backends import Pool, ProviderSettings, Tap
    from agent_as_model.adapters.callers import Gate
    from agent_as_model.adapters.dialects.storage import Storage
    from agent_as_model.adapters.routes import Gateway
    from agent_as_model.calls import CallHandler

SERVER_NAME = "agent-as-model"
REFUSED = "invalid_request_state"  # the SDK's `data.reason` for a refused requestState
STATE_KEY_ENV = "AGENT_AS_MODEL_STATE_KEY"
# The state keys that sealed before the current one, while what they sealed must still open: a
# list separated by commas or whitespace (docs/security.md, "Rotating the state key").
STATE_KEY_FALLBACKS_ENV = "AGENT_AS_MODEL_STATE_KEY_FALLBACKS"
# Names no product: the dialects do (each tool's description says which API it takes).
INSTRUCTIONS = (
    "Tools in the request shapes of AI products' own APIs, one tool per API, and a raw prompt. "
    "Completions come from your own model through MCP sampling: declare the sampling capability."
)


class _Listing:
    """The tools/list result, made once as the wire mapping the SDK dumps a `ListToolsResult` to.

    The SDK's runner takes a mapping as a handler's result (`HandlerResult`) and sieves it through
    the era's result model as it does a model's dump, so a model would only be dumped to this
    same mapping on every listing: six product schemas dumped on the first (which a host waits
    for at start-up) and each one after. The envelope (the result's defaults, such as
    2026-07-28's `resultType` and cache fields) is the SDK's own dump of an empty listing; a tool
    is the three keys its model dumps to (tests/test_listing.py checks the whole mapping against the
    model's dump)."""

    __slots__ = ("result", "_headed")

    def __init__(self, tools: list[Dialect | models.StaticTool]) -> None:
        self.result: dict[str, Any] = {
            **ListToolsResult(tools=[]).model_dump(by_alias=True, mode="json", exclude_none=True),
            "tools": [
                {"name": t.NAME, "description": t.DESCRIPTION, "inputSchema": t.INPUT_SCHEMA} for t in tools
            ],
        }
        self._headed: dict[str, dict[str, Any]] | None = None

    def headed(self) -> dict[str, dict[str, Any]]:
        """The input schemas that declare an Mcp-Param header (`x-mcp-header`), by tool: the only
        ones the SDK's HTTP header check has anything to compare. Found on the first lookup, which
        only HTTP makes: the JSON text of every schema, which stdio's start-up need not pay for."""
        if self._headed is None:
            self._headed = {
                t["name"]: t["inputSchema"]
                for t in self.result["tools"]
                if '"x-mcp-header"' in json.dumps(t["inputSchema"])
            }
        return self._headed


# The listing, made once per set of registered dialects (a test may register one more) and
# whether a store is configured (its tools are listed only then).
_listed: dict[tuple[tuple[str, ...], bool], _Listing] = {}


def _listing(stored: bool = False) -> _Listing:
    key = (tuple(DIALECTS), stored)
    if key not in _listed:
        listed: list[Dialect | models.StaticTool] = [*DIALECTS.values(), models.LIST_MODELS]
        if stored:
            listed += [tool for _, tool in _stored_tools()]
        if len(_listed) > 4:  # a test registering dialects one after another
            _listed.clear()
        _listed[key] = _Listing(listed)
    return _listed[key]


def _tools(stored: bool = False) -> dict[str, Any]:
    return _listing(stored).result


def _stored_tools() -> list[tuple[Storage, models.StaticTool]]:
    """The tools of the dialects that keep responses (responses_retrieve, responses_delete)."""
    return [(d.storage, tool) for d in DIALECTS.values() if d.storage is not None for tool in d.storage.tools]


def open_store(settings: stores.StoreSettings) -> stores.SealedStore:
    """The operator's store, sealed with a key derived from the state key (or one for this
    process, as for requestState), opening what the older keys sealed too. A store that cannot be
    opened is a `StartupError`."""
    current, older = state_keys()
    return stores.open_store(settings, current, older)


def state_keys() -> tuple[str | None, tuple[str, ...]]:
    """The current state key (None: none given) and the older ones, in the order given, without
    repeats or the current one."""
    current = os.environ.get(STATE_KEY_ENV) or None
    listed = os.environ.get(STATE_KEY_FALLBACKS_ENV, "").replace(",", " ").split()
    return current, tuple(key for key in dict.fromkeys(listed) if key != current)


def state_security(ttl: float = DEFAULT_LIMITS.state_ttl) -> RequestStateSecurity:
    """Sealing keys for MRTR state: shared ones from the environment (several workers, restarts),
    otherwise a per-process key. The current key seals; the older ones still open what they
    sealed. A state lives `ttl` seconds (`serve --state-ttl`)."""
    current, older = state_keys()
    if current is None and not older:
        return RequestStateSecurity.ephemeral(ttl=ttl)
    try:
        # Without a current key, new states are sealed with one made for this process.
        return RequestStateSecurity(keys=[current or os.urandom(32), *older], ttl=ttl)
    except ValueError as err:  # the SDK's message says what a key needs and how to make one
        raise StartupError(_key_refused(str(err))) from None


def _key_refused(refusal: str) -> str:
    """The SDK's refusal of a key of the ring (`keys[N] is 5 bytes`), naming the variable it
    came from: N = 0 is the current key, the others are the older ones in their order."""
    start = refusal.find("keys[") + len("keys[")
    place = refusal[start : refusal.find("]", start)]
    if not place.isdigit() or place == "0":
        return f"{STATE_KEY_ENV}: {refusal.replace('keys[0]', 'the key')}"
    return f"{STATE_KEY_FALLBACKS_ENV}: {refusal.replace(f'keys[{place}]', f'its key number {place}')}"


def build_server(
    *,
    security: RequestStateSecurity | None = None,
    provider: ProviderSettings | None = None,
    gateway: Gateway | None = None,
    provider_tap: Tap | None = None,
    provider_replay: list[dict[str, Any]] | None = None,
    replay_redacted: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    store: stores.SealedStore | None = None,
    gate: Gate | None = None,
) -> Server[Any]:
    """The MCP server. `gateway`: the operator's providers and routes (spec section 15), or
    `provider`: the `--provider` flags' one provider (spec section 8); None, the default, reads no
    key and serves from the host alone. A provider that cannot be set up raises
    `backends.ProviderUnavailable`. `provider_tap` and `provider_replay` record and replay the
    providers' exchanges (`serve --record`, `replay`). `store`: the operator's response store
    (spec section 13, `open_store`), which also keeps the providers' cooldowns; None, the
    default, keeps nothing. `gate`: the callers' limits (spec section 17,
    `adapters.callers.open_gate`); None, the default, limits no one."""
    pool = None
    if provider is not None and gateway is None:
        from agent_as_model.adapters.routes import Gateway

        gateway = Gateway.of_provider(provider)
    elif gateway is not None:
        provider = gateway.one_provider()  # the --provider flags': listed as they always were
    if gateway is not None:
        from agent_as_model.adapters.backends import connect_pool

        pool = connect_pool(
            gateway,
            tap=provider_tap,
            replay=provider_replay,
            redacted=replay_redacted,
            cooldown_state=None if store is None else store.store,
        )
    listed_models = _models(gateway, provider)
    stored_tools = {tool.NAME: (storage, tool) for storage, tool in _stored_tools()} if store else {}

    # Any: the SDK's runner serializes a mapping as it does a model (`HandlerResult`), which the
    # `on_list_tools` annotation does not say (see `_Listing`).
    async def list_tools(ctx: ServerRequestContext[Any], params: object) -> Any:
        return _tools(store is not None)

    def tool_input_schema(name: str) -> dict[str, Any] | None:
        # HTTP checks a call's Mcp-Param-* headers against the tool's input schema; without this
        # lookup the SDK runs the whole tools/list handler on every POST to find it. And it walks
        # the schema it is given, twice, on every POST, for properties that declare a header: none
        # of ours does, so for them there is nothing to check ("no recognized header", the SDK's
        # None) and nothing is walked.
        return _listing(store is not None).headed().get(name)

    handler: CallHandler | None = None

    def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> Awaitable[Any]:
        # A plain function handing the SDK the handler's own coroutine, which the SDK awaits: no
        # frame of ours between the SDK and the call. Any: a round that sends the host tools is its
        # wire mapping (`CallHandler`), which the runner takes as it takes a model (see `list_tools`).
        nonlocal handler
        if handler is None:  # the first call: the call path is imported now (calls.py says why)
            handler = _call_handler(pool, limits, store, stored_tools, listed_models, gate)
        return handler(ctx, params)

    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=tool_input_schema,
    )
    security = security or state_security(limits.state_ttl)
    # Outside the boundary, so it sees the boundary's refusal and can say why (see below): one
    # layer for both explanations, as every request crosses each layer.
    server.middleware.append(ExplainRefusals(security))
    server.middleware.append(RequestStateBoundary(security, default_audience=SERVER_NAME))
    _report_to_a_configured_sdk(server, gate)
    return server


# The OpenTelemetry SDK's modules: a process that configured an SDK (`serve --otel`,
# `opentelemetry-instrument`, a test) has imported one of them; one that did not need not import
# the telemetry module at all.
_SDK_MODULES = ("opentelemetry.sdk.trace", "opentelemetry.sdk.metrics")


def _report_to_a_configured_sdk(server: Server[Any], gate: Gate | None) -> None:
    """Report spans and metrics when this process has an OpenTelemetry SDK configured
    (docs/telemetry.md); with metrics on, measure every MCP request (`mcp.server.operation.duration`)
    and export the callers' limits."""
    if not any(name in sys.modules for name in _SDK_MODULES):
        return
    from agent_as_model import telemetry

    watch = telemetry.watch_configured()
    if watch is not None and watch.metrics is not None:
        server.middleware.insert(0, telemetry.MeasuredRequests(watch))
        if gate is not None:
            from agent_as_model.telemetry.conventions import OTHER_CALLERS

            watch.caller_limits(gate.settings.bounds(OTHER_CALLERS))


# A 2026-07-28 retry carries the host's answer to an earlier round: the host was asked then.
ANSWER_UNUSED = "The host's answer in inputResponses was not used; nothing more was sent to the host."


class ExplainRefusals:
    """The one middleware outside the SDK's `RequestStateBoundary`: says what the SDK's own
    refusals leave out.

    Names the field when the SDK refuses a request's params: its -32602 "Invalid request
    parameters" has empty data, where the legacy era's errors name the field. The code stays
    -32602; the message and `data.field` say where, and what reached the host: nothing, or, for
    a retry carrying the host's answer (`inputResponses`), that answer unused and nothing more.

    Says why a retry's requestState was refused, naming what to change. The SDK's boundary
    refuses a state before any handler runs with one opaque message ("Invalid or expired
    requestState", the reason only in the server's log). The code and `data` stay the SDK's; the
    message says which of three it was, found with the same public codec: the state could not be
    unsealed (tampered with, or sealed by another process: a shared AGENT_AS_MODEL_STATE_KEY
    fixes that), it expired (`--state-ttl`), or it was sealed for another call (other arguments
    or tool).
    """

    def __init__(self, security: RequestStateSecurity) -> None:
        self._security = security

    async def __call__(self, ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        try:
            return await call_next(ctx)
        except ValidationError as err:
            params = ctx.params or {}
            found = None
            if ctx.method == "tools/call" and "inputResponses" in params:
                from agent_as_model.adapters.backends import input_responses

                found = input_responses.first_problem(params["inputResponses"])
            where, reason = found or _first_error(err)
            tail = ANSWER_UNUSED if "inputResponses" in params else NOTHING_SENT
            message = f"Invalid request parameters: {where}: {reason}. {tail}"
            raise MCPError(INVALID_PARAMS, message, {"field": where}) from None
        except MCPError as err:
            state = (ctx.params or {}).get("requestState")
            data = err.error.data
            if not isinstance(state, str) or not isinstance(data, dict) or data.get("reason") != REFUSED:
                raise
            why = _why(self._security, state)
            raise MCPError(err.error.code, f"{err.error.message}: {why}", data) from None


def _first_error(err: ValidationError) -> tuple[str, str]:
    """The first pydantic error, its path without the names of a union's arms."""
    first = err.errors()[0]
    path = ""
    for part in first.get("loc", ()):
        if isinstance(part, str) and part[:1].isupper():
            continue  # a union arm's model name, not a field
        path = path_of(path, part)
    return path or "params", str(first.get("msg", "invalid")).lower()


def _why(security: RequestStateSecurity, state: str) -> str:
    """Which of the three refusals it was (`ExplainRefusals`)."""
    try:
        claims = json.loads(security.codec.unseal(state))
        expires = float(claims["exp"])
    except Exception:  # InvalidRequestState, or an envelope this code does not know
        return (
            "this server could not unseal it (it was changed, or sealed by another server process: "
            f"give every process the same {STATE_KEY_ENV}). Call the tool again without requestState"
        )
    if time.time() >= expires:
        return (
            f"it expired: a state lives {security.ttl:g} s (--state-ttl) and the host took "
            "longer to answer. Call the tool again without requestState, or raise --state-ttl"
        )
    return (
        "it was sealed for another call (another tool, or other arguments): retry with the exact "
        "arguments of the round that returned it"
    )


def _models(gateway: Gateway | None, provider: ProviderSettings | None) -> list[dict[str, Any]]:
    """`list_models`: agent-default, and with a provider the other names a call may ask it for;
    with routes, every model a call may name and who serves it."""
    if gateway is None:
        return models.MODELS
    if provider is None:
        return models.routed(gateway)
    owner = f"provider:{provider.label}"
    default = models.default_model(provider.label, provider.model, provider.use, provider.on_host_error)
    extra = [
        {"id": name, "owned_by": owner, "description": f"A model of the provider {provider.label}."}
        for name in provider.allowed()
        if name != default["id"]
    ]
    return [default, *extra]


def _call_handler(
    pool: Pool | None,
    limits: Limits,
    store: stores.SealedStore | None,
    stored_tools: dict[str, tuple[Storage, models.StaticTool]],
    listed_models: list[dict[str, Any]],
    gate: Gate | None,
) -> CallHandler:
    first = "agent_as_model.calls" not in sys.modules
    from agent_as_model.calls import call_handler

    if first and gc.get_freeze_count() > 0:
        # Serving froze its start-up heap (`transports.freeze_heap`); what the call path's
        # modules made lives as long, so the collector need not walk it either. What else is
        # live now is this call's, freed by its counts as before; only a cycle it made is kept.
        gc.freeze()
    return call_handler(pool, limits, store, stored_tools, listed_models, gate)
