"""Generated blocks inside a hand-written Markdown page: found and replaced between marker
comments `<!-- <kind>:<key>:begin -->` and `<!-- <kind>:<key>:end -->`. The doc generators
(wire captures, worked examples) write them and their tests compare them."""

from __future__ import annotations

import re


class GeneratedBlocks:
    def __init__(self, kind: str) -> None:
        self.kind = kind

    def markers(self, key: str) -> tuple[str, str]:
        return f"<!-- {self.kind}:{key}:begin -->", f"<!-- {self.kind}:{key}:end -->"

    def _pattern(self, key: str) -> re.Pattern[str]:
        begin, end = self.markers(key)
        return re.compile(re.escape(begin) + r"\n(.*?)" + re.escape(end), re.DOTALL)

    def current(self, document: str, keys: list[str]) -> dict[str, str | None]:
        """The blocks as the document holds them now (None where the markers are missing)."""
        found: dict[str, str | None] = {}
        for key in keys:
            match = self._pattern(key).search(document)
            found[key] = match.group(1) if match else None
        return found

    def rewrite(self, document: str, blocks: dict[str, str]) -> str:
        for key, block in blocks.items():
            begin, end = self.markers(key)
            match = self._pattern(key).search(document)
            if match is None:
                raise ValueError(f"the document has no {begin} … {end} markers")
            document = document[: match.start()] + f"{begin}\n{block}{end}" + document[match.end() :]
        return document
