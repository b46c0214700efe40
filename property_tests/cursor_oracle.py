"""An independent reading of docs/cursors.md: the cursor transcript of a raw request, and the
cursors a caller can recompute from it.

Written from the document alone (nothing from `agent_as_model` is imported), so a property that
compares these cursors with the ones the server returns checks the server against its contract
rather than against itself. Each builder reads the request exactly as a caller sent it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

Entry = dict[str, str]
Call = tuple[str, str, Any]  # (call id, tool name, input object)

DEFAULT_MODEL = "agent-default"
CHAT, MESSAGES, RESPONSES, GENERATE = "chat_complete", "messages_create", "responses_create", "generate"


def canonical(obj: object) -> str:
    """The canonical text the docs pin the cursor to."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def mint(model: str, tool: str, transcript: Sequence[Entry]) -> str:
    text = canonical({"model": model, "tool": tool, "transcript": list(transcript)})
    return "cur_" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def envelope(text: str, calls: Sequence[Call]) -> str:
    """The tool-call JSON text of spec section 4: sorted keys, default separators."""
    listed = [{"id": ident, "input": given, "name": name} for ident, name, given in calls]
    return json.dumps({"text": text, "tool_calls": listed}, sort_keys=True)


def completion_entry(text: str, calls: Sequence[Call] = ()) -> Entry:
    """The entry of an assistant turn: its text, or the envelope when it called tools."""
    return {"role": "assistant", "content": envelope(text, calls) if calls else text}


def flatten(content: Any, keys: tuple[str, ...] = ("text",)) -> str:
    """A string as it is, or a list of text parts joined by a newline."""
    if isinstance(content, str):
        return content
    return "\n".join(next(part[key] for key in keys if key in part) for part in content)


def model_of(args: Mapping[str, Any]) -> str:
    """The model alias a call commits to: `agent-default` when omitted or null."""
    model = args.get("model")
    return DEFAULT_MODEL if model is None else str(model)


# -- the transcript of each tool (docs/cursors.md, "The transcript of each tool") --------------------


