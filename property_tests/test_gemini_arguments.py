"""No generateContent body, however broken, crashes `gemini_generate_content` (spec section 7).

A valid body (camelCase and snake_case, tools, toolConfig, generationConfig, a tool loop) has
one value, anywhere in it, replaced by random JSON. Reading it must give a request or a caller
error whose path names a place in the body as the caller wrote it; anything else (a TypeError,
a KeyError, ...) is a crash. A few of the broken bodies also go through the server on both eras,
which must say nothing was sent and serve the valid body after it.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.parse import parse_request
from agent_as_model.errors import CallError
from agent_as_model.neutral import ToolChoice
from property_tests.budget import budget
from tests.scripted_host import ERAS, ScriptedHost, connect

NAME = "gemini_generate_content"
VALID: dict[str, Any] = {
    "system_instruction": {"parts": [{"text": "Be brief."}]},
    "contents": [
        {"role": "user", "parts": [{"text": "Weather?"}]},
        {
            "role": "model",
            "parts": [{"text": "Checking."}, {"functionCall": {"name": "get", "args": {"c": "x"}}}],
        },
        {"role": "user", "parts": [{"function_response": {"name": "get", "response": {"output": "ok"}}}]},
    ],
    "generationConfig": {
        "temperature": 0.5,
        "max_output_tokens": 64,
        "stopSequences": ["\n"],
        "topK": 3,
    },
    "tools": [
        {
            "functionDeclarations": [
                {"name": "get", "parameters": {"type": "OBJECT", "properties": {"c": {"type": "STRING"}}}},
                {"name": "other", "parameters_json_schema": {"type": "object"}},
            ]
        }
    ],
    "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get"]}},
    "model": "gemini-2.5-flash",
}

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**12) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside `value` (the body itself excluded)."""
    found: list[tuple[Any, ...]] = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += places(item, (*path, index))
    return found


PLACES = places(VALID)


@st.composite
def broken_bodies(draw: st.DrawFn) -> tuple[dict[str, Any], tuple[Any, ...]]:
    body = copy.deepcopy(VALID)
    path = draw(st.sampled_from(PLACES))
    target: Any = body
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = draw(JSON)
    return body, path


def test_the_valid_body_reads() -> None:
    request = parse_request(DIALECTS[NAME], VALID)
    assert [t.name for t in request.tools] == ["get", "other"]
    # named where the caller wrote it, for the error when an answer breaks it
    assert request.tool_choice == ToolChoice("required", "get", path="toolConfig.functionCallingConfig.mode")
    assert (request.max_tokens, request.temperature, request.stop) == (64, 0.5, ("\n",))
    assert [turn.role for turn in request.turns] == ["user", "assistant", "user"]


@budget(300)
@given(broken_bodies())
def test_a_broken_body_is_a_request_or_a_caller_error_naming_a_written_path(
    case: tuple[dict[str, Any], tuple[Any, ...]],
) -> None:
    body, _ = case
    try:
        parse_request(DIALECTS[NAME], body)
    except CallError as err:
        assert err.kind == "caller" and err.reason
        head = err.path.split(".")[0].split("[")[0]
        assert head in body or head in VALID or head == "contents", err.path  # a key the caller wrote


@budget(8)
@given(broken_bodies())
def test_over_the_server_nothing_is_sent_and_the_next_call_works(
    case: tuple[dict[str, Any], tuple[Any, ...]],
) -> None:
    body, _ = case

    async def run(era: str) -> None:
        host = ScriptedHost("fine")
        async with connect(era, host, tools=True) as client:
            result = await client.call_tool(NAME, body)
            text = result.content[0].text  # type: ignore[union-attr]
            if result.is_error and host.asked:
                # A valid body whose limits the scripted text answer breaks (a required tool
                # choice): a host violation, never taken as valid, the host asked once.
                assert text.startswith(f"{NAME}: ") and text.endswith("its answer was not used."), text
                assert host.asked == 1
            elif result.is_error:
                assert text.startswith(f"{NAME}: ") and text.endswith("Nothing was sent to the host."), text
            else:
                json.loads(text)  # a GenerateContentResponse as JSON text
            asked = host.asked
            good = await client.call_tool(NAME, {"contents": "hi"})
            assert not good.is_error and host.asked == asked + 1

    for era in ERAS:
        anyio.run(run, era)


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
