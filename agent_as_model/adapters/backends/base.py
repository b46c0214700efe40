"""What every way to reach a model shares: the one protocol and the values that cross it.

A backend takes the sampling payload (the same `CreateMessageRequestParams` on every backend) and
gives back the model's answer as a `HostAnswer`, or a `Suspension` when this request must end
here and the host answer on a retry (the 2026-07-28 round trip). A `Router` chooses, from the
parsed request, the `Route` that serves a call, and says whether this request is a retry whose
sealed state already holds the host's answers (a `Resumption`). The engine never learns which
backend it talks to.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from mcp_types import (
    ClientCapabilities,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    InputRequiredResult,
    TextContent,
)

from agent_as_model.errors import CallError, StartupError
from agent_as_model.neutral import Request, Usage
from agent_as_model.records import Record


class SamplingSupport(Record):
    """What the host declared it can answer."""

    declared: bool
    tools: bool = False

    @classmethod
    def of(cls, caps: ClientCapabilities | None) -> SamplingSupport:
        sampling = caps.sampling if caps is not None else None
        if sampling is None:
            return NO_SAMPLING
        return SUPPORT[sampling.tools is not None]


NO_SAMPLING = SamplingSupport(declared=False)
SUPPORT = {False: SamplingSupport(declared=True), True: SamplingSupport(declared=True, tools=True)}


class HostAnswer(Record):
    """The model's sampling result, normalised: its blocks as a tuple, whichever backend carried it."""

    role: str
    blocks: tuple[Any, ...]
    model: str
    stop_reason: str | None
    # Which backend answered (spec section 9): "host", or "provider:<name>/<model>".
    source: str = "host"
    # The tokens the answerer counted: a provider's API always says; a host only when its
    # result's `_meta` carries figures (`host_usage`). None: nobody counted.
    usage: Usage | None = None
    # A provider's own response object, as JSON, when the call's body went to it as written (its
    # API speaks the call's product): tool calls in it name the caller's tools as the caller did.
    native: Mapping[str, Any] | None = None
    # The backends of the call's route passed over before this one answered, each with why
    # (`{"backend", "why"}`, spec section 15).
    passed: tuple[Mapping[str, str], ...] = ()
    # The answerer's own id of this answer (a provider's response id); MCP sampling has none.
    response_id: str | None = None

    @classmethod
    def of(cls, result: CreateMessageResult | CreateMessageResultWithTools) -> HostAnswer:
        content = result.content
        blocks = tuple(content) if isinstance(content, list) else (content,)
        usage = None if result.meta is None else host_usage(result.meta)
        return cls(result.role, blocks, result.model, result.stop_reason, "host", usage)


# The `_meta` keys of a sampling result that carry a host's token counts, in MCP's camelCase and
# in the snake_case of the products' own APIs (docs/decisions.md): `usage: {inputTokens,
# outputTokens}` or `usage: {input_tokens, output_tokens}`. MCP defines none, so nothing else is
# guessed at.
_COUNT_KEYS = (("inputTokens", "outputTokens"), ("input_tokens", "output_tokens"))


def host_usage(meta: Any) -> Usage | None:
    """The host's own token counts from its result's `_meta`, when it gives both as counts."""
    usage = meta.get("usage") if isinstance(meta, dict) else None
    if not isinstance(usage, dict):
        return None
    for given, made in _COUNT_KEYS:
        counts = usage.get(given), usage.get(made)
        if all(type(c) is int and c >= 0 for c in counts):
            return Usage(counts[0], counts[1], "host")  # type: ignore[arg-type]  # ints, checked above
    return None


# Characters of a bad answer that a repair round echoes back to the model, all its blocks together
# (and what a 2026-07-28 state seals of it for the retry): the next round then stays within the
# HTTP body limit whatever the answer's size or number of blocks, and the model still sees what it
# wrote and the error's pointer into it. Each block also costs `ECHO_BLOCK_COST` for its framing,
# so an answer of many empty blocks is bounded too.
ECHO_LIMIT = 16 * 1024
ECHO_BLOCK_COST = 32
# Kept free, past every block but the last, for the block that says what was cut.
_NOTE_ROOM = 256


