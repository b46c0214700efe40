"""Repairs stay linear on 2026-07-28. The sealed state carries what each earlier round's answer
was found to break, so the retry of round n checks only round n's answer, not every earlier one
again: a call with `repair_attempts: 5` whose host never gets it right checks 6 answers on both
eras."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agent_as_model import schemas
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


@pytest.fixture
def checks() -> Callable[[], int]:
    """How many answers were checked against a schema since the test began, as `schemas.stats`
    tells an operator."""
    before = schemas.stats()["validated"]
    return lambda: schemas.stats()["validated"] - before


@pytest.mark.parametrize("attempts", [1, 3, 5])
async def test_each_answer_is_checked_once(era: str, checks: Callable[[], int], attempts: int) -> None:
    answers = [f'{{"n": "not a number {i}"}}' for i in range(attempts + 1)]
    host = ScriptedHost(*answers)
    arguments = {
        "messages": [{"role": "user", "content": "q"}],
        "output_schema": SCHEMA,
        "repair_attempts": attempts,
    }
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", arguments)
    assert result.is_error
    assert result.content[0].text == (
        "chat_complete: output_schema: the host's answer violates the schema at JSON pointer '/n': expected "
        "type integer, got string (schema /properties/n/type). The host was asked; its answer was not used."
    )
    assert host.asked == attempts + 1
    assert checks() == attempts + 1  # each answer once
    for n in range(1, attempts + 1):  # each repair round put the answer before it and why it failed
        *_, answered, why = host.wire(n)["messages"]
        assert answered["content"] == [{"type": "text", "text": answers[n - 1]}]
        assert "expected type integer, got string" in why["content"]["text"]


async def test_a_repaired_answer_completes_with_the_same_payloads(
    era: str, checks: Callable[[], int]
) -> None:
    host = ScriptedHost('{"n": "x"}', '{"n": "y"}', '{"n": 3}')
    arguments = {
        "messages": [{"role": "user", "content": "q"}],
        "output_schema": SCHEMA,
        "repair_attempts": 2,
    }
    async with connect(era, host) as client:
        result = await client.call_tool("chat_complete", arguments)
    assert not result.is_error, result.content[0].text
    assert result.content[0].text == '{"n": 3}'
    assert checks() == 3
    # The last payload holds both earlier answers and both repair messages, as on legacy.
    last = host.wire(-1)["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user", "assistant", "user"]
    assert "expected type integer, got string" in last[2]["content"]["text"]
