"""`agent-as-model export-tools` over real stdio against tests/export_target_server.py, for every
format, plus the pure conversion and the failures (one line on stderr, exit 1, no traceback).

The subprocesses run concurrently (each export spawns two Python processes: most of the cost);
the failures that need no server run in-process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_types import Tool

from agent_as_model.adapters.dialects import tool_shapes
from agent_as_model.adapters.tools.describe import DESCRIPTION_MAX
from agent_as_model.adapters.tools.export import export_tools
from agent_as_model.commands.cli import _parser, main
from agent_as_model.errors import CallError
from tests.export_target_server import LONG_DESCRIPTION, TOOLS
from tests.helpers import COMMAND

pytestmark = pytest.mark.stdio

TARGET = Path(__file__).with_name("export_target_server.py")
SERVER = f"{sys.executable} {TARGET}"
FORMATS = ("chat", "messages", "responses", "gemini")
RENAMED = {"weather_get_b8affdae": "weather.get", "search_docs_0017ff16": "search docs"}
ADD_SCHEMA = TOOLS[0].input_schema
WEATHER_SCHEMA = TOOLS[1].input_schema


def export(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(COMMAND), "export-tools", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


NOT_MCP = f"{sys.executable} -c \"print('hello')\""


@pytest.fixture(scope="module")
def exported() -> Iterator[dict[str, subprocess.CompletedProcess[str]]]:
    running = {fmt: export("--server", SERVER, "--format", fmt) for fmt in FORMATS}
    running["not mcp"] = export("--server", NOT_MCP)
    done = {}
    for fmt, process in running.items():
        out, err = process.communicate(timeout=300)
        done[fmt] = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    yield done


def document(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def shortened(description: str) -> None:
    assert len(description) <= DESCRIPTION_MAX and description.endswith("…")
    assert LONG_DESCRIPTION.startswith(description[:-1].rstrip())


def test_chat_format_is_the_default() -> None:
    assert _parser().parse_args(["export-tools", "--server", "x"]).format == "chat"


def test_chat_format(exported: dict[str, subprocess.CompletedProcess[str]]) -> None:
    out = document(exported["chat"])
    assert out["format"] == "chat"
    assert out["name_map"] == RENAMED
    add, weather, search = out["tools"]
    assert add == {
        "type": "function",
        "function": {"name": "add", "description": "Add two integers.", "parameters": ADD_SCHEMA},
    }
    assert weather == {
        "type": "function",
        "function": {
            "name": "weather_get_b8affdae",
            "description": "The weather in a city.",
            "parameters": WEATHER_SCHEMA,
        },
    }
    assert search["function"]["name"] == "search_docs_0017ff16"
    shortened(search["function"]["description"])


def test_messages_format(exported: dict[str, subprocess.CompletedProcess[str]]) -> None:
    out = document(exported["messages"])
    assert out["format"] == "messages" and out["name_map"] == RENAMED
    add, weather, search = out["tools"]
    assert add == {"name": "add", "description": "Add two integers.", "input_schema": ADD_SCHEMA}
    assert weather["name"] == "weather_get_b8affdae" and weather["input_schema"] == WEATHER_SCHEMA
    assert search["input_schema"] == {"type": "object"}
    shortened(search["description"])


def test_responses_format_turns_strict_off(exported: dict[str, subprocess.CompletedProcess[str]]) -> None:
    out = document(exported["responses"])
    assert out["format"] == "responses" and out["name_map"] == RENAMED
    add, weather, search = out["tools"]
    assert add == {
        "type": "function",
        "name": "add",
        "description": "Add two integers.",
        "parameters": ADD_SCHEMA,
        "strict": False,
    }
    assert weather["name"] == "weather_get_b8affdae"
    shortened(search["description"])


def test_gemini_format_is_one_tool_of_function_declarations(
    exported: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    from google.genai import types

    out = document(exported["gemini"])
    assert out["format"] == "gemini" and out["name_map"] == RENAMED
    (tool,) = out["tools"]  # one Tool holding every declaration, as the SDK builds it
    add, weather, search = tool["functionDeclarations"]
    assert add == {"name": "add", "description": "Add two integers.", "parametersJsonSchema": ADD_SCHEMA}
    assert weather["name"] == "weather_get_b8affdae"
    shortened(search["description"])
    parsed = types.Tool.model_validate(tool)  # what the SDK takes as a tool, unchanged
    assert [d.name for d in parsed.function_declarations or []] == [
        "add",
        "weather_get_b8affdae",
        search["name"],
    ]
    assert parsed.function_declarations[0].parameters_json_schema == ADD_SCHEMA  # type: ignore[index]


def test_every_page_of_the_listing_is_exported(exported: dict[str, subprocess.CompletedProcess[str]]) -> None:
    # The target lists two tools per page: the third is only on the second page.
    for fmt in FORMATS:
        tools = document(exported[fmt])["tools"]
        listed = tools[0]["functionDeclarations"] if fmt == "gemini" else tools  # one Tool holds them all
        assert len(listed) == len(TOOLS)


def test_exported_tools_read_back_as_the_same_definitions(
    exported: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    from agent_as_model.adapters.tools.definitions import read_tools

    for fmt in FORMATS:
        specs = read_tools(document(exported[fmt])["tools"], "tools", tool_shapes()[fmt])
        assert [RENAMED.get(s.name, s.name) for s in specs] == [t.name for t in TOOLS]


def test_a_command_that_is_not_an_mcp_server_fails_in_one_line(
    exported: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    done = exported["not mcp"]
    assert done.returncode == 1 and done.stdout == ""
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"agent-as-model export-tools: {NOT_MCP!r} closed the connection before listing")


@pytest.mark.parametrize(
    ("server", "message"),
    [
        (
            "agent-as-model-no-such-command",
            "cannot start 'agent-as-model-no-such-command': command not found",
        ),
        ("'unclosed", '--server: cannot split "\'unclosed": No closing quotation'),
        ("", "--server: the command is empty"),
    ],
)
def test_a_command_that_cannot_start_fails_in_one_line(
    server: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export-tools", "--server", server]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err == f"agent-as-model export-tools: {message}\n"


def test_an_unknown_format_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["export-tools", "--server", SERVER, "--format", "bard"])
    assert exited.value.code == 2 and "invalid choice: 'bard'" in capsys.readouterr().err


def test_two_tools_mapping_to_one_name_are_refused() -> None:
    import hashlib

    clash = "a_b_" + hashlib.sha256(b"a.b").hexdigest()[:8]
    tools = [
        Tool(name="a.b", input_schema={"type": "object"}),
        Tool(name=clash, input_schema={"type": "object"}),
    ]
    with pytest.raises(CallError) as caught:
        export_tools(tools, tool_shapes()["chat"])
    assert caught.value.path == "tools[1].name"


def test_a_tool_listed_twice_is_refused() -> None:
    tools = [Tool(name="a", input_schema={"type": "object"})] * 2
    with pytest.raises(CallError, match="lists tool 'a' twice"):
        export_tools(tools, tool_shapes()["messages"])


def test_a_tool_without_description_has_no_description_key() -> None:
    out = export_tools([Tool(name="a", input_schema={"type": "object"})], tool_shapes()["responses"])
    assert out == {
        "format": "responses",
        "tools": [{"type": "function", "name": "a", "parameters": {"type": "object"}, "strict": False}],
        "name_map": {},
    }
