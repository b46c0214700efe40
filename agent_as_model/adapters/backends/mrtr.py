"""Modern era (2026-07-28 and later): multi-round-trip requests (MRTR).

Round one answers the tools/call with an `InputRequiredResult` holding exactly one
sampling/createMessage input request and a `requestState` that names the digest of that exact
payload (the SDK seals the state). The retry arrives with the same arguments; the engine rebuilds
the payload from them, and the answer is taken only when the state names that payload's digest
and the answer sits under our key. Otherwise the host is asked again, as the spec advises: an
unbound answer is never taken as the completion.

A repair (structured output that did not validate) is one more round. Its payload holds the
host's earlier answers, which the retried arguments do not, so its state carries them (sealed
like all state) and the retry replays the earlier rounds with them before binding the last. The
state also carries what each earlier answer was found to break (the driver tells `repaired`), so
the replay takes that finding instead of checking the answer again: repairs stay linear.
"""

from __future__ import annotations

import hashlib
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

from agent_as_model.adapters.backends.base import HostAnswer, Suspension
from agent_as_model.errors import CallError, host_error

log = logging.getLogger("agent_as_model")

KEY = "completion"
STATE_VERSION = 1


class ModernRoundTrip:
    def __init__(self, request_state: str | None, input_responses: Mapping[str, Any] | None) -> None:
        self._state = request_state
        self._bound = _read(request_state)  # the state's content, when it is ours; read once
        self._responses = input_responses or {}
        # The answers of the rounds this request has been through, in order. A repair round's
        # payload holds the earlier answers, so its state carries them (sealed) to the retry.
        self._answers: list[Any] = []
        # What each of those answers was found to break (the repair it led to), carried with
        # them so the retry does not check an earlier answer again: repairs stay linear.
        self._repairs: list[dict[str, str]] = []

    def repaired(self, err: CallError) -> None:
        """The driver's note: the last answer broke the output contract and a repair follows."""
        self._repairs.append({"path": err.path, "reason": err.reason, "repair": err.repair or ""})

    async def exchange(self, payload: CreateMessageRequestParams, round_no: int) -> HostAnswer | Suspension:
        earlier = _earlier_answer(self._bound, round_no)
        if earlier is not None:
            # A repair round's retry replays the rounds before it with their recorded answers
            # and, when the state has it, what each was found to break.
            self._answers.append(earlier)
            return HostAnswer.of(earlier, _established(self._bound, round_no))
        digest = payload_digest(payload)
        answer = self._responses.get(KEY)
        why = _unbound(self._state, self._bound, digest, round_no, answer)
        if why is not None:
            if self._state is not None or self._responses:
                log.info("asking the host again: %s", why)
            return Suspension(
                ask(payload, digest, round_no, self._answers[:round_no], self._repairs[:round_no])
            )
        if not isinstance(answer, CreateMessageResult | CreateMessageResultWithTools):
            raise host_error(
                f"inputResponses.{KEY}",
                f"expected a sampling/createMessage result, got {type(answer).__name__}",
            )
        self._answers.append(answer)
        return HostAnswer.of(answer)


def ask(
    payload: CreateMessageRequestParams,
    digest: str,
    round_no: int,
    answers: list[Any] | None = None,
    repairs: list[dict[str, str]] | None = None,
) -> InputRequiredResult:
    bound: dict[str, Any] = {"v": STATE_VERSION, "digest": digest, "round": round_no}
    if answers:
        bound["answers"] = [a.model_dump(by_alias=True, mode="json", exclude_none=True) for a in answers]
    if repairs:
        bound["repairs"] = repairs
    state = json.dumps(bound, separators=(",", ":"))
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


def _earlier_answer(bound: dict[str, Any] | None, round_no: int) -> CreateMessageResultWithTools | None:
    """The recorded answer of an earlier round, when the state is past `round_no`."""
    if bound is None or "answers" not in bound:  # the common case: no repair round
        return None
    if not isinstance(bound.get("round"), int) or round_no >= bound["round"]:
        return None
    answers = bound.get("answers")
    if not isinstance(answers, list) or round_no >= len(answers):
        return None
    try:
        return CreateMessageResultWithTools.model_validate(answers[round_no])
    except ValueError:
        return None


def _established(bound: dict[str, Any] | None, round_no: int) -> CallError | None:
    """What the state says round `round_no`'s answer was found to break, if it says."""
    repairs = bound.get("repairs") if bound is not None else None
    if not isinstance(repairs, list) or round_no >= len(repairs):
        return None  # a state without it (an older server's): the answer is checked again
    found = repairs[round_no]
    if not isinstance(found, dict) or not all(
        isinstance(found.get(k), str) for k in ("path", "reason", "repair")
    ):
        return None
    return host_error(found["path"], found["reason"], repair=found["repair"] or None)


def _unbound(
    state: str | None, bound: dict[str, Any] | None, digest: str, round_no: int, answer: object
) -> str | None:
    """Why the retry's answer cannot be taken, or None when it is bound to this exact payload."""
    if state is None:
        return "the retry carried no requestState"
    if bound is None:
        return "the requestState is not ours"
    if bound.get("digest") != digest or bound.get("round") != round_no:
        return "the requestState was minted for another payload"
    if answer is None:
        return f"the retry carried no answer under '{KEY}'"
    return None


def payload_digest(payload: CreateMessageRequestParams) -> str:
    """sha256 over the payload's JSON as the SDK's model serialises it (camelCase, no nulls).

    pydantic-core writes that JSON in about a third of the time of a dict dump plus a sorted
    `json.dumps`; its field order is fixed by the SDK's model, so equal payloads give equal digests.
    """
    wire = payload.model_dump_json(by_alias=True, exclude_none=True)
    return hashlib.sha256(wire.encode("utf-8")).hexdigest()
