"""The caller's side, for the fuzzer, the property tests and the soak (`Writing`, dialects/writing.py):
how an Anthropic Messages caller writes a conversation (`messages_create`'s `Writing`).

A leading system message becomes the `system` parameter; an assistant turn that called tools is
one message of text and `tool_use` blocks, and its results one user message of `tool_result`
blocks, which a following user text may join (as text blocks after the results).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects.writing import (
    Said,
    Unit,
    Writing,
    leading_system,
    read_text_result,
    refuse,
    text_parts,
)

if TYPE_CHECKING:  # only for annotations: importing random costs start-up time
    import random


def write_request(units: Sequence[Unit], vary: random.Random | None = None) -> dict[str, Any]:
    system, rest = leading_system(units)
    messages: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] | None = None  # the blocks of the last tool-result message
    for unit in rest:
        if isinstance(unit, Said):
            if unit.role not in ("user", "assistant"):
                raise refuse(f"a {unit.role} message past the start: Messages takes `system` only")
            if unit.role == "user" and pending is not None and vary is not None and vary.random() < 0.5:
                pending += [{"type": "text", "text": piece} for piece in unit.text.split("\n")]
            else:
                messages.append({"role": unit.role, "content": text_parts(unit.text, vary)})
            pending = None
            continue
        pieces = unit.text.split("\n") if vary is not None else [unit.text]
        blocks: list[dict[str, Any]] = [{"type": "text", "text": p} for p in pieces] if unit.text else []
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input} for c in unit.calls]
        messages.append({"role": "assistant", "content": blocks})
        if unit.results:
            pending = [_written_result(ident, text, vary) for ident, text in unit.results]
            messages.append({"role": "user", "content": pending})
        else:
            pending = None
    args: dict[str, Any] = {"messages": messages}
    if system is not None:
        args["system"] = text_parts(system, vary)
    return args


def _written_result(ident: str, text: str, vary: random.Random | None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": ident, "content": text}
    if vary is None:
        return block
    how = vary.choice(("string", "blocks", "absent"))
    if how == "blocks":
        block["content"] = [{"type": "text", "text": piece} for piece in text.split("\n")]
    elif how == "absent" and not text:
        del block["content"]
    if vary.random() < 0.3:
        block["is_error"] = vary.random() < 0.5  # not part of the entry
    return block


WRITING = Writing(write_request, read_text_result)
