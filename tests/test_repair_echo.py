"""A repair round after a large bad answer fits the HTTP body limit. The repair
echoes the bad answer cut to a bound (`ECHO_LIMIT`), and on 2026-07-28 the sealed state carries
that cut echo, not the whole answer, so the next round's request does not grow with the answer.
Issue 49 item 3: the bound is the echo's in total, whatever the number of blocks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_types import CreateMessageResultWithTools, TextContent, ToolUseContent

from agent_as_model.adapters.backends.base import ECHO_BLOCK_COST, ECHO_LIMIT, echoed_blocks
from tests.http_servers import http_client, running
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
BIG = '{"a": "' + "x" * 3_000_000 + '"}'  # 3 MB of a bad answer, under the 4 MiB body limit
ARGS: dict[str, Any] = {
    "messages": [{"role": "user", "content": "q"}],
    "output_schema": SCHEMA,
    "repair_attempts": 2,
}


def echoed_text(host: ScriptedHost) -> str:
    return host.seen[-1].messages[-2].content_as_list[0].text


@pytest.mark.stdio
async def test_a_repair_after_a_large_bad_answer_fits_the_body_limit_over_http(era: str) -> None:
    host = ScriptedHost(BIG, BIG, '{"a": 1}')
    with running() as server:
        async with http_client(server.url, era, host) as client:
            done = await client.call_tool("chat_complete", ARGS)
    assert not done.is_error, done.content[0].text
    assert done.content[0].text == '{"a": 1}'
    assert host.asked == 3
    assert len(echoed_text(host)) == ECHO_LIMIT - ECHO_BLOCK_COST
    assert echoed_text(host).endswith(f"[{len(BIG)} characters in all; the rest is cut]")


async def test_the_repair_echo_is_cut_the_same_on_both_eras(era: str) -> None:
    host = ScriptedHost(BIG, '{"a": 1}')
    async with connect(era, host) as client:
        done = await client.call_tool("chat_complete", ARGS)
    assert done.content[0].text == '{"a": 1}'
    text = echoed_text(host)
    assert text.startswith(BIG[: ECHO_LIMIT // 2]) and len(text) == ECHO_LIMIT - ECHO_BLOCK_COST
    # the model still reads what was wrong with it
    assert "JSON pointer '/a'" in host.seen[-1].messages[-1].content_as_list[0].text


def many_blocks(count: int, size: int) -> CreateMessageResultWithTools:
    """A bad answer of `count` text blocks of `size` characters: each under the bound, together
    megabytes."""
    blocks = [TextContent(type="text", text=f"{i:06d}" + "y" * (size - 6)) for i in range(count)]
    return CreateMessageResultWithTools(role="assistant", content=blocks, model="m")


def echo_size(blocks: list[Any]) -> int:
    return sum(ECHO_BLOCK_COST + len(block.text) for block in blocks)


async def test_an_answer_of_many_blocks_is_echoed_within_the_bound_in_all(era: str) -> None:
    """3 MB in 300 blocks of 10 KB: each within the bound, together 190 times it. The echo keeps
    the first block whole and the start of the second, says what it left out, and is no larger
    than the bound; the next round (a repair of the repair) echoes its answer the same way."""
    host = ScriptedHost(many_blocks(300, 10_000), many_blocks(300, 10_000), '{"a": 1}')
    async with connect(era, host) as client:
        done = await client.call_tool("chat_complete", ARGS)
    assert done.content[0].text == '{"a": 1}'
    assert host.asked == 3
    for seen in host.seen[1:]:
        echoes = [m.content_as_list for m in seen.messages if m.role == "assistant"]
        assert len(echoes) == host.seen.index(seen)  # one echo per bad answer before it
        for echo in echoes:
            assert echo_size(echo) <= ECHO_LIMIT
            assert echo[0].text.startswith("000000y") and len(echo[0].text) == 10_000
            assert echo[1].text.startswith("000001y")
            assert echo[-1].text.endswith("[10000 characters in all; the rest is cut, and 298 more blocks]")
    # the model still reads what was wrong with it
    assert "Your answer is not JSON" in host.seen[-1].messages[-1].content_as_list[0].text


async def test_the_structured_call_is_echoed_after_a_long_text(era: str) -> None:
    """A long text before the structured-output call: the text is cut, the call is echoed (the
    repair's tool result answers it), and the echo is within the bound."""
    text = TextContent(type="text", text="z" * 100_000)
    call = ToolUseContent(type="tool_use", id="so_1", name="structured_output", input={"a": "x"})
    bad = CreateMessageResultWithTools(role="assistant", content=[text, call], model="m")
    good = CreateMessageResultWithTools(
        role="assistant",
        content=[ToolUseContent(type="tool_use", id="so_2", name="structured_output", input={"a": 1})],
        model="m",
    )
    host = ScriptedHost(bad, good)
    async with connect(era, host, tools=True) as client:
        done = await client.call_tool("chat_complete", ARGS)
    assert done.content[0].text == '{"a": 1}'
    said, fix = host.seen[-1].messages[-2:]
    cut, echoed_call = said.content_as_list
    assert echoed_call.type == "tool_use" and echoed_call.id == "so_1" and echoed_call.input == {"a": "x"}
    assert cut.text.endswith("[100000 characters in all; the rest is cut]")
    assert ECHO_BLOCK_COST + len(cut.text) + ECHO_BLOCK_COST + len("structured_output") + 10 <= ECHO_LIMIT
    assert fix.content_as_list[0].tool_use_id == "so_1"


def _block(kind: str, size: int, n: int) -> Any:
    if kind == "text":
        return TextContent(type="text", text="t" * size)
    return ToolUseContent(type="tool_use", id=f"c{n}", name="structured_output", input={"v": "i" * size})


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["text", "tool_use"]), st.sampled_from([0, 1, 200, 5_000, 16_000, 40_000])),
        max_size=12,
    )
)
def test_an_echo_is_bounded_and_echoing_it_again_changes_nothing(shape: list[tuple[str, int]]) -> None:
    """What a 2026-07-28 retry relies on: the state seals the echo, the retry echoes it again to
    rebuild the payload its digest binds, so the echo of an echo must be the echo itself."""
    blocks = [_block(kind, size, n) for n, (kind, size) in enumerate(shape)]
    once = echoed_blocks(blocks)
    assert echoed_blocks(once) == once
    calls = [b for b in blocks if b.type == "tool_use"]
    if calls:  # the first call is always there: the repair's tool result answers it
        assert [b.id for b in once if b.type == "tool_use"][:1] == [calls[0].id]
    assert sum(ECHO_BLOCK_COST + _size(b) for b in once) <= ECHO_LIMIT


def _size(block: Any) -> int:
    return len(block.text) if block.type == "text" else len(block.name) + len(json.dumps(block.input))
