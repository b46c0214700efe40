"""`agent-as-model callers`: each caller's limits and its use now, read from where `serve` counts
it (spec section 17).

    agent-as-model callers --config deploy.toml [--json]

reads the same configuration file `serve` does (its `[callers]`, `[limits]`, and the `store` and
`auth-token` of `[serve]` or their variables, which name the counters and the caller `default`),
opens the counters and prints a table, or with `--json` one document. No token is ever printed,
nor a digest: a caller is its name. Counters kept in a serving process's memory cannot be read
from here; the table then shows the limits and says so.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import anyio

from agent_as_model.adapters.callers import (
    ANONYMOUS,
    LIMITS,
    TOKEN_CALLER,
    CallersSettings,
    CountersUnavailable,
    Use,
    counters_shown,
    open_counters,
)
from agent_as_model.adapters.callers.base import until_midnight
from agent_as_model.adapters.callers.gate import duration
from agent_as_model.commands import CONFIG_ENV
from agent_as_model.commands.callers_options import callers_settings
from agent_as_model.commands.config_file import config_path, load
from agent_as_model.errors import StartupError
from agent_as_model.transports.http.settings import AUTH_TOKEN_ENV

COMMAND = "callers"
STORE_ENV = "AGENT_AS_MODEL_STORE"
HEADINGS = ("caller", "requests in the last minute", "calls in flight", "tokens today (UTC)")


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        COMMAND,
        help="print each caller's limits and its use now, from where serve counts it",
        description="Read the configuration file serve --http reads ([callers], [limits]) and print each "
        "caller's limits and its use now: requests in the last minute, calls in flight, tokens today "
        "(UTC), from the counters serve keeps (SQLite or Redis). No token is ever printed.",
    )
    parser.add_argument(
        "--config", metavar="FILE.toml", help=f"the configuration file serve reads (or {CONFIG_ENV})"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")


def run(args: argparse.Namespace, serve: argparse.ArgumentParser) -> int:
    path = config_path(args)
    if path is None:
        raise StartupError(
            f"callers needs the configuration file that names them: --config FILE ({CONFIG_ENV})"
        )
    config = load(path, serve)
    store = _setting(config, "store", STORE_ENV)
    token = _setting(config, "auth_token", AUTH_TOKEN_ENV)
    settings = callers_settings(config, store, token)
    if settings is None:
        raise StartupError(f"{path}: names no callers and no limits ([callers], [limits])")
    names = settings.names([TOKEN_CALLER] if token else [] if settings.callers else [ANONYMOUS])
    use = anyio.run(_use, settings, names) if settings.limited() and settings.counters else None
    now = time.time()
    if args.json:
        print(json.dumps(_document(settings, names, use, now), indent=2))
    else:
        sys.stdout.write(_table(settings, names, use, now))
    return 0


def _setting(config: Any, dest: str, variable: str) -> str | None:
    """`serve`'s own setting as `serve` would read it: its variable, else the file's [serve] key."""
    given = os.environ.get(variable)
    if given:
        return given
    setting = config.serve.get(dest)
    return None if setting is None else str(setting.value)


async def _use(settings: CallersSettings, names: list[str]) -> dict[str, Use]:
    counters = open_counters(settings.counters)
    try:
        return await counters.use(names)
    except CountersUnavailable as err:
        raise StartupError(f"the counters cannot be read: {err}") from None
    finally:
        await counters.aclose()


def _document(
    settings: CallersSettings, names: list[str], use: dict[str, Use] | None, now: float
) -> dict[str, Any]:
    return {
        "counters": counters_shown(settings.counters),
        "at": _iso(now),
        "tokens_reset_at": _iso(now + until_midnight(now)),
        "callers": {
            name: {
                "limits": {limit: settings.limits_of(name).bound(limit) for limit in LIMITS},
                "use": None if use is None else use[name]._asdict(),
            }
            for name in names
        },
    }


def _table(settings: CallersSettings, names: list[str], use: dict[str, Use] | None, now: float) -> str:
    rows: list[tuple[str, ...]] = [HEADINGS]
    for name in names:
        limits = settings.limits_of(name)
        counted = None if use is None else use[name]
        cells = [name]
        for limit, used in zip(LIMITS, ("requests", "in_flight", "tokens"), strict=True):
            bound = limits.bound(limit)
            shown = "unlimited" if bound is None else f"{bound:,}"
            if counted is None:
                cells.append(f"limit {shown}")
                continue
            cell = f"{getattr(counted, used):,} of {shown}"
            if used == "tokens" and counted.estimated:
                cell += f" ({counted.estimated:,} estimated)"
            cells.append(cell)
        rows.append(tuple(cells))
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADINGS))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    if not settings.limited():
        lines.append("No limits are configured: nothing is counted.")
    elif use is None:
        lines.append(
            "Use is counted in the serving process's memory, which cannot be read from here: set "
            '[limits] counters = "sqlite:PATH" or "redis://..." to read it.'
        )
    else:
        lines.append(
            f"Counted in {counters_shown(settings.counters)} at {_iso(now)}; requests over the last "
            f"60 s; tokens reset at midnight UTC, in {duration(until_midnight(now))}."
        )
    return "\n".join(lines) + "\n"


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
