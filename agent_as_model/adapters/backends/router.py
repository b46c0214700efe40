"""Which backend serves a call: the one place that decides, from the call's parsed request.

By the negotiated protocol version (spec section 2): the host through sampling before 2026-07-28,
through a multi-round-trip request from then on. When the operator configured a provider (spec
section 8), also by the operator's rule, what the host declared, and the request's `backend`,
`model` and `tools`. Everything after the choice is the same code whichever serves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcp.server import ServerRequestContext
from mcp_types import CallToolRequestParams, InputRequiredResult
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, is_version_at_least

from agent_as_model.adapters.backends.base import Backend, Resumption, Route, Router, SamplingSupport
from agent_as_model.adapters.backends.fallback import HostThenProvider
from agent_as_model.adapters.backends.mrtr import ModernRoundTrip, merge_choices, split_choices
from agent_as_model.adapters.backends.sampling import LegacySampling, progress_token
from agent_as_model.errors import CallError, caller_error
from agent_as_model.limits import DEFAULT_LIMITS, Limits
from agent_as_model.neutral import Request

if TYPE_CHECKING:
    from agent_as_model.adapters.backends.provider import ProviderBackend, ProviderSettings

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


class CallRouter:
    """The router of one tools/call request: what the request's protocol context says (era, the
    host's capabilities, a retry's state and answers) and the operator's provider, if any. The
    machine's build step hands it the parsed request (`states/build.py`), and a proven retry's
    resume (`states/resume.py`)."""

    __slots__ = (
        "_ctx",
        "_params",
        "_provider",
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
        provider: ProviderBackend | None = None,
        limits: Limits = DEFAULT_LIMITS,
        round_trip: tuple[str | None, Mapping[str, Any] | None] | None = None,
    ) -> None:
        self._ctx = ctx
        self._params = params
        self._provider = provider
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
        ctx, params, provider, limits = self._ctx, self._params, self._provider, self._limits
        parts: list[tuple[str | None, Mapping[str, Any] | None]]
        if is_modern(ctx.protocol_version):
            parts = list(split_choices(self._state, self._responses, n))
        else:  # each completion is a sampling request of its own, all in flight at once
            parts = [(None, None)] * n
        self._children = [CallRouter(ctx, params, provider, limits, part) for part in parts]
        return list(self._children)

    def suspend(self, suspended: list[InputRequiredResult | None]) -> InputRequiredResult:
        return merge_choices([child._made for child in self._children], suspended)

    def proven(self, fetched: tuple[str, ...] = ()) -> Resumption | None:
        if self._state is None or not is_modern(self._ctx.protocol_version):
            return None
        return self._round_trip(fetched).resumption

    def _round_trip(self, fetched: tuple[str, ...] = ()) -> ModernRoundTrip:
        """This request's 2026-07-28 round trip, read from its state once (the proof is asked
        before the arguments are read, the route after), and again only when the reading fetched
        media whose digests the state must bind too (`serve --fetch-media`). Before the reading
        nothing is fetched: a state that binds fetched media then proves nothing yet."""
        made = self._made
        if made is None or made.fetched != fetched:
            made = self._made = ModernRoundTrip(self._state, self._responses, self._support, fetched=fetched)
        return made

    def route(self, request: Request, proven: Resumption | None = None) -> Route:
        support = self._support
        if proven is not None:
            # A retry the round trip proved is the round trip's: round one chose it for these
            # very arguments, and the host's answers it binds are this call's. `proven` built it.
            made = self._made
            assert made is not None and made.resumption is proven
            return Route(made, support, made.identity)
        ctx = self._ctx
        modern = is_modern(ctx.protocol_version)
        provider = self._provider
        choice = request.backend
        then_provider = None  # the provider the host's backend falls back to, when it declines
        if provider is None:
            if choice == "provider":
                raise _no_provider()
        elif choice != "host":  # "host" is the caller's choice: the host alone, -32021 if it cannot sample
            if choice == "provider" or _provider_serves(provider.settings, support, request):
                provider.model_for(request.model)  # a name it may not use: the caller's error, now
                return Route(provider, PROVIDER_SUPPORT)
            if provider.settings.on_host_error:
                then_provider = provider
        # The host, on this request's era.
        host: Backend
        if modern:
            host = self._round_trip(request.fetched)
        else:
            host = LegacySampling(ctx.session, ctx.request_id, self._limits, progress_token(self._params))
        if then_provider is not None:
            host = HostThenProvider(host, then_provider, then_provider.settings.provider)
        return Route(host, support)


def _no_provider() -> CallError:
    return caller_error(
        "backend",
        "'provider' needs a provider, and this server has none configured (its operator starts it "
        "with --provider: see docs/providers.md); use 'host' or 'auto'",
    )


def _provider_serves(settings: ProviderSettings, host: SamplingSupport, request: Request) -> bool:
    """The operator's rule for `auto` (spec section 8): always, or when the host cannot take the
    call (no sampling, or tools to forward and no `sampling.tools`)."""
    if settings.use == "always" or not host.declared:
        return True
    return bool(request.tools) and not host.tools
