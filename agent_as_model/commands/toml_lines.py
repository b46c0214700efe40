"""Where each key of a TOML text is written: its line, found from the text itself.

`tomllib` parses a document into plain values and keeps no positions, so a configuration error
could only name a key, not the line to fix. This scanner reads a text that `tomllib` has already
accepted and records the line of every table header and every key assignment, by the key's full
path (`("providers", "local", "base-url")`). It skips what cannot hold a key (strings, including
multi-line ones, comments, the insides of arrays and inline tables), and reads each key's spelling
with `tomllib` itself, so quoted and escaped keys come out exactly as the parsed document has them.
A key written inside an inline table or an array is found at the line of the key that holds it.
"""

from __future__ import annotations

import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with tomli, tomllib's own origin
    import tomli as tomllib

KeyPath = tuple[str | int, ...]


def key_lines(text: str) -> dict[KeyPath, int]:
    """The 1-based line of every table header and key assignment in `text` (valid TOML)."""
    return _Scanner(text).scan()


def line_of(lines: dict[KeyPath, int], path: KeyPath) -> int | None:
    """The line of `path`; for a table never written as a header of its own (`[providers.a]` makes
    `providers`), the first line of what it holds; else the line of the nearest key above it that
    was written (a key inside an inline table or an array is on the line of the key holding it)."""
    found = lines.get(path)
    if found is not None:
        return found
    held = [line for key, line in lines.items() if key[: len(path)] == path]
    if held:
        return min(held)
    for end in range(len(path) - 1, 0, -1):
        found = lines.get(path[:end])
        if found is not None:
            return found
    return None


def _key_path(raw: str) -> tuple[str, ...]:
    """The path a dotted key spells, read by tomllib (quoted parts, escapes and all)."""
    value: Any = tomllib.loads(f"{raw} = 0")
    path: list[str] = []
    while isinstance(value, dict):
        (key, value), *_ = value.items()
        path.append(key)
    return tuple(path)


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.lines: dict[KeyPath, int] = {}
        self.table: KeyPath = ()
        # How many elements each array of tables has had so far, by its path.
        self.arrays: dict[KeyPath, int] = {}

    def scan(self) -> dict[KeyPath, int]:
        text = self.text
        while self.pos < len(text):
            self._blank()
            if self.pos >= len(text):
                break
            if text[self.pos] == "[":
                self._header()
            else:
                self._assignment()
        return self.lines

    def _blank(self) -> None:
        """Past whitespace, newlines and comments, to the next thing written at a line's start."""
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c == "\n":
                self.line += 1
                self.pos += 1
            elif c in " \t\r":
                self.pos += 1
            elif c == "#":
                self._to_line_end()
            else:
                return

    def _to_line_end(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end

    def _header(self) -> None:
        text = self.text
        array = text.startswith("[[", self.pos)
        start = self.pos + (2 if array else 1)
        end = self._key_end(start, "]")
        path = _key_path(text[start:end])
        self.pos = end + (2 if array else 1)
        self.table = self._in_arrays(path)
        if array:
            index = self.arrays.get(path, 0)
            self.arrays[path] = index + 1
            self.table = (*self.table, index)
        self.lines.setdefault(self.table, self.line)
        self._to_line_end()

    def _in_arrays(self, path: tuple[str, ...]) -> KeyPath:
        """`path` with the current element of every array of tables it passes through."""
        out: list[str | int] = []
        for i, key in enumerate(path):
            out.append(key)
            count = self.arrays.get(path[: i + 1])
            if count and i < len(path) - 1:
                out.append(count - 1)
        return tuple(out)

    def _assignment(self) -> None:
        end = self._key_end(self.pos, "=")
        path = (*self.table, *_key_path(self.text[self.pos : end]))
        self.lines.setdefault(path, self.line)
        self.pos = end + 1
        self._value()

    def _key_end(self, start: int, stop: str) -> int:
        """Where the key that starts at `start` ends: the first `stop` outside quotes."""
        text = self.text
        pos = start
        while text[pos] != stop:
            if text[pos] in "\"'":
                pos = self._string_end(pos)
            else:
                pos += 1
        return pos

    def _value(self) -> None:
        """Past one value, which may span lines (a multi-line string or array)."""
        text = self.text
        depth = 0
        while self.pos < len(text):
            c = text[self.pos]
            if c in "\"'":
                self.pos = self._string_end(self.pos)
            elif c in "[{":
                depth += 1
                self.pos += 1
            elif c in "]}":
                depth -= 1
                self.pos += 1
            elif c == "#":
                self._to_line_end()
            elif c == "\n":
                if depth == 0:
                    return
                self.line += 1
                self.pos += 1
            else:
                self.pos += 1

    def _string_end(self, pos: int) -> int:
        """The position after the string that starts at `pos`, counting the lines it spans."""
        text = self.text
        quote = text[pos]
        triple = text.startswith(quote * 3, pos)
        delimiter = quote * 3 if triple else quote
        pos += len(delimiter)
        while True:
            c = text[pos]
            if c == "\\" and quote == '"':
                if text[pos + 1] == "\n":
                    self.line += 1
                pos += 2
                continue
            if text.startswith(delimiter, pos):
                pos += len(delimiter)
                # A multi-line string may end with up to two more quotes of its own.
                while triple and pos < len(text) and text[pos] == quote:
                    pos += 1
                return pos
            if c == "\n":
                self.line += 1
            pos += 1
