"""How a replay reports: one caption per frame and a unified diff of the normalised JSON.

Frames are pretty-printed with sorted keys, so a diff shows what changed and never how keys
happened to be ordered; markers from normalise.py stand where values legitimately vary.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from agent_as_model.commands.transcripts.exchange import CLIENT_TO_SERVER, FrameContext


def caption(direction: str, frame: Any, context: FrameContext) -> str:
    """One line saying who sent what, e.g. `server → host: result of tools/call generate (id 2)`."""
    arrow = "host → server" if direction == CLIENT_TO_SERVER else "server → host"
    if not isinstance(frame, dict):
        return f"{arrow}: a line that is not a JSON-RPC message"
    tool = f" {context.tool}" if context.tool else ""
    ident = f" (id {json.dumps(frame['id'])})" if "id" in frame else ""
    if context.kind in ("request", "notification"):
        return f"{arrow}: {context.method}{tool} {context.kind}{ident}"
    if context.kind == "response":
        method = context.method or "an unknown request"
        result = frame.get("result")
        if "error" in frame:
            what = "error answering"
        elif isinstance(result, dict) and result.get("resultType") == "input_required":
            what = "InputRequiredResult for"
        else:
            what = "result of"
        return f"{arrow}: {what} {method}{tool}{ident}"
    return f"{arrow}: a JSON value that is not a JSON-RPC message"


def pretty(value: Any) -> list[str]:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines()


def unified(recorded: Any, replayed: Any) -> str:
    """A unified diff; a string holding JSON (a Responses object, an envelope) is shown unfolded, so
    the diff points into it, unless the difference is only in how that JSON was written."""
    shown_recorded, shown_replayed = unfold(recorded), unfold(replayed)
    if pretty(shown_recorded) == pretty(shown_replayed):
        shown_recorded, shown_replayed = recorded, replayed
    lines = difflib.unified_diff(
        pretty(shown_recorded), pretty(shown_replayed), "recorded", "replayed", lineterm="", n=3
    )
    return "\n".join(lines)


def unfold(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: unfold(item) for key, item in value.items()}
    if isinstance(value, list):
        return [unfold(item) for item in value]
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        if isinstance(parsed, dict | list):
            return {"<JSON text>": unfold(parsed)}
    return value


def framed(title: str, body: str) -> str:
    return f"{title}\n{body}\n"


def listing(value: Any, sign: str) -> str:
    """A whole frame on one side only, every line marked like a diff would."""
    return "\n".join(f"{sign}{line}" for line in pretty(value))
