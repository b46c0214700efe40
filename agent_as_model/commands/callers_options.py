"""Callers and their limits, as the configuration file writes them (spec section 17, HTTP only):
`[limits]` (every caller's bounds unless its own say otherwise, where use is counted, an
in-flight entry's lease) and `[callers]` (one table per named caller, with the sha256 digests of
its bearer tokens, and optionally a file of more), read into `adapters/callers`' values.

    [limits]
    requests-per-minute = 60
    concurrent-calls = 4
    tokens-per-day = 1_000_000
    counters = "redis://127.0.0.1:6379/0"   # or "sqlite:PATH"; default: serve's store, else memory

    [callers]
    tokens-file = "callers.tokens"          # lines of NAME SHA256HEX, beside this file

    [callers.alice]
    token-sha256 = "5e8848..."              # printf %s "$TOKEN" | sha256sum; never the token
    tokens-per-day = "unlimited"

A token itself is never written in the file, nor shown in an error: a caller's table holds its
digest. `--auth-token` keeps working, as the caller `default`.
"""

from __future__ import annotations

import math
import os
from typing import Any

import anyio

from agent_as_model.adapters.callers import (
    DEFAULT_LEASE,
    LIMITS,
    NAME_PATTERN,
    TOKEN_CALLER,
    Caller,
    CallerLimits,
    CallersSettings,
    open_counters,
)
from agent_as_model.adapters.callers.tokens import DIGEST
from agent_as_model.adapters.store import FORMS, store_kind
from agent_as_model.commands.config_file import ConfigError, Section
from agent_as_model.commands.toml_lines import line_of
from agent_as_model.errors import StartupError
from agent_as_model.records import Record

UNLIMITED = "unlimited"
LIMIT_KEYS = ("requests-per-minute", "concurrent-calls", "tokens-per-day")
LIMITS_KEYS = (*LIMIT_KEYS, "counters", "lease")
CALLER_KEYS = ("token-sha256", *LIMIT_KEYS)
TOKENS_FILE = "tokens-file"
MEMORY = "memory"
HASH_HINT = 'printf %s "$TOKEN" | sha256sum'


class LimitsSection(Record):
    """`[limits]`, read: every caller's bounds, where use is counted (None: not said), the lease."""

    defaults: CallerLimits
    counters: str | None
    lease: float


def read_limits(section: Section) -> LimitsSection:
    table = section.value
    for key in table:
        if key not in LIMITS_KEYS:
            raise section.error(key, message=f"unknown key ([limits] takes {', '.join(LIMITS_KEYS)})")
    bounds = {
        key: _bound(section, (key,), table[key], allow_unlimited=False) for key in LIMIT_KEYS if key in table
    }
    counters = table.get("counters")
    if counters is not None:
        counters = _counters(section, counters)
    lease = table.get("lease", DEFAULT_LEASE)
    if isinstance(lease, bool) or not isinstance(lease, int | float) or not 0 < lease < math.inf:
        raise section.error("lease", message=f"expected a positive number of seconds, got {lease!r}")
    return LimitsSection(_limits(bounds), counters, float(lease))


