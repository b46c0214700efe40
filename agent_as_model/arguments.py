"""Reading JSON arguments with a JSON path in every error: the dialects, the tool definitions and
the schemas all name what they reject this way."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agent_as_model.errors import caller_error


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


def with_article(word: str) -> str:
    """'an array', 'a string': a JSON type name in a sentence."""
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


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
