"""How a Chat Completions caller writes a conversation as `messages` (`chat_complete`'s `Writing`).

Each message keeps its role; an assistant turn that called tools is one message with
`tool_calls` (its `content` null or `""` when it has no text), and each result a `tool` message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects.writing import (
    Said,
    Unit,
    Writing,
    arguments_text,
    read_text_result,
    text_parts,
)

if TYPE_CHECKING:  # only for annotations: importing random costs start-up time
    import random


def write(units: Sequence[Unit], vary: random.Random | None = None) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for unit in units:
        if isinstance(unit, Said):
            messages.append({"role": unit.role, "content": text_parts(unit.text, vary)})
            continue
        empty = vary.choice((None, "")) if vary is not None else None
        calls = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": arguments_text(c.input, vary)},
            }
            for c in unit.calls
        ]
        messages.append({"role": "assistant", "content": unit.text or empty, "tool_calls": calls})
        messages += [{"role": "tool", "tool_call_id": ident, "content": text} for ident, text in unit.results]
    return {"messages": messages}


WRITING = Writing(write, read_text_result, roles=("system", "developer", "user", "assistant"))
