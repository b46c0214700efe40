"""Stored responses (issue 23): `previous_response_id` as the Responses API means it.

Without a store the loss of history is visible; with `--store` the chain is kept, on both eras,
through the real SDK Client against a scripted host.
"""

from __future__ import annotations

import json

import pytest

from agent_as_model.states.commit import RESULT_META, WARNINGS
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

RESP = "resp_" + "ab" * 16


def warnings_of(result: object) -> list[str]:
    meta = getattr(result, "meta", None) or {}
    return list(meta.get(RESULT_META, {}).get(WARNINGS, []))


async def test_without_a_store_a_lost_history_is_said(era: str) -> None:
    host = ScriptedHost("I do not know your name.")
    async with connect(era, host) as client:
        result = await client.call_tool(
            "responses_create", {"input": "What is my name?", "previous_response_id": RESP}
        )
    assert not result.is_error and host.asked == 1  # still answers, as before
    assert json.loads(result.content[0].text)["output"][0]["content"][0]["text"] == "I do not know your name."
    (warning,) = warnings_of(result)
    assert RESP in warning and "stores no responses" in warning and "only this call's input" in warning


async def test_without_a_store_a_history_passed_back_has_no_warning(era: str) -> None:
    history = [
        {"role": "user", "content": "I am Ada."},
        {"role": "assistant", "content": "Hello Ada."},
        {"role": "user", "content": "What is my name?"},
    ]
    async with connect(era, ScriptedHost("Ada.")) as client:
        passed = await client.call_tool("responses_create", {"input": history, "previous_response_id": RESP})
        plain = await client.call_tool("responses_create", {"input": "hi"})
    assert warnings_of(passed) == [] and warnings_of(plain) == []
