"""The neutral conversation: the one currency between the rooms.

Dialect adapters turn a product-shaped request into a `Request` and a `Completion` back into
their product's result shape; the states turn a `Request` into the MCP sampling payload and the
host's answer into a `Completion`. Nothing here knows a dialect or an era.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
ChoiceMode = Literal["auto", "required", "none"]
ChainForm = Literal["start", "continue", "anchor"]


def has_tool_blocks(turns: tuple[Turn, ...]) -> bool:
    """Whether a conversation carries any tool call or tool result (most carry only text)."""
    for turn in turns:
        for block in turn.blocks:
            if type(block) is not Text:
                return True
    return False


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool the caller offers the host's model, under the caller's own name."""

    name: str
    description: str | None
    input_schema: dict[str, object]


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """How the model may use the tools. `name` set: that one tool, forwarded alone as required."""

    mode: ChoiceMode
    name: str | None = None


@dataclass(frozen=True, slots=True)
class OutputContract:
    """Structured output the completion must satisfy (spec section 3).

    `schema` is a JSON Schema with root type object (`{"type": "object"}` for chat's
    `response_format: json_object`). `path` is the parameter the contract came from, so errors
    name what the caller wrote.
    """

    schema: dict[str, object]
    path: str = "output_schema"


@dataclass(frozen=True, slots=True)
class Turn:
    role: Role
    blocks: tuple[Block, ...]
    path: str = field(default="", compare=False)  # where the caller wrote it, for error messages


@dataclass(frozen=True, slots=True)
class Persona:
    """A per-call contract (spec section 5). Its input_schema is checked while the arguments
    are read; its output_schema is checked against the completion text after the answer."""

    name: str
    output_schema: dict[str, object] | None = None


@dataclass(frozen=True, slots=True)
class Chain:
    """Cursors on (spec section 6): the `previous_response_id` as given, and the history the
    caller passed back as transcript entries (`{"role", "content"}`, tool results with
    `"tool_call_id"`), which the previous cursor is verified against and the next one minted over."""

    previous: str
    form: ChainForm
    history: tuple[dict[str, str], ...]
    # Responses only: the text of a trailing assistant message item. Call items passed back
    # right after it join it into one entry, so an answer of calls alone is minted that way.
    calls_join: str | None = None


@dataclass(slots=True)
class Request:
    """What the caller asked for, in neutral form, after validation.

    Never changed once made, but not `frozen`: a frozen dataclass sets each of its 13 fields
    through `object.__setattr__`, which measured 0.7 µs more per call (one Request per request)."""

    tool: str
    system: str | None
    turns: tuple[Turn, ...]
    model: str
    max_tokens: int
    temperature: float | None = None
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice | None = None
    output: OutputContract | None = None
    stop: tuple[str, ...] = ()
    repair_attempts: int = 0
    persona: Persona | None = None
    chain: Chain | None = None


@dataclass(slots=True)
class Completion:
    """What the host's model answered, after interpretation. Never changed once made; not
    `frozen` for the same measured reason as `Request`."""

    text: str
    tool_calls: tuple[ToolUse, ...] = ()
    structured: dict[str, object] | None = None  # the validated output, when a contract asked for one
    model: str | None = None  # the model the host named in its answer
    stop_reason: str | None = None  # the host's stopReason, in MCP's words (endTurn, maxTokens, ...)
