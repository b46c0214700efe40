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
payload build and a digest of the payload would prove nothing the first round did not, and the
record is told so (`proven`), so the state work skips them (docs/architecture.md). That relies
on the boundary being installed: `server.build_server` always installs it, and a test checks so.

A repair (structured output that did not validate) is one more round. Its payload holds the
host's earlier answers, which the retried arguments do not, so its state carries them (sealed
like all state) and the retry replays the earlier rounds with them before taking the last.
"""

from __future__ import annotations

import json
import logging
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
from agent_as_model.adapters.backends.base import HostAnswer, SamplingSupport, Suspension
from agent_as_model.errors import CallError, host_error

log = logging.getLogger("agent_as_model")

KEY = "completion"
# 2: the state binds round, host tools and server version (1 bound a digest of the payload); a
# state of another version is not ours, and the host is asked again.
STATE_VERSION = 2
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
    ) -> None:
        self._state = request_state
        self._responses = input_responses or {}
        self._tools = sampling.tools
        self._server = server_version
        bound = _read(request_state)
        # What the state binds, when it binds this request: the round it was minted for, and the
        # host's answers to the rounds before it. Read and checked once, here.
        self._why, self._round, self._earlier, self._established = _binding(
            request_state, bound, self._tools, self._server, self._responses
        )
        # Told to the call record: the earlier round's checks and payload hold for this request.
        self.proven = self._why is None
        # The answers of the rounds this request has been through, in order. A repair round's
        # payload holds the earlier answers, so its state carries them (sealed) to the retry.
        self._answers: list[Any] = []
        # What each of those answers was found to break (the repair it led to), carried with
        # them so the retry does not check an earlier answer again: repairs stay linear.
        self._repairs: list[dict[str, str]] = []

    def repaired(self, err: CallError) -> None:
        """The driver's note: the last answer broke the output contract and a repair follows."""
        self._repairs.append({"path": err.path, "reason": err.reason, "repair": err.repair or ""})

    async def exchange(
        self, payload: CreateMessageRequestParams | None, round_no: int
    ) -> HostAnswer | Suspension:
        if self.proven and round_no <= self._round:
            if round_no < self._round:
                # A repair round's retry replays the rounds before it with their recorded answers.
                # With it comes what each was found to break, so it is not checked again.
                earlier = self._earlier[round_no]
                self._answers.append(earlier)
                return HostAnswer.of(earlier, _found(self._established[round_no]))
            answer = self._responses[KEY]
            if not isinstance(answer, CreateMessageResult | CreateMessageResultWithTools):
                raise host_error(
                    f"inputResponses.{KEY}",
                    f"expected a sampling/createMessage result, got {type(answer).__name__}",
                )
            self._answers.append(answer)
            return HostAnswer.of(answer)
        # Not proven (round one, or a retry whose state binds another payload), or a repair
        # past the bound round: this round's payload goes to the host.
        if self._why is not None and (self._state is not None or self._responses):
            log.info("asking the host again: %s", self._why)
        if payload is None:  # only a proven record comes without one, and only up to its round
            raise RuntimeError(f"round {round_no} must be asked, but its payload was not built")
        return Suspension(
            ask(
                payload,
                round_no,
                self._tools,
                self._server,
                self._answers[:round_no],
                self._repairs[:round_no],
            )
        )


def ask(
    payload: CreateMessageRequestParams,
    round_no: int,
    host_tools: bool,
    server_version: str = __version__,
    answers: list[Any] | None = None,
    repairs: list[dict[str, str]] | None = None,
) -> InputRequiredResult:
    bound: dict[str, Any] = {
        "v": STATE_VERSION,
        "round": round_no,
        "tools": host_tools,
        "server": server_version,
    }
    if answers:
        bound["answers"] = [a.model_dump(by_alias=True, mode="json", exclude_none=True) for a in answers]
    if repairs:
        bound["repairs"] = repairs
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


Binding = tuple[str | None, int, list[CreateMessageResultWithTools], list[dict[str, str]]]


def _binding(
    state: str | None,
    bound: dict[str, Any] | None,
    host_tools: bool,
    server_version: str,
    responses: Mapping[str, Any],
) -> Binding:
    """(why the retry's answer cannot be taken or None, the round the state binds, the earlier
    rounds' answers). None: the state binds the host's answer to exactly this request's payload."""
    if state is None:
        return "the retry carried no requestState", -1, [], []
    if bound is None:
        return "the requestState is not ours", -1, [], []
    round_no = bound.get("round")
    if type(round_no) is not int or round_no < 0:
        return "the requestState is not ours", -1, [], []
    if bound.get("server") != server_version:
        return "the requestState was minted by another server version", -1, [], []
    if bound.get("tools") is not host_tools:
        return "the requestState was minted for a host that declared other sampling.tools", -1, [], []
    if KEY not in responses:
        return f"the retry carried no answer under '{KEY}'", -1, [], []
    earlier: list[CreateMessageResultWithTools] = []
    if round_no:  # a repair round: the earlier rounds' answers, as sealed
        recorded = bound.get("answers")
        if not isinstance(recorded, list) or len(recorded) != round_no:
            return "the requestState does not hold the earlier rounds' answers", -1, [], []
        try:
            earlier = [CreateMessageResultWithTools.model_validate(a) for a in recorded]
        except ValueError:
            return "the requestState does not hold the earlier rounds' answers", -1, [], []
        found = bound.get("repairs")
        if not _all_findings(found, round_no):
            return "the requestState does not hold what the earlier rounds' answers broke", -1, [], []
        return None, round_no, earlier, found  # type: ignore[return-value]  # checked just above
    return None, round_no, earlier, []


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


def _found(finding: dict[str, str]) -> CallError:
    """An earlier round's finding, as the error it was: the machine asks for the same repair."""
    return host_error(finding["path"], finding["reason"], repair=finding["repair"] or None)
