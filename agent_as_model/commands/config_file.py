"""`serve --config FILE`: every setting of `serve` in one TOML file, with named providers and routes,
and callers with their limits.

The file has sections. `[serve]` holds `serve`'s flags, each under its own name without the
leading dashes (`schema-timeout = 0.5`, `http = true`, `allowed-host = ["a.example"]`): its keys
are read from the parser itself, so a flag added to `serve` has its key with nothing more, and a
value is checked by the flag's own type and choices. A flag given on the command line wins over
the file, and so does a flag's `AGENT_AS_MODEL_*` variable when it is set (`ENVIRONMENT`).

Every other section is read by its reader, registered in `SECTIONS` by one line: a name and the
import path of a function that takes the `Section` and returns what it read (`[providers]` and
`[routes]` are `gateway_options`', `[limits]` and `[callers]` `callers_options`'). What a reader
returned is `ConfigFile.sections[name]`.

An unknown section or key, or a bad value, is a start-up error naming the file, the line and the
key (`ConfigError`), before anything is served. So is a value of the file that a flag's reader
refuses after the parse, though its message names the flag (`--port must be ...`): `located` finds
the key the file set that flag with. tomllib keeps no positions: `toml_lines` finds each key's line
in the text.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from difflib import get_close_matches
from typing import Any

from agent_as_model.commands import (
    CONFIG_ENV,
    http_options,
    provider_options,
    route_options,
    store_options,
    telemetry_options,
)
from agent_as_model.commands.toml_lines import KeyPath, key_lines, line_of
from agent_as_model.errors import StartupError
from agent_as_model.limits import HOST_WITHOUT_TOOLS_ENV, RESULT_ENV
from agent_as_model.records import Record
from agent_as_model.transports.http.settings import AUTH_TOKEN_ENV

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with tomli, tomllib's own origin
    import tomli as tomllib

SERVE = "serve"
# The sections beside [serve]: name -> "module:function", the function reading a `Section`. One line
# adds a section; the readers run in this order (a later one may read an earlier one's reading).
SECTIONS: dict[str, str] = {
    "providers": "agent_as_model.commands.gateway_options:read_providers",
    "routes": "agent_as_model.commands.gateway_options:read_routes",
    "limits": "agent_as_model.commands.callers_options:read_limits",
    "callers": "agent_as_model.commands.callers_options:read_callers",
}
# Flags that are no setting of the file: the file itself, and the help.
_NOT_KEYS = frozenset({"config", "help"})


class ConfigError(StartupError):
    """A configuration file that cannot be served with: its text names the file, line and key."""


class Setting(Record):
    """A `[serve]` key, read: the flag's destination takes `value` unless the command line or the
    flag's variable says otherwise."""

    key: str
    value: Any


class ConfigFile:
    """A read configuration file: its `[serve]` settings by destination, and each other section's
    reading by name."""

    def __init__(self, path: str, text: str, data: dict[str, Any]) -> None:
        self.path = path
        self.data = data
        self.lines = key_lines(text)
        self.serve: dict[str, Setting] = {}
        self.sections: dict[str, Any] = {}
        # Each [serve] key by its flag's long options, and the keys whose value `apply` set: a check
        # made after the parse names a flag, and finds here whether the value came from the file.
        self.flags: dict[str, str] = {}
        self.applied: set[str] = set()

    def error(self, path: KeyPath, message: str) -> ConfigError:
        """The error of the key at `path` (section first), with the line it is written on."""
        line = line_of(self.lines, path)
        where = self.path if line is None else f"{self.path}:{line}"
        return ConfigError(f"{where}: {dotted(path)}: {message}")


class Section:
    """One table of the file, as its reader gets it: its value, and its keys' errors."""

    def __init__(self, config: ConfigFile, name: str, value: dict[str, Any]) -> None:
        self.config = config
        self.name = name
        self.value = value

    def error(self, *keys: str | int, message: str) -> ConfigError:
        return self.config.error((self.name, *keys), message)

    def reading(self, name: str) -> Any:
        """What the reader of section `name` returned (None: the file has no such section, or its
        reader runs later)."""
        return self.config.sections.get(name)


