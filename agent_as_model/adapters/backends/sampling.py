"""The host through sampling (before 2026-07-28): one real sampling/createMessage request, related to
the tool call."""

from __future__ import annotations

from mcp import MCPError
from mcp.server.session import ServerSession
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResultWithTools,
    RequestId,
)
from pydantic import ValidationError

from agent_as_model.adapters.backends.base import HostAnswer, host_declined
from agent_as_model.errors import host_error


class LegacySampling:
    proven = False  # every call asks the host: nothing is carried from an earlier request
    who = None  # the host

    def __init__(self, session: ServerSession, request_id: RequestId | None) -> None:
        self._session = session
        # Relating the request to the tool call keeps it on the call's stream (mcp-notes 1.5).
        self._metadata = ServerMessageMetadata(related_request_id=request_id)

    async def exchange(self, payload: CreateMessageRequestParams | None, round_no: int) -> HostAnswer:
        if payload is None:  # never proven, so the payload is always built
            raise RuntimeError("the sampling backend needs the payload")
        try:
            # WithTools accepts a single block or an array, so an odd answer is ours to judge.
            result = await self._session.send_request(
                CreateMessageRequest(params=payload), CreateMessageResultWithTools, metadata=self._metadata
            )
        except MCPError as err:
            raise host_declined(
                "sampling/createMessage",
                f"the host answered with error {err.error.code}: {err.error.message}",
            ) from None
        except ValidationError as err:
            raise host_error(
                "sampling/createMessage", f"the host's answer is not a sampling result ({_first(err)})"
            ) from None
        return HostAnswer.of(result)


def _first(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "result"
    return f"{where}: {first.get('msg', 'invalid')}"
