"""No invalid arguments crash the server (spec section 7), on either era.

A random valid request has exactly one thing broken in it. The call must come back as an
`isError` tool result naming the tool and the JSON path, saying that nothing was sent; the host
must not have been asked; and the same connection must still serve the valid request after it.
"""

from __future__ import annotations

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from mcp_types import CallToolResult

from property_tests.budget import budget
from property_tests.results import completion_text, error_text
from property_tests.strategies import TOOLS, Case, Invalid, invalid_cases, texts
from tests.scripted_host import ERAS, ScriptedHost, connect

NOTHING_SENT = "Nothing was sent to the host."


async def assert_still_serves(client: Client, host: ScriptedHost, case: Case, answer: str) -> None:
    result = await client.call_tool(case.tool, case.arguments)
    assert completion_text(case.tool, result) == answer
    assert host.asked == 1
    assert host.wire() == case.wire


async def call_invalid_then_valid(era: str, bad: Invalid, answer: str) -> None:
    host = ScriptedHost(answer)
    async with connect(era, host) as client:
        text = error_text(await client.call_tool(bad.tool, bad.arguments))
        assert host.asked == 0, f"{era}: the host was asked about an invalid call"
        assert text.startswith(f"{bad.tool}: {bad.path}"), f"{era}: {text!r} does not name {bad.path!r}"
        assert text.endswith(NOTHING_SENT), f"{era}: {text!r}"
        assert bad.mention in text, f"{era}: {text!r} does not mention {bad.mention!r}"
        await assert_still_serves(client, host, bad.valid, answer)


@pytest.mark.parametrize("tool", TOOLS)
@budget(40)
@given(data=st.data(), answer=texts)
def test_invalid_arguments_are_caller_errors_on_both_eras(
    tool: str, data: st.DataObject, answer: str
) -> None:
    bad = data.draw(invalid_cases(tool), label="invalid")
    for era in ERAS:
        anyio.run(call_invalid_then_valid, era, bad, answer)


async def outcome(era: str, tool: str, arguments: dict[str, object]) -> tuple[CallToolResult, int]:
    host = ScriptedHost("ok")
    async with connect(era, host) as client:
        result = await client.call_tool(tool, arguments)
    return result, host.asked


def test_lone_surrogate_is_handled_alike_and_truthfully() -> None:
    """JSON can carry "\\ud800", and the 2026 streamable-HTTP transport parses bodies with json.loads.
    Whatever the server decides, both eras must decide alike, and an error must not say that the
    host was asked when it was not."""
    arguments: dict[str, object] = {"prompt": "half a pair: \ud800"}
    outcomes = {era: anyio.run(outcome, era, "generate", arguments) for era in ERAS}
    for era, (result, asked) in outcomes.items():
        if result.is_error and not asked:
            assert "The host was asked" not in error_text(result), era
    assert len({result.is_error for result, _ in outcomes.values()}) == 1, "the eras disagree"
