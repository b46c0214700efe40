"""The installed `agent-as-model` command over REAL stdio, on both eras.

One connection per era serves the tool tests (a module-scoped fixture: spawning the server costs
more than a call). The scripted host echoes the last message it was sent, so every result is
tied to its request; the tests assert on the exact sampling params the host saw and on the exact
tool result. The raw tests spawn the server themselves and read its stdout byte for byte.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp_types import CallToolResult, CreateMessageRequestParams

import agent_as_model
from tests import sdk_truth
from tests.helpers import INITIALIZED, initialize_request, listed_tools, run_command, server_params, text_of
from tests.scripted_host import ERAS, ScriptedHost
from tests.wire_capture import modern_meta, spawn

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]

SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
MISSING_CAPABILITY = -32021


def echo(params: CreateMessageRequestParams) -> str:
    """The scripted host's answer: the last message it was sent, so results name their request."""
    content = params.messages[-1].content
    blocks = content if isinstance(content, list) else [content]
    return "echo: " + " | ".join(getattr(b, "text", "?") for b in blocks)


@dataclass
class Connection:
    era: str
    client: Client
    host: ScriptedHost

    async def call(
        self, tool: str, arguments: dict[str, Any]
    ) -> tuple[CallToolResult, dict[str, Any] | None]:
        """Call a tool; return the result and the one sampling request it caused (None if none)."""
        before = self.host.asked
        result = await self.client.call_tool(tool, arguments)
        asked = self.host.asked - before
        assert asked in (0, 1), f"{tool} asked the host {asked} times"
        return result, (self.host.wire() if asked else None)


@pytest.fixture(scope="module", params=ERAS)
async def stdio(request: pytest.FixtureRequest) -> AsyncIterator[Connection]:
    host = ScriptedHost(echo)
    async with Client(server_params(), mode=request.param, sampling_callback=host) as client:
        yield Connection(request.param, client, host)


def assert_text_result(result: CallToolResult, text: str) -> None:
    assert not result.is_error, text_of(result)
    assert text_of(result) == text
    assert result.structured_content is None


def hints(model: str) -> dict[str, Any]:
    return {"hints": [{"name": model}]}


# --- the five tools ---------------------------------------------------------------------------


async def test_generate(stdio: Connection) -> None:
    result, wire = await stdio.call("generate", {"prompt": "Say hi.", "temperature": 0, "max_tokens": 100})
    assert wire == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi."}}],
        "modelPreferences": hints("agent-default"),
        "temperature": 0.0,
        "maxTokens": 100,
    }
    assert_text_result(result, "echo: Say hi.")


async def test_generate_defaults(stdio: Connection) -> None:
    result, wire = await stdio.call("generate", {"prompt": "Ünïcødé ✓"})
    assert wire == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Ünïcødé ✓"}}],
        "modelPreferences": hints("agent-default"),
        "maxTokens": 4096,
    }
    assert_text_result(result, "echo: Ünïcødé ✓")


async def test_chat_complete(stdio: Connection) -> None:
    result, wire = await stdio.call(
        "chat_complete",
        {
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "developer", "content": [{"type": "text", "text": "Answer in English."}]},
                {"role": "user", "content": "Name a colour."},
                {"role": "assistant", "content": "Red."},
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "Another"}, {"type": "text", "text": "one."}],
                },
            ],
            "model": "gpt-4o",
            "temperature": 0.5,
            "max_tokens": 32,
        },
    )
    assert wire == {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Name a colour."}},
            {"role": "assistant", "content": {"type": "text", "text": "Red."}},
            {"role": "user", "content": {"type": "text", "text": "Another\none."}},
        ],
        "systemPrompt": "Be brief.\n\nAnswer in English.",
        "modelPreferences": hints("gpt-4o"),
        "temperature": 0.5,
        "maxTokens": 32,
    }
    assert_text_result(result, "echo: Another\none.")


