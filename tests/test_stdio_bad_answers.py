"""Bad answers of the host over REAL stdio with the installed command, on both eras: an answer
with no content is a host violation, and a call with repairs asks the host once per round and
ends with the same error on both eras (that each answer is checked once is tested in
tests/test_repair_checks.py)."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp_types import CreateMessageResultWithTools

from tests.helpers import server_params
from tests.scripted_host import ERAS, ScriptedHost

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


@pytest.mark.parametrize("era", ERAS)
async def test_empty_content_and_repairs_over_stdio(era: str) -> None:
    empty = CreateMessageResultWithTools(role="assistant", content=[], model="m")
    host = ScriptedHost(empty, '{"n": "a"}', '{"n": "b"}', '{"n": "c"}', "fine")
    repair = {"messages": [{"role": "user", "content": "q"}], "output_schema": SCHEMA, "repair_attempts": 2}
    params = server_params("serve")
    async with Client(params, mode=era, sampling_callback=host) as client:
        nothing = await client.call_tool("generate", {"prompt": "q"})
        repaired = await client.call_tool("chat_complete", repair)
        asked_for_repairs = host.asked - 1
        good = await client.call_tool("generate", {"prompt": "q"})
    assert nothing.content[0].text == (
        "generate: content: the host answered with no content blocks (an empty content list). "
        "The host was asked; its answer was not used."
    )
    assert asked_for_repairs == 3
    assert repaired.content[0].text == (
        "chat_complete: output_schema: the host's answer violates the schema at JSON pointer '/n': expected "
        "type integer, got string (schema /properties/n/type). The host was asked; its answer was not used."
    )
    assert good.content[0].text == "fine"
