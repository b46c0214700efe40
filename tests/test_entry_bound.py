"""The bound on a request's entries (`serve --max-entries`, default 2,000): each message (item,
content), each part and each part of a tool result is one, each tool call and tool result three,
and every 20 values in tool calls' arguments one. A conversation within it is answered; one over
it is refused with an error naming where the count passed the bound and the flag, and nothing is
sent to the host. Through the SDK
`Client` on both eras, in-process and over real stdio."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from agent_as_model.commands import cli, limit_options
from agent_as_model.limits import DEFAULT_LIMITS, Limits
from agent_as_model.server import build_server
from agent_as_model.states.entries import TOOL_ENTRY, VALUES_PER_ENTRY
from tests.helpers import server_params, text_of
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

BOUND = DEFAULT_LIMITS.max_entries
PER = VALUES_PER_ENTRY
TOOL = TOOL_ENTRY
FLAG = "(serve --max-entries)"
NOTHING_SENT = "Nothing was sent to the host."


def said(n: int) -> list[dict[str, Any]]:
    """`n` plain messages, user and assistant in turn, a user's last: one entry each."""
    return [{"role": "assistant" if (n - i) % 2 == 0 else "user", "content": f"m{i}"} for i in range(n)]


def with_call(arguments: str) -> list[dict[str, Any]]:
    """A chat tool call whose `arguments` is the JSON text given, and its result: 2 + 2 x TOOL
    entries."""
    call = {"id": "c0", "type": "function", "function": {"name": "f", "arguments": arguments}}
    return [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "content": "r"},
    ]


def anthropic_call(given: dict[str, Any]) -> list[dict[str, Any]]:
    """A tool_use block with `given` as its input, and its result: 3 + 2 x TOOL entries."""
    use = {"type": "tool_use", "id": "t0", "name": "f", "input": given}
    result = {"type": "tool_result", "tool_use_id": "t0", "content": "r"}
    return [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [result]},
    ]


def tool_result_parts(parts: int) -> list[dict[str, Any]]:
    """A tool result of `parts` text parts: 3 + 2 x TOOL + `parts` entries."""
    use = {"type": "tool_use", "id": "t0", "name": "f", "input": {}}
    content = [{"type": "text", "text": f"p{i}"} for i in range(parts)]
    result = {"type": "tool_result", "tool_use_id": "t0", "content": content}
    return [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [result]},
    ]


def tool_calls(n: int) -> list[dict[str, Any]]:
    """A user message, an assistant message of `n` chat tool calls and their `n` results: 2 +
    2 x TOOL x `n` entries."""
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in range(n)
    ]
    results = [{"role": "tool", "tool_call_id": f"c{i}", "content": f"r{i}"} for i in range(n)]
    return [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *results,
    ]


def gemini(contents: int) -> list[dict[str, Any]]:
    """`contents` contents of one part each: two entries each."""
    return [
        {"role": "model" if (contents - i) % 2 == 0 else "user", "parts": [{"text": f"m{i}"}]}
        for i in range(contents)
    ]


