"""The caller's side, for the fuzzer, the property tests and the soak (`Writing`, dialects/writing.py):
how a Gemini caller writes a conversation as `contents`, and reads a GenerateContentResponse.

A leading system message becomes `systemInstruction`; a lone user message may be a string
`contents`; an assistant message is a `model` content; a turn that called tools is a `model`
content of its text part (none when it has no text) and `functionCall` parts, its results one
`user` content of `functionResponse` parts (`{"output": <text>}`), which a following user text
may join as text parts after them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects.writing import (
    Reading,
    Said,
    Unit,
    Unreadable,
    Writing,
    completion,
    leading_system,
    read_object,
    refuse,
)

if TYPE_CHECKING:  # only for annotations: importing random costs start-up time
    import random


_WRITTEN_ROLES = {"user": "user", "assistant": "model"}


def _parts(text: str, vary: random.Random | None) -> list[dict[str, Any]]:
    pieces = text.split("\n") if vary is not None and vary.random() < 0.5 else [text]
    return [{"text": piece} for piece in pieces]


def write_request(units: Sequence[Unit], vary: random.Random | None = None) -> dict[str, Any]:
    system, rest = leading_system(units)
    args: dict[str, Any] = {}
    if system is not None:
        args["systemInstruction"] = (
            system if vary is not None and vary.random() < 0.5 else {"parts": _parts(system, vary)}
        )
    lone = len(rest) == 1 and isinstance(rest[0], Said) and rest[0].role == "user"
    if lone and vary is not None and vary.random() < 0.5:
        return {**args, "contents": rest[0].text}  # a string contents: one user entry
    contents: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] | None = None  # the parts of the last functionResponse content
    for unit in rest:
        if isinstance(unit, Said):
            role = _WRITTEN_ROLES.get(unit.role)
            if role is None:
                raise refuse(f"a {unit.role} message past the start: Gemini takes systemInstruction only")
            if role == "user" and pending is not None and vary is not None and vary.random() < 0.5:
                pending += _parts(unit.text, vary)
            else:
                contents.append({"role": role, "parts": _parts(unit.text, vary)})
            pending = None
            continue
        parts = _parts(unit.text, vary) if unit.text else []
        parts += [{"functionCall": {"id": c.id, "name": c.name, "args": c.input}} for c in unit.calls]
        contents.append({"role": "model", "parts": parts})
        pending = None
        if unit.results:
            names = {c.id: c.name for c in unit.calls}
            pending = [
                {"functionResponse": {"id": ident, "name": names[ident], "response": {"output": text}}}
                for ident, text in unit.results
            ]
            contents.append({"role": "user", "parts": pending})
    return {**args, "contents": contents}


def read_result(text: str, structured: Any) -> Reading:
    """The candidate's text parts joined (or the tool-call envelope when it holds function calls)
    and the `responseId`, the cursor."""
    body = read_object(text)
    try:
        [candidate] = body["candidates"]
        parts = candidate["content"]["parts"]
        said = [p["text"] for p in parts if "text" in p]
        made = [
            (p["functionCall"]["id"], p["functionCall"]["name"], p["functionCall"]["args"])
            for p in parts
            if "functionCall" in p
        ]
        cursor = str(body["responseId"])
    except (KeyError, TypeError, ValueError) as err:
        raise Unreadable(f"not a GenerateContentResponse with one candidate: {err!r}") from err
    return Reading(completion("\n".join(said), made), cursor)


WRITING = Writing(write_request, read_result)