async def test_messages_create(stdio: Connection) -> None:
    result, wire = await stdio.call(
        "messages_create",
        {
            "system": [{"type": "text", "text": "You are terse."}, {"type": "text", "text": "Use one word."}],
            "messages": [
                {"role": "user", "content": "Pick a fruit."},
                {"role": "assistant", "content": [{"type": "text", "text": "Apple."}]},
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "And"}, {"type": "text", "text": "a tree?"}],
                },
            ],
            "model": "claude-sonnet-4",
            "temperature": 1,
            "max_tokens": 16,
        },
    )
    assert wire == {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Pick a fruit."}},
            {"role": "assistant", "content": {"type": "text", "text": "Apple."}},
            {"role": "user", "content": {"type": "text", "text": "And\na tree?"}},
        ],
        "systemPrompt": "You are terse.\nUse one word.",
        "modelPreferences": hints("claude-sonnet-4"),
        "temperature": 1.0,
        "maxTokens": 16,
    }
    assert_text_result(result, "echo: And\na tree?")


async def test_responses_create(stdio: Connection) -> None:
    result, wire = await stdio.call(
        "responses_create",
        {
            "instructions": "Be kind.",
            "input": [
                {"role": "developer", "content": "Reply in French."},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello"}]},
                {"role": "assistant", "content": [{"type": "output_text", "text": "Bonjour."}]},
                {"role": "user", "content": [{"type": "input_text", "input_text": "Thanks"}]},
            ],
            "max_tokens": 50,
        },
    )
    assert wire == {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Hello"}},
            {"role": "assistant", "content": {"type": "text", "text": "Bonjour."}},
            {"role": "user", "content": {"type": "text", "text": "Thanks"}},
        ],
        "systemPrompt": "Be kind.\n\nReply in French.",
        "modelPreferences": hints("agent-default"),
        "maxTokens": 50,
    }
    assert not result.is_error, text_of(result)
    response = result.structured_content
    assert isinstance(response, dict)
    assert text_of(result) == json.dumps(response, sort_keys=True)
    match = re.fullmatch(r"resp_([0-9a-f]{32})", response["id"])
    assert match, response["id"]
    assert isinstance(response["created_at"], int)
    assert sdk_truth.response_of(result).output_text == "echo: Thanks"  # the official SDK's type
    assert result.meta is not None
    assert result.meta["agent-as-model/result"] == {
        "model": "scripted-model",
        "status": "completed",
        "backend": "host",
        "requested_model": "agent-default",
        "usage": "estimated",
    }
    assert response == {
        "id": f"resp_{match[1]}",
        "object": "response",
        "created_at": response["created_at"],
        "status": "completed",
        "model": "scripted-model",  # the model that answered
        "instructions": "Be kind.",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "temperature": None,
        "max_output_tokens": 50,
        # Estimated: 45 characters read (system prompt and turns), 12 written, about 4 a token.
        "usage": {
            "input_tokens": 12,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 3,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        },
        "output": [
            {
                "type": "message",
                "id": f"msg_{match[1]}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "echo: Thanks", "annotations": []}],
            }
        ],
    }


async def test_responses_create_string_input(stdio: Connection) -> None:
    result, wire = await stdio.call("responses_create", {"input": "Tell me a joke.", "model": "o3"})
    assert wire == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Tell me a joke."}}],
        "modelPreferences": hints("o3"),
        "maxTokens": 4096,
    }
    response = result.structured_content
    assert isinstance(response, dict)
    assert response["model"] == "scripted-model"  # who answered; the alias asked for is in _meta
    assert result.meta is not None and result.meta["agent-as-model/result"]["requested_model"] == "o3"
    assert response["output"][0]["content"][0]["text"] == "echo: Tell me a joke."


async def test_list_models(stdio: Connection) -> None:
    result, wire = await stdio.call("list_models", {})
    assert wire is None  # no sampling: the host is never asked
    assert not result.is_error
    assert text_of(result) == json.dumps(
        [
            {
                "description": (
                    "The connected host agent's own model, reached through MCP sampling; no API key."
                ),
                "id": "agent-default",
                "owned_by": "host-agent",
            }
        ],
        sort_keys=True,
    )