def echoed_blocks(blocks: Sequence[Any]) -> list[Any]:
    """The blocks as a repair round echoes them: in order, as many as fit in `ECHO_LIMIT`; the
    first that does not is cut to what is left (a text to its start, with a note of what was
    cut, anything else to that note alone) and the ones after it are left out. The answer's first
    tool call is always echoed, since the repair answers it (its input replaced by a note when
    too large). Echoing an echo changes nothing, so a replayed answer echoes the same."""
    first_call = next((i for i, block in enumerate(blocks) if _kind(block) == "tool_use"), None)
    call = None if first_call is None else _pinned(blocks[first_call])
    left = max(ECHO_LIMIT - (0 if call is None else _cost(call)), _NOTE_ROOM)
    others = [i for i in range(len(blocks)) if i != first_call]
    out: list[Any] = []
    cut = False
    for i, block in enumerate(blocks):
        if i == first_call:
            out.append(call)
        elif not cut:
            cost = _cost(block)
            if cost <= left - (0 if i == others[-1] else _NOTE_ROOM):
                out.append(block)
                left -= cost
            else:
                out.append(_cut(block, left, sum(1 for j in others if j > i)))
                cut = True
    return out


def echoed(result: Any) -> Any:
    """A sampling result with its content as a repair round echoes it (see `echoed_blocks`)."""
    content = result.content
    blocks = echoed_blocks(content if isinstance(content, list) else [content])
    if isinstance(content, list):
        if len(blocks) == len(content) and all(cut is b for cut, b in zip(blocks, content, strict=True)):
            return result  # the common answer: nothing to cut, no copy
        return result.model_copy(update={"content": blocks})
    return result if blocks[0] is content else result.model_copy(update={"content": blocks[0]})


def _kind(block: Any) -> Any:
    return getattr(block, "type", None)


def _cost(block: Any) -> int:
    """What a block takes of the echo's bound: its text, or its JSON (a tool call's input and
    name), and its framing."""
    kind = _kind(block)
    if kind == "text":
        return ECHO_BLOCK_COST + len(block.text)
    if kind == "tool_use":
        return ECHO_BLOCK_COST + len(block.name) + len(json.dumps(block.input))
    return ECHO_BLOCK_COST + len(block.model_dump_json())


def _pinned(call: Any) -> Any:
    """The first tool call as it is echoed: whole, unless its input takes more than the bound
    leaves room for beside a note."""
    size = len(json.dumps(call.input))
    if size <= ECHO_LIMIT - 2 * _NOTE_ROOM:
        return call
    return call.model_copy(update={"input": {"cut": f"an input of {size} characters of JSON"}})


def _cut(block: Any, left: int, more: int) -> Any:
    """`block` cut to take exactly `left` of the bound (at least `_NOTE_ROOM`), saying what was
    cut, including the `more` blocks left out after it."""
    after = f", and {more} more block{'s' if more != 1 else ''}" if more else ""
    if _kind(block) == "text":
        note = f"\n[{len(block.text)} characters in all; the rest is cut{after}]"
        keep = left - ECHO_BLOCK_COST - len(note)
        return block.model_copy(update={"text": block.text[:keep] + note})
    note = f"[a {_kind(block)} block of {_cost(block) - ECHO_BLOCK_COST} characters is cut{after}]"
    return TextContent(type="text", text=note)


# The key of the result metadata that lists the backends of a route passed over before the one that
# answered, each `{"backend", "why"}` (spec section 15).
PASSED = "passed_over"

# What each repair adds at the end of a round's payload: the model's answer, and what was wrong with
# it (states/repair.py); a provider that passes the caller's body through adds them in its API's words.
REPAIR_TURNS = 2


class Replayed(Record):
    """An answer an earlier request of this call already took and judged (a repair round's retry
    on 2026-07-28 replays the rounds before it): `finding` is the output-contract error it led
    to, so it is not checked again and the same repair follows (repairs stay linear)."""

    answer: HostAnswer
    finding: CallError


class Resumption(Record):
    """A 2026-07-28 retry proven by its sealed state: the state binds the host's answers to
    exactly the payloads these arguments make, so round one's reading, checks and payload hold,
    and the answers need no exchange. `call`: the call's identity the state carries (None: it
    carries none), under which round one remembered what it read (`states/recall.py`).
    `earlier`: the rounds before the one the state was minted for, replayed (a repair round's
    retry). `answer`: the host's answer to that round, or the host error of an answer that is no
    sampling result."""

    call: str | None
    earlier: tuple[Replayed, ...]
    answer: HostAnswer | CallError


class Suspension(Record):
    """This request ends here: the host must answer and retry (2026-07-28). `call`: the call's
    identity its state carries, under which what this round read is remembered for the retry
    (`states/recall.py`)."""

    result: InputRequiredResult
    call: str | None = None


class Unanswered(CallError):
    """A backend gave no answer for a reason of its own (it declined, failed, timed out or was
    rate limited), so the next backend of the call's route may be asked (spec section 15).
    `retry_after`: the seconds it asked to be left alone, when it said. `brief`: the reason
    without the peer's own words (a provider's or a host's message may quote the caller), as the
    result's metadata lists the backends passed over. Told like any host error when no backend
    is left."""

    def __init__(
        self, path: str, reason: str, retry_after: float | None = None, brief: str | None = None
    ) -> None:
        super().__init__(path, reason, "host")
        self.retry_after = retry_after
        self.brief = reason if brief is None else brief


