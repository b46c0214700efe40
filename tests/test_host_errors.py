"""Host contract violations and host errors: named, reported as such, never crash the server."""

from __future__ import annotations

import pytest
from mcp import MCPError
from mcp_types import (
    AudioContent,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ErrorData,
    ImageContent,
    TextContent,
    ToolUseContent,
)
from mcp_types.jsonrpc import REQUEST_TIMEOUT

from agent_as_model.adapters.dialects import DIALECTS
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

TAIL = "The host was asked; its answer was not used."


def with_blocks(*blocks: object) -> CreateMessageResultWithTools:
    return CreateMessageResultWithTools(role="assistant", content=list(blocks), model="m")  # type: ignore[arg-type]


VIOLATIONS = [
    (
        CreateMessageResult(
            role="assistant",
            content=ImageContent(type="image", data="AAAA", mime_type="image/png"),
            model="m",
        ),
        "content[0]: the host answered with a block of type 'image': only text is accepted",
    ),
    (
        CreateMessageResult(
            role="assistant",
            content=AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
            model="m",
        ),
        "content[0]: the host answered with a block of type 'audio': only text is accepted",
    ),
    (
        with_blocks(
            TextContent(type="text", text="ok"),
            ToolUseContent(type="tool_use", id="t1", name="calc", input={}),
        ),
        "content[1]: the host answered with a tool_use block (tool 'calc') but this call forwarded no tools",
    ),
    (
        CreateMessageResult(role="user", content=TextContent(type="text", text="x"), model="m"),
        "role: the host answered with role 'user', expected 'assistant'",
    ),
    (with_blocks(), "content: the host answered with no content blocks (an empty content list)"),
]


MEDIA_TYPES = {"image": "image/png", "audio": "audio/wav"}


@pytest.mark.parametrize(
    ("answer", "expected"), VIOLATIONS, ids=["image", "audio", "tool_use", "role", "empty"]
)
# Every registered completion tool, so a new one is covered without a line here.
@pytest.mark.parametrize("tool", list(DIALECTS))
async def test_host_violation_is_named(era: str, tool: str, answer: object, expected: str) -> None:
    arguments = dict(DIALECTS[tool].EXAMPLE or {})
    assert arguments, f"{tool} declares no EXAMPLE"
    host = ScriptedHost(answer, "recovered")  # type: ignore[arg-type]
    async with connect(era, host) as client:
        bad = await client.call_tool(tool, arguments)
        good = await client.call_tool("generate", {"prompt": "again"})
    assert bad.is_error
    kind = getattr(getattr(answer, "content", None), "type", None)
    if DIALECTS[tool].answers_media and kind in MEDIA_TYPES:
        # A product with a shape for media in answers checks the host's bytes as it does a
        # caller's (test_media.py); these are three zero bytes.
        expected = (
            f"content[0].data: the host's {kind}: the bytes do not match the declared type "
            f"{MEDIA_TYPES[kind]} (they are no known image or audio format)"
        )
    assert bad.content[0].text == f"{tool}: {expected}. {TAIL}"
    assert host.asked == 2
    assert good.content[0].text == "recovered"


async def test_legacy_host_error_is_reported_as_the_hosts() -> None:
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"), "later")
    async with connect("legacy", host) as client:
        bad = await client.call_tool("generate", {"prompt": "q"})
        good = await client.call_tool("generate", {"prompt": "q"})
    assert bad.is_error
    assert bad.content[0].text == (
        "generate: sampling/createMessage: the host answered with error -1: User rejected sampling. " + TAIL
    )
    assert good.content[0].text == "later"


async def test_a_host_error_with_the_timeout_code_is_the_hosts_not_the_servers_timeout() -> None:
    # The server's --host-timeout comes back from the SDK as REQUEST_TIMEOUT (-32001); a host that
    # answers with that code itself, in its own words, is reported as the host's error.
    host = ScriptedHost(ErrorData(code=REQUEST_TIMEOUT, message="too slow upstream"), "later")
    async with connect("legacy", host) as client:
        bad = await client.call_tool("generate", {"prompt": "q"})
        good = await client.call_tool("generate", {"prompt": "q"})
    assert bad.content[0].text == (
        "generate: sampling/createMessage: the host answered with error -32001: too slow upstream. " + TAIL
    )
    assert good.content[0].text == "later"


async def test_modern_host_refusal_stays_on_the_client() -> None:
    # On 2026-07-28 a host that declines simply does not retry (spec section 9): the SDK client
    # raises locally and the server never hears of it; the next call still works.
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"), "later")
    async with connect("2026-07-28", host) as client:
        with pytest.raises(MCPError, match="User rejected sampling"):
            await client.call_tool("generate", {"prompt": "q"})
        good = await client.call_tool("generate", {"prompt": "q"})
    assert good.content[0].text == "later"