async def test_caller_error_is_a_tool_result(stdio: Connection) -> None:
    result, wire = await stdio.call("generate", {"prompt": 42})
    assert wire is None
    assert result.is_error
    assert text_of(result) == "generate: prompt: expected a string, got number. Nothing was sent to the host."


# --- the server as a whole ----------------------------------------------------------------------


async def test_tools_list(stdio: Connection) -> None:
    listed = await stdio.client.list_tools()
    assert [tool.name for tool in listed.tools] == listed_tools()
    for tool in listed.tools:
        assert tool.description
        assert tool.input_schema["type"] == "object"


async def test_server_version(stdio: Connection) -> None:
    if stdio.era == "legacy":
        info = stdio.client.server_info  # from the initialize result
        assert info is not None
        assert (info.name, info.version) == ("agent-as-model", agent_as_model.__version__)
        return
    # 2026-07-28 has no handshake: every result carries the serverInfo stamp in its _meta.
    listed = await stdio.client.list_tools()
    called = await stdio.client.call_tool("list_models", {})
    for result in (listed, called):
        assert result.meta is not None
        assert result.meta[SERVER_INFO_KEY] == {
            "name": "agent-as-model",
            "version": agent_as_model.__version__,
        }


@pytest.mark.parametrize("era", ERAS)
async def test_missing_sampling_capability(era: str) -> None:
    async with Client(server_params(), mode=era) as client:  # no sampling_callback: no sampling declared
        calls: list[tuple[str, dict[str, Any]]] = [
            ("generate", {"prompt": "hi"}),
            ("chat_complete", {"messages": [{"role": "user", "content": "hi"}]}),
            ("messages_create", {"messages": [{"role": "user", "content": "hi"}]}),
            ("responses_create", {"input": "hi"}),
        ]
        for tool, arguments in calls:
            with pytest.raises(MCPError) as caught:
                await client.call_tool(tool, arguments)
            assert caught.value.error.code == MISSING_CAPABILITY, tool
            assert caught.value.error.data == {"requiredCapabilities": {"sampling": {}}}, tool
            assert "Nothing was sent to the host" in caught.value.error.message
        # The connection still serves, and list_models needs no sampling.
        models = await client.call_tool("list_models", {})
        assert not models.is_error


@pytest.mark.parametrize("era", ERAS)
async def test_stdout_carries_only_json_rpc(era: str) -> None:
    with tempfile.TemporaryFile() as stderr:
        async with spawn(stderr=stderr, env={"AGENT_AS_MODEL_LOG_LEVEL": "DEBUG"}) as peer:
            call: dict[str, Any] = {"name": "generate", "arguments": {"prompt": "hi", "bogus": 1}}
            if era == "legacy":
                await peer.send(initialize_request({"sampling": {}}))
                await peer.receive_response(1)
                await peer.send(INITIALIZED)
            else:
                call["_meta"] = modern_meta()
            await peer.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
            answer = await peer.receive_response(2)
            rest = await peer.close()
        stderr.seek(0)
        logs = stderr.read().decode()

    assert answer["result"]["isError"] is True
    assert answer["result"]["content"][0]["text"] == (
        "generate: bogus: unknown parameter 'bogus'. Nothing was sent to the host."
    )
    received = [frame for direction, frame in peer.exchange.frames if direction == "server"]
    for line in rest.splitlines():
        received.append(json.loads(line))  # anything after the last answer must be JSON-RPC too
    assert received, "the server wrote nothing"
    for frame in received:
        assert frame.get("jsonrpc") == "2.0", frame
        assert sum(key in frame for key in ("method", "result", "error")) == 1, frame
    assert logs.strip(), "logging at DEBUG wrote nothing to stderr"


# --- the command line ---------------------------------------------------------------------------


def test_version_flag() -> None:
    done = run_command("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"agent-as-model {agent_as_model.__version__}\n"


def test_help_flag() -> None:
    done = run_command("--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: agent-as-model")
    for word in ("stdio", "serve", "demo", "--version", "sampling"):
        assert word in done.stdout, word