SectionReader = Callable[[Section], Any]


def dotted(path: KeyPath) -> str:
    """A key path as TOML would write it (a part that is no bare key, quoted)."""
    parts: list[str] = []
    for part in path:
        if isinstance(part, int):
            parts[-1] += f"[{part}]"
        elif part and all(c.isalnum() or c in "-_" for c in part) and part.isascii():
            parts.append(part)
        else:
            parts.append('"' + part.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return ".".join(parts)


def load(path: str, serve: argparse.ArgumentParser) -> ConfigFile:
    """Read the file at `path` for the `serve` parser: its [serve] keys and its other sections."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the configuration file ({err.strerror or err})") from None
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a TOML file (it is not UTF-8 text)") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    config = ConfigFile(path, text, data)
    known = [SERVE, *SECTIONS]
    for name, value in data.items():
        if name not in known:
            close = get_close_matches(name, known, n=1)
            hint = f"; did you mean [{close[0]}]?" if close else ""
            what = "section" if isinstance(value, dict) else "key outside any section"
            raise config.error((name,), f"unknown {what} (sections: {', '.join(known)}){hint}")
        if not isinstance(value, dict):
            raise config.error((name,), f"expected a table, [{name}]")
    if SERVE in data:
        config.serve = _read_serve(Section(config, SERVE, data[SERVE]), serve)
    for name, target in SECTIONS.items():
        if name in data:
            config.sections[name] = reader(target)(Section(config, name, data[name]))
    return config


def reader(target: str) -> SectionReader:
    module, _, function = target.partition(":")
    read: SectionReader = getattr(importlib.import_module(module), function)
    return read


def keyed_actions(serve: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """`serve`'s flags by their key in the file: the long option without its dashes."""
    keyed = {}
    for action in serve._actions:  # argparse keeps a parser's actions only here, since 3.2
        if action.dest in _NOT_KEYS:
            continue
        for option in action.option_strings:
            if option.startswith("--"):
                keyed[option[2:]] = action
                break
    return keyed


def _read_serve(section: Section, serve: argparse.ArgumentParser) -> dict[str, Setting]:
    keyed = keyed_actions(serve)
    read: dict[str, Setting] = {}
    for key, value in section.value.items():
        if key == "config":
            raise section.error(key, message="a configuration file cannot name another")
        action = keyed.get(key)
        if action is None:
            close = get_close_matches(key, list(keyed), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise section.error(
                key, message=f"unknown key ([serve] takes serve's flags without the leading --){hint}"
            )
        read[action.dest] = Setting(key, _flag_value(section, key, action, value))
        for option in action.option_strings:
            if option.startswith("--"):
                section.config.flags[option] = key
    return read


def _flag_value(section: Section, key: str, action: argparse.Action, value: Any) -> Any:
    """`value` as the flag would have made it from the command line, checked by its own type and
    choices."""
    if action.nargs == 0:  # a switch (store_true)
        if type(value) is not bool:
            raise section.error(key, message=f"expected true or false, got {_shown(value)}")
        return value if action.const is True else not value
    if isinstance(action, argparse._AppendAction):
        values = [value] if not isinstance(value, list) else value
        return [_one(section, key, action, item) for item in values]
    return _one(section, key, action, value)


def _one(section: Section, key: str, action: argparse.Action, value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise section.error(key, message=f"expected {_wanted(action)}, got {_shown(value)}")
    text = value if isinstance(value, str) else str(value)
    converted: Any = text
    kind = action.type
    if callable(kind):
        try:
            converted = kind(text)
        except argparse.ArgumentTypeError as err:
            raise section.error(key, message=str(err)) from None
        except (TypeError, ValueError):
            raise section.error(key, message=f"expected {_wanted(action)}, got {_shown(value)}") from None
    if action.choices is not None and converted not in action.choices:
        choices = ", ".join(str(c) for c in action.choices)
        raise section.error(key, message=f"expected one of {choices}, got {_shown(value)}")
    return converted


def _wanted(action: argparse.Action) -> str:
    if action.type is int:
        return "a whole number"
    if action.type is float:
        return "a number"
    if action.choices is not None:
        return "one of " + ", ".join(str(c) for c in action.choices)
    return "a string" if action.type in (None, str) else "a string or a number"


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return repr(value)


def environment() -> dict[str, str]:
    """Each `serve` flag's environment variable, by the flag's destination: set, it wins over the
    file as it wins over the flag's default."""
    return {
        **provider_options.ENV,
        **route_options.ENV,
        **store_options.ENV,
        **telemetry_options.ENV,
        **{hold.dest: hold.env for hold in http_options.HOLDS},
        "auth_token": AUTH_TOKEN_ENV,
        "result": RESULT_ENV,
        "host_without_tools": HOST_WITHOUT_TOOLS_ENV,
    }


def named_on_command_line(
    parser: argparse.ArgumentParser, given: list[str], actions: Iterable[argparse.Action]
) -> set[str]:
    """The destinations of `actions` that the command line `given` names, however spelt (an
    abbreviation, `--flag=value`) and whatever the value: parsed again with their defaults
    suppressed, a destination left in the namespace was given."""
    saved = [(action, action.default) for action in actions]
    try:
        for action, _ in saved:
            action.default = argparse.SUPPRESS
        named = vars(parser.parse_known_args(given)[0])
    finally:
        for action, default in saved:
            action.default = default
    return {action.dest for action, _ in saved if action.dest in named}


def apply(
    config: ConfigFile, args: argparse.Namespace, given: set[str], env: Mapping[str, str] | None = None
) -> None:
    """Set each [serve] setting on `args`, unless its flag was `given` on the command line or its
    environment variable is set (then the flag's reader finds that)."""
    env = os.environ if env is None else env
    variables = environment()
    for dest, setting in config.serve.items():
        variable = variables.get(dest)
        if dest in given or (variable is not None and env.get(variable)):
            continue
        setattr(args, dest, setting.value)
        config.applied.add(setting.key)


# A flag as a check's message names it: `--port`, `--store-ttl` (never followed by a letter, digit or
# dash, so `--provider` is not found in `--provider-model`).
_FLAG = re.compile(r"--[a-z][a-z0-9-]*(?![a-z0-9-])")


def located(config: ConfigFile | None, message: str) -> str | None:
    """A check's message made after the parse (it names the flags it is about, `--port must be ...`),
    as the file's other errors say it when a value it is about came from the file: the file, the
    line and the key of the first such flag it names. None when no value it names came from the
    file (the command line or a variable gave it, and the message stays as it is)."""
    if config is None:
        return None
    for match in _FLAG.finditer(message):
        key = config.flags.get(match.group())
        if key is None or key not in config.applied:
            continue
        reason = message
        if match.start() == 0:  # the message is about this flag: its reason alone follows the key
            rest = message[match.end() :]
            if rest.startswith(": "):
                reason = rest[2:]
            elif rest.startswith(" must "):
                reason = rest[1:]
        return str(config.error((SERVE, key), reason))
    return None


def refuse_http_only(
    config: ConfigFile, args: argparse.Namespace, http_only: Iterable[argparse.Action]
) -> None:
    """An HTTP setting in the file of a server that serves stdio would be ignored: refuse it, as
    the command line refuses the flag."""
    if getattr(args, "http", False):
        return
    for action in http_only:
        setting = config.serve.get(action.dest)
        if setting is not None:
            raise config.error(
                (SERVE, setting.key),
                "is for serving HTTP and would be ignored over stdio: set http = true (or give --http), "
                "or leave it out to serve stdio",
            )


def add_config_option(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--config",
        metavar="FILE.toml",
        help="read serve's settings, named providers and routes, and callers and their limits from a TOML "
        "file (docs/config.example.toml, docs/deploy.md); "
        f"a flag given here, or its AGENT_AS_MODEL_* variable, wins over the file ({CONFIG_ENV})",
    )


def config_path(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    return getattr(args, "config", None) or env.get(CONFIG_ENV) or None
