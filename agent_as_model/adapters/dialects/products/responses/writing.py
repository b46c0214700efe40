"""The caller's side, for the fuzzer, the property tests and the soak (`Writing`, dialects/writing.py):
how an OpenAI Responses caller writes a conversation as `input` items, and reads a Response.

A leading system message may become `instructions`; a lone user message may be a string input;
an assistant turn that called tools is its message item (when it has text) and `function_call`
items, its results `function_call_output` items. The `function_call` items join an assistant
message item right before them (docs/cursors.md), so a turn without text after an assistant
message gets an empty message item of its own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects.writing import (
    Reading,
    Said,
    Unit,
    Unreadable,
    Writing,
    arguments_text,
    completion,
    leading_system,
    read_object,
    text_parts,
)

if TYPE_CHECKING:  # only for annotations: importing random costs start-up time
    import random


def write_request(units: Sequence[Unit], vary: random.Random | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {}
    system, rest = leading_system(units)
    if system is not None and (vary is None or vary.random() < 0.5):
        args["instructions"] = system
    else:
        rest = list(units)
    lone = len(rest) == 1 and isinstance(rest[0], Said) and rest[0].role == "user"
    if lone and vary is not None and vary.random() < 0.5:
        return {**args, "input": rest[0].text}  # a string input: one user entry
    items: list[dict[str, Any]] = []
    for index, unit in enumerate(rest):
        if isinstance(unit, Said):
            part_type = vary.choice(("input_text", "text")) if vary is not None else "input_text"
            item: dict[str, Any] = {"role": unit.role, "content": text_parts(unit.text, vary, part_type)}
            if vary is not None and vary.random() < 0.5:
                item["type"] = "message"
            items.append(item)
            continue
        before = rest[index - 1] if index else None
        if unit.text or (isinstance(before, Said) and before.role == "assistant"):
            items.append({"type": "message", "role": "assistant", "content": unit.text})
        for call in unit.calls:
            item = {
                "type": "function_call",
                "call_id": call.id,
                "name": call.name,
                "arguments": arguments_text(call.input, vary),
            }
            if vary is not None and vary.random() < 0.5:
                item["id"] = f"fc_{index}"
            items.append(item)
        items += [
            {"type": "function_call_output", "call_id": ident, "output": text} for ident, text in unit.results
        ]
    return {**args, "input": items}


def read_result(text: str, structured: Any) -> Reading:
    """The output's text (or the tool-call envelope when it holds function calls) and its `id`."""
    body = read_object(text)
    try:
        output = body["output"]
        said = [p["text"] for i in output if i["type"] == "message" for p in i["content"]]
        made = [
            (i["call_id"], i["name"], json.loads(i["arguments"]))
            for i in output
            if i["type"] == "function_call"
        ]
        cursor = str(body["id"])
    except (KeyError, TypeError, ValueError) as err:
        raise Unreadable(f"not a Responses object with output items: {err!r}") from err
    return Reading(completion("\n".join(said), made), cursor)


WRITING = Writing(write_request, read_result, roles=("system", "developer", "user", "assistant"))
