"""Spec section 7: bad input gets an isError result naming the field, nothing is sent to the host,
and the next call on the same connection works. Every case runs on both eras."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio

U = {"role": "user", "content": "hi"}

CASES: list[tuple[str, dict[str, Any], str]] = [
    # (tool, arguments, the text the message must contain: the path and what was wrong)
    ("chat_complete", {}, "messages: expected an array, got null"),
    ("chat_complete", {"messages": []}, "messages: must not be empty"),
    ("chat_complete", {"messages": "hi"}, "messages: expected an array, got string"),
    ("chat_complete", {"messages": [42]}, "messages[0]: expected an object, got number"),
    ("chat_complete", {"messages": [{"role": "robot", "content": "x"}]}, "messages[0].role: expected one of"),
    ("chat_complete", {"messages": [{"role": "user"}]}, "messages[0].content: is required"),
    (
        "chat_complete",
        {"messages": [{"role": "user", "content": 3}]},
        "messages[0].content: expected a string",
    ),
    (
        "chat_complete",
        {"messages": [{"role": "system", "content": "s"}]},
        "messages: needs at least one user",
    ),
    (
        "chat_complete",
        {
            "messages": [
                U,
                {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url"}]},
            ]
        },
        "messages[1].content[1].image_url: expected an object, got null",
    ),
    (
        "chat_complete",
        {"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}]},
        "messages[0].content[0].input_audio.format: expected 'wav' or 'mp3'",
    ),
    (
        "chat_complete",
        {"messages": [{"role": "user", "content": [{"type": "file", "file": {}}]}]},
        "messages[0].content[0]: part type 'file' is not carried: MCP sampling has content for text",
    ),
    (
        "chat_complete",
        {"messages": [{"role": "user", "content": [{"type": "refusal", "refusal": "no"}]}]},
        "messages[0].content[0].type: unsupported part type 'refusal'",
    ),
    (
        "chat_complete",
        {"messages": [{"role": "user", "content": [{"type": "text"}]}]},
        "messages[0].content[0]: a 'text' part needs 'text'",
    ),
    (
        "chat_complete",
        {"messages": [{"role": "user", "content": [{"type": "text", "text": 1}]}]},
        "messages[0].content[0].text: expected a string, got number",
    ),
    ("chat_complete", {"messages": [{**U, "extra": 1}]}, "messages[0].extra: unknown parameter 'extra'"),
    ("chat_complete", {"messages": [U], "stream": True}, "stream: streaming cannot be honoured"),
    ("chat_complete", {"messages": [U], "bogus": True}, "bogus: unknown parameter 'bogus'"),
    (
        "chat_complete",
        {"messages": [U, {"role": "assistant", "content": None, "refusal": "I can't."}]},
        "messages[1].refusal: a refusal cannot be passed back as such",
    ),
    ("chat_complete", {"messages": [U], "model": ""}, "model: must not be empty"),
    ("chat_complete", {"messages": [U], "model": 5}, "model: expected a string, got number"),
    ("chat_complete", {"messages": [U], "temperature": 3}, "temperature: must be between 0 and 2"),
    ("chat_complete", {"messages": [U], "temperature": -0.1}, "temperature: must be between 0 and 2"),
    ("chat_complete", {"messages": [U], "temperature": True}, "temperature: expected a number, got boolean"),
    ("chat_complete", {"messages": [U], "temperature": "hot"}, "temperature: expected a number, got string"),
    ("chat_complete", {"messages": [U], "max_tokens": 0}, "max_tokens: must be between 1 and 2147483647"),
    (
        "chat_complete",
        {"messages": [U], "max_tokens": 1.5},
        "max_tokens: expected a positive integer, got 1.5",
    ),
    ("chat_complete", {"messages": [U], "max_tokens": 1e300}, "max_tokens: must be between 1 and 2147483647"),
    ("chat_complete", {"messages": [U], "max_tokens": 2**31}, "max_tokens: must be between 1 and 2147483647"),
    ("chat_complete", {"messages": [U], "max_tokens": "9"}, "max_tokens: expected a positive integer"),
    (
        "messages_create",
        {"messages": [{"role": "system", "content": "x"}]},
        "messages[0].role: 'system' is not",
    ),
    (
        "messages_create",
        {"messages": [{"role": "developer", "content": "x"}]},
        "messages[0].role: expected one of",
    ),
    (
        "messages_create",
        {"messages": [{"role": "user", "content": [{"type": "image", "source": {}}]}]},
        "messages[0].content[0].source.type: expected 'base64'",
    ),
    (
        "messages_create",
        {"messages": [{"role": "user", "content": [{"type": "document", "source": {}}]}]},
        "messages[0].content[0]: a document block is not carried: MCP sampling has content for text",
    ),
    # A block type that is not a string is named as such, in a user and in an assistant message.
    (
        "messages_create",
        {"messages": [{"role": "user", "content": [{"type": ["x"]}]}]},
        "messages[0].content[0].type: expected a string part type, got array",
    ),
    (
        "messages_create",
        {"messages": [U, {"role": "assistant", "content": [{"type": ["x"]}]}]},
        "messages[1].content[0].type: expected a string part type, got array",
    ),
    (
        "messages_create",
        {"messages": [U], "system": 7},
        "system: expected a string or an array of text parts",
    ),
    (
        "messages_create",
        {"messages": [U], "system": [{"type": "image"}]},
        "system[0]: part type 'image' is not taken here",
    ),
    ("messages_create", {"messages": [U], "temperature": 1.5}, "temperature: must be between 0 and 1"),
    ("responses_create", {}, "input: is required"),
    ("responses_create", {"input": 5}, "input: expected an array, got number"),
    ("responses_create", {"input": []}, "input: must not be empty"),
    ("responses_create", {"input": [{"role": "bot", "content": "x"}]}, "input[0].role: expected one of"),
    ("responses_create", {"input": [{"role": "system", "content": "x"}]}, "input: needs at least one user"),
    (
        "responses_create",
        {"input": [{"type": "item_reference", "id": "o"}]},
        "input[0]: an item reference points at an item stored on OpenAI's servers",
    ),
    (
        "responses_create",
        {"input": [{"type": "web_search_call", "id": "ws_1", "status": "completed"}]},
        "input[0]: a web_search_call item belongs to a built-in or custom tool",
    ),
    (
        "responses_create",
        {"input": [{"type": "note", "text": "x"}]},
        "input[0].type: unsupported item type 'note'",
    ),
    (
        "responses_create",
        {"input": [{"role": "bot", "content": "x"}, {"type": "function_call", "name": "f"}]},
        "input[0].role: expected one of",  # entries are checked in order, the first fault named
    ),
    (
        "responses_create",
        {"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}]},
        "input[0].content[0].image_url: expected a data: URL",
    ),
    (
        "responses_create",
        {"input": [{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}]},
        "input[0].content[0]: part type 'input_file' is not carried: MCP sampling has content for text",
    ),
    ("responses_create", {"input": "x", "instructions": ["x"]}, "instructions: expected a string, got array"),
    ("responses_create", {"input": "x", "max_output_tokens": 0}, "max_output_tokens: must be between 1"),
    # An entry after a run of common ones, and one past the paths made once (turns.PATH_BOUND):
    # each named by its own index.
    ("chat_complete", {"messages": [U, U, {"role": "user", "content": 3}]}, "messages[2].content: expected"),
    (
        "chat_complete",
        {"messages": [U] * 1100 + [{"role": "robot", "content": "x"}]},
        "messages[1100].role: expected one of",
    ),
    ("messages_create", {"max_tokens": 8, "messages": [U, U, 7]}, "messages[2]: expected an object"),
    (
        "messages_create",
        {"max_tokens": 8, "messages": [U] * 1030 + [{"role": "system", "content": "s"}]},
        "messages[1030].role: 'system' is not a message role here",
    ),
    ("generate", {}, "prompt: is required"),
    ("generate", {"prompt": None}, "prompt: expected a string, got null"),
    ("generate", {"prompt": "x", "system": "s"}, "system: unknown parameter 'system'"),
    ("generate", {"prompt": "x", "max_tokens": -1}, "max_tokens: must be between 1 and 2147483647"),
    ("list_models", {"x": 1}, "x: unknown parameter 'x'"),
]


@pytest.mark.parametrize(("tool", "arguments", "expected"), CASES, ids=[f"{c[0]}:{c[2][:40]}" for c in CASES])
async def test_bad_input_is_named_and_nothing_is_sent(
    era: str, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    host = ScriptedHost("fine")
    async with connect(era, host) as client:
        bad = await client.call_tool(tool, arguments)
        good = await client.call_tool("generate", {"prompt": "next"})
    assert bad.is_error
    text = bad.content[0].text
    assert text.startswith(f"{tool}: "), text
    assert expected in text, text
    assert text.endswith("Nothing was sent to the host."), text
    # The only sampling request is the one for the good call that followed.
    assert host.asked == 1
    assert host.wire()["messages"][0]["content"]["text"] == "next"
    assert not good.is_error and good.content[0].text == "fine"


async def test_unknown_tool(era: str) -> None:
    host = ScriptedHost()
    async with connect(era, host) as client:
        result = await client.call_tool("no_such_tool", {})
    assert result.is_error
    assert "unknown tool 'no_such_tool'" in result.content[0].text
    assert "Nothing was sent to the host." in result.content[0].text
    assert host.asked == 0


async def test_validation_comes_before_the_capability_check(era: str) -> None:
    # A client without sampling that sends bad arguments learns about the arguments first.
    async with connect(era) as client:
        result = await client.call_tool("chat_complete", {"messages": []})
    assert result.is_error
    assert "messages: must not be empty" in result.content[0].text
