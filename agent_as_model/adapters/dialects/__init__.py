"""Dialects: one module per product API shape.

Each module has `NAME`, `DESCRIPTION`, `INPUT_SCHEMA`, `parse(args) -> Request` (raising
`CallError` with a JSON path) and `render(completion, request, cursor) -> str | dict` (text, or a
JSON object that becomes both the text and the structuredContent of the tool result; `cursor` is
the next session cursor when cursors are on, else None).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from agent_as_model.adapters.dialects import chat, messages, prompt, responses
from agent_as_model.neutral import Completion, Request


class Dialect(Protocol):
    NAME: str
    DESCRIPTION: str
    INPUT_SCHEMA: dict[str, Any]

    def parse(self, args: Mapping[str, Any]) -> Request: ...

    def render(
        self, completion: Completion, request: Request, cursor: str | None
    ) -> str | dict[str, Any]: ...


DIALECTS: dict[str, Dialect] = {d.NAME: d for d in (chat, messages, responses, prompt)}  # type: ignore[misc]

__all__ = ["DIALECTS", "Dialect"]