class HostDeclined(Unanswered):
    """The host did not serve the sampling request: it answered with an error (it declined or
    failed) or not at all within `--host-timeout`. Told like any host error, unless the operator
    lets the route pass it on (a provider after the host; `--provider-on-host-error`)."""


class ProviderFailed(Unanswered):
    """A provider gave no usable answer that another backend might: no HTTP answer in time, or
    408, 409, 429 or a server error, still after its own retries."""


class ProviderUnavailable(StartupError):
    """The provider cannot be set up (its SDK extra is missing, or the SDK refused its settings):
    a one-line start-up error. Here, not with the provider, so that catching it loads no provider;
    a `StartupError`, so that serving catches it without importing the backends at all."""


def host_declined(path: str, reason: str, brief: str | None = None) -> HostDeclined:
    return HostDeclined(path, reason, brief=brief)


class Backend(Protocol):
    """The one I/O step: hand the payload to the model, get an answer or a suspension back.

    `who` names what this backend asks, for the errors' last sentence ("The host was asked; ...");
    None for the host itself."""

    @property
    def who(self) -> str | None: ...

    def source(self, model: str) -> str:
        """What `_meta["agent-as-model/result"].backend` says of this backend for a call asking for
        `model` (`host`, or `provider:<name>/<model>`): on an error result too, once it was chosen."""
        ...

    def admit(self, payload: CreateMessageRequestParams) -> None:
        """Raise the caller error of a payload this backend cannot send (a provider's API without a
        shape for a part), before the exchange: the call then ends with nothing sent. A backend
        that can send every payload does nothing."""
        ...

    async def exchange(
        self, payload: CreateMessageRequestParams, round_no: int, findings: tuple[CallError, ...]
    ) -> HostAnswer | Suspension:
        """Round `round_no` of the call (0, then one more per repair). `findings`: what each earlier
        round's answer was found to break, in order (the repairs the payload already holds); a
        backend that carries rounds across requests seals them with its state."""
        ...


class Route(Record):
    """Who serves a call, and what it can take (the payload is built for that)."""

    backend: Backend
    support: SamplingSupport
    # The call's identity across its requests, when a proven retry's state carries one (mrtr.py):
    # what the call makes from it is the same on a repeated retry. None: this request is the call.
    identity: str | None = None

    def route(self, request: Request, proven: Resumption | None = None) -> Route:
        """A route is the router of a call it always serves (tests, the fuzzer's stand-ins)."""
        return self

    def proven(self, fetched: tuple[str, ...] = ()) -> Resumption | None:
        return None  # a fixed route carries no rounds across requests

    def continues(self) -> bool:
        return False

    def choices(self, n: int) -> list[Route]:
        return [self] * n

    def suspend(self, suspended: list[InputRequiredResult | None]) -> InputRequiredResult:
        raise RuntimeError("a fixed route cannot carry several completions across requests")


class Router(Protocol):
    """Chooses the route of one call from its parsed request; raises the caller error of a call
    that asked for what this server cannot give (nothing has been sent)."""

    def route(self, request: Request, proven: Resumption | None = None) -> Route:
        """`proven`: the resumption `proven` gave a 2026-07-28 retry (resume passes it), whose
        route is the round trip that proved it, chosen by round one for these very arguments."""
        ...

    def proven(self, fetched: tuple[str, ...] = ()) -> Resumption | None:
        """The resumption of a 2026-07-28 retry whose sealed state binds the host's answers to
        the payloads of these very arguments, read with media of these digests (`fetched`: none
        before the arguments are read); None for any other request (mrtr.py says what binds it).
        Only the host's round trip on 2026-07-28 carries rounds across requests."""
        ...

    def continues(self) -> bool:
        """Whether this request carries the state of a call an earlier request of it began (a
        2026-07-28 retry: the SDK unsealed its state and bound it to these very arguments before
        the call is read), whether or not the state proves the host's answers."""
        ...

    def choices(self, n: int) -> list[Router]:
        """The routers of `n` independent completions of this call (`n`, `candidateCount`): each is
        asked, checked and repaired on its own; a 2026-07-28 retry hands each its own round."""
        ...

    def suspend(self, suspended: list[InputRequiredResult | None]) -> InputRequiredResult:
        """One InputRequiredResult for the completions of `choices` still to be answered (None:
        that one is settled, and is carried to the retry as it was answered)."""
        ...
