"""The first fenced block of a host's answer (```json ... ``` or an unlabelled fence), found in one
pass.

A host may wrap structured output in a Markdown fence. The regular expression that says what a
fence is here, ``` ```[ \\t]*(?:json)?[ \\t]*\\r?\\n(.*?)\\r?\\n?``` ``` (case-insensitive, `.`
matching newlines), backtracks in the square of a run of spaces after the backticks when the line
never ends (two `[ \\t]*` side by side): a host's answer of a fence and 60,000 spaces held the event
loop for tens of seconds. `fenced_body` finds what that expression's first match would capture,
by scanning: each candidate opening is read forward once, and the body ends at the first backticks
after it, so the cost is linear in the answer.
"""

from __future__ import annotations

FENCE = "```"
_BLANK = " \t"
_LABEL = "json"


def fenced_body(text: str) -> str | None:
    """The body of the first fenced block in `text`, or None when it has none."""
    start = text.find(FENCE)
    while start >= 0:
        body = opened(text, start + len(FENCE))
        if body is not None:
            return _closed(text, body)
        # This opening failed; a later one may still open a block (```` ````\n ``` has one at 1).
        start = text.find(FENCE, start + 1)
    return None


def opened(text: str, at: int) -> int | None:
    """Where the body starts, when an opening line (blanks, an optional `json`, blanks, a newline)
    follows the backticks ending at `at`; None otherwise."""
    at = _skip_blank(text, at)
    if text[at : at + len(_LABEL)].casefold() == _LABEL:
        at = _skip_blank(text, at + len(_LABEL))
    if text.startswith("\r\n", at):
        return at + 2
    if text.startswith("\n", at):
        return at + 1
    return None


def _closed(text: str, body: int) -> str | None:
    """The body from `body` to the first backticks after it, without the line end before them;
    None when no backticks close it (then no later opening can either: it would need them too)."""
    end = text.find(FENCE, body)
    if end < 0:
        return None
    # The body is as short as it can be: it gives up a "\r\n", "\n" or "\r" right before the fence.
    for tail in ("\r\n", "\n", "\r"):
        if end - len(tail) >= body and text.startswith(tail, end - len(tail)):
            return text[body : end - len(tail)]
    return text[body:end]


def _skip_blank(text: str, at: int) -> int:
    while at < len(text) and text[at] in _BLANK:
        at += 1
    return at
