"""Who said what to whom: pairs JSON-RPC requests with their responses across both directions.

A response carries only an id; to redact it, describe it or check that a recording is complete,
we need the method (and, for `tools/call`, the tool) of the request it answers. Recording,
loading and replaying all feed frames through one `Exchange` in the order they travelled.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from agent_as_model.adapters.tools import models

CLIENT_TO_SERVER = "c2s"
SERVER_TO_CLIENT = "s2c"
DIRECTIONS = (CLIENT_TO_SERVER, SERVER_TO_CLIENT)

Kind = Literal["request", "notification", "response", "other"]


@dataclass(frozen=True)
class FrameContext:
    """What a frame is: for a response, `method` and `tool` are those of the request it answers."""

    kind: Kind
    method: str | None = None
    tool: str | None = None

    @property
    def is_completion_call(self) -> bool:
        """A `tools/call` whose text is a conversation (every tool but the static model list)."""
        return self.method == "tools/call" and self.tool != models.NAME


OTHER = FrameContext("other")


def id_key(request_id: Any) -> str:
    """Ids 1 and "1" are different requests in JSON-RPC; their JSON text keeps them apart."""
    return json.dumps(request_id, sort_keys=True)


def other_side(direction: str) -> str:
    return SERVER_TO_CLIENT if direction == CLIENT_TO_SERVER else CLIENT_TO_SERVER


@dataclass(frozen=True)
class OpenRequest:
    direction: str
    request_id: Any
    context: FrameContext
    tag: Any  # whatever the caller wants back (the line number, when loading a file)


class Exchange:
    def __init__(self) -> None:
        self._open: dict[tuple[str, str], OpenRequest] = {}

    def see(self, direction: str, frame: Any, tag: Any = None) -> FrameContext:
        """Classify one frame and keep track of the requests still waiting for an answer."""
        if not isinstance(frame, dict):
            return OTHER
        method = frame.get("method")
        if isinstance(method, str):
            params = frame.get("params")
            params = params if isinstance(params, dict) else {}
            name = params.get("name")
            tool = name if method == "tools/call" and isinstance(name, str) else None
            if "id" not in frame:
                if method == "notifications/cancelled":
                    # A cancelled request is owed no response: the spec tells the receiver not to send one.
                    self._open.pop((direction, id_key(params.get("requestId"))), None)
                return FrameContext("notification", method, tool)
            context = FrameContext("request", method, tool)
            self._open[(direction, id_key(frame["id"]))] = OpenRequest(direction, frame["id"], context, tag)
            return context
        if "id" in frame and ("result" in frame or "error" in frame):
            opened = self._open.pop((other_side(direction), id_key(frame["id"])), None)
            if opened is None:
                return FrameContext("response")
            return FrameContext("response", opened.context.method, opened.context.tool)
        return OTHER

    def unanswered(self) -> list[OpenRequest]:
        """Requests still owed a response, oldest first."""
        return list(self._open.values())
