"""What is wrong with a 2026-07-28 retry's `inputResponses`, named by its path.

The SDK validates a retry's params against a union of every answer type (sampling, roots,
elicitation) before any handler runs, and refuses a malformed one with -32602 "Invalid request
parameters" and empty data; pydantic's own errors list every arm of the union. This reads an
answer as a sampling result (`CreateMessageResult`: role, model, content of known blocks) and
says the first thing wrong with it, in the words the legacy era's errors use, so a host sees
which field to fix on either era. Used by the server's `ExplainRefusals` only after the SDK
refused the params, so a good retry never pays for it.
"""

from __future__ import annotations

from typing import Any

from agent_as_model.arguments import path_of, type_name, with_article

ROLES = ("user", "assistant")
_STRINGS = {
    "text": ("text",),
    "image": ("data", "mimeType"),
    "audio": ("data", "mimeType"),
    "tool_use": ("id", "name"),
    "tool_result": ("toolUseId",),
}


def first_problem(responses: object, path: str = "params.inputResponses") -> tuple[str, str] | None:
    """`(path, reason)` of the first field no sampling result could have, or None."""
    if not isinstance(responses, dict):
        return path, _expected("an object", responses)
    for key, answer in responses.items():
        problem = _answer(answer, path_of(path, key))
        if problem is not None:
            return problem
    return None


def _answer(answer: object, path: str) -> tuple[str, str] | None:
    if not isinstance(answer, dict):
        return path, _expected("an object (a sampling result)", answer)
    if "roots" in answer or "action" in answer:
        return None  # another kind of answer: the SDK's refusal stands, unnamed here
    for field in ("role", "model", "content"):
        if field not in answer:
            return path_of(path, field), "is missing (a sampling result has role, model and content)"
    if answer["role"] not in ROLES:
        return path_of(path, "role"), "must be 'user' or 'assistant'"
    if not isinstance(answer["model"], str):
        return path_of(path, "model"), _expected("a string", answer["model"])
    content = answer["content"]
    blocks = content if isinstance(content, list) else [content]
    for i, block in enumerate(blocks):
        problem = _block(
            block,
            path_of(path_of(path, "content"), i) if isinstance(content, list) else path_of(path, "content"),
        )
        if problem is not None:
            return problem
    return None


def _block(block: object, path: str) -> tuple[str, str] | None:
    if not isinstance(block, dict):
        return path, _expected("a content block (an object)", block)
    kind = block.get("type")
    if kind not in _STRINGS:
        known = ", ".join(repr(k) for k in _STRINGS)
        return path_of(path, "type"), f"{ascii(kind)} is not a sampling content block type ({known})"
    for field in _STRINGS[kind]:
        if not isinstance(block.get(field), str):
            return path_of(path, field), _expected("a string", block.get(field), missing=field not in block)
    if kind == "tool_use" and not isinstance(block.get("input"), dict):
        return path_of(path, "input"), _expected(
            "an object", block.get("input"), missing="input" not in block
        )
    if kind == "tool_result" and not isinstance(block.get("content"), list):
        return path_of(path, "content"), _expected(
            "an array", block.get("content"), missing="content" not in block
        )
    return None


def _expected(what: str, value: Any, *, missing: bool = False) -> str:
    if missing:
        return f"is missing (expected {what})"
    return f"expected {what}, got {with_article(type_name(value))}"
