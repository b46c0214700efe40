"""Reading JSON arguments with a JSON path in every error: the dialects, the tool definitions and
the schemas all name what they reject this way; and the one strict JSON text every tool returns
(`json_text`), with the check that an answer can become one (`not_json`)."""

from __future__ import annotations

import json
import math
import sys
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


# One encoder for every result: `json.dumps` with any option builds a new encoder per call.
_STRICT = json.JSONEncoder(sort_keys=True, allow_nan=False)


def json_text(value: object) -> str:
    """The JSON text the tools return: `json.dumps(value, sort_keys=True)` (spec section 1), and
    strict: a NaN or an infinity, which Python's encoder would write as the non-JSON `NaN`, raises
    ValueError instead. Answers are checked with `not_json` first, so reaching that is our bug."""
    return _STRICT.encode(value)


# The most decimal digits Python writes for an integer (its int/str conversion limit): one longer
# cannot become JSON text, and JSON parsers elsewhere would not read it as a number anyway.
MAX_DIGITS = sys.get_int_max_str_digits() or 4300
# The smallest integer too long to write (MAX_DIGITS + 1 digits): compared, not converted, so
# the check is exact (a bound in bits is not: 10**4300 - 1 and 10**4300 have the same bit length).
_TOO_LONG = 10**MAX_DIGITS


def not_json(value: object) -> tuple[tuple[str | int, ...], str] | None:
    """Where `value` holds a number strict JSON cannot carry, and what it is: a NaN, an infinity
    (`1e999` parses as one) or an integer too long to write. None when it is all JSON.

    A parsed answer may hold these (Python's and pydantic's parsers both take `NaN`), and a text
    made from it would not be JSON, nor equal to the structuredContent beside it. The walk uses
    its own stack, so a deeply nested answer costs time in proportion to its size, not recursion."""
    stack: list[tuple[tuple[str | int, ...], object]] = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            what = (
                "NaN" if math.isnan(item) else "an infinity (a number too large for a double, such as 1e999)"
            )
            return path, f"holds {what}, which JSON cannot carry"
        if isinstance(item, int) and not isinstance(item, bool) and abs(item) >= _TOO_LONG:
            return path, f"holds an integer longer than {MAX_DIGITS} digits, which cannot be written as JSON"
        if isinstance(item, dict):
            stack.extend(((*path, str(k)), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, list | tuple):
            stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(item))))
    return None
