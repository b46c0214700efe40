"""Start-up pays only for what it uses (what is imported, not how long it takes)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from agent_as_model import __version__
from tests.helpers import ROOT
from tests.scripted_host import ERAS


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
    serving += "import agent_as_model.transports.stdio\nfrom agent_as_model.server import build_server\n"
    serving += "build_server()"
    later = (
        "argparse",
        "agent_as_model.commands.http_options",
        "agent_as_model.transports.http",
        "agent_as_model.commands.fuzz",
    )
    assert _loaded_after(serving, *later) == [False] * len(later)


_FIRST_CALL = """
import gc, sys
import anyio
from agent_as_model import transports
from agent_as_model.commands import cli, provider_options
from agent_as_model.transports import stdio
from agent_as_model.server import build_server
from tests.scripted_host import ScriptedHost, connect

CALL_PATH = ("agent_as_model.calls", "agent_as_model.engine.driver", "agent_as_model.states.call",
             "agent_as_model.adapters.backends")

def text(result):
    return result.content[0].text  # the completion's text (the default result form)

def loaded():
    return [m in sys.modules for m in CALL_PATH]

async def main():
    server = build_server()
    transports.freeze_heap()  # as serving does, once the server is built
    print(loaded())
    host = ScriptedHost("the answer")
    async with connect(ERA, host, server=server) as client:
        listed = await client.list_tools()
        print(loaded(), len(listed.tools) > 5)
        frozen = gc.get_freeze_count()
        args = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        done = await client.call_tool("chat_complete", args)
        print(loaded(), gc.get_freeze_count() > frozen, text(done))
        again = await client.call_tool("chat_complete", args)
        print(text(again), host.asked)

anyio.run(main)
"""


@pytest.mark.parametrize("era", ERAS)
def test_the_call_path_is_imported_on_the_first_call(era: str) -> None:
    # A host waits for start-up to list the tools: the engine, the states and the backends are
    # imported by the first tools/call (agent_as_model/calls.py), and what they made is frozen with
    # the start-up heap; the calls are answered as before, the second one too. (The store's modules
    # are not among them: `serve` loads them to read its settings, configured or not.)
    probe = f"ERA = {era!r}\n" + _FIRST_CALL
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    lines = done.stdout.splitlines()
    none, every = str([False] * 4), str([True] * 4)
    assert lines == [none, f"{none} True", f"{every} True the answer", "the answer 2"], done.stderr


# Literal aliases that exist only for the type checker (building one costs start-up time), each
# beside the tuple that spells its values at run time: (module, alias, tuple).
_SPELLED = [
    ("agent_as_model.neutral", "BackendChoice", "BACKEND_CHOICES"),
    ("agent_as_model.neutral", "ResultShape", "RESULT_SHAPES"),
    ("agent_as_model.adapters.provider_settings", "UsePolicy", "POLICIES"),
]


def _literal_values(module: str, alias: str) -> tuple[object, ...]:
    import ast
    import importlib.util

    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    for node in ast.walk(ast.parse(Path(spec.origin).read_text())):
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [alias]:
            value = node.value
            assert isinstance(value, ast.Subscript) and getattr(value.value, "id", None) == "Literal"
            elements = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
            return tuple(ast.literal_eval(e) for e in elements)
    raise AssertionError(f"{module} does not define {alias}")


@pytest.mark.parametrize(("module", "alias", "spelled"), _SPELLED)
def test_a_type_checking_literal_has_the_values_its_run_time_tuple_spells(
    module: str, alias: str, spelled: str
) -> None:
    import importlib

    assert _literal_values(module, alias) == getattr(importlib.import_module(module), spelled)


def test_the_limits_floor_spells_the_result_shapes_as_neutral_does() -> None:
    from agent_as_model import limits, neutral

    assert limits._RESULTS == neutral.RESULT_SHAPES
