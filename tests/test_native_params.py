"""Spec section 1.2: a product's own request parameters work unchanged: the
ones with a meaning here are honoured, the sampling hints travel to the host in the sampling
request's metadata and change nothing else (spec section 14), and the ones that would change
meaning and cannot be honoured are errors that say so. Both eras."""

from __future__ import annotations

from typing import Any

import pytest

from agent_as_model.neutral import HINTS_KEY
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

CHAT = {"messages": [{"role": "user", "content": "q"}]}
MESSAGES = {"messages": [{"role": "user", "content": "q"}]}
RESPONSES = {"input": "q"}
BASE = {"chat_complete": CHAT, "messages_create": MESSAGES, "responses_create": RESPONSES}


async def sent(era: str, tool: str, extra: dict[str, Any]) -> dict[str, Any]:
    host = ScriptedHost("ok")
    async with connect(era, host) as client:
        result = await client.call_tool(tool, {**BASE[tool], **extra})
    assert not result.is_error, result.content[0].text
    return host.wire()


@pytest.mark.parametrize(
    ("tool", "extra", "field", "value"),
    [
        ("chat_complete", {"max_completion_tokens": 77}, "maxTokens", 77),
        ("chat_complete", {"max_completion_tokens": 77, "max_tokens": 77}, "maxTokens", 77),
        ("responses_create", {"max_output_tokens": 55}, "maxTokens", 55),
        ("chat_complete", {"stop": "END"}, "stopSequences", ["END"]),
        ("chat_complete", {"stop": ["a", "b"]}, "stopSequences", ["a", "b"]),
        ("messages_create", {"stop_sequences": ["\n\nHuman:"]}, "stopSequences", ["\n\nHuman:"]),
    ],
)
async def test_native_parameters_with_a_meaning_are_honoured(
    era: str, tool: str, extra: dict[str, Any], field: str, value: Any
) -> None:
    assert (await sent(era, tool, extra))[field] == value


HINTS = {
    "chat_complete": {
        "user": "u-1",
        "metadata": {"k": "v"},
        "store": False,
        "seed": 7,
        "top_p": 0.9,
        "frequency_penalty": 0.1,
        "presence_penalty": 0.1,
        "logit_bias": {"50256": -100},
        "parallel_tool_calls": True,
        "service_tier": "auto",
        "reasoning_effort": "low",
        "stream": False,
        "n": 1,
        "logprobs": False,
        "modalities": ["text"],
    },
    "messages_create": {
        "metadata": {"user_id": "u"},
        "top_p": 0.5,
        "top_k": 5,
        "service_tier": "auto",
        "stream": False,
        "thinking": {"type": "disabled"},
    },
    "responses_create": {
        "user": "u",
        "store": True,
        "metadata": {},
        "top_p": 1,
        "truncation": "auto",
        "reasoning": {"effort": "low"},
        "include": [],
        "stream": False,
        "background": False,
        "text": {"verbosity": "low"},
    },
}


# What the host is sent of each tool's HINTS, under their neutral names.
SENT_HINTS = {
    "chat_complete": {
        "frequency_penalty": 0.1,
        "logit_bias": {"50256": -100},
        "presence_penalty": 0.1,
        "reasoning": {"effort": "low"},
        "seed": 7,
        "top_p": 0.9,
    },
    "messages_create": {"reasoning": {"type": "disabled"}, "top_k": 5, "top_p": 0.5},
    "responses_create": {"reasoning": {"effort": "low"}, "top_p": 1, "verbosity": "low"},
}


@pytest.mark.parametrize("tool", list(HINTS))
async def test_hints_travel_as_metadata_and_change_nothing_else(era: str, tool: str) -> None:
    hinted = await sent(era, tool, HINTS[tool])
    assert hinted.pop("metadata") == {HINTS_KEY: SENT_HINTS[tool]}
    assert hinted == await sent(era, tool, {})


@pytest.mark.parametrize(
    ("tool", "extra", "path", "words"),
    [
        ("chat_complete", {"stream": True}, "stream", "streaming cannot be honoured"),
        ("chat_complete", {"n": 2}, "n", "need result: 'object'"),  # n needs the object
        ("chat_complete", {"logprobs": True}, "logprobs", "log probabilities cannot be produced"),
        ("chat_complete", {"top_logprobs": 3}, "top_logprobs", "log probabilities"),
        ("chat_complete", {"modalities": ["text", "audio"]}, "modalities", "only the 'text' modality"),
        ("chat_complete", {"audio": {"voice": "alloy"}}, "audio", "audio output cannot be produced"),
        ("chat_complete", {"web_search_options": {}}, "web_search_options", "web search cannot be honoured"),
        ("chat_complete", {"seed": "seven"}, "seed", "expected an integer, got string"),
        ("chat_complete", {"top_p": "high"}, "top_p", "expected a number"),
        ("chat_complete", {"stop": ["a", "b", "c", "d", "e"]}, "stop", "at most 4 stop sequences"),
        ("chat_complete", {"stop": [""]}, "stop[0]", "must not be empty"),
        ("chat_complete", {"max_tokens": 5, "max_completion_tokens": 6}, "max_completion_tokens", "differs"),
        ("messages_create", {"stream": True}, "stream", "streaming cannot be honoured"),
        (
            "messages_create",
            {"thinking": {"type": "enabled", "budget_tokens": "many"}},
            "thinking.budget_tokens",
            "expected an integer",
        ),
        ("messages_create", {"thinking": {"kind": "enabled"}}, "thinking.kind", "unknown parameter"),
        ("messages_create", {"stop_sequences": "x"}, "stop_sequences", "expected an array"),
        ("messages_create", {"mcp_servers": []}, "mcp_servers", "cannot be honoured"),
        ("responses_create", {"stream": True}, "stream", "streaming cannot be honoured"),
        ("responses_create", {"background": "yes"}, "background", "expected a boolean"),
        ("responses_create", {"reasoning": {"effort": 2}}, "reasoning.effort", "expected a string"),
        ("responses_create", {"metadata": {"run": 42}}, "metadata.run", "metadata values are strings"),
        ("responses_create", {"conversation": "conv_1"}, "conversation", "pass the history in 'input'"),
        ("responses_create", {"prompt": {"id": "pmpt_1"}}, "prompt", "stored prompt templates"),
        ("responses_create", {"text": {"colour": 1}}, "text.colour", "unknown parameter"),
        ("responses_create", {"text": {"verbosity": 3}}, "text.verbosity", "expected a string"),
        ("responses_create", {"max_output_tokens": 5, "max_tokens": 9}, "max_output_tokens", "differs"),
    ],
)
async def test_parameters_that_cannot_be_honoured_are_errors_that_say_so(
    era: str, tool: str, extra: dict[str, Any], path: str, words: str
) -> None:
    host = ScriptedHost("unused", "next")
    async with connect(era, host) as client:
        bad = await client.call_tool(tool, {**BASE[tool], **extra})
        after = await client.call_tool("generate", {"prompt": "x"})
    text = bad.content[0].text
    assert bad.is_error and text.startswith(f"{tool}: {path}: ") and words in text, text
    assert text.endswith("Nothing was sent to the host.")
    assert host.asked == 1 and after.content[0].text == "unused"