def chat_transcript(args: Mapping[str, Any]) -> list[Entry]:
    """One entry per message, role kept; an assistant message with tool_calls is its envelope."""
    entries: list[Entry] = []
    for message in args["messages"]:
        role = message["role"]
        if role == "tool":
            entries.append(tool_entry(message["tool_call_id"], flatten(message["content"])))
        elif role == "assistant" and message.get("tool_calls"):
            content = message.get("content")
            text = "" if content is None else flatten(content)
            calls = [
                (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
                for c in message["tool_calls"]
            ]
            entries.append(completion_entry(text, calls))
        else:
            entries.append({"role": role, "content": flatten(message["content"])})
    return entries


def messages_transcript(args: Mapping[str, Any]) -> list[Entry]:
    """The system parameter first, then each message flattened; in a user message with
    tool_result blocks, each is one `tool` entry and its text blocks (if any) one user entry
    after them."""
    entries: list[Entry] = []
    if args.get("system") is not None:
        entries.append({"role": "system", "content": flatten(args["system"])})
    for message in args["messages"]:
        role, content = message["role"], message["content"]
        if isinstance(content, str):
            entries.append({"role": role, "content": content})
            continue
        texts = [block["text"] for block in content if block["type"] == "text"]
        if role == "assistant":
            calls = [(b["id"], b["name"], b["input"]) for b in content if b["type"] == "tool_use"]
            entries.append(completion_entry("\n".join(texts), calls))
            continue
        results = [block for block in content if block["type"] == "tool_result"]
        entries += [tool_entry(b["tool_use_id"], flatten(b.get("content", ""))) for b in results]
        if texts or not results:  # a message without tool results is flattened like any other
            entries.append({"role": "user", "content": "\n".join(texts)})
    return entries


RESPONSES_TEXT_KEYS = ("text", "input_text")


def responses_transcript(args: Mapping[str, Any]) -> list[Entry]:
    """instructions first; a string input is one user entry; items in order with their roles. An
    assistant message item and the function_call items right after it are one entry (with no
    message item before them, the calls alone make an assistant entry with empty text)."""
    entries: list[Entry | list[Any]] = []  # an open assistant turn is [text, calls] until the end
    if args.get("instructions") is not None:
        entries.append({"role": "system", "content": args["instructions"]})
    given = args["input"]
    if isinstance(given, str):
        entries.append({"role": "user", "content": given})
        given = []
    turn: list[Any] | None = None  # the assistant turn the next function_call joins
    for item in given:
        kind = item.get("type", "message")
        if kind == "function_call":
            if turn is None:
                turn = ["", []]
                entries.append(turn)
            turn[1].append((item["call_id"], item["name"], json.loads(item["arguments"])))
            continue
        turn = None
        if kind == "function_call_output":
            entries.append(tool_entry(item["call_id"], flatten(item["output"], RESPONSES_TEXT_KEYS)))
        elif item["role"] == "assistant":
            turn = [flatten(item["content"], RESPONSES_TEXT_KEYS), []]
            entries.append(turn)
        else:
            entries.append({"role": item["role"], "content": flatten(item["content"], RESPONSES_TEXT_KEYS)})
    return [completion_entry(e[0], e[1]) if isinstance(e, list) else e for e in entries]


def generate_transcript(args: Mapping[str, Any]) -> list[Entry]:
    return [{"role": "user", "content": args["prompt"]}]


TRANSCRIPTS = {
    CHAT: chat_transcript,
    MESSAGES: messages_transcript,
    RESPONSES: responses_transcript,
    GENERATE: generate_transcript,
}


def units_transcript(units: Sequence[Any]) -> list[Entry]:
    """The transcript of a conversation of units (a message: `.role`, `.text`; a tool turn:
    `.text`, `.calls` of `.id`, `.name`, `.input`, and `.results` of (call id, text)), read by the
    table "Tool turns" of docs/cursors.md, which every product's shape of a turn gives: a message
    is one entry, role kept; a tool turn is the envelope's entry, then one `tool` entry a result."""
    entries: list[Entry] = []
    for unit in units:
        if not hasattr(unit, "calls"):
            entries.append({"role": unit.role, "content": unit.text})
            continue
        entries.append(completion_entry(unit.text, [(c.id, c.name, c.input) for c in unit.calls]))
        entries += [tool_entry(ident, text) for ident, text in unit.results]
    return entries


def tool_entry(call_id: str, content: str) -> Entry:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def transcript(tool: str, args: Mapping[str, Any]) -> list[Entry]:
    return TRANSCRIPTS[tool](args)


# -- the cursors a caller can recompute ----------------------------------------------------------------


def cut(entries: Sequence[Entry]) -> list[Entry]:
    """Through the last assistant entry: what the previous turn's cursor commits to."""
    ends = [i for i, e in enumerate(entries) if e["role"] == "assistant"]
    return list(entries[: ends[-1] + 1]) if ends else []


def expected_previous(tool: str, args: Mapping[str, Any]) -> str | None:
    """The one `cur_` cursor this request's history verifies with (None: no assistant entry)."""
    committed = cut(transcript(tool, args))
    return mint(model_of(args), tool, committed) if committed else None


def next_cursor(tool: str, args: Mapping[str, Any], text: str, calls: Sequence[Call] = ()) -> str:
    """The cursor a call with cursors on returns when the host answered `text` and `calls`: the
    history it was sent plus that answer, as the next call will read it when the caller passes
    the answer back as received. For the text tools that is one more assistant entry (the text,
    or the envelope). A Response's output is items: its message item (none when the text is
    empty beside calls) and function_call items, which join an assistant message item right
    before them like any passed-back items do."""
    if tool != RESPONSES:
        entries = [*transcript(tool, args), completion_entry(text, calls)]
        return mint(model_of(args), tool, entries)
    given = args["input"]
    items = [{"role": "user", "content": given}] if isinstance(given, str) else list(given)
    if text or not calls:
        items.append(
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
        )
    items += [
        {"type": "function_call", "call_id": ident, "name": name, "arguments": json.dumps(called)}
        for ident, name, called in calls
    ]
    return mint(model_of(args), tool, responses_transcript({**args, "input": items}))
