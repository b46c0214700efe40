"""Writing the fuzzer's abstract conversation in each dialect's request shape, and reading the
completion and cursor back out of a result the way a caller does."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent_as_model.commands.fuzz.conversation import CHAT, MESSAGES, RESPONSES, Said, Unit


def render(tool: str, units: Sequence[Unit]) -> dict[str, Any]:
    """The request arguments that carry this conversation (`messages`, `input`, and the leading
    system text as `system` or `instructions` where the dialect takes it that way)."""
    return {CHAT: _chat, MESSAGES: _messages, RESPONSES: _responses}[tool](list(units))


def _leading_system(units: list[Unit]) -> tuple[str | None, list[Unit]]:
    first = units[0] if units else None
    if isinstance(first, Said) and first.role == "system":
        return first.text, units[1:]
    return None, units


def _chat(units: list[Unit]) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for unit in units:
        if isinstance(unit, Said):
            messages.append({"role": unit.role, "content": unit.text})
            continue
        calls = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.input)}}
            for c in unit.calls
        ]
        messages.append({"role": "assistant", "content": unit.text or None, "tool_calls": calls})
        messages += [{"role": "tool", "tool_call_id": ident, "content": text} for ident, text in unit.results]
    return {"messages": messages}


def _messages(units: list[Unit]) -> dict[str, Any]:
    system, units = _leading_system(units)
    messages: list[dict[str, Any]] = []
    for unit in units:
        if isinstance(unit, Said):
            messages.append({"role": unit.role, "content": unit.text})
            continue
        blocks: list[dict[str, Any]] = [{"type": "text", "text": unit.text}] if unit.text else []
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input} for c in unit.calls]
        messages.append({"role": "assistant", "content": blocks})
        if unit.results:
            results = [
                {"type": "tool_result", "tool_use_id": ident, "content": text} for ident, text in unit.results
            ]
            messages.append({"role": "user", "content": results})
    return {"messages": messages} if system is None else {"system": system, "messages": messages}


def _responses(units: list[Unit]) -> dict[str, Any]:
    instructions, units = _leading_system(units)
    items: list[dict[str, Any]] = []
    for index, unit in enumerate(units):
        if isinstance(unit, Said):
            items.append({"role": unit.role, "content": unit.text})
            continue
        # function_call items join an assistant message item right before them: after an
        # assistant message of its own, a turn without text needs an empty message item.
        before = units[index - 1] if index else None
        if unit.text or (isinstance(before, Said) and before.role == "assistant"):
            items.append({"type": "message", "role": "assistant", "content": unit.text})
        for call in unit.calls:
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": json.dumps(call.input),
                }
            )
        items += [
            {"type": "function_call_output", "call_id": ident, "output": text} for ident, text in unit.results
        ]
    args: dict[str, Any] = {"input": items}
    if instructions is not None:
        args["instructions"] = instructions
    return args


# -- reading a result --------------------------------------------------------------------------------


class Unreadable(Exception):
    """A result that does not have the shape the contract gives it with cursors on."""


def read_result(tool: str, text: str, structured: Any) -> tuple[str, str]:
    """(completion, cursor) of a successful result with cursors on: a text tool's
    `{"completion", "response_id"}`; a Response's output text (or the tool-call envelope when it
    holds function calls) and its `id`."""
    try:
        body = json.loads(text)
    except ValueError as err:
        raise Unreadable(f"the result text is not JSON: {text[:200]!r}") from err
    if not isinstance(body, dict):
        raise Unreadable(f"the result text is not a JSON object: {text[:200]!r}")
    if tool != RESPONSES:
        if sorted(body) != ["completion", "response_id"]:
            raise Unreadable(f"expected the keys completion and response_id, got {sorted(body)}")
        return str(body["completion"]), str(body["response_id"])
    try:
        output = body["output"]
        said = [p["text"] for i in output if i["type"] == "message" for p in i["content"]]
        made = [
            {"id": i["call_id"], "input": json.loads(i["arguments"]), "name": i["name"]}
            for i in output
            if i["type"] == "function_call"
        ]
        cursor = str(body["id"])
    except (KeyError, TypeError, ValueError) as err:
        raise Unreadable(f"not a Responses object with output items: {err!r}") from err
    joined = "\n".join(said)
    completion = json.dumps({"text": joined, "tool_calls": made}, sort_keys=True) if made else joined
    return completion, cursor
