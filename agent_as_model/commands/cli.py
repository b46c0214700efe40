"""`agent-as-model`: serve over stdio (the default, what hosts run), the newcomer's demo, and the
subcommands (export-tools, callers, replay, fuzz).

A host runs the command with no arguments at all, and start-up is what it waits for. That
invocation is served without building the parser: argparse and the options of every subcommand
are a share of start-up (benchmarks/README.md, "What each cache, ContextVar and late import
buys") and say nothing a bare invocation needs. So this module imports only what serving needs at
its top; the parser, the option groups and the subcommands are imported when arguments are
given. Both ways serve alike: no command means `serve` with every default, the provider settings
from the environment.
"""

from __future__ import annotations

import logging
import os
import shlex
import sys
from collections.abc import Sequence
from functools import partial
from itertools import takewhile
from types import SimpleNamespace
from typing import TYPE_CHECKING, NoReturn

import anyio

from agent_as_model import __version__
from agent_as_model.commands import CONFIG_ENV
from agent_as_model.errors import StartupError
from agent_as_model.limits import Limits, environment_limits

if TYPE_CHECKING:
    import argparse

    from agent_as_model.adapters.routes import Gateway
    from agent_as_model.adapters.store import StoreSettings
    from agent_as_model.commands.config_file import ConfigFile
    from agent_as_model.telemetry.setup import TelemetrySettings
    from agent_as_model.transports.http.settings import HttpSettings

PROG = "agent-as-model"
LOG_LEVEL_ENV = "AGENT_AS_MODEL_LOG_LEVEL"
_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# The exit status of a start-up error (a bad flag, environment variable or path): argparse's own.
STARTUP_FAILED = 2
STDIO_BANNER = (
    f"{PROG}: serving MCP over stdio, waiting for a host's JSON-RPC on this terminal. A host runs this "
    f"command itself (README: Add it to a host); to see it work, run `{PROG} demo`; for HTTP, "
    f"`{PROG} serve --http`; Ctrl-D ends.\n"
)


def usage_error(message: str) -> NoReturn:
    """A usage error as one line (argparse's default prints the usage first), exit status 2."""
    sys.stderr.write(f"{PROG}: {message} (see {PROG} --help)\n")
    raise SystemExit(STARTUP_FAILED)


# What the option readers report usage errors to when no parser was built (`error` is all they use).
_NO_PARSER = SimpleNamespace(error=usage_error)
# The parser's attribute holding `serve --config`'s file, read: its `error` names a value of the file.
_CONFIG_READ = "config_file_read"


def _startup_failed(err: Exception, config: ConfigFile | None = None) -> int:
    """A configuration the server cannot start with: one line on stderr, no traceback. A check
    about a value `config`'s file set names the file, the line and the key."""
    from agent_as_model.commands.config_file import located

    print(f"{PROG}: {located(config, str(err)) or err}", file=sys.stderr)
    return STARTUP_FAILED


