"""What many test files share: the installed command and the ways they start it, reading a tool
result as a caller does, and the tools the server lists, taken from the registry (so a dialect
registered later is counted without an edit here). Fixtures live in conftest.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, TextContent

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.writing import Writing
from agent_as_model.adapters.tools import models

ROOT = Path(__file__).resolve().parent.parent
# The console script of the environment running the tests (`make install` puts this checkout there).
BIN = Path(sys.executable).parent
COMMAND = BIN / "agent-as-model"
# A guard against a hang, never a budget: a command that works ends long before.
GUARD = 300


def server_params(*args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """The installed command as a stdio server for the SDK `Client`: bare, as hosts run it, or
    `serve` and its flags. `env` None: the SDK's own default environment for the child."""
    return StdioServerParameters(command=str(COMMAND), args=list(args), env=env)


def command_environment(**extra: str) -> dict[str, str]:
    """This environment without the server's own settings (`AGENT_AS_MODEL_*` would change what
    a command does), this environment's bin first on PATH (so a command that starts
    `agent-as-model` by name starts this one), and `extra` over it."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_AS_MODEL_")}
    return {**kept, "PATH": f"{BIN}{os.pathsep}{kept.get('PATH', '')}", **extra}


def run_command(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """The installed command run to its end, its output kept as text. stdin is closed: a server
    that did start reads its end and stops by itself."""
    return subprocess.run(
        [str(COMMAND), *args],
        env=command_environment(**env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
    )


# A legacy host's handshake as raw JSON-RPC, for the tests that speak to a server in bytes: the
# `initialize` request, then this notification.
LEGACY_VERSION = "2025-11-25"
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def initialize_request(
    capabilities: dict[str, Any] | None = None,
    *,
    request_id: int | str = 1,
    client: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A legacy host's `initialize` request, declaring `capabilities` (none by default)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": capabilities or {},
            "clientInfo": client or {"name": "raw-host", "version": "1"},
        },
    }


def text_of(result: CallToolResult) -> str:
    """The text of a tool result, which is always one text block."""
    assert len(result.content) == 1, result.content
    block = result.content[0]
    assert isinstance(block, TextContent), block
    return block.text


def object_of(result: CallToolResult) -> dict[str, Any]:
    """The product's object of a successful `result: "object"` call: its JSON text, the same as
    its structuredContent."""
    assert not result.is_error, text_of(result)
    obj: dict[str, Any] = json.loads(text_of(result))
    assert obj == result.structured_content
    return obj


def listed_tools() -> list[str]:
    """The tools the server lists, in order: every registered dialect, then list_models."""
    return [*DIALECTS, models.NAME]


def writing_of(tool: str) -> Writing:
    """How a caller writes `tool`'s requests and reads its results (its dialect's `writing`)."""
    declared = DIALECTS[tool].writing
    assert declared is not None, f"{tool} declares no writing"
    return declared
