"""One object of a Gemini body, read in either spelling. The SDK writes some objects in camelCase
and others in snake_case (it dumps its pydantic types with their field names), and its types
accept both, so every key is read in either spelling and errors name the spelling the caller
wrote.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from agent_as_model.adapters.dialects import common, options
from agent_as_model.adapters.dialects.products.gemini.keys import SPELLINGS
from agent_as_model.errors import CallError, caller_error


def camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


class Object:
    """One object of the body, read in either spelling: values by their camelCase name, paths as
    the caller wrote them. Unknown keys, and one key given in both spellings, are errors.

    A null is "not given" and skipped before the key check: the SDK's own `model_dump()` writes
    every field of its types, nulls included, and one of them passed back must be taken. A key
    with a value stays an error when no SDK type defines it."""

    __slots__ = ("path", "values", "written")

    def __init__(self, raw: object, path: str, known: tuple[str, ...], what: str) -> None:
        obj = common.require_object(raw, path)
        self.path = path
        self.values: dict[str, Any] = {}
        self.written: dict[str, str] = {}
        for key, value in obj.items():
            if value is None:
                continue
            name = camel(key)
            if name not in known:
                raise caller_error(common.path_of(path, key), f"unknown key {ascii(key)} ({what})")
            if name in self.written:
                raise caller_error(
                    common.path_of(path, key), f"is given twice, as {self.written[name]!r} and {key!r}"
                )
            self.written[name] = key
            self.values[name] = value

    def check(
        self,
        hinted: Mapping[str, str],
        refused: Mapping[str, options.Refusal],
        host_only: list[CallError] | None = None,
    ) -> None:
        """Type-check the hints among the values and refuse what cannot be honoured, naming the
        key as the caller wrote it; with `host_only`, a refusal that holds for the host alone is
        put there instead of raised (`options.check_natives`)."""
        kept: list[CallError] | None = None if host_only is None else []
        try:
            options.check_natives(self.values, hinted, refused, kept)
        except CallError as err:
            raise caller_error(self.at(err.path), err.reason) from None
        if kept and host_only is not None:
            host_only.extend(caller_error(self.at(err.path), err.reason) for err in kept)

    def get(self, name: str) -> Any:
        return self.values.get(name)

    def at(self, name: str) -> str:
        """The path of `name` as the caller wrote it (camelCase when it was not given)."""
        return common.path_of(self.path, self.written.get(name, name))

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)


def top_level(args: Mapping[str, Any], name: str) -> tuple[Any, str]:
    """A top-level parameter in either spelling, and the key it was given under."""
    snake = SPELLINGS.get(name)
    if snake is not None and args.get(name) is not None and args.get(snake) is not None:
        raise caller_error(snake, f"is given twice, as {name!r} and {snake!r}")
    if snake is not None and args.get(snake) is not None:
        return args[snake], snake
    return args.get(name), name
