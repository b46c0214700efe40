"""A repair round after a large bad answer fits the HTTP body limit. The repair
echoes the bad answer cut to a bound (`ECHO_LIMIT`), and on 2026-07-28 the sealed state carries
that cut echo, not the whole answer, so the next round's request does not grow with the answer."""

from __future__ import annotations

from typing import Any

import pytest

from agent_as_model.adapters.backends.base import ECHO_LIMIT
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
    assert len(echoed_text(host)) == ECHO_LIMIT
    assert echoed_text(host).endswith(f"[{len(BIG)} characters in all; the rest is cut]")


async def test_the_repair_echo_is_cut_the_same_on_both_eras(era: str) -> None:
    host = ScriptedHost(BIG, '{"a": 1}')
    async with connect(era, host) as client:
        done = await client.call_tool("chat_complete", ARGS)
    assert done.content[0].text == '{"a": 1}'
    text = echoed_text(host)
    assert text.startswith(BIG[: ECHO_LIMIT // 2]) and len(text) == ECHO_LIMIT
    # the model still reads what was wrong with it
    assert "JSON pointer '/a'" in host.seen[-1].messages[-1].content_as_list[0].text
