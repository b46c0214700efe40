"""Modern era (2026-07-28 and later): multi-round-trip requests (MRTR).

Round one answers the tools/call with an `InputRequiredResult` holding exactly one
sampling/createMessage input request and a `requestState` (sealed by the SDK). The retry arrives
with the same arguments, and the answer is taken only when the state binds it to exactly the
payload this request would send, and it sits under our key. Otherwise the host is asked again,
as the spec advises: an unbound answer is never taken as the completion.

What binds the answer to the payload. The payload is a pure function of the tool and its
arguments, the host's `sampling.tools`, the server's code, and (for a repair round) the host's
earlier answers. The SDK's `RequestStateBoundary` seals the state with the tool name and a hash
of the exact arguments (mcp-notes section 11; a state for another tool or other arguments, a
foreign or tampered one, never reaches us: the SDK refuses it with -32602). The state itself
binds the rest: the round, the host's `sampling.tools`, the server version, and the earlier
rounds' answers. So a retry whose state unsealed and matches is *proven*: the cursor check, the
payload build and a digest of the payload would prove nothing the first round did not. The
round trip reads that once, when it is made, into a `Resumption` (the answers the state binds),
the router hands it to the machine (`Router.proven`), and the call takes its own rows of the
table: it resumes with round one's reading and takes the bound answers without an exchange
(docs/architecture.md, "A proven retry"). So `exchange` only ever asks. That relies on the
boundary being installed: `server.build_server` always installs it, and a test checks so.

A repair (structured output that did not validate) is one more round. Its payload holds the
host's earlier answers, which the retried arguments do not, so its state carries them (sealed
like all state) and the retry replays the earlier rounds with them before taking the last.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from collections.abc import Mapping
from typing import Any

from mcp_types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    InputRequiredResult,
)

from agent_as_model import __version__
from agent_as_model.adapters.backends.base import (
    HostAnswer,
    Replayed,
    Resumption,
    SamplingSupport,
    Suspension,
    echoed,
)
from agent_as_model.adapters.tools import wire
from agent_as_model.errors import CallError, host_error
from agent_as_model.records import Record

log = logging.getLogger("agent_as_model")

KEY = "completion"
# 2: the state binds round, host tools and server version (1 bound a digest of the payload); a
# state of another version is not ours, and the host is asked again.
STATE_VERSION = 2
# A call's identity, minted on its first round and sealed in every round's state after: the same
# call across its requests, so what it makes (a stored response's id) is the same on a repeated
# retry. Random, so two calls with the same arguments are two calls.
_IDENTITY = re.compile(r"[0-9a-f]{32}")
# Why a retry whose state is ours proves nothing when it brings no answer: the host declined (a
# route passes the call on to its next backend then: router.py).
NO_ANSWER = f"the retry carried no answer under '{KEY}'"
# One compact encoder for every state: `json.dumps(..., separators=...)` builds a new encoder on
# each call, and a state is written on every round one.
_COMPACT = json.JSONEncoder(separators=(",", ":"))


class ModernRoundTrip:
    who = None  # the host

    def __init__(
        self,
        request_state: str | None,
        input_responses: Mapping[str, Any] | None,
        sampling: SamplingSupport,
        server_version: str = __version__,
        fetched: tuple[str, ...] = (),
    ) -> None:
        self._state = request_state
        self._responses = input_responses or {}
        self._tools = sampling.tools
        self._server = server_version
        # The digests of the media this request fetched (`serve --fetch-media`): the retry
        # fetches again, and its answer is taken only if it got the bytes round one sent.
        self._fetched = self.fetched = fetched
        # What the state binds, when it binds this request: the round it was minted for, and the
        # host's answers to the rounds before it. Read and checked once, here.
        bound = self._binding = _binding(
            request_state, _read(request_state), self._tools, self._server, self._responses, fetched
        )
        # A proven retry: the host's answers the state binds, taken without an exchange (the
        # router hands this to the machine, `Router.proven`). None: this request must ask.
        self.resumption = None if bound.why is not None else _resumption(bound, self._responses)
        # The call's identity, when a proven retry's state carries it (the router puts it on the
        # route too); a request that asks mints one for its state.
        self.identity = bound.call if self.resumption is not None else None
        # A retry of this call's round whose host gave no answer: it declined.
        self.declined = bound.why == NO_ANSWER
        # The host's answers to the rounds this call has been through, in order. A repair round's
        # payload holds the earlier answers, so its state carries them (sealed, each cut as a
        # repair echoes it: `echoed`, which changes nothing in an answer cut already) to the retry.
        self._answers: list[Any] = [] if self.resumption is None else [*bound.earlier, self._responses[KEY]]

    def source(self, model: str) -> str:
        return "host"

    def admit(self, payload: CreateMessageRequestParams) -> None:
        return None  # the host takes every sampling payload this server builds

    async def exchange(
        self, payload: CreateMessageRequestParams, round_no: int, findings: tuple[CallError, ...]
    ) -> Suspension:
        """This round's payload goes to the host: round one, a retry whose state binds another
        payload, or a repair past the round a proven retry's state was minted for (the rounds up
        to it are the resumption's)."""
        bound = self._binding
        if bound.why is not None and (self._state is not None or self._responses):
            log.info("asking the host again: %s", bound.why)
        call = self.identity or secrets.token_hex(16)
        return Suspension(
            ask(
                payload,
                round_no,
                self._tools,
                self._server,
                [echoed(a) for a in self._answers[:round_no]] if round_no else [],
                # What each of those answers broke (the repair it led to), sealed with them so the
                # retry does not check an earlier answer again: repairs stay linear. (Round one,
                # the common call, has none: no comprehension is run for it.)
                [_finding(err) for err in findings[:round_no]] if round_no else [],
                call,
                self._fetched,
            ),
            call,
        )

    def settled(self) -> dict[str, Any]:
        """A completion of several (`n`) that is answered while others are still asked: its state
        and the answer it took, for the retry to replay it exactly (`merge_choices`)."""
        if self._state is None or not self._answers:
            raise RuntimeError("only a completion answered on a bound retry is settled")
        return {"state": self._state, "answer": _dump(echoed(self._answers[-1]))}


