"""Which backend serves a call: the one place that decides, from the call's parsed request.

By the negotiated protocol version (spec section 2): the host through sampling before 2026-07-28,
through a multi-round-trip request from then on. When the operator configured providers (spec
sections 8 and 15), by the route table (`adapters/routes.py`): the caller's `model` picks a chain
of backends, the request's `backend` narrows it (`host`: the host alone; `provider`: its
providers), and a backend that cannot take the call is passed over before anything is sent: the
host when it did not declare `sampling` (or `sampling.tools` for a call with tools) and the route
goes on after it, or when it declined on a 2026-07-28 retry; a provider that may not serve the
model, or is cooling down after failing. The call's route asks the rest in order
(`fallback.Route`). Everything after the choice is the same code whichever serves.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcp.server import ServerRequestContext
from mcp_types import CallToolRequestParams, InputRequiredResult
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, is_version_at_least

from agent_as_model.adapters.backends.base import Backend, Resumption, Route, Router, SamplingSupport
from agent_as_model.adapters.backends.cooldown import Cooldowns
from agent_as_model.adapters.backends.fallback import Link, passed_over
from agent_as_model.adapters.backends.fallback import Route as Chain
from agent_as_model.adapters.backends.mrtr import ModernRoundTrip, merge_choices, split_choices
from agent_as_model.adapters.backends.sampling import LegacySampling, progress_token
from agent_as_model.adapters.routes import HOST, HOST_ONLY, Gateway
from agent_as_model.cursors import PARAMETER
from agent_as_model.errors import CallError, caller_error
from agent_as_model.limits import DEFAULT_LIMITS, Limits
from agent_as_model.neutral import SERVER_KEYS, Request

if TYPE_CHECKING:
    from agent_as_model.adapters.backends.provider import ProviderBackend

MODERN_FROM = "2026-07-28"
# A provider's API takes everything the payload can carry: tool blocks, tools, a tool choice.
PROVIDER_SUPPORT = SamplingSupport(declared=True, tools=True)


# The known protocol versions of the 2026-07-28 era, by the SDK's own order: asked once here,
# where `is_version_at_least` looked each version up in the SDK's list on every ask (3 a call).
_MODERN_VERSIONS = frozenset(v for v in KNOWN_PROTOCOL_VERSIONS if is_version_at_least(v, MODERN_FROM))


def is_modern(protocol_version: str | None) -> bool:
    """Whether a negotiated protocol version is of the 2026-07-28 era (the one place that says so);
    an unknown version is not, as the SDK's `is_version_at_least` says."""
    return protocol_version in _MODERN_VERSIONS


class Pool:
    """The operator's providers, connected, with the route table and their cooldowns: one per
    server, shared by its calls."""

    def __init__(
        self, gateway: Gateway, providers: Mapping[str, ProviderBackend], cooldowns: Cooldowns
    ) -> None:
        self.gateway = gateway
        self.providers = providers
        self.cooldowns = cooldowns


