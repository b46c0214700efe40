"""Tool names the host's model can take, mapped reversibly from the caller's.

Host models (OpenAI, Anthropic, and the hosts that front them) take tool names matching
`^[A-Za-z0-9_-]{1,64}$`; MCP tools and callers use more (`weather.get`, `search docs`, 128
characters). A name that already fits is used as it is; any other name becomes its safe
characters (each other character as `_`), cut to 55, then `_` and the first 8 hex digits of the
SHA-256 of its UTF-8 bytes:

    weather.get  ->  weather_get_b8affdae
    get_weather  ->  get_weather             (already fits)

The digest makes the mapping depend on the name alone (the same name maps the same way on every
turn of a conversation, whatever other tools come along) and keeps two names that differ only in
their unsafe characters apart. A collision is still possible in principle (a caller tool literally
named like another's mapped name, or two digests agreeing); `NameMap` detects it and refuses the
request, so a host's tool call always maps back to exactly one caller name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

from agent_as_model.errors import caller_error

HOST_NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
HOST_NAME_MAX = 64
_DIGEST_HEX = 8
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def host_name(name: str) -> str:
    """The name the host's model is given for the caller's tool `name` (identity when it fits)."""
    if HOST_NAME_PATTERN.fullmatch(name):
        return name
    # surrogatepass: a lone surrogate is rejected upstream, but this must never raise.
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:_DIGEST_HEX]
    safe = _UNSAFE.sub("_", name)[: HOST_NAME_MAX - _DIGEST_HEX - 1]
    return f"{safe}_{digest}"


class NameMap:
    """The names of one request: caller name <-> host name, both ways, checked injective."""

    __slots__ = ("_to_host", "_from_host")

    def __init__(self, named: Iterable[tuple[str, str]]) -> None:
        """`named` holds `(path, caller name)` pairs; the path names the name in a collision error.

        The same name may appear many times (a tool and the history's calls of it).
        """
        self._to_host: dict[str, str] = {}
        self._from_host: dict[str, tuple[str, str]] = {}  # host name -> (caller name, its path)
        for path, name in named:
            if name in self._to_host:
                continue
            mapped = host_name(name)
            taken = self._from_host.get(mapped)
            if taken is not None:
                other, other_path = taken
                where = f" at {other_path}" if other_path else ""
                raise caller_error(
                    path,
                    f"tool name {ascii(name)} and tool name {ascii(other)}{where} both map to the host "
                    f"name {mapped!r} (names outside [A-Za-z0-9_-]{{1,64}} are rewritten); rename one",
                )
            self._to_host[name] = mapped
            self._from_host[mapped] = (name, path)

    @classmethod
    def for_names(cls, names: Iterable[str], path: str = "tools") -> NameMap:
        """A map of bare names; a collision error names `path`."""
        return cls((path, name) for name in names)

    def to_host(self, name: str) -> str:
        """The host name of a caller name given to the map (KeyError otherwise: a bug upstream)."""
        return self._to_host[name]

    def from_host_map(self) -> Mapping[str, str]:
        """Every host name -> caller name, renamed or not."""
        return {mapped: name for mapped, (name, _) in self._from_host.items()}

    def renamed(self) -> Mapping[str, str]:
        """Host name -> caller name for the names that changed only."""
        return {mapped: name for mapped, (name, _) in self._from_host.items() if mapped != name}
