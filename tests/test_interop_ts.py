"""Interoperability with an independent client: the TypeScript MCP SDK (@modelcontextprotocol/client).

tests/interop/host.mjs spawns the installed `agent-as-model` over stdio with the TS SDK's
StdioClientTransport, declares sampling (with tools), answers every sampling/createMessage with a
fixed text (or tool_use blocks when it is offered tools), calls `generate` and `chat_complete`
(plain, a two-call tool loop, structured output), and prints one JSON report. It runs pinned to
legacy (the 2025 initialize handshake) and to 2026-07-28 (the TS client drives MRTR itself).

The packages are installed once per session with `npm ci` from the committed lock file. The test
is skipped only when node or npm is absent; an npm failure fails it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import agent_as_model
from tests.helpers import COMMAND, listed_tools
from tests.scripted_host import ERAS

pytestmark = pytest.mark.stdio

INTEROP = Path(__file__).parent / "interop"
ANSWER = "Answered by the TypeScript host."  # host.mjs answers every sampling request with this
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"


@pytest.fixture(scope="session")
def node() -> str:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        missing = " and ".join(name for name, path in (("node", node), ("npm", npm)) if path is None)
        pytest.skip(f"{missing} not installed: the TypeScript SDK interop test needs Node.js >= 20 and npm")
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=INTEROP,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"npm ci failed in {INTEROP}:\n{done.stdout}\n{done.stderr}"
    return node


def run_host(node: str, era: str) -> dict[str, Any]:
    done = subprocess.run(
        [node, str(INTEROP / "host.mjs"), str(COMMAND), era],
        cwd=INTEROP,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"host.mjs failed on {era}:\n{done.stdout}\n{done.stderr}"
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, f"host.mjs printed more than its report:\n{done.stdout}"
    report: dict[str, Any] = json.loads(lines[0])
    return report


def test_typescript_sdk_package_is_pinned() -> None:
    manifest = json.loads((INTEROP / "package.json").read_text())
    lock = json.loads((INTEROP / "package-lock.json").read_text())
    version = manifest["dependencies"]["@modelcontextprotocol/client"]
    assert version.startswith("2.4.") and version.replace(".", "").isdigit(), version
    assert lock["packages"]["node_modules/@modelcontextprotocol/client"]["version"] == version


@pytest.mark.parametrize("era", ERAS)
def test_typescript_host(node: str, era: str) -> None:
    report = run_host(node, era)
    modern = era != "legacy"

    assert report["protocolEra"] == ("modern" if modern else "legacy")
    assert report["protocolVersion"] == ("2026-07-28" if modern else "2025-11-25")
    assert report["serverVersion"] == {"name": "agent-as-model", "version": agent_as_model.__version__}
    assert report["tools"] == listed_tools()

    # What the TS host was asked: one sampling request per call, the same params on both eras.
    plain, loop = report["sampling"][:2], report["sampling"][2:]
    assert plain == [
        {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi."}}],
            "modelPreferences": {"hints": [{"name": "agent-default"}]},
            "maxTokens": 4096,
        },
        {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Name a colour."}}],
            "modelPreferences": {"hints": [{"name": "gpt-4o"}]},
            "systemPrompt": "Be brief.",
            "temperature": 0.2,
            "maxTokens": 64,
        },
    ]

    # The result metadata (spec section 9) reaches a TypeScript client too, beside the 2026 stamp.
    said = {
        "agent-as-model/result": {
            "model": "ts-host-model",
            "finish_reason": "stop",
            "backend": "host",
            "requested_model": "agent-default",  # the alias asked for, who counted the usage
            "usage": "estimated",
        }
    }
    expected: dict[str, Any] = {
        "content": [{"type": "text", "text": ANSWER}],
        "isError": False,
        "_meta": said,
    }
    if modern:
        stamp = {"name": "agent-as-model", "version": agent_as_model.__version__}
        expected["_meta"] = {**said, SERVER_INFO_KEY: stamp}
    # chat_complete asked for gpt-4o: the alias stays in _meta, the answering model in `model`.
    asked = {**said["agent-as-model/result"], "requested_model": "gpt-4o"}
    chat_expected = {**expected, "_meta": {**expected["_meta"], "agent-as-model/result": asked}}
    assert report["results"] == {"generate": expected, "chat_complete": chat_expected}

    # The tool loop and structured output, with the TS host answering tool_use blocks.
    weather = {"type": "object", "properties": {"city": {"type": "string"}}}
    assert [len(params["messages"]) for params in loop] == [1, 3, 1]
    assert loop[0]["tools"] == [
        {"name": "get_weather", "description": "Weather for a city.", "inputSchema": weather}
    ]
    assert loop[1]["messages"][2]["content"] == {
        "type": "tool_result",
        "toolUseId": "call_1",
        "content": [{"type": "text", "text": "sunny"}],
    }
    assert loop[2]["toolChoice"] == {"mode": "required"}
    assert [t["name"] for t in loop[2]["tools"]] == ["structured_output"]
    first, second = report["toolLoop"]
    envelope = {
        "text": "",
        "tool_calls": [{"id": "call_1", "input": {"city": "Oslo"}, "name": "get_weather"}],
    }
    assert first["content"][0]["text"] == json.dumps(envelope, sort_keys=True)
    assert first["structuredContent"] == envelope
    assert second["content"][0]["text"] == ANSWER
    assert report["structured"]["content"][0]["text"] == '{"colour": "teal"}'
    assert report["structured"]["structuredContent"] == {"colour": "teal"}