class CallRouter:
    """The router of one tools/call request: what the request's protocol context says (era, the
    host's capabilities, a retry's state and answers) and the operator's providers and routes, if
    any. The machine's build step hands it the parsed request (`states/build.py`), and a proven
    retry's resume (`states/resume.py`)."""

    __slots__ = (
        "_ctx",
        "_params",
        "_pool",
        "_limits",
        "_state",
        "_responses",
        "_made",
        "_children",
        "_support",
    )

    def __init__(
        self,
        ctx: ServerRequestContext,
        params: CallToolRequestParams,
        pool: Pool | None = None,
        limits: Limits = DEFAULT_LIMITS,
        round_trip: tuple[str | None, Mapping[str, Any] | None] | None = None,
    ) -> None:
        self._ctx = ctx
        self._params = params
        self._pool = pool
        self._limits = limits
        # A 2026-07-28 retry's state and answers: the request's own, or one completion's of
        # several (`choices`).
        self._state: str | None
        self._responses: Mapping[str, Any] | None
        self._state, self._responses = (
            (params.request_state, params.input_responses) if round_trip is None else round_trip
        )
        self._made: ModernRoundTrip | None = None  # the round trip this router built, if any
        self._children: list[CallRouter] = []
        # What the host declared, read once: the route and the round trip both ask.
        self._support = SamplingSupport.of(ctx.session.client_capabilities)

    def choices(self, n: int) -> list[Router]:
        ctx, params, pool, limits = self._ctx, self._params, self._pool, self._limits
        parts: list[tuple[str | None, Mapping[str, Any] | None]]
        if is_modern(ctx.protocol_version):
            parts = list(split_choices(self._state, self._responses, n))
        else:  # each completion is a sampling request of its own, all in flight at once
            parts = [(None, None)] * n
        self._children = [CallRouter(ctx, params, pool, limits, part) for part in parts]
        return list(self._children)

    def suspend(self, suspended: list[InputRequiredResult | None]) -> InputRequiredResult:
        return merge_choices([child._made for child in self._children], suspended)

    def proven(self, fetched: tuple[str, ...] = ()) -> Resumption | None:
        if self._state is None or not is_modern(self._ctx.protocol_version):
            return None
        return self._round_trip(fetched).resumption

    def continues(self) -> bool:
        return self._state is not None and is_modern(self._ctx.protocol_version)

    def _round_trip(self, fetched: tuple[str, ...] = ()) -> ModernRoundTrip:
        """This request's 2026-07-28 round trip, read from its state once (the proof is asked
        before the arguments are read, the route after), and again only when the reading fetched
        media whose digests the state must bind too (`serve --fetch-media`). Before the reading
        nothing is fetched: a state that binds fetched media then proves nothing yet."""
        made = self._made
        if made is None or made.fetched != fetched:
            made = self._made = ModernRoundTrip(self._state, self._responses, self._support, fetched=fetched)
        return made

    def _host(self, request: Request) -> Backend:
        """The host, on this request's era."""
        if is_modern(self._ctx.protocol_version):
            return self._round_trip(request.fetched)
        return LegacySampling(
            self._ctx.session, self._ctx.request_id, self._limits, progress_token(self._params)
        )

    def route(self, request: Request, proven: Resumption | None = None) -> Route:
        support = self._support
        if proven is not None:
            # A retry the round trip proved is the round trip's: round one chose it for these
            # very arguments, and the host's answers it binds are this call's. `proven` built it.
            made = self._made
            assert made is not None and made.resumption is proven
            return Route(made, support, made.identity)
        declined = False
        if self._state is not None and is_modern(self._ctx.protocol_version):
            declined = self._round_trip(request.fetched).declined
        pool = self._pool
        if pool is None:  # the host alone: no provider configured
            if request.backend == "provider":
                raise _no_provider()
            if request.host_only:  # what the host cannot honour, refused with nothing sent
                raise request.host_only[0]
            return Route(self._host(request), support)
        return self._chosen(pool, request, declined)

    def _chosen(self, pool: Pool, request: Request, declined: bool) -> Route:
        """The call's route through the operator's route table (the module docstring says how)."""
        gateway = pool.gateway
        hops = gateway.chain(request.model)
        if request.backend == "host":  # the caller's choice: the host alone, -32021 if it cannot sample
            hops = HOST_ONLY
        elif request.backend == "provider":
            hops = tuple(hop for hop in hops if hop.backend != HOST)
            if not hops:
                raise _no_provider_on_route(request.model, gateway)
        support = self._support
        takes = support.declared and (support.tools or not request.tools)
        links: list[Link] = []
        passed: list[dict[str, str]] = []
        refused: list[CallError] = []
        cooling = False  # a provider that takes the body as written is cooling down
        now = time.time()
        # A parameter only the host cannot honour passes over every backend but a provider that
        # takes the body as written (the first such refusal says why).
        host_only: CallError | None = request.host_only[0] if request.host_only else None
        product, own = _passed(request)
        for index, hop in enumerate(hops):
            later = index < len(hops) - 1
            if hop.backend == HOST and host_only is not None:
                passed.append(passed_over(HOST, f"{host_only.path}: {host_only.reason}"))
                continue
            if hop.backend == HOST:
                if later and not takes:
                    passed.append(passed_over(HOST, _cannot_take(support)))
                elif later and declined and gateway.host_errors_pass:
                    passed.append(passed_over(HOST, "it declined: its retry brought no answer"))
                else:
                    links.append(Link(self._host(request)))
                continue
            provider = pool.providers[hop.backend]
            try:
                model = hop.model or provider.model_for(request.model, hop.listed_only)
            except CallError as err:
                refused.append(err)
                passed.append(passed_over(f"provider:{provider.label}", err.reason))
                continue
            serving = provider.serving(model, product, own, request.max_tokens)
            if host_only is not None and serving.passing is None:
                passed.append(passed_over(serving.source(model), f"{host_only.path}: {host_only.reason}"))
                continue
            until = pool.cooldowns.until(provider.label, now)
            if until is not None:
                cooling = cooling or serving.passing is not None
                passed.append(
                    passed_over(
                        serving.source(model), f"cooling down after failing, for {until - now:.1f} s more"
                    )
                )
                continue
            links.append(Link(serving, provider.label))
        if not links:
            # As the host alone would have refused it, nothing sent; unless a provider that would
            # take it is only cooling down: then the call could be served, just not now.
            if host_only is not None and not cooling:
                raise host_only
            if refused:
                raise refused[0]
            whys = "; ".join(f"{p['backend']}: {p['why']}" for p in passed)
            raise caller_error(
                "model", f"no backend of the route of {request.model!r} can serve the call now ({whys})"
            )
        hosted = [i for i, link in enumerate(links) if link.name is None]
        if hosted and not gateway.host_errors_pass:
            del links[hosted[0] + 1 :]  # the host's decline is final: the `--provider` flags' rule
        chain = Chain(
            links,
            pool.cooldowns,
            time.monotonic() + gateway.call_deadline,
            passed,
            host_errors_pass=gateway.host_errors_pass,
            model=request.model,
        )
        return Route(chain, support if hosted else PROVIDER_SUPPORT)


