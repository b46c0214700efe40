"""Reading and checking the parameters every dialect shares, with JSON paths in the errors."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

# The generic readers, re-exported: a dialect reads everything through `common`.
from agent_as_model.arguments import (
    path_of,
    reject_unknown,
    require_list,
    require_object,
    require_string,
    require_unicode,
    type_name,
)
from agent_as_model.cursors import completion_text, tool_calls_envelope
from agent_as_model.errors import caller_error
from agent_as_model.neutral import (
    BACKEND_CHOICES,
    DEFAULT_MODEL,
    RESULT_SHAPES,
    Completion,
    Request,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_as_model.neutral import BackendChoice, ResultShape

    # Keeps a refusal that holds for the host alone (`Turns.cannot`): the path, the reason.
    Cannot = Callable[[str, str], None]

__all__ = [
    "path_of",
    "reject_unknown",
    "require_list",
    "require_object",
    "require_string",
    "require_unicode",
    "type_name",
]

DEFAULT_MAX_TOKENS = 4096
# Hosts read maxTokens into 32-bit integers; a larger value would reach them only to break there.
MAX_TOKENS_LIMIT = 2**31 - 1

# The part and block types a product may send that are not text. They are named in the error so
# the caller knows exactly which part to remove; nothing is ever dropped silently. Images and
# audio are taken where the product sends them to its model (`media` says which parts, where);
# files, documents and video nowhere: MCP sampling has no content for them.
MEDIA_WORDS = ("image", "audio")
NOT_CARRIED_WORDS = ("file", "document", "video")
NON_TEXT_WORDS = (*MEDIA_WORDS, *NOT_CARRIED_WORDS)

MAX_TOKENS_SCHEMA = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_TOKENS_LIMIT,
    "default": DEFAULT_MAX_TOKENS,
    "description": "Maximum tokens the host may generate.",
}


def read_backend(args: Mapping[str, Any]) -> BackendChoice:
    value = args.get("backend")
    if value is None:
        return "auto"
    for choice in BACKEND_CHOICES:
        if value == choice:
            return choice
    allowed = ", ".join(repr(c) for c in BACKEND_CHOICES)
    raise caller_error("backend", f"must be one of {allowed}, got {ascii(value)}")


def read_result(args: Mapping[str, Any], tool: str, has_object: bool) -> ResultShape | None:
    """`result`: None when not given (the server's default applies), else 'text' or 'object';
    'object' only where the tool has an object shape."""
    value = args.get("result")
    if value is None:
        return None
    if value == "text":
        return "text"
    if value == "object":
        if not has_object:
            raise caller_error(
                "result",
                f"'object' is not available: {tool} has no response object of its own, its result is "
                "the completion text; omit result or give 'text'",
            )
        return "object"
    allowed = " or ".join(repr(s) for s in RESULT_SHAPES)
    raise caller_error("result", f"must be {allowed}, got {ascii(value)}")


def read_choices(args: Mapping[str, Any], name: str | None) -> int:
    """How many completions a product's `n` asks for (1 when not given); the server's bound and
    the result shape they need are checked once the server's defaults apply (states/validate.py)."""
    if name is None:
        return 1
    value = args.get(name)
    if value is None:
        return 1
    if isinstance(value, bool) or not isinstance(value, int):
        raise caller_error(name, f"expected a positive integer, got {type_name(value)}")
    if value < 1:
        raise caller_error(name, f"must be at least 1, got {value}")
    return value


def temperature_schema(maximum: float) -> dict[str, Any]:
    return {
        "type": "number",
        "minimum": 0,
        "maximum": maximum,
        "description": "Sampling temperature, passed through to the host (which may ignore it).",
    }


def read_model(args: Mapping[str, Any]) -> str:
    value = args.get("model")
    if value is None:  # like every optional parameter here, null means "not given"
        return DEFAULT_MODEL
    model = require_string(value, "model")
    if not model:
        raise caller_error("model", "must not be empty (omit it for agent-default, the host's own model)")
    return model


def read_temperature(args: Mapping[str, Any], maximum: float = 2.0) -> float | None:
    value = args.get("temperature")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise caller_error("temperature", f"expected a number, got {type_name(value)}")
    if not math.isfinite(value):
        raise caller_error("temperature", f"must be a finite number, got {value!r}")
    if not 0 <= value <= maximum:
        raise caller_error("temperature", f"must be between 0 and {maximum:g}, got {value!r}")
    return float(value)


def read_max_tokens(args: Mapping[str, Any], name: str = "max_tokens") -> int:
    value = args.get(name)
    if value is None:
        return DEFAULT_MAX_TOKENS
    if type(value) is int and 1 <= value <= MAX_TOKENS_LIMIT:
        return value  # the common value given, as the checks below would return it
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise caller_error(name, f"expected a positive integer, got {type_name(value)}")
    if isinstance(value, float):
        if not value.is_integer():
            raise caller_error(name, f"expected a positive integer, got {value!r}")
        value = int(value)
    if not 1 <= value <= MAX_TOKENS_LIMIT:
        raise caller_error(name, f"must be between 1 and {MAX_TOKENS_LIMIT}, got {value:g}")
    return value


def not_carried(kind: str) -> str:
    """Why a file, document or video part cannot reach the host."""
    return (
        f"part type {ascii(kind)} is not carried: MCP sampling has content for text, images and "
        "audio only, none for files, documents or video; send what it holds as text instead"
    )


def reject_non_text(kind: str, path: str, media: tuple[str, ...] = ()) -> None:
    """Raise the error every dialect gives for a part that is not text, true of the part and of
    the place: `media` names the part types that carry images and audio where it stands (none:
    that place takes text only)."""
    if any(word in kind for word in NOT_CARRIED_WORDS):
        raise caller_error(path, not_carried(kind))
    if media:
        raise caller_error(
            path_of(path, "type"),
            f"unsupported part type {ascii(kind)}: images and audio go here as {' or '.join(media)} parts",
        )
    raise caller_error(
        path,
        f"part type {ascii(kind)} is not taken here: this part of the conversation takes text only "
        "(images and audio are taken in user turns and, where the product allows, tool results)",
    )


def text_of_part(
    part: object,
    path: str,
    text_types: tuple[str, ...],
    text_keys: tuple[str, ...],
    media: tuple[str, ...] = (),
    cannot: Cannot | None = None,
) -> str:
    """The text of one content part, or an error naming the part (`media`: the part types that
    carry images and audio where it stands, read by the caller; none: text only there). With
    `cannot`, a file, document or video part where the product takes media is kept there as a
    refusal for the host alone, and has no text."""
    obj = require_object(part, path)
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise caller_error(path_of(path, "type"), f"expected a string part type, got {type_name(kind)}")
    if kind not in text_types:
        if cannot is not None and media and any(word in kind for word in NOT_CARRIED_WORDS):
            cannot(path, not_carried(kind))
            return ""
        if any(word in kind for word in NON_TEXT_WORDS):
            reject_non_text(kind, path, media)
        allowed = ", ".join(repr(t) for t in text_types)
        raise caller_error(
            path_of(path, "type"), f"unsupported part type {ascii(kind)} (text parts: {allowed})"
        )
    for key in text_keys:
        if key in obj:
            return require_string(obj[key], path_of(path, key))
    raise caller_error(path, f"a {kind!r} part needs " + " or ".join(f"'{k}'" for k in text_keys))


def text_of_content(
    content: object,
    path: str,
    text_types: tuple[str, ...],
    text_keys: tuple[str, ...],
    joiner: str,
    media: tuple[str, ...] = (),
    cannot: Cannot | None = None,
) -> str:
    """A string, or a list of text parts joined by `joiner` (`media`, `cannot`: as for
    `text_of_part`)."""
    if isinstance(content, str):
        return require_unicode(content, path)
    if not isinstance(content, list):
        raise caller_error(path, f"expected a string or an array of text parts, got {type_name(content)}")
    parts = content
    return joiner.join(
        text_of_part(part, path_of(path, i), text_types, text_keys, media, cannot)
        for i, part in enumerate(parts)
    )


def text_result(completion: Completion, request: Request, cursor: str | None) -> str | dict[str, Any]:
    """What the text tools return: the text, the tool-call envelope, or the structured output
    (a JSON object: its sorted-key text, and the same object as structuredContent); with cursors
    on, `{"completion": <that text>, "response_id": <cursor>}` (spec section 6)."""
    if cursor is not None:
        return {"completion": completion_text(completion.text, completion.tool_calls), "response_id": cursor}
    if completion.tool_calls:
        return tool_calls_envelope(completion.text, completion.tool_calls)
    if completion.structured is not None:
        return dict(completion.structured)
    return completion.text


# The stop reasons a product names, keyed by MCP's (spec section 9). A dialect declares its own
# words for these four; `stop_word` picks one for a completion.
StopWords = Mapping[str, str]
_STOP_KEYS = ("endTurn", "stopSequence", "maxTokens", "toolUse")


def stop_vocabulary(*, end_turn: str, stop_sequence: str, max_tokens: str, tool_use: str) -> StopWords:
    return dict(zip(_STOP_KEYS, (end_turn, stop_sequence, max_tokens, tool_use), strict=True))


def stop_word(completion: Completion, words: StopWords) -> str:
    """Why the answer ended, in the product's words. Read from what the caller gets: tool calls
    in the result are a tool-use stop (an answer through the structured-output tool is not: the
    caller gets the output, not a call); otherwise the host's own `stopReason`, where a cut at the
    limit and a stop sequence keep their names and anything else (`endTurn`, other values, none
    said) is the natural end of the turn."""
    if completion.tool_calls:
        return words["toolUse"]
    reason = completion.stop_reason
    if reason == "maxTokens" or reason == "stopSequence":
        return words[reason]
    return words["endTurn"]


def result_meta(completion: Completion, key: str, words: StopWords) -> dict[str, Any]:
    """The text tools' result metadata: the model the host named and the stop reason under the
    product's own key (chat `finish_reason`, messages `stop_reason`)."""
    return {"model": completion.model, key: stop_word(completion, words)}