def _counters(section: Section, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise section.error("counters", message=f"expected {MEMORY}, {FORMS}")
    if value == MEMORY:
        return value
    try:
        store_kind(value)
    except ValueError as err:
        raise section.error("counters", message=f"{MEMORY}, or {err}") from None
    return value


def _bound(section: Section, path: tuple[str, ...], value: Any, *, allow_unlimited: bool) -> int | None:
    if allow_unlimited and value == UNLIMITED:
        return None
    if type(value) is not int or value < 0:
        also = f' or "{UNLIMITED}"' if allow_unlimited else ""
        raise section.error(*path, message=f"expected a whole number, 0 or more{also}, got {value!r}")
    bound: int = value
    return bound


def _limits(bounds: dict[str, int | None]) -> CallerLimits:
    return CallerLimits(*(bounds.get(limit) for limit in LIMITS))


def read_callers(section: Section) -> CallersSettings:
    """Each `[callers.NAME]` table, then the tokens file's callers, over `[limits]`' defaults."""
    limits: LimitsSection = section.reading("limits") or LimitsSection(CallerLimits(), None, DEFAULT_LEASE)
    digests: dict[str, list[str]] = {}
    own: dict[str, dict[str, int | None]] = {}
    for name, table in section.value.items():
        if name == TOKENS_FILE:
            continue
        if not isinstance(table, dict):
            raise section.error(
                name, message=f"expected a caller's table, [callers.{name}] (or {TOKENS_FILE} = PATH)"
            )
        if not NAME_PATTERN.fullmatch(name):
            raise section.error(name, message="a caller's name is 1 to 64 letters, digits, '.', '_' or '-'")
        digests[name], own[name] = _caller(section, name, table)
    path = section.value.get(TOKENS_FILE)
    if path is not None:
        if not isinstance(path, str) or not path:
            raise section.error(TOKENS_FILE, message="expected the path of a file of NAME SHA256HEX lines")
        for name, digest in read_tokens_file(_beside(section.config.path, path)):
            digests.setdefault(name, []).append(digest)
    seen: dict[str, str] = {}
    for name, named in digests.items():
        if not named:
            raise section.error(
                name, message=f"needs token-sha256, the sha256 of its bearer token ({HASH_HINT})"
            )
        for digest in named:
            other = seen.setdefault(digest, name)
            if other != name:
                raise section.error(
                    name, message=f"has the token of caller {other!r}: a token names one caller"
                )
    defaults = limits.defaults
    callers = tuple(
        Caller(name, tuple(dict.fromkeys(named)), _merged(defaults, own.get(name, {})))
        for name, named in digests.items()
    )
    return CallersSettings(callers, defaults, limits.counters, limits.lease)


def _caller(section: Section, name: str, table: dict[str, Any]) -> tuple[list[str], dict[str, int | None]]:
    for key in table:
        if key not in CALLER_KEYS:
            if "token" in key:
                # The value is never shown: it may be a token written where its digest belongs.
                raise section.error(
                    name,
                    key,
                    message="a token is never written here: write token-sha256, its sha256 in hex "
                    f"({HASH_HINT})",
                )
            raise section.error(name, key, message=f"unknown key (a caller takes {', '.join(CALLER_KEYS)})")
    written = table.get("token-sha256", [])
    written = [written] if isinstance(written, str) else written
    if not isinstance(written, list) or not all(isinstance(d, str) for d in written):
        raise section.error(
            name, "token-sha256", message="expected the sha256 (hex) of a token, or an array of them"
        )
    digests = []
    for digest in written:
        if not DIGEST.fullmatch(digest.lower()):
            raise section.error(
                name,
                "token-sha256",
                message=f"expected 64 hexadecimal digits, the sha256 of the token ({HASH_HINT}); "
                "the token itself is never written here",
            )
        digests.append(digest.lower())
    bounds = {
        key: _bound(section, (name, key), table[key], allow_unlimited=True)
        for key in LIMIT_KEYS
        if key in table
    }
    return digests, bounds


def _merged(defaults: CallerLimits, own: dict[str, int | None]) -> CallerLimits:
    return CallerLimits(*(own[limit] if limit in own else defaults.bound(limit) for limit in LIMITS))


def _beside(config_path: str, path: str) -> str:
    """A path as the configuration file writes it: relative to the file's own directory."""
    return path if os.path.isabs(path) else os.path.join(os.path.dirname(os.path.abspath(config_path)), path)


def read_tokens_file(path: str) -> list[tuple[str, str]]:
    """A file of `NAME SHA256HEX` lines (blank lines and `#` comments aside): (name, digest) each.
    An error names the file and the line, never what the line holds beyond its name."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or "not UTF-8 text"
        raise ConfigError(f"{path}: cannot read the tokens file ({reason})") from None
    found = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        # Nothing of a line is shown back: a line with one word may be a token written alone.
        parts = text.split()
        if len(parts) != 2 or not NAME_PATTERN.fullmatch(parts[0]) or not DIGEST.fullmatch(parts[1].lower()):
            raise ConfigError(
                f"{path}:{number}: expected NAME SHA256HEX: a caller's name (1 to 64 letters, digits, '.', "
                f"'_' or '-'), then the sha256 of its token in 64 hexadecimal digits ({HASH_HINT}); the "
                "token itself is never written here"
            )
        found.append((parts[0], parts[1].lower()))
    return found


def callers_settings(config: Any, store: str | None, auth_token: str | None) -> CallersSettings | None:
    """What the file's `[callers]` and `[limits]` configure (None: neither is there), counted
    where `[limits]` says, else in `store` (serve's `--store`), else in memory. A caller named
    `default` beside `--auth-token`, whose caller that is, is an error."""
    sections = {} if config is None else config.sections
    settings: CallersSettings | None = sections.get("callers")
    limits: LimitsSection | None = sections.get("limits")
    if settings is None and limits is None:
        return None
    if settings is None:
        assert limits is not None  # one of them, just checked
        settings = CallersSettings((), limits.defaults, limits.counters, limits.lease)
    if auth_token and any(caller.name == TOKEN_CALLER for caller in settings.callers):
        raise config.error(
            ("callers", TOKEN_CALLER),
            f"{TOKEN_CALLER!r} is the caller of --auth-token ({'AGENT_AS_MODEL_AUTH_TOKEN'}): name this "
            "caller otherwise, or give its token here and drop --auth-token",
        )
    counters = settings.counters
    if counters is None:
        counters = store
    elif counters == MEMORY:
        counters = None
    return settings._replace(counters=counters)


def refuse_without_http(config: Any, args: Any) -> None:
    """Callers and limits are the HTTP door's: over stdio (one host, no token) they would be
    ignored, so a file that has them without http is refused, as an HTTP key is."""
    if config is None or getattr(args, "http", False):
        return
    for name in ("limits", "callers"):
        if name in config.sections:
            # `[callers.alice]` alone writes no `[callers]` line: name its first table's.
            table = config.data[name]
            written = line_of(config.lines, (name,)) is not None or not table
            raise config.error(
                (name,) if written else (name, next(iter(table))),
                "callers and their limits are for serving HTTP and would be ignored over stdio: set "
                "http = true (or give --http), or leave the section out to serve stdio",
            )


def named_callers(config: Any) -> bool:
    """Whether the file names callers (each with a token): a server that needs a token has them."""
    settings = None if config is None else config.sections.get("callers")
    return bool(settings is not None and settings.callers)


def checked(settings: CallersSettings, workers: int) -> CallersSettings:
    """Counters that the workers cannot share are refused, and the counters are opened once, so
    what cannot be opened is said at start-up, not in each worker."""
    if not settings.limited():
        return settings
    if workers > 1 and settings.counters is None:
        raise StartupError(
            f"[limits]: --workers {workers} would each count their callers' use alone in memory: set "
            '[limits] counters = "redis://HOST:PORT/DB" (or "sqlite:PATH" on one machine), or give --store'
        )
    anyio.run(open_counters(settings.counters).aclose)
    return settings
