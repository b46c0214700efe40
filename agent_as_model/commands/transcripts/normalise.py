"""What may differ between a recorded server frame and a replayed one, and nothing else.

Replaced by a marker on both sides before comparing:
- the id of a request the server sends (its own counter; the host's answer is re-addressed);
- `requestState` tokens (sealed with a per-process key and a fresh nonce each time);
- the random hex of `resp_…`/`msg_…` ids: numbered by first appearance in the frame, so a
  Responses object whose message id stops sharing the response id's hex still shows up;
- the server version in `serverInfo` and in the 2026-07-28 `io.modelcontextprotocol/serverInfo` stamp;
- `created_at` times, also inside JSON text (a Responses object's text is its sorted-key JSON);
- in a redacted recording only: every text position (as a length: see redact.py; placeholders
  fed back into the server come out re-joined, so only structure and lengths can be compared) and
  `cur_…` cursors (a hash of the conversation, whose text is gone; redaction re-keyed them too).

`fc_…` ids are not touched: they derive from the host's call ids, so they must match. Every
value replaced on the recorded side is remembered with its counterpart on the replayed side
(`tokens`), so that replay can put the fresh value into the client frames that echo it back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent_as_model.commands.transcripts.exchange import SERVER_TO_CLIENT, FrameContext
from agent_as_model.commands.transcripts.minted import CURSOR_IN_TEXT, RANDOM_ID_IN_TEXT
from agent_as_model.commands.transcripts.redact import map_text

SERVER_REQUEST_ID = "<server request id>"
REQUEST_STATE = "<requestState>"
VERSION = "<version>"
TIME = "<time>"
SERVER_INFO_KEYS = ("serverInfo", "io.modelcontextprotocol/serverInfo")
TIME_KEYS = ("created_at",)
# The same times inside JSON text: `json.dumps` with default separators writes `"key": value`.
_TIME_IN_TEXT = re.compile(r'"(created_at)": -?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')


@dataclass
class Normalised:
    value: Any
    tokens: list[tuple[str, str]] = field(default_factory=list)  # (kind, the value replaced), in walk order


def normalise(frame: Any, context: FrameContext, *, redacted: bool) -> Normalised:
    """`frame` (sent by the server) with what legitimately varies replaced by markers."""
    if redacted:
        frame = map_text(SERVER_TO_CLIENT, frame, context, _length, _json_marker)
    walk = _Walk(redacted)
    if isinstance(frame, dict) and "method" in frame and "id" in frame:
        frame = {**frame, "id": SERVER_REQUEST_ID}
    return Normalised(walk.value(frame, None), walk.tokens)


def _length(text: str) -> str:
    return f"<text: {len(text)} chars>"


def _json_marker(original: str, parsed: Any, mapped: Any) -> Any:
    return {"<JSON text>": mapped}


class _Walk:
    def __init__(self, redacted: bool) -> None:
        self.redacted = redacted
        self.tokens: list[tuple[str, str]] = []
        self._hex: dict[str, int] = {}

    def value(self, value: Any, key: str | None, parent: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self.value(v, k, key) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(item, key, parent) for item in value]
        if key == "requestState" and isinstance(value, str):
            self.tokens.append(("requestState", value))
            return REQUEST_STATE
        if key == "version" and parent in SERVER_INFO_KEYS:
            return VERSION
        if key in TIME_KEYS and isinstance(value, int | float) and not isinstance(value, bool):
            return TIME
        if isinstance(value, str):
            return self.text(value)
        return value

    def text(self, text: str) -> str:
        text = RANDOM_ID_IN_TEXT.sub(self._random_id, text)
        text = _TIME_IN_TEXT.sub(f'"\\1": "{TIME}"', text)
        if self.redacted:
            text = CURSOR_IN_TEXT.sub(self._cursor, text)
        return text

    def _random_id(self, match: re.Match[str]) -> str:
        prefix, hex_part = match.group(1), match.group(2)
        self.tokens.append(("random id", match.group(0)))
        number = self._hex.setdefault(hex_part, len(self._hex) + 1)
        return f"{prefix}_<hex {number}>"

    def _cursor(self, match: re.Match[str]) -> str:
        self.tokens.append(("cursor", match.group(0)))
        return "cur_<cursor>"


def pair_tokens(recorded: Normalised, replayed: Normalised) -> dict[str, str]:
    """Recorded value -> replayed value for each replaced token, when both frames replaced the same
    kinds in the same order (a frame that changed shape teaches nothing)."""
    if [kind for kind, _ in recorded.tokens] != [kind for kind, _ in replayed.tokens]:
        return {}
    return {
        old: new for (_, old), (_, new) in zip(recorded.tokens, replayed.tokens, strict=True) if old != new
    }