def _passed(request: Request) -> tuple[str | None, Mapping[str, Any] | None]:
    """The call's product and its own arguments as written (without the server's keys), for a
    provider whose API speaks that product to take as they are. A call that leans on what only
    the server does goes through the neutral conversation instead (docs/decisions.md): a session
    cursor (the caller's body holds only the new turns; a response a store of this server held
    is in the arguments already), several completions (`n`: the server fans them out), the
    server's own output contract (`output_schema`), repairs, or a persona (asked for and
    repaired here). The product's own output format goes as written (the provider's answer is
    still checked against it, as text: `interpret`), and a response id of the product's own API
    too: it may hold that response."""
    output = request.output
    if (
        request.product is None
        or (request.chain is not None and not request.own_previous)
        or request.n != 1
        or (output is not None and (output.path == "output_schema" or request.repair_attempts))
        or request.persona is not None
    ):
        return None, None
    own = request.own
    passed = {key: value for key, value in own.items() if key not in SERVER_KEYS}
    if request.own_previous:
        passed[PARAMETER] = own[PARAMETER]
    return request.product, passed


def _cannot_take(support: SamplingSupport) -> str:
    if not support.declared:
        return "the host did not declare sampling"
    return "the host did not declare sampling.tools, and the call has tools"


def _no_provider() -> CallError:
    return caller_error(
        "backend",
        "'provider' needs a provider, and this server has none configured (its operator starts it "
        "with --provider: see docs/providers.md); use 'host' or 'auto'",
    )


def _no_provider_on_route(model: str, gateway: Gateway) -> CallError:
    return caller_error(
        "backend",
        f"'provider' needs a provider on the route of model {model!r}, and it has none (its route: "
        f"{', '.join(str(hop) for hop in gateway.chain(model))}); use 'host' or 'auto', or a model a "
        "provider serves (list_models)",
    )