# Several completions of one call (`n`): each is a round trip of its own, its input request under
# its own key and its state beside the others' in one state (sealed by the SDK like any state).
CHOICES_VERSION = "choices-1"


def choice_key(index: int) -> str:
    return f"{KEY}_{index}"


def split_choices(
    state: str | None, responses: Mapping[str, Any] | None, n: int
) -> list[tuple[str | None, dict[str, Any]]]:
    """Each completion's own state and answer from a retry of several: the answer the host gave
    under its key, or for one settled on an earlier request, the answer carried in the state. A
    state that is not ours gives every completion a fresh round one."""
    entries = _read_entries(state, n)
    responses = responses or {}
    parts: list[tuple[str | None, dict[str, Any]]] = []
    for index, entry in enumerate(entries):
        answer = responses.get(choice_key(index))
        if answer is None and "answer" in entry:
            try:
                answer = CreateMessageResultWithTools.model_validate(entry["answer"])
            except ValueError:
                answer = None
        sub_state = entry.get("state")
        parts.append(
            (sub_state if isinstance(sub_state, str) else None, {} if answer is None else {KEY: answer})
        )
    return parts


def _read_entries(state: str | None, n: int) -> list[dict[str, Any]]:
    try:
        bound = json.loads(state) if state is not None else None
    except ValueError:
        bound = None
    entries = bound.get("choices") if isinstance(bound, dict) and bound.get("v") == CHOICES_VERSION else None
    if not isinstance(entries, list) or len(entries) != n or not all(isinstance(e, dict) for e in entries):
        return [{} for _ in range(n)]
    return entries


def merge_choices(
    hosts: list[ModernRoundTrip | None], suspended: list[InputRequiredResult | None]
) -> InputRequiredResult:
    """One round for every completion still to be answered, each under its own key; a settled
    one is carried in the state as it was answered."""
    entries: list[dict[str, Any]] = []
    requests: dict[str, Any] = {}
    for index, (host, result) in enumerate(zip(hosts, suspended, strict=True)):
        if result is not None:
            requests[choice_key(index)] = (result.input_requests or {})[KEY]
            entries.append({"state": result.request_state})
        elif host is not None:
            entries.append(host.settled())
        else:
            raise RuntimeError(f"completion {index} is neither asked nor settled by the host")
    state = _COMPACT.encode({"v": CHOICES_VERSION, "choices": entries})
    return InputRequiredResult(input_requests=requests, request_state=state)


def _dump(answer: Any) -> Any:
    return answer.model_dump(by_alias=True, mode="json", exclude_none=True)


# Each sampling request's tools, left out of a result's dump and put back in their kept wire form.
_NO_TOOLS = {"input_requests": {"__all__": {"params": {"tools"}}}}


def wire_result(result: InputRequiredResult) -> InputRequiredResult | dict[str, Any]:
    """`result` as it goes to the SDK: a round that sends the host tools as its wire mapping, the
    model's dump with each request's tools in the form kept for them (adapters/tools/wire.py), so
    a call that repeats its tools does not have them dumped again on every round one; the SDK's
    runner takes the mapping as it takes the model, and sieves it the same way. A round without
    tools goes as the model: the SDK's own dump of it costs no more."""
    requests = result.input_requests or {}
    tools = {
        key: request.params.tools
        for key, request in requests.items()
        if isinstance(request, CreateMessageRequest) and request.params.tools is not None
    }
    if not any(tools.values()):
        return result
    dumped: dict[str, Any] = result.model_dump(
        by_alias=True, mode="json", exclude_none=True, exclude=_NO_TOOLS
    )
    for key, sent in tools.items():
        dumped["inputRequests"][key]["params"]["tools"] = wire.dumped(sent)
    return dumped


