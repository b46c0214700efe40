"""The ids the server mints, found inside a longer text (recordings and replays look for them): a
session cursor, and a random id as the Responses objects carry them ("resp_" and "msg_" + 32 hex).
Here, not in cursors.py, so that serving does not compile them at start-up."""

from __future__ import annotations

import re

from agent_as_model.cursors import ANCHOR_HEX_DIGITS, CURSOR_HEX_DIGITS, CURSOR_PREFIX

CURSOR_IN_TEXT = re.compile(rf"\b{CURSOR_PREFIX}[0-9a-f]{{{CURSOR_HEX_DIGITS}}}\b")
RANDOM_ID_IN_TEXT = re.compile(rf"\b(resp|msg)_([0-9a-f]{{{ANCHOR_HEX_DIGITS}}})\b")
MINTED_IN_TEXT = re.compile(f"{RANDOM_ID_IN_TEXT.pattern}|{CURSOR_IN_TEXT.pattern}")
