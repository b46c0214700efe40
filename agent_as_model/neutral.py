"""The neutral conversation: the one currency between the rooms.

Dialect adapters turn a product-shaped request into a `Request` and a `Completion` back into
their product's result shape; the states turn a `Request` into the MCP sampling payload and the
host's answer into a `Completion`. Nothing here knows a dialect or an era.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Role = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class Text:
    text: str


@dataclass(frozen=True, slots=True)
class ToolUse:
    id: str
    name: str
    input: dict[str, object]


@dataclass(frozen=True, slots=True)
class ToolResult:
    tool_use_id: str
    content: str
    is_error: bool = False


Block = Text | ToolUse | ToolResult


@dataclass(frozen=True, slots=True)
class Turn:
    role: Role
    blocks: tuple[Block, ...]


@dataclass(frozen=True, slots=True)
class Request:
    """What the caller asked for, in neutral form, after validation."""

    tool: str
    system: str | None
    turns: tuple[Turn, ...]
    model: str
    max_tokens: int
    temperature: float | None = None


@dataclass(frozen=True, slots=True)
class Completion:
    """What the host's model answered, after interpretation."""

    text: str
    tool_calls: tuple[ToolUse, ...] = ()
    host_model: str | None = None
    stop_reason: str | None = None
