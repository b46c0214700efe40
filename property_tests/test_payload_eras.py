"""The sampling payload of a random valid request is the same on both eras (spec section 2), and is
the one spec section 1.1 describes.

Each example runs the real server in-process through the SDK `Client`, once on legacy sampling
and once on 2026-07-28 MRTR, with a scripted host that answers a random text.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp_types import CallToolResult

from property_tests.budget import budget
from property_tests.results import completion_text
from property_tests.strategies import TOOLS, Case, texts, valid_cases
from tests.scripted_host import ERAS, ScriptedHost, connect


async def call_on(era: str, case: Case, answer: str) -> tuple[dict[str, Any], CallToolResult]:
    host = ScriptedHost(answer)
    async with connect(era, host) as client:
        result = await client.call_tool(case.tool, case.arguments)
    assert host.asked == 1, f"{era}: the host was asked {host.asked} times"
    return host.wire(), result


async def call_on_both_eras(case: Case, answer: str) -> dict[str, tuple[dict[str, Any], CallToolResult]]:
    return {era: await call_on(era, case, answer) for era in ERAS}


@pytest.mark.parametrize("tool", TOOLS)
@budget(30)
@given(data=st.data(), answer=texts)
def test_payload_is_the_same_on_both_eras(tool: str, data: st.DataObject, answer: str) -> None:
    case = data.draw(valid_cases(tool), label="case")
    outcomes = anyio.run(call_on_both_eras, case, answer)
    (legacy_wire, legacy_result), (modern_wire, modern_result) = (outcomes[era] for era in ERAS)
    assert legacy_wire == modern_wire
    assert legacy_wire == case.wire
    assert completion_text(tool, legacy_result) == answer
    assert completion_text(tool, modern_result) == answer
