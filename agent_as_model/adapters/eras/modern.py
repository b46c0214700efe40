"""Modern era (2026-07-28 and later): multi-round-trip requests (MRTR).

Round one answers the tools/call with an `InputRequiredResult` holding exactly one
sampling/createMessage input request and a `requestState` that names the digest of that exact
payload (the SDK seals the state). The retry arrives with the same arguments; the engine rebuilds
the payload from them, and the answer is taken only when the state names that payload's digest
and the answer sits under our key. Otherwise the host is asked again, as the spec advises: an
unbound answer is never taken as the completion.
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

from agent_as_model.adapters.eras.answer import host_answer
from agent_as_model.engine.record import HostAnswer, Suspension
from agent_as_model.errors import host_error
from agent_as_model.states.build import payload_digest

log = logging.getLogger("agent_as_model")

KEY = "completion"
STATE_VERSION = 1


class ModernRoundTrip:
    def __init__(self, request_state: str | None, input_responses: Mapping[str, Any] | None) -> None:
        self._state = request_state
        self._responses = input_responses or {}

    async def exchange(self, payload: CreateMessageRequestParams, round_no: int) -> HostAnswer | Suspension:
        digest = payload_digest(payload)
        answer = self._responses.get(KEY)
        why = _unbound(self._state, digest, round_no, answer)
        if why is not None:
            if self._state is not None or self._responses:
                log.info("asking the host again: %s", why)
            return Suspension(ask(payload, digest, round_no))
        if not isinstance(answer, CreateMessageResult | CreateMessageResultWithTools):
            raise host_error(
                f"inputResponses.{KEY}",
                f"expected a sampling/createMessage result, got {type(answer).__name__}",
            )
        return host_answer(answer)


def ask(payload: CreateMessageRequestParams, digest: str, round_no: int) -> InputRequiredResult:
    state = json.dumps({"v": STATE_VERSION, "digest": digest, "round": round_no}, separators=(",", ":"))
    return InputRequiredResult(
        input_requests={KEY: CreateMessageRequest(params=payload)}, request_state=state
    )


def _unbound(state: str | None, digest: str, round_no: int, answer: object) -> str | None:
    """Why the retry's answer cannot be taken, or None when it is bound to this exact payload."""
    if state is None:
        return "the retry carried no requestState"
    try:
        bound = json.loads(state)
    except ValueError:
        return "the requestState is not ours"
    if not isinstance(bound, dict) or bound.get("v") != STATE_VERSION:
        return "the requestState is not ours"
    if bound.get("digest") != digest or bound.get("round") != round_no:
        return "the requestState was minted for another payload"
    if answer is None:
        return f"the retry carried no answer under '{KEY}'"
    return None