def _parser() -> argparse.ArgumentParser:
    import argparse

    from agent_as_model.adapters.dialects import DIALECTS
    from agent_as_model.commands import (
        callers_command,
        config_file,
        export_tools,
        fuzz,
        http_options,
        route_options,
    )
    from agent_as_model.commands.limit_options import add_limit_options
    from agent_as_model.commands.provider_options import LATE_DESCRIPTION, add_provider_options
    from agent_as_model.commands.store_options import add_store_options
    from agent_as_model.commands.telemetry_options import add_telemetry_options
    from agent_as_model.commands.transcripts import command as transcripts

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            # The checks made after the parse report here; a value they refuse may be the file's,
            # said as the file's other errors are (with no usage hint: the fix is in the file).
            where = config_file.located(getattr(self, _CONFIG_READ, None), message)
            if where is None:
                usage_error(message)
            sys.stderr.write(f"{PROG}: {where}\n")
            raise SystemExit(STARTUP_FAILED)

        def format_help(self) -> str:
            for group in self._action_groups:  # descriptions that cost an import: made only now
                late = getattr(group, LATE_DESCRIPTION, None)
                if late is not None:
                    group.description = late()
            return super().format_help()

    parser = Parser(
        prog=PROG,
        description=(
            "An MCP server where the connected agent is the model: tools in the request shapes of AI "
            "products' own APIs, answered by the host's own model through MCP sampling (before "
            "2026-07-28) or multi-round-trip requests (2026-07-28). With no command it serves MCP over "
            "stdio."
        ),
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    serve = commands.add_parser(
        "serve",
        help="serve MCP over stdio (the default; logs go to stderr), or over HTTP with --http",
        description="Serve MCP over stdio (what hosts run; logs go to stderr), or over streamable HTTP "
        "with --http (the HTTP options need it). Every option is also a key of --config's file.",
    )
    config_file.add_config_option(serve)
    transcripts.add_record_options(serve)
    add_provider_options(serve)
    route_options.add_route_options(serve)
    add_store_options(serve)
    add_limit_options(serve)
    add_telemetry_options(serve)
    _HTTP_ONLY[:] = http_options.add_options(serve)
    tools = ", ".join(DIALECTS)  # the registry's tools: a new dialect shows here by itself
    commands.add_parser(
        "demo",
        help="run every tool on both protocol eras against a built-in stand-in host and show the exchange",
        description=f"Call every tool ({tools}, list_models) on both protocol eras against a built-in "
        "stand-in host, printing what the caller sent, the sampling request the host received, its "
        "answer and the tool result; then one call per product routed by its model to built-in stand-in "
        "providers (OpenAI-compatible, Anthropic, Gemini). Needs no host, no key and no network.",
    )
    export_tools.add_parser(commands)
    callers_command.add_parser(commands)
    transcripts.add_replay_command(commands)
    fuzz.add_parser(commands)
    _COMMANDS.clear()
    _COMMANDS.update(commands.choices)
    return parser


# What the last parser built holds, for `did you mean` and the HTTP-only check.
_COMMANDS: dict[str, argparse.ArgumentParser] = {}
_HTTP_ONLY: list[argparse.Action] = []


def _options_of(parser: argparse.ArgumentParser) -> list[str]:
    # argparse keeps a parser's option strings only in this attribute; it has been there since 3.2.
    return [name for name in parser._option_string_actions if name.startswith("--")]


def _did_you_mean(given: list[str], command: str | None, extras: list[str]) -> str:
    """`unrecognized arguments: X`, with the likely fix: a close spelling of an option of this
    command, or the command whose option it is (`agent-as-model --http` -> `serve --http`)."""
    from difflib import get_close_matches

    message = f"unrecognized arguments: {' '.join(extras)}"
    flag = next((extra.split("=", 1)[0] for extra in extras if extra.startswith("--")), None)
    if flag is None:
        return message
    here = _COMMANDS.get(command) if command else None
    own = _options_of(here) if here is not None else ["--version", "--help"]
    close = get_close_matches(flag, own, n=1, cutoff=0.7)
    if close:
        fixed = [
            close[0] + extra[len(flag) :] if extra.split("=", 1)[0] == flag else extra for extra in given
        ]
        return f"{message}; did you mean `{shlex.join([PROG, *fixed])}`?"
    for name, other in _COMMANDS.items():
        if name == command:
            continue
        found = get_close_matches(flag, _options_of(other), n=1, cutoff=0.8)
        if found:
            # Bare, everything given was meant for that command; after another command, only the flag.
            rest = [found[0] + a[len(flag) :] if a.split("=", 1)[0] == flag else a for a in given]
            rest = rest if command is None else [found[0]]
            where = f"not of `{command}`" if command else "not of the bare command"
            return (
                f"{message}: {found[0]} is an option of `{name}`, {where}; "
                f"did you mean `{shlex.join([PROG, name, *rest])}`?"
            )
    return message


def _check_command(given: list[str]) -> None:
    """Before argparse sees them: a subcommand's flags given before any command (argparse would
    take their value for the command: `invalid choice: '9000'`), and an unknown command, each
    said with the likely fix (argparse lists the commands and suggests none)."""
    from difflib import get_close_matches

    first = given[0]
    if first.startswith("-"):
        head = list(takewhile(lambda arg: arg not in _COMMANDS, given))
        if any(arg.startswith("--") and arg.split("=", 1)[0] not in ("--help", "--version") for arg in head):
            usage_error(_did_you_mean(given, None, head))
        return
    if first in _COMMANDS:
        return
    names = list(_COMMANDS)
    close = get_close_matches(first, names, n=1, cutoff=0.6)
    hint = f"; did you mean `{PROG} {close[0]}`?" if close else ""
    usage_error(f"invalid choice: {first!r} (commands: {', '.join(names)}){hint}")


def main(argv: Sequence[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else list(argv)
    if not given:
        if not os.environ.get(CONFIG_ENV):
            return _serve_as_hosts_run_it()
        given = ["serve"]  # a configuration file to read: served as `serve` reads it
    from agent_as_model.commands import http_options
    from agent_as_model.commands.transcripts import command as transcripts

    parser = _parser()
    _check_command(given)
    args, extras = parser.parse_known_args(given)
    if extras:
        usage_error(_did_you_mean(given, args.command, extras))
    if args.command == "serve":
        try:
            _read_config(parser, args, given)
        except StartupError as err:
            return _startup_failed(err)
    if args.command == "serve" and not args.http:
        http_options.refuse_http_only(parser, given, _HTTP_ONLY)
    transcripts.check_record_options(parser, args)
    if getattr(args, "record", None):
        from agent_as_model.commands.store_options import store_configured

        if store_configured(args):
            # A recording replays against a fresh server: the store's state (the ids it minted,
            # the chains it read) is not in it, so the replay could not reproduce the calls.
            parser.error(
                "--record cannot be used with --store (or AGENT_AS_MODEL_STORE): a replay runs "
                "without the store, so the calls that read it could not be reproduced"
            )
    try:
        _configure_logging()
        if args.command in (None, "serve"):
            from agent_as_model.server import state_security

            state_security()  # a bad sealing key is found now, not on the first 2026-07-28 call
        from agent_as_model.commands.callers_options import named_callers

        named = named_callers(getattr(args, "config_file", None))
        http_settings = http_options.settings_from_args(parser, args, named_callers=named)
        return _run(parser, args, http_settings)
    except StartupError as err:
        return _startup_failed(err, getattr(args, "config_file", None))


def _read_config(parser: argparse.ArgumentParser, args: argparse.Namespace, given: list[str]) -> None:
    """`serve --config FILE` (or AGENT_AS_MODEL_CONFIG): the file's settings set on `args` where the
    command line and the environment say nothing; `args.config_file` holds the file, read (None:
    no file)."""
    from agent_as_model.commands import config_file

    args.config_file = None
    path = config_file.config_path(args)
    if path is None:
        return
    serve = _COMMANDS["serve"]
    config = config_file.load(path, serve)
    keyed = config_file.keyed_actions(serve).values()
    config_file.apply(config, args, config_file.named_on_command_line(parser, given, keyed))
    config_file.refuse_http_only(config, args, _HTTP_ONLY)
    from agent_as_model.commands.callers_options import refuse_without_http

    refuse_without_http(config, args)
    args.config_file = config
    setattr(parser, _CONFIG_READ, config)  # what `Parser.error` names a refused value's line from


def _serve_as_hosts_run_it() -> int:
    """No command and no flag: `serve` over stdio with every default (see the module docstring)."""
    from agent_as_model.commands.route_options import gateway_settings
    from agent_as_model.commands.store_options import store_settings
    from agent_as_model.engine import offload

    offload.share_the_gil()
    try:
        _configure_logging()
        settings = gateway_settings(_NO_PARSER, SimpleNamespace())  # None: no provider, no key read
        store = store_settings(_NO_PARSER, SimpleNamespace())  # None: no store, nothing kept
    except StartupError as err:
        return _startup_failed(err)
    try:
        limits = environment_limits()
    except ValueError as err:  # a bad AGENT_AS_MODEL_RESULT or AGENT_AS_MODEL_HOST_WITHOUT_TOOLS
        return _startup_failed(err)
    if _TELEMETRY_ENV.intersection(os.environ):  # turned on by its variables (docs/telemetry.md)
        from agent_as_model.commands.telemetry_options import telemetry_settings

        try:
            _configure_telemetry(telemetry_settings(_NO_PARSER, SimpleNamespace()))
        except StartupError as err:
            return _startup_failed(err)
    return _serve(settings, limits, store)  # builds the server at once: a bad key is found there


def _run(
    parser: argparse.ArgumentParser, args: argparse.Namespace, http_settings: HttpSettings | None
) -> int:
    from agent_as_model.commands import callers_command, export_tools, fuzz
    from agent_as_model.commands.limit_options import limits_of
    from agent_as_model.commands.route_options import gateway_settings
    from agent_as_model.commands.store_options import store_settings
    from agent_as_model.commands.telemetry_options import telemetry_settings
    from agent_as_model.commands.transcripts import command as transcripts
    from agent_as_model.engine import offload

    if args.command == export_tools.COMMAND:
        return export_tools.run(args)
    if args.command == "demo":
        from agent_as_model.commands.demo import run_demo

        return anyio.run(run_demo)
    if args.command == "replay":
        return transcripts.run_replay(args)
    if args.command == fuzz.COMMAND:
        return fuzz.run(args)
    if args.command == callers_command.COMMAND:
        return callers_command.run(args, _COMMANDS["serve"])
    settings = gateway_settings(parser, args)  # None (the default): no provider, no key read
    offload.share_the_gil()
    store = store_settings(parser, args)  # None (the default): the server keeps nothing
    # Off by default; the transport that serves configures it (each HTTP worker its own).
    observe = telemetry_settings(parser, args, http_settings is not None and http_settings.metrics)
    if http_settings is not None:
        if settings is not None:
            from agent_as_model.adapters.backends import ProviderUnavailable, connect_pool

            try:  # each SDK and its key, checked here: in a worker it would be a traceback
                connect_pool(settings)
            except ProviderUnavailable as err:
                return _startup_failed(err, getattr(args, "config_file", None))
        if store is not None:  # a store that cannot be opened is found here, not in each worker
            from agent_as_model.commands.store_options import keep_state_key
            from agent_as_model.server import open_store

            try:
                keep_state_key(store)  # before serve makes a key for its workers: it dies with them
            except StartupError as err:  # a Redis store without the state key
                return _startup_failed(err, getattr(args, "config_file", None))
            anyio.run(open_store(store).aclose)
        from agent_as_model.commands.callers_options import callers_settings, checked
        from agent_as_model.transports.http import workers

        callers = callers_settings(
            getattr(args, "config_file", None), None if store is None else store.url, http_settings.auth_token
        )
        if callers is not None:
            callers = checked(callers, http_settings.workers)
        return workers.serve(http_settings, settings, limits_of(args), store, observe, callers)
    _configure_telemetry(observe)
    if getattr(args, "record", None):
        return transcripts.run_serve_recorded(args, settings, limits_of(args))
    return _serve(settings, limits_of(args), store, getattr(args, "config_file", None))


def _serve(
    settings: Gateway | None,
    limits: Limits,
    store: StoreSettings | None = None,
    config: ConfigFile | None = None,
) -> int:
    """Serve MCP over stdio until the host closes it."""
    from agent_as_model.server import build_server, open_store
    from agent_as_model.transports import stdio

    try:
        if store is not None:
            from agent_as_model.commands.store_options import keep_state_key

            keep_state_key(store)
        kept = None if store is None else open_store(store)
        server = build_server(gateway=settings, limits=limits, store=kept)
    except StartupError as err:  # a bad sealing key, or a provider that cannot be set up
        return _startup_failed(err, config)
    if os.isatty(0):  # a person at a terminal, not a host: say what this is, or it looks hung
        sys.stderr.write(STDIO_BANNER)
        sys.stderr.flush()
    anyio.run(partial(stdio.serve_until_closed, server, max_frame=limits.max_frame, store=kept))
    return 0


# The variables that turn telemetry on for a bare invocation (`commands/telemetry_options.py`).
_TELEMETRY_ENV = frozenset({"AGENT_AS_MODEL_OTEL", "AGENT_AS_MODEL_OTEL_CONTENT"})


def _configure_telemetry(observe: TelemetrySettings) -> None:
    """The OpenTelemetry SDK, before the server is built (it reports to what is configured then)."""
    if observe.on:
        from agent_as_model.telemetry import setup

        setup.configure(observe)


def _configure_logging() -> None:
    # stdout carries protocol frames only; every log line goes to stderr.
    level = os.environ.get(LOG_LEVEL_ENV, "WARNING").upper()
    if not isinstance(logging.getLevelName(level), int):
        raise StartupError(f"{LOG_LEVEL_ENV}: unknown log level {level!r} (use {', '.join(_LEVELS)})")
    logging.basicConfig(
        stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