# (tool, arguments within the bound, the same one entry over it, where the count passes the bound)
CASES = [
    ("chat_complete", {"messages": said(BOUND)}, {"messages": said(BOUND + 1)}, f"messages[{BOUND}]"),
    (
        "chat_complete",
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "p"}] * (BOUND - 1)}]},
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "p"}] * BOUND}]},
        "messages[0]",
    ),
    (
        "chat_complete",  # 3 messages and 1 call; the arguments' member `a` and its array's values
        {"messages": with_call(json.dumps({"a": [0] * ((BOUND - 2 - 2 * TOOL) * PER - 1)}))},
        {"messages": with_call(json.dumps({"a": [0] * ((BOUND - 2 - 2 * TOOL) * PER)}))},
        "messages[1]",
    ),
    (
        "chat_complete",  # 2 + 2 x 3 x 333 = 1,998 entries, then 2,004: the results pass it, read
        {"messages": tool_calls((BOUND - 2) // (2 * TOOL))},  # as one turn from messages[2] on
        {"messages": tool_calls((BOUND - 2) // (2 * TOOL) + 1)},
        "messages[2]",
    ),
    (
        "messages_create",
        {"max_tokens": 8, "messages": said(BOUND)},
        {"max_tokens": 8, "messages": said(BOUND + 1)},
        f"messages[{BOUND}]",
    ),
    (
        "messages_create",  # 3 messages and 2 blocks; the input's values
        {
            "max_tokens": 8,
            "messages": anthropic_call({f"k{i}": i for i in range((BOUND - 3 - 2 * TOOL) * PER)}),
        },
        {
            "max_tokens": 8,
            "messages": anthropic_call({f"k{i}": i for i in range((BOUND - 3 - 2 * TOOL) * PER + 1)}),
        },
        "messages[1]",
    ),
    (
        "messages_create",
        {"max_tokens": 8, "messages": tool_result_parts(BOUND - 3 - 2 * TOOL)},
        {"max_tokens": 8, "messages": tool_result_parts(BOUND - 2 - 2 * TOOL)},
        "messages[2]",
    ),
    ("responses_create", {"input": said(BOUND)}, {"input": said(BOUND + 1)}, f"input[{BOUND}]"),
    (
        "gemini_generate_content",
        {"contents": gemini(BOUND // 2)},
        {"contents": gemini(BOUND // 2 + 1)},
        f"contents[{BOUND // 2}]",
    ),
]
IDS = [f"{tool}:{where}" for tool, _, _, where in CASES]


@pytest.mark.parametrize(("tool", "within", "over", "where"), CASES, ids=IDS)
async def test_a_conversation_over_the_bound_is_refused_and_nothing_is_sent(
    era: str, tool: str, within: dict[str, Any], over: dict[str, Any], where: str
) -> None:
    host = ScriptedHost("answered")
    async with connect(era, host, tools=True) as client:
        refused = await client.call_tool(tool, over)
        assert host.asked == 0
        answered = await client.call_tool(tool, within)
    assert refused.is_error
    message = text_of(refused)
    assert message.startswith(f"{tool}: {where}: the conversation comes to more than {BOUND} entries")
    assert FLAG in message and message.endswith(NOTHING_SENT)
    assert not answered.is_error, text_of(answered)
    assert "answered" in text_of(answered)


async def test_a_server_with_a_higher_bound_takes_more(era: str) -> None:
    host = ScriptedHost("answered")
    server = build_server(limits=Limits(max_entries=3 * BOUND))
    async with connect(era, host, server=server) as client:
        answered = await client.call_tool("chat_complete", {"messages": said(3 * BOUND)})
        refused = await client.call_tool("chat_complete", {"messages": said(3 * BOUND + 1)})
    assert text_of(answered) == "answered"
    assert f"more than {3 * BOUND} entries" in text_of(refused)


async def test_a_far_larger_conversation_is_refused_as_soon(era: str) -> None:
    """100,000 messages: refused by their count, before any of them is read (the first entry is
    not even a message)."""
    host = ScriptedHost("unused")
    async with connect(era, host) as client:
        refused = await client.call_tool("chat_complete", {"messages": [7] + said(100_000)})
    assert text_of(refused).startswith(f"chat_complete: messages[{BOUND}]: the conversation comes to")
    assert host.asked == 0


@pytest.mark.stdio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_the_flag_over_stdio(mode: str) -> None:
    host = ScriptedHost("answered")
    async with Client(
        server_params("serve", "--max-entries", "5"), mode=mode, sampling_callback=host
    ) as client:
        answered = await client.call_tool("chat_complete", {"messages": said(5)})
        refused = await client.call_tool("chat_complete", {"messages": said(6)})
        default = await client.call_tool("generate", {"prompt": "a prompt is one entry"})
    assert text_of(answered) == "answered" and text_of(default) == "answered"
    assert text_of(refused) == (
        "chat_complete: messages[5]: the conversation comes to more than 5 entries by here (each "
        "message and part is one, each tool call and tool result 3, and every 20 values in tool "
        f"calls' arguments one), the server's bound {FLAG}. {NOTHING_SENT}"
    )


@pytest.mark.stdio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_the_default_over_stdio(mode: str) -> None:
    host = ScriptedHost("answered")
    async with Client(server_params(), mode=mode, sampling_callback=host) as client:
        refused = await client.call_tool("chat_complete", {"messages": said(BOUND + 1)})
    assert text_of(refused).startswith(f"chat_complete: messages[{BOUND}]: the conversation comes to")
    assert host.asked == 0


def test_the_flag_sets_the_limit_and_refuses_nonsense(capsys: pytest.CaptureFixture[str]) -> None:
    parser = cli._parser()
    assert limit_options.limits_of(parser.parse_args(["serve"])).max_entries == BOUND == 2000
    assert (
        limit_options.limits_of(parser.parse_args(["serve", "--max-entries", "50000"])).max_entries == 50000
    )
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--max-entries", "0"])
    assert "--max-entries: expected at least 1, got 0" in capsys.readouterr().err
