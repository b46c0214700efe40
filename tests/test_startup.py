"""Issue 12 item 4: start-up pays only for what it uses (what is imported, not how long it takes)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from agent_as_model import __version__


def _loaded_after(code: str, *modules: str) -> list[bool]:
    probe = f"import sys\n{code}\nprint(*[m in sys.modules for m in {list(modules)!r}])"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return [word == "True" for word in done.stdout.split()]


def test_the_installed_metadata_has_the_version_the_package_says() -> None:
    assert version("agent-as-model") == __version__


def test_the_command_line_reads_its_version_without_importlib_metadata() -> None:
    assert _loaded_after("import agent_as_model.commands.cli", "importlib.metadata") == [False]


def test_jsonschema_is_imported_when_a_schema_is_first_checked() -> None:
    assert _loaded_after("import agent_as_model.server", "jsonschema", "referencing") == [False, False]
    checked = "import agent_as_model.server\nfrom agent_as_model import schemas\n"
    checked += "schemas.check_object_schema({'type': 'object'}, 'output_schema')"
    assert _loaded_after(checked, "jsonschema", "referencing") == [True, True]


def test_no_transitions_machine_is_built_at_import() -> None:
    # transitions checks the table in the tests and in `make docs` (engine/checked.py); serving
    # fires through the lookup machine.py derives from the table, so it does not even load it.
    assert _loaded_after("import agent_as_model.server", "transitions") == [False]
    checked = "import agent_as_model.server\nfrom agent_as_model.engine import checked\nchecked.check()"
    assert _loaded_after(checked, "transitions") == [True]


def test_the_pattern_engine_is_imported_when_a_pattern_is_first_checked() -> None:
    assert _loaded_after("import agent_as_model.server", "regex") == [False]
    checked = "import agent_as_model.server\nfrom agent_as_model import schemas\n"
    checked += "schemas.check_object_schema({'type': 'object', 'properties': {'a': {'pattern': '^a$'}}}, 'o')"
    assert _loaded_after(checked, "regex") == [True]


def test_what_a_host_runs_builds_no_parser() -> None:
    # `agent-as-model` with no arguments serves at once: argparse and the subcommands' modules
    # are loaded only when arguments are given (agent_as_model/commands/cli.py).
    serving = "import agent_as_model.commands.cli, agent_as_model.commands.provider_options\n"
    serving += "import agent_as_model.commands.stdio\nfrom agent_as_model.server import build_server\n"
    serving += "build_server()"
    later = ("argparse", "agent_as_model.commands.http", "agent_as_model.commands.fuzz")
    assert _loaded_after(serving, *later) == [False, False, False]
