"""A completion -> a `GenerateContentResponse`: one candidate (one per completion with
`candidateCount`) whose content holds the text part and a `functionCall` part per tool call (the
host's call ids kept, names mapped back), `finishReason` from the host's stopReason,
`modelVersion` the host's model, and `responseId` (the session cursor when cursors are on, else a
`resp_` id). `describe` says the same in the result's metadata.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from agent_as_model.adapters.dialects import usage
from agent_as_model.neutral import Completion, Media, Request, Text, Usage

# MCP's stopReason -> Gemini's finishReason. A stop sequence and a tool call both end with STOP on
# Gemini; a host that names no reason ended its turn. Anything else (`other`) is OTHER.
_FINISH = {
    None: "STOP",
    "endTurn": "STOP",
    "stopSequence": "STOP",
    "toolUse": "STOP",
    "maxTokens": "MAX_TOKENS",
}


def _finish_reason(completion: Completion) -> str:
    """The one finishReason of a completion, for the object and for `_meta` alike. Tool calls in
    the result are whole even when the host says it hit the limit (interpretation accepted them),
    so they end with STOP, as Gemini ends a function-calling turn."""
    if completion.tool_calls:
        return "STOP"
    return _FINISH.get(completion.stop_reason, "OTHER")


def render(completion: Completion, request: Request, cursor: str | None) -> dict[str, Any]:
    return render_candidates((completion,), request, cursor)


def _candidate(completion: Completion, index: int) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if completion.parts:  # the host answered with media: its texts and media in their order
        parts.extend(_answer_part(part) for part in completion.parts)
    elif completion.text or not completion.tool_calls:  # with calls, an empty text has no part
        parts.append({"text": completion.text})
    parts.extend(
        {"functionCall": {"id": call.id, "name": call.name, "args": call.input}}
        for call in completion.tool_calls
    )
    return {
        "content": {"role": "model", "parts": parts},
        "finishReason": _finish_reason(completion),
        "index": index,
    }


def _answer_part(part: Text | Media) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"text": part.text}
    # Standard base64, as Google's API writes a Blob's bytes in JSON (the SDK reads it).
    return {"inlineData": {"mimeType": part.mime_type, "data": part.data}}


def render_candidates(
    completions: Sequence[Completion], request: Request, cursor: str | None
) -> dict[str, Any]:
    """A GenerateContentResponse, one candidate per completion (`candidateCount`)."""
    first = completions[0]
    return {
        "candidates": [_candidate(completion, i) for i, completion in enumerate(completions)],
        "modelVersion": first.model or request.model,
        "usageMetadata": _usage_metadata(usage.joint_usage(completions, request)),
        # With cursors on, the id is the cursor (spec section 6); else a random id in the
        # Responses form, so it may anchor a chain like one.
        "responseId": cursor or f"resp_{uuid.uuid4().hex}",
    }


def _usage_metadata(counted: Usage) -> dict[str, int]:
    return {
        "promptTokenCount": counted.input_tokens,
        "candidatesTokenCount": counted.output_tokens,
        "totalTokenCount": counted.input_tokens + counted.output_tokens,
    }


def describe(completion: Completion) -> dict[str, Any]:
    """The result metadata (spec section 9) in Gemini's words: `finishReason`, the object's own."""
    return {"model": completion.model, "finishReason": _finish_reason(completion)}
