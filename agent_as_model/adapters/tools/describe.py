"""Tool descriptions the host's model can take.

OpenAI rejects a function description longer than 1024 characters ("string too long. Expected a
string with maximum length 1024"), and hosts that front OpenAI models pass that limit on. So a
longer description is shortened for the host, never refused: the caller's request stays valid,
and the first 1024 characters carry what a model reads first anyway. The cut falls on the last
whitespace within the final 100 characters when there is one (no half words), and an ellipsis
marks it. The caller's own description is kept as given everywhere else.
"""

from __future__ import annotations

DESCRIPTION_MAX = 1024
_WORD_WINDOW = 100  # how far back from the bound a word boundary is looked for
_ELLIPSIS = "…"


def host_description(text: str | None) -> str | None:
    """`text` when it fits the bound, else shortened to at most `DESCRIPTION_MAX` characters.

    None and the empty string are None: the host is better given no description than an empty one.
    """
    if not text:
        return None
    if len(text) <= DESCRIPTION_MAX:
        return text
    head = text[: DESCRIPTION_MAX - len(_ELLIPSIS)]
    space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    if space >= len(head) - _WORD_WINDOW:
        head = head[:space]
    return head.rstrip() + _ELLIPSIS
