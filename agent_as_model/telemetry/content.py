"""Message content on a model round's span, only when the operator opts in (`serve --otel-content`,
or `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`), in the GenAI conventions' shapes:
`gen_ai.system_instructions`, `gen_ai.input.messages`, `gen_ai.output.messages`, each a JSON
string (the Python SDK's span attributes hold no structured values).

`redacted` (the default of an opt-in) writes each text as `--redact` writes it into a recording: a
same-length keyed placeholder (`placeholders.py`), so the shape of a conversation shows (roles,
parts, tool names and ids, lengths) and its words do not; a tool call's arguments and a tool
result's content are text all through, keys kept. `full` writes the words. Media are never
written: an image or audio part says its type and size.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from agent_as_model.placeholders import Placeholders

Capture = Literal["off", "redacted", "full"]
CAPTURES: tuple[Capture, ...] = ("off", "redacted", "full")
# The GenAI instrumentations' variable; `true` opts in (redacted here), anything else leaves it off.
CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


class Content:
    """How a round's content is written: every text through `text`, a cursor through `cursor`."""

    def __init__(self, capture: Capture, placeholders: Placeholders | None = None) -> None:
        self.capture = capture
        if capture == "full":
            self.text: Callable[[str], str] = _same
            self.cursor: Callable[[str], str] = _same
        else:
            kept = placeholders or Placeholders()
            self.text = kept.placeholder
            self.cursor = kept.cursor

    def system(self, payload: Any) -> str | None:
        system = payload.system_prompt
        if not system:
            return None
        return _json([{"type": "text", "content": self.text(system)}])

    def inputs(self, payload: Any) -> str:
        messages = []
        for message in payload.messages:
            content = message.content
            blocks = content if isinstance(content, list) else [content]
            messages.append({"role": message.role, "parts": [self._part(b) for b in blocks]})
        return _json(messages)

    def outputs(self, blocks: tuple[Any, ...], finish: str | None) -> str:
        message: dict[str, Any] = {"role": "assistant", "parts": [self._part(b) for b in blocks]}
        message["finish_reason"] = finish or "unknown"
        return _json([message])

    def _part(self, block: Any) -> dict[str, Any]:
        kind = getattr(block, "type", None)
        if kind == "text":
            return {"type": "text", "content": self.text(block.text)}
        if kind == "tool_use":
            return {
                "type": "tool_call",
                "id": block.id,
                "name": block.name,
                "arguments": self._values(block.input),
            }
        if kind == "tool_result":
            parts = [self._part(b) for b in block.content]
            return {"type": "tool_call_response", "id": block.tool_use_id, "response": parts}
        if kind in ("image", "audio"):
            return {"type": kind, "mime_type": block.mime_type, "size": len(block.data)}
        return {"type": str(kind)}

    def _values(self, value: Any) -> Any:
        """A tool call's arguments: every string is text, the keys and other values stay."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {key: self._values(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._values(item) for item in value]
        return value


def capture_from(given: str | None, env_value: str | None) -> Capture:
    """The capture an operator chose: the flag's (or its variable's) value, else the GenAI
    instrumentations' variable (`true`: redacted), else off."""
    if given:
        return given  # type: ignore[return-value]  # the command line checked it is one of CAPTURES
    if env_value is not None and env_value.strip().lower() == "true":
        return "redacted"
    return "off"


def _same(text: str) -> str:
    return text


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