def ask(
    payload: CreateMessageRequestParams,
    round_no: int,
    host_tools: bool,
    server_version: str = __version__,
    answers: list[Any] | None = None,
    repairs: list[dict[str, str]] | None = None,
    call: str | None = None,
    fetched: tuple[str, ...] = (),
) -> InputRequiredResult:
    bound: dict[str, Any] = {
        "v": STATE_VERSION,
        "round": round_no,
        "tools": host_tools,
        "server": server_version,
    }
    if call is not None:
        bound["call"] = call
    if answers:
        bound["answers"] = [a.model_dump(by_alias=True, mode="json", exclude_none=True) for a in answers]
    if repairs:
        bound["repairs"] = repairs
    if fetched:
        bound["fetched"] = list(fetched)
    state = _COMPACT.encode(bound)
    return InputRequiredResult(
        input_requests={KEY: CreateMessageRequest(params=payload)}, request_state=state
    )


def _read(state: str | None) -> dict[str, Any] | None:
    if state is None:
        return None
    try:
        bound = json.loads(state)
    except ValueError:
        return None
    if not isinstance(bound, dict) or bound.get("v") != STATE_VERSION:
        return None
    return bound


class Binding(Record):
    """What a retry's state binds. `why` is None when it binds the host's answer to exactly this
    request's payload, and then `round_no` is the round it was minted for, `earlier` the host's
    answers to the rounds before it and `findings` what each of those broke; otherwise `why`
    says why the answer cannot be taken, and there is nothing else."""

    why: str | None
    round_no: int = -1
    earlier: tuple[CreateMessageResultWithTools, ...] = ()
    findings: tuple[dict[str, str], ...] = ()
    call: str | None = None  # the call's identity, when the state carries one


def _binding(
    state: str | None,
    bound: dict[str, Any] | None,
    host_tools: bool,
    server_version: str,
    responses: Mapping[str, Any],
    fetched: tuple[str, ...] = (),
) -> Binding:
    if state is None:
        return Binding("the retry carried no requestState")
    if bound is None:
        return Binding("the requestState is not ours")
    round_no = bound.get("round")
    if type(round_no) is not int or round_no < 0:
        return Binding("the requestState is not ours")
    if bound.get("server") != server_version:
        return Binding("the requestState was minted by another server version")
    if bound.get("tools") is not host_tools:
        return Binding("the requestState was minted for a host that declared other sampling.tools")
    if KEY not in responses:
        return Binding(NO_ANSWER)
    if bound.get("fetched", []) != list(fetched):
        return Binding("the media fetched again for the retry are not the bytes the round sent")
    call = bound.get("call")
    call = call if isinstance(call, str) and _IDENTITY.fullmatch(call) else None
    if not round_no:
        return Binding(None, round_no, call=call)
    # A repair round: the earlier rounds' answers, and what each broke, as sealed.
    recorded = bound.get("answers")
    if not isinstance(recorded, list) or len(recorded) != round_no:
        return Binding("the requestState does not hold the earlier rounds' answers")
    try:
        earlier = tuple(CreateMessageResultWithTools.model_validate(a) for a in recorded)
    except ValueError:
        return Binding("the requestState does not hold the earlier rounds' answers")
    found = bound.get("repairs")
    if not _all_findings(found, round_no):
        return Binding("the requestState does not hold what the earlier rounds' answers broke")
    return Binding(None, round_no, earlier, tuple(found), call)  # type: ignore[arg-type]  # checked just above


def _resumption(bound: Binding, responses: Mapping[str, Any]) -> Resumption:
    """What a proven retry takes without an exchange: the earlier rounds replayed, each with what
    it was found to break, and the host's answer to the round the state was minted for."""
    earlier = tuple(
        Replayed(HostAnswer.of(answer), _found(finding))
        for answer, finding in zip(bound.earlier, bound.findings, strict=True)
    )
    answer = responses[KEY]
    if isinstance(answer, CreateMessageResult | CreateMessageResultWithTools):
        return Resumption(bound.call, earlier, HostAnswer.of(answer))
    problem = f"expected a sampling/createMessage result, got {type(answer).__name__}"
    return Resumption(bound.call, earlier, host_error(f"inputResponses.{KEY}", problem))


def _all_findings(found: object, rounds: int) -> bool:
    """The state's `repairs`: one finding {path, reason, repair} per earlier round."""
    return (
        isinstance(found, list)
        and len(found) == rounds
        and all(
            isinstance(f, dict) and all(isinstance(f.get(k), str) for k in ("path", "reason", "repair"))
            for f in found
        )
    )


def _finding(err: CallError) -> dict[str, str]:
    return {"path": err.path, "reason": err.reason, "repair": err.repair or ""}


def _found(finding: dict[str, str]) -> CallError:
    """An earlier round's finding, as the error it was: the machine asks for the same repair."""
    return host_error(finding["path"], finding["reason"], repair=finding["repair"] or None)
