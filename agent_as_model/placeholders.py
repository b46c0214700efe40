"""The same-length placeholders that stand in for a text where it must not be seen: `--redact`'s in a
recording (`commands/transcripts/redact.py`) and telemetry's in captured message content
(`telemetry/content.py`), one rule for both.

The placeholder for a text of n characters is n characters long: `#` and a keyed hash of the
text, cut to n or padded with dots. It is stable under one key (the same text, the same
placeholder, so you can see where a text travelled); the key is random unless given, and never
written down, so a short text cannot be found by hashing guesses. For the same reason a session
cursor (`cur_...`, an unkeyed hash of the conversation) becomes a keyed hash of the same shape.
"""

from __future__ import annotations

import hashlib
import os


class Placeholders:
    """Same-length, stable placeholders under a key (random by default)."""

    MARK = "#"
    HASH_CHARS = 16

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else os.urandom(16)

    def placeholder(self, text: str) -> str:
        if not text:
            return text
        digest = hashlib.blake2b(
            text.encode("utf-8", "surrogatepass"), key=self._key, digest_size=self.HASH_CHARS // 2
        ).hexdigest()
        mark = self.MARK + digest
        return mark[: len(text)] if len(text) <= len(mark) else mark + "." * (len(text) - len(mark))

    def cursor(self, cursor: str) -> str:
        digest = hashlib.blake2b(cursor.encode(), key=self._key, digest_size=32).hexdigest()
        return "cur_" + digest
