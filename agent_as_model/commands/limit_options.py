"""`serve`'s limits against hostile input and slow hosts: the flags, and the `Limits` they make.

Their own argument group, so other groups of `serve` options stay apart (docs/security.md says
what each limit guards against).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from agent_as_model.errors import StartupError
from agent_as_model.limits import (
    DEFAULT_LIMITS,
    HOST_WITHOUT_TOOLS,
    HOST_WITHOUT_TOOLS_ENV,
    RESULT_ENV,
    FetchPolicy,
    Limits,
    host_without_tools_from,
    result_from,
)


def add_limit_options(serve: argparse.ArgumentParser) -> None:
    group = serve.add_argument_group("limits against hostile input and slow hosts")
    group.add_argument(
        "--schema-timeout",
        type=_seconds,
        default=DEFAULT_LIMITS.schema_timeout,
        metavar="SECONDS",
        help="CPU time one check against a caller's JSON Schema may spend matching its patterns "
        f"(default {DEFAULT_LIMITS.schema_timeout:g})",
    )
    group.add_argument(
        "--schema-steps",
        type=_steps,
        default=DEFAULT_LIMITS.schema_steps,
        metavar="STEPS",
        help="keywords one check against a caller's JSON Schema may apply, and patterns it may search, "
        "before it stops with an error ($ref fan-out, nested combinators, patternProperties over many "
        "properties); checking the schema itself against the draft's meta-schema has a budget of as "
        f"many, some 30 for each of its properties (default {DEFAULT_LIMITS.schema_steps})",
    )
    group.add_argument(
        "--host-timeout",
        type=_seconds,
        default=DEFAULT_LIMITS.host_timeout,
        metavar="SECONDS",
        help="how long a host may take to answer one sampling request before the call ends with an "
        f"error and the request is cancelled (before 2026-07-28; default {DEFAULT_LIMITS.host_timeout:g})",
    )
    group.add_argument(
        "--state-ttl",
        type=_seconds,
        default=DEFAULT_LIMITS.state_ttl,
        metavar="SECONDS",
        help="how long a 2026-07-28 round's sealed requestState stays valid, so how long the host may "
        f"take before it retries (default {DEFAULT_LIMITS.state_ttl:g})",
    )
    group.add_argument(
        "--max-frame",
        type=_bytes,
        default=DEFAULT_LIMITS.max_frame,
        metavar="BYTES",
        help="the longest JSON-RPC line read from stdin; a longer one is discarded with an error reply "
        f"(default {DEFAULT_LIMITS.max_frame}, {DEFAULT_LIMITS.max_frame // 2**20} MiB)",
    )

    group.add_argument(
        "--max-n",
        type=_count,
        default=DEFAULT_LIMITS.max_n,
        metavar="N",
        help="the most completions one call may ask for (chat n, Gemini candidateCount), each a "
        f"sampling request of its own (default {DEFAULT_LIMITS.max_n})",
    )
    group.add_argument(
        "--max-entries",
        type=_count,
        default=DEFAULT_LIMITS.max_entries,
        metavar="N",
        help="the most entries one request's conversation may hold: each message (item, content) "
        "and part is one, each tool call and tool result 3, and every 20 values in tool calls' "
        "arguments one; the server's work "
        "on a request grows with them, and over HTTP it holds every other request meanwhile "
        f"(default {DEFAULT_LIMITS.max_entries})",
    )
    group.add_argument(
        "--max-media-bytes",
        type=_bytes,
        default=DEFAULT_LIMITS.max_media_bytes,
        metavar="BYTES",
        help="the decoded size one inline image or audio part may have "
        f"(default {DEFAULT_LIMITS.max_media_bytes}, {DEFAULT_LIMITS.max_media_bytes // 2**20} MiB)",
    )
    group.add_argument(
        "--max-media-call-bytes",
        type=_bytes,
        default=DEFAULT_LIMITS.max_media_call_bytes,
        metavar="BYTES",
        help="the decoded size all of one call's media parts may have together "
        f"(default {DEFAULT_LIMITS.max_media_call_bytes}, "
        f"{DEFAULT_LIMITS.max_media_call_bytes // 2**20} MiB)",
    )
    fetching = serve.add_argument_group("remote media (off unless --fetch-media)")
    fetching.add_argument(
        "--fetch-media",
        action="store_true",
        help="fetch images given by http(s) URL (chat image_url, Anthropic url sources, Responses "
        "input_image, Gemini fileData) and pass them inline; loopback, private, link-local and "
        "metadata addresses are refused (docs/security.md)",
    )
    fetching.add_argument(
        "--fetch-media-allow",
        action="append",
        default=[],
        metavar="HOST",
        help="a host name or address whose addresses are not checked (repeatable)",
    )
    fetching.add_argument(
        "--fetch-media-timeout",
        type=_seconds,
        default=DEFAULT_LIMITS.fetch.timeout,
        metavar="SECONDS",
        help="seconds all of one call's fetches may take, redirects included "
        f"(default {DEFAULT_LIMITS.fetch.timeout:g}); each is read no further than --max-media-bytes "
        "or what is left of --max-media-call-bytes",
    )
    results = serve.add_argument_group("results")
    results.add_argument(
        "--result",
        choices=("text", "object"),
        default=None,
        help="what a completion tool returns when the call does not say (its `result`): the "
        "completion text, or the product's own response object with usage (default: "
        f"${RESULT_ENV}, else text)",
    )
    results.add_argument(
        "--host-without-tools",
        choices=HOST_WITHOUT_TOOLS,
        default=None,
        help="what a call's tools become when the host samples without declaring sampling.tools: "
        "drop them (the result's _meta says so; a tool_choice that demands a call is refused), "
        "emulate them in the system prompt and read calls from a JSON reply, or refuse any call "
        f"with tools (default: ${HOST_WITHOUT_TOOLS_ENV}, else drop)",
    )


def _from_environment(read: Callable[[str | None, str], str], name: str) -> str:
    """A flag's value from its environment variable `name` (the flag was not given); a bad one
    stops start-up, naming the variable."""
    try:
        return read(os.environ.get(name), name)
    except ValueError as err:
        raise StartupError(str(err)) from None


def limits_of(args: argparse.Namespace) -> Limits:
    """The limits the flags name; the defaults when serving without the `serve` command."""
    result = getattr(args, "result", None)
    if result is None:
        result = _from_environment(result_from, RESULT_ENV)
    tools = getattr(args, "host_without_tools", None)
    if tools is None:
        tools = _from_environment(host_without_tools_from, HOST_WITHOUT_TOOLS_ENV)
    if getattr(args, "fetch_media_allow", ()) and not getattr(args, "fetch_media", False):
        # An allow list with nothing fetched is a configuration that does not do what it says.
        raise StartupError("--fetch-media-allow names hosts to fetch from: it needs --fetch-media")
    return Limits(
        schema_timeout=getattr(args, "schema_timeout", DEFAULT_LIMITS.schema_timeout),
        schema_steps=getattr(args, "schema_steps", DEFAULT_LIMITS.schema_steps),
        host_timeout=getattr(args, "host_timeout", DEFAULT_LIMITS.host_timeout),
        state_ttl=getattr(args, "state_ttl", DEFAULT_LIMITS.state_ttl),
        max_frame=getattr(args, "max_frame", DEFAULT_LIMITS.max_frame),
        max_n=getattr(args, "max_n", DEFAULT_LIMITS.max_n),
        max_entries=getattr(args, "max_entries", DEFAULT_LIMITS.max_entries),
        max_media_bytes=getattr(args, "max_media_bytes", DEFAULT_LIMITS.max_media_bytes),
        max_media_call_bytes=getattr(args, "max_media_call_bytes", DEFAULT_LIMITS.max_media_call_bytes),
        fetch=FetchPolicy(
            enabled=getattr(args, "fetch_media", False),
            allow=frozenset(h.lower() for h in getattr(args, "fetch_media_allow", ())),
            timeout=getattr(args, "fetch_media_timeout", DEFAULT_LIMITS.fetch.timeout),
        ),
        result=result,
        host_without_tools=tools,
    )


def _at_least(minimum: int, unit: str | None = None) -> Callable[[str], int]:
    """A whole-number flag's type: at least `minimum`, its errors naming the `unit` if it has one."""
    what = f"a number of {unit}" if unit else "a whole number"
    least = f"{minimum} {unit}" if unit else str(minimum)

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected at least {least}, got {text}")
        return value

    return read


_count = _at_least(1)
_bytes = _at_least(1024, "bytes")
_steps = _at_least(100, "steps")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text}")
    return value
