"""Reading and checking the parameters every dialect shares, with JSON paths in the errors."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_as_model.errors import caller_error
from agent_as_model.neutral import Request, Text, Turn

DEFAULT_MODEL = "agent-default"
DEFAULT_MAX_TOKENS = 4096
# Hosts read maxTokens into 32-bit integers; a larger value would reach them only to break there.
MAX_TOKENS_LIMIT = 2**31 - 1

# The part and block types a product may send that are not text. They are named in the error so
# the caller knows exactly which part to remove; nothing is ever dropped silently.
NON_TEXT_WORDS = ("image", "audio", "file", "document", "video")

MODEL_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "default": DEFAULT_MODEL,
    "description": "Model alias, sent to the host as a model hint; agent-default means the host's own model.",
}
MAX_TOKENS_SCHEMA = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_TOKENS_LIMIT,
    "default": DEFAULT_MAX_TOKENS,
    "description": "Maximum tokens the host may generate.",
}


def temperature_schema(maximum: float) -> dict[str, Any]:
    return {
        "type": "number",
        "minimum": 0,
        "maximum": maximum,
        "description": "Sampling temperature, passed through to the host (which may ignore it).",
    }


def path_of(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if not key.isidentifier():  # odd keys are quoted, so the path stays readable and ASCII-safe
        return f"{parent}[{key!r}]" if key.isprintable() else f"{parent}[{ascii(key)}]"
    return f"{parent}.{key}" if parent else key


def type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def reject_unknown(args: Mapping[str, Any], known: Iterable[str], parent: str = "") -> None:
    for key in args:
        if key not in known:
            raise caller_error(path_of(parent, key), f"unknown parameter {ascii(key)}")


def require_string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise caller_error(path, f"expected a string, got {type_name(value)}")
    return require_unicode(value, path)


def require_unicode(text: str, path: str) -> str:
    """JSON can carry a lone surrogate ("\\ud800"); no host can take it, and no digest can encode it."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as err:
            bad = text[err.start]
            raise caller_error(
                path, f"is not valid Unicode text: lone surrogate U+{ord(bad):04X} at index {err.start}"
            ) from None
    return text


def require_object(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise caller_error(path, f"expected an object, got {type_name(value)}")
    return value


def require_list(value: object, path: str, *, non_empty: bool = False) -> list[Any]:
    if not isinstance(value, list):
        raise caller_error(path, f"expected an array, got {type_name(value)}")
    if non_empty and not value:
        raise caller_error(path, "must not be empty")
    return value


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
    value = args.get(name, DEFAULT_MAX_TOKENS)
    if value is None:
        return DEFAULT_MAX_TOKENS
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise caller_error(name, f"expected a positive integer, got {type_name(value)}")
    if isinstance(value, float):
        if not value.is_integer():
            raise caller_error(name, f"expected a positive integer, got {value!r}")
        value = int(value)
    if not 1 <= value <= MAX_TOKENS_LIMIT:
        raise caller_error(name, f"must be between 1 and {MAX_TOKENS_LIMIT}, got {value:g}")
    return value


def reject_non_text(kind: str, path: str) -> None:
    """Raise the one error every dialect gives for a part that is not text."""
    raise caller_error(
        path,
        f"part type {ascii(kind)} is not text: images, audio, files and other non-text parts are rejected "
        "(the host is asked for text only)",
    )


def text_of_part(part: object, path: str, text_types: tuple[str, ...], text_keys: tuple[str, ...]) -> str:
    """The text of one content part, or an error naming the part."""
    obj = require_object(part, path)
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise caller_error(path_of(path, "type"), f"expected a string part type, got {type_name(kind)}")
    if kind not in text_types:
        if any(word in kind for word in NON_TEXT_WORDS):
            reject_non_text(kind, path)
        allowed = ", ".join(repr(t) for t in text_types)
        raise caller_error(
            path_of(path, "type"), f"unsupported part type {ascii(kind)} (text parts: {allowed})"
        )
    for key in text_keys:
        if key in obj:
            return require_string(obj[key], path_of(path, key))
    raise caller_error(path, f"a {kind!r} part needs " + " or ".join(f"'{k}'" for k in text_keys))


def text_of_content(
    content: object, path: str, text_types: tuple[str, ...], text_keys: tuple[str, ...], joiner: str
) -> str:
    """A string, or a list of text parts joined by `joiner`."""
    if isinstance(content, str):
        return require_unicode(content, path)
    if not isinstance(content, list):
        raise caller_error(path, f"expected a string or an array of text parts, got {type_name(content)}")
    parts = content
    return joiner.join(
        text_of_part(part, path_of(path, i), text_types, text_keys) for i, part in enumerate(parts)
    )


@dataclass(frozen=True)
class EntryShape:
    """How a dialect lays out one `{role, content}` entry of its conversation."""

    roles: tuple[str, ...]
    keys: tuple[str, ...]
    text_types: tuple[str, ...]
    text_keys: tuple[str, ...]
    system_roles: tuple[str, ...] = ()  # roles that fold into the system prompt
    item_type: str | None = None  # when set, an entry's `type` (absent means this) must be it
    misplaced: Mapping[str, str] = field(default_factory=dict)  # role -> why it is not taken here


def read_entries(entries: list[Any], field_name: str, shape: EntryShape) -> tuple[list[str], list[Turn]]:
    """Each entry's text, as system prompt pieces and user/assistant turns, in order."""
    system: list[str] = []
    turns: list[Turn] = []
    for i, raw in enumerate(entries):
        path = f"{field_name}[{i}]"
        entry = require_object(raw, path)
        if shape.item_type is not None:
            kind = entry.get("type", shape.item_type)
            if kind != shape.item_type:
                raise caller_error(
                    f"{path}.type", f"unsupported item type {ascii(kind)} (expected {shape.item_type!r})"
                )
        reject_unknown(entry, shape.keys, path)
        role = entry.get("role")
        if isinstance(role, str) and role in shape.misplaced:
            raise caller_error(f"{path}.role", shape.misplaced[role])
        if role not in shape.roles:
            raise caller_error(f"{path}.role", f"expected one of {', '.join(shape.roles)}, got {role!r}")
        if "content" not in entry:
            raise caller_error(f"{path}.content", "is required")
        text = text_of_content(entry["content"], f"{path}.content", shape.text_types, shape.text_keys, "\n")
        if role in shape.system_roles:
            system.append(text)
        else:
            turns.append(Turn(role, (Text(text),)))
    return system, turns


def conversation_request(
    tool: str,
    args: Mapping[str, Any],
    system: list[str],
    turns: list[Turn],
    *,
    field_name: str,
    max_temperature: float = 2.0,
) -> Request:
    """The neutral request of a conversation tool; system pieces join with a blank line."""
    if not turns:
        noun = "message" if field_name == "messages" else "item"
        raise caller_error(field_name, f"needs at least one user or assistant {noun}")
    return Request(
        tool=tool,
        system="\n\n".join(system) or None,
        turns=tuple(turns),
        model=read_model(args),
        max_tokens=read_max_tokens(args),
        temperature=read_temperature(args, max_temperature),
    )
