"""The server's limits against hostile input and slow hosts, set by `serve`'s flags.

One frozen value, made once at start-up and handed down: the server reads the state lifetime and
the schema bound, the legacy backend the host timeout and the progress interval, the stdio reader
the frame size. docs/security.md says what each one guards against.
"""

from __future__ import annotations

import os

from agent_as_model.records import Record

# Seconds of CPU time one check against a caller's JSON Schema may spend matching its patterns.
DEFAULT_SCHEMA_TIMEOUT = 0.25
# Steps (keywords applied) one check against a caller's JSON Schema may take: enough for any
# ordinary schema and answer (a few steps per value), and few enough that a hostile check ends
# within a second or two of CPU (what a step costs: benchmarks/README.md, "Figures the code cites").
DEFAULT_SCHEMA_STEPS = 50_000
# Seconds a legacy host may take to answer one sampling request; the same as the state lifetime,
# so a host gets as long on either era.
DEFAULT_HOST_TIMEOUT = 600.0
# Seconds a 2026-07-28 round's sealed state stays valid (the SDK's own default).
DEFAULT_STATE_TTL = 600.0
# Bytes one JSON-RPC line on stdio may take (a data URL of a large image fits; a runaway does not).
DEFAULT_MAX_FRAME = 32 * 1024 * 1024
# Seconds between notifications/progress while a legacy call waits for its host.
DEFAULT_PROGRESS_INTERVAL = 5.0
# The most completions one call may ask for (chat `n`, Gemini `candidateCount`): each is a
# sampling request of its own, so a caller could otherwise make the host answer without bound.
DEFAULT_MAX_N = 8
# The most entries one request's conversation may hold: its messages (items, contents), their
# parts and a tool result's parts, each one, each tool call and tool result weighed as several,
# and the values in tool calls' arguments, twenty to an entry (states/entries.py). The MCP SDK
# shapes, validates and serialises every entry of a sampling request on the event loop, in C that
# holds the GIL, so a request's entries hold every other request for a time in proportion to their
# count: the default is sized from that cost, measured, so that a request within it does not hold
# a concurrent call noticeably (docs/security.md).
DEFAULT_MAX_ENTRIES = 2_000
# Decoded bytes of inline media: one image or audio part, and all of one call's
# together. Sized for ordinary photos (a 12-megapixel JPEG is 3-6 MiB) and short clips; the call's
# bound in base64 (4/3 of it) stays under the stdio frame.
DEFAULT_MAX_MEDIA_BYTES = 10 * 2**20
DEFAULT_MAX_MEDIA_CALL_BYTES = 20 * 2**20


# `serve --fetch-media`: seconds one fetch may take, redirects included, and the
# redirects it may follow. The size it may read is `max_media_bytes`, the bound every part has.
DEFAULT_FETCH_TIMEOUT = 10.0
DEFAULT_FETCH_REDIRECTS = 3


class FetchPolicy(Record):
    """Whether and how remote media (http(s) URLs) is fetched: off unless the operator opts in.
    `allow`: host names (lower case) and address literals whose addresses are not checked."""

    enabled: bool = False
    allow: frozenset[str] = frozenset()
    timeout: float = DEFAULT_FETCH_TIMEOUT
    redirects: int = DEFAULT_FETCH_REDIRECTS


class Limits(Record):
    schema_timeout: float = DEFAULT_SCHEMA_TIMEOUT
    schema_steps: int = DEFAULT_SCHEMA_STEPS
    host_timeout: float = DEFAULT_HOST_TIMEOUT
    state_ttl: float = DEFAULT_STATE_TTL
    max_frame: int = DEFAULT_MAX_FRAME
    progress_interval: float = DEFAULT_PROGRESS_INTERVAL
    max_n: int = DEFAULT_MAX_N
    max_entries: int = DEFAULT_MAX_ENTRIES
    max_media_bytes: int = DEFAULT_MAX_MEDIA_BYTES
    max_media_call_bytes: int = DEFAULT_MAX_MEDIA_CALL_BYTES
    fetch: FetchPolicy = FetchPolicy()
    # Not a limit, but made by `serve`'s flags and handed down the same way (to HTTP workers too):
    # what a call returns when it does not say (`serve --result`; neutral.RESULT_SHAPES).
    result: str = "text"
    # Likewise: what a call's tools become on a host that samples without `sampling.tools`
    # (`serve --host-without-tools`; HOST_WITHOUT_TOOLS names the three).
    host_without_tools: str = "drop"


DEFAULT_LIMITS = Limits()


def limits_json(limits: Limits) -> dict[str, object]:
    """The limits as JSON values, for the HTTP workers (`limits_of_json` reads them back)."""
    fetch = limits.fetch
    return {**limits._asdict(), "fetch": {**fetch._asdict(), "allow": sorted(fetch.allow)}}


def limits_of_json(given: dict[str, object]) -> Limits:
    given = dict(given)
    fetch = given.pop("fetch", None)
    policy = FetchPolicy()
    if isinstance(fetch, dict):
        policy = FetchPolicy(**{**fetch, "allow": frozenset(fetch.get("allow", ()))})
    return Limits(**given, fetch=policy)  # type: ignore[arg-type]


# The environment variable that sets `serve --result` (the flag wins), read by the bare command too.
RESULT_ENV = "AGENT_AS_MODEL_RESULT"
# `result`'s values, as neutral.RESULT_SHAPES names them (this floor may not import that one).
_RESULTS = ("text", "object")


def result_from(value: str | None, where: str) -> str:
    """A default result shape given by a flag or the environment; ValueError names `where`."""
    if value is None or value == "":
        return "text"
    if value not in _RESULTS:
        raise ValueError(f"{where}: expected 'text' or 'object', got {value!r}")
    return value


# The environment variable that sets `serve --host-without-tools` (the flag wins), and its values:
# drop the tools (and say so), emulate them in the prompt, or refuse a call that has any
# (docs/decisions.md, "Tools on hosts without sampling.tools").
HOST_WITHOUT_TOOLS_ENV = "AGENT_AS_MODEL_HOST_WITHOUT_TOOLS"
HOST_WITHOUT_TOOLS = ("drop", "emulate", "refuse")


def host_without_tools_from(value: str | None, where: str) -> str:
    """A `--host-without-tools` value given by the environment; ValueError names `where`."""
    if value is None or value == "":
        return "drop"
    if value not in HOST_WITHOUT_TOOLS:
        raise ValueError(f"{where}: expected one of {', '.join(HOST_WITHOUT_TOOLS)}, got {value!r}")
    return value


def environment_limits() -> Limits:
    """The defaults, with the result shape and the handling of tools on hosts without
    `sampling.tools` of the environment (the bare command: no flags)."""
    return DEFAULT_LIMITS._replace(
        result=result_from(os.environ.get(RESULT_ENV), RESULT_ENV),
        host_without_tools=host_without_tools_from(
            os.environ.get(HOST_WITHOUT_TOOLS_ENV), HOST_WITHOUT_TOOLS_ENV
        ),
    )
