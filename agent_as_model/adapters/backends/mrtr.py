"""Modern era (2026-07-28 and later): multi-round-trip requests (MRTR).

Round one answers the tools/call with an `InputRequiredResult` holding exactly one
sampling/createMessage input request and a `requestState` that names the digest of that exact
payload (the SDK seals the state). The retry arrives with the same arguments; the engine rebuilds
the payload from them, and the answer is taken only when the state names that payload's digest
and the answer sits under our key. Otherwise the host is asked again, as the spec advises: an
unbound answer is never taken as the completion.

A repair (structured output that did not validate) is one more round. Its payload holds the
host's earlier answers, which the retried arguments do not, so its state carries them (sealed
like all state) and the retry replays the earlier rounds with them before binding the last.
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
from agent_as_model.errors import host_error

log = logging.getLogger("agent_as_model")

KEY = "completion"
STATE_VERSION = 1


class ModernRoundTrip:
    who = None  # the host

    def __init__(self, request_state: str | None, input_responses: Mapping[str, Any] | None) -> None:
        self._state = request_state
        self._bound = _read(request_state)  # the state's content, when it is ours; read once
        self._responses = input_responses or {}
        # The answers of the rounds this request has been through, in order. A repair round's
        # payload holds the earlier answers, so its state carries them (sealed) to the retry.
        self._answers: list[Any] = []

    async def exchange(self, payload: CreateMessageRequestParams, round_no: int) -> HostAnswer | Suspension:
        earlier = _earlier_answer(self._bound, round_no)
        if earlier is not None:
            # A repair round's retry replays the rounds before it with their recorded answers.
            self._answers.append(earlier)
            return HostAnswer.of(earlier)
        digest = payload_digest(payload)
        answer = self._responses.get(KEY)
        why = _unbound(self._state, self._bound, digest, round_no, answer)
        if why is not None:
            if self._state is not None or self._responses:
                log.info("asking the host again: %s", why)
            return Suspension(ask(payload, digest, round_no, self._answers[:round_no]))
        if not isinstance(answer, CreateMessageResult | CreateMessageResultWithTools):
            raise host_error(
                f"inputResponses.{KEY}",
                f"expected a sampling/createMessage result, got {type(answer).__name__}",
            )
        self._answers.append(answer)
        return HostAnswer.of(answer)


def ask(
    payload: CreateMessageRequestParams, digest: str, round_no: int, answers: list[Any] | None = None
) -> InputRequiredResult:
    bound: dict[str, Any] = {"v": STATE_VERSION, "digest": digest, "round": round_no}
    if answers:
        bound["answers"] = [a.model_dump(by_alias=True, mode="json", exclude_none=True) for a in answers]
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
