"""Faults over REAL stdio with the installed command: what only a real wire can carry (a NaN
written by the host, an id that is not one, an answer that cannot be read), on both eras where
eras apply. The in-process side is tests/test_faults.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.helpers import INITIALIZED, initialize_request
from tests.test_stdio_hygiene import Raw, handshake, spawn, still_serves
from tests.wire_capture import modern_meta

pytestmark = [pytest.mark.anyio, pytest.mark.stdio]

NUMBER = {"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}
SAMPLING_INIT = initialize_request({"sampling": {"tools": {}}}, request_id="init")


async def sampling_handshake(raw: Raw) -> None:
    await raw.send(SAMPLING_INIT)
    assert "result" in await raw.receive()
    await raw.send(INITIALIZED)


async def call_and_get_asked(raw: Raw, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Start a legacy tools/call (id "call"); returns the server's sampling request."""
    await raw.send(
        {
            "jsonrpc": "2.0",
            "id": "call",
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
    )
    frame = await raw.receive()
    assert frame.get("method") == "sampling/createMessage", frame
    return frame


def tool_use_answer(ident: object, name: str, input_json: str) -> bytes:
    # Written by hand: json.dumps would refuse (or rewrite) what a misbehaving host sends.
    return (
        f'{{"jsonrpc": "2.0", "id": {json.dumps(ident)}, "result": {{"role": "assistant", "model": "m", '
        f'"stopReason": "toolUse", "content": [{{"type": "tool_use", "id": "t1", "name": "{name}", '
        f'"input": {input_json}}}]}}}}\n'
    ).encode()


async def receive_result(raw: Raw, ident: object = "call") -> dict[str, Any]:
    frame = await raw.receive()
    assert frame.get("id") == ident, frame
    return frame


@pytest.mark.parametrize(
    ("written", "what"), [("NaN", "NaN"), ("Infinity", "an infinity"), ("1e999", "an infinity")]
)
async def test_a_tool_output_written_with_nan_is_a_schema_violation_over_stdio(
    written: str, what: str
) -> None:
    async with spawn() as raw:
        await sampling_handshake(raw)
        asked = await call_and_get_asked(
            raw, "chat_complete", {"messages": [{"role": "user", "content": "n?"}], "output_schema": NUMBER}
        )
        await raw.send_bytes(tool_use_answer(asked["id"], "structured_output", f'{{"n": {written}}}'))
        result = (await receive_result(raw))["result"]
        assert result["isError"] is True
        assert "structuredContent" not in result
        assert f"violates the schema at JSON pointer '/n': holds {what}" in result["content"][0]["text"]
        assert result["_meta"]["agent-as-model/result"] == {"backend": "host"}  # who was asked
        await still_serves(raw, "legacy")


async def test_a_tool_call_written_with_nan_is_a_host_violation_over_stdio() -> None:
    tools = [{"type": "function", "function": {"name": "calc", "parameters": {"type": "object"}}}]
    async with spawn() as raw:
        await sampling_handshake(raw)
        asked = await call_and_get_asked(
            raw, "chat_complete", {"messages": [{"role": "user", "content": "x"}], "tools": tools}
        )
        await raw.send_bytes(tool_use_answer(asked["id"], "calc", '{"x": [1, NaN]}'))
        result = (await receive_result(raw))["result"]
        assert result["isError"] is True
        assert (
            "content[0].input: the host's tool call at JSON pointer '/x/1' holds NaN"
            in result["content"][0]["text"]
        )


@pytest.mark.parametrize("ident", [b"1.5", b"true", b"{}", b"[]", b"null"])
async def test_a_request_with_an_invalid_id_gets_invalid_request_with_id_null(era: str, ident: bytes) -> None:
    async with spawn() as raw:
        await handshake(raw, era)
        meta = (
            b"" if era == "legacy" else b', "params": {"_meta": ' + json.dumps(modern_meta()).encode() + b"}"
        )
        await raw.send_bytes(b'{"jsonrpc": "2.0", "id": ' + ident + b', "method": "ping"' + meta + b"}\n")
        frame = await raw.receive()
        assert frame["id"] is None
        assert frame["error"]["code"] == -32600
        assert "an id must be a string or an integer" in frame["error"]["message"]
        await still_serves(raw, era)
        assert "WARNING agent_as_model.stdio" in raw.log()


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (b"1" * 5000, "params.arguments.prompt: an integer of 5000 digits (at most 4300 are read)"),
        (b'"a\\ud800b"', "params.arguments.prompt: a lone surrogate (U+D800) is not Unicode text"),
    ],
)
async def test_an_over_long_number_or_a_lone_surrogate_is_named_under_the_request_id(
    era: str, value: bytes, named: str
) -> None:
    async with spawn() as raw:
        await handshake(raw, era)
        meta = b"" if era == "legacy" else b', "_meta": ' + json.dumps(modern_meta()).encode()
        await raw.send_bytes(
            b'{"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "generate", '
            b'"arguments": {"prompt": ' + value + b"}" + meta + b"}}\n"
        )
        frame = await raw.receive()
        assert frame["id"] == 41
        assert frame["error"] == {"code": -32602, "message": f"Invalid params: {named}"}
        await still_serves(raw, era)


@pytest.mark.parametrize(
    ("result", "named"),
    [
        (b'"str"', "result is a string, expected an object"),
        (
            b'{"role": "assistant", "model": "m", "content": {"type": "text", "text": "a\\udc00"}}',
            "result.content.text: a lone surrogate (U+DC00)",
        ),
        (
            b'{"role": "assistant", "model": "m", "content": {"type": "text", "text": ' + b"9" * 4400 + b"}}",
            "result.content.text: an integer of 4400 digits",
        ),
    ],
)
async def test_a_legacy_answer_that_cannot_be_read_fails_its_call_at_once(result: bytes, named: str) -> None:
    # --host-timeout stays at its 600 s default: an answer within the test's guard is "at once".
    async with spawn() as raw:
        await sampling_handshake(raw)
        asked = await call_and_get_asked(raw, "generate", {"prompt": "q"})
        await raw.send_bytes(
            b'{"jsonrpc": "2.0", "id": '
            + json.dumps(asked["id"]).encode()
            + b', "result": '
            + result
            + b"}\n"
        )
        text = (await receive_result(raw))["result"]["content"][0]["text"]
        assert text.startswith(
            f"generate: sampling/createMessage: the host's answer could not be read: {named}"
        )
        assert text.endswith("The host was asked; its answer was not used.")
        await still_serves(raw, "legacy")


MISSING = "is missing (a sampling result has role, model and content)"
MALFORMED_ANSWERS = [
    (
        {"role": "assistant", "model": "m", "content": {"type": "text", "text": 5}},
        "params.inputResponses.completion.content.text: expected a string, got a number",
    ),
    (
        {"role": "assistant", "model": "m"},
        f"params.inputResponses.completion.content: {MISSING}",
    ),
    (
        {"role": "assistant", "content": {"type": "text", "text": "x"}},
        f"params.inputResponses.completion.model: {MISSING}",
    ),
    (
        {"role": "assistant", "model": "m", "content": {"type": "weird"}},
        "params.inputResponses.completion.content.type: 'weird' is not a sampling content block type",
    ),
    (
        {
            "role": "assistant",
            "model": "m",
            "content": [{"type": "tool_use", "id": "1", "name": "n", "input": [1]}],
        },
        "params.inputResponses.completion.content[0].input: expected an object, got an array",
    ),
]


@pytest.mark.parametrize(("answer", "named"), MALFORMED_ANSWERS)
async def test_a_malformed_input_response_is_named_on_2026_07_28(answer: dict[str, Any], named: str) -> None:
    async with spawn() as raw:
        params = {
            "name": "generate",
            "arguments": {"prompt": "q"},
            "inputResponses": {"completion": answer},
            "_meta": modern_meta(),
        }
        frame = await raw.request("tools/call", params)
        error = frame["error"]
        assert error["code"] == -32602
        assert error["message"].startswith(f"Invalid request parameters: {named}")
        # The answer is the host's (to an earlier round): it was asked, so "nothing sent" is untrue.
        assert error["message"].endswith(
            "The host's answer in inputResponses was not used; nothing more was sent to the host."
        )
        assert error["data"]["field"] == named.split(":")[0]
        await still_serves(raw, "2026-07-28")


async def test_a_2026_retry_whose_tool_output_is_written_with_nan_is_a_schema_violation() -> None:
    meta = modern_meta()
    meta["io.modelcontextprotocol/clientCapabilities"] = {"sampling": {"tools": {}}}
    arguments = {"messages": [{"role": "user", "content": "n?"}], "output_schema": NUMBER}
    async with spawn() as raw:
        first = await raw.request(
            "tools/call", {"name": "chat_complete", "arguments": arguments, "_meta": meta}
        )
        state = first["result"]["requestState"]
        answer = tool_use_answer(0, "structured_output", '{"n": NaN}')
        completion = answer[answer.index(b'"result": ') + len(b'"result": ') : answer.rindex(b"}")]
        params = json.dumps(
            {"name": "chat_complete", "arguments": arguments, "requestState": state, "_meta": meta}
        )
        retry = (
            b'{"jsonrpc": "2.0", "id": "retry", "method": "tools/call", "params": '
            + params[:-1].encode()
            + b', "inputResponses": {"completion": '
            + completion
            + b"}}}\n"
        )
        await raw.send_bytes(retry)
        result = (await receive_result(raw, "retry"))["result"]
        assert result["isError"] is True and "structuredContent" not in result
        assert "violates the schema at JSON pointer '/n': holds NaN" in result["content"][0]["text"]
        assert result["_meta"]["agent-as-model/result"] == {"backend": "host"}  # who answered


async def test_an_unreadable_answer_under_a_megabyte_key_is_named_by_a_cut_path() -> None:
    # The path is built from the host's own keys: a 1 MB key must not come back whole.
    key = b"k" * 1_000_000
    async with spawn() as raw:
        await sampling_handshake(raw)
        asked = await call_and_get_asked(raw, "generate", {"prompt": "q"})
        await raw.send_bytes(
            b'{"jsonrpc": "2.0", "id": '
            + json.dumps(asked["id"]).encode()
            + b', "result": {"role": "assistant", "model": "m", "content": {"type": "text", "text": '
            + b'"x", "'
            + key
            + b'": "\\ud800"}}}\n'
        )
        text = (await receive_result(raw))["result"]["content"][0]["text"]
        assert text.startswith(
            "generate: sampling/createMessage: the host's answer could not be read: result.content.kkk"
        )
        assert "... [cut: " in text and ": a lone surrogate (U+D800) is not Unicode text" in text
        assert len(text) < 1000
        await still_serves(raw, "legacy")


async def test_a_megabyte_host_error_is_quoted_cut_with_a_mark_over_stdio() -> None:
    async with spawn() as raw:
        await sampling_handshake(raw)
        asked = await call_and_get_asked(raw, "generate", {"prompt": "q"})
        await raw.send(
            {"jsonrpc": "2.0", "id": asked["id"], "error": {"code": -1, "message": "y" * 1_000_000}}
        )
        result = (await receive_result(raw))["result"]
        text = result["content"][0]["text"]
        assert result["isError"] is True
        assert (
            "sampling/createMessage: the host answered with error -1: "
            + "y" * 300
            + "... [cut: 999700 more characters]"
            in text
        )
        assert len(text) < 1000
        await still_serves(raw, "legacy")


async def test_an_id_written_with_escapes_is_still_judged() -> None:
    # "\u0069d" is "id": the request is not a notification, and its id is not one.
    async with spawn() as raw:
        await handshake(raw, "legacy")
        await raw.send_bytes(b'{"jsonrpc": "2.0", "\\u0069d": 1.5, "method": "ping"}\n')
        frame = await raw.receive()
        assert frame["id"] is None and frame["error"]["code"] == -32600
        assert "the request's id is a number" in frame["error"]["message"]
        await still_serves(raw, "legacy")


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("value", [b'"a\\ud800"', b"5" * 4400])
async def test_a_notification_that_cannot_be_read_is_logged_not_answered(era: str, value: bytes) -> None:
    async with spawn() as raw:
        await handshake(raw, era)
        await raw.send_bytes(
            b'{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", '
            b'"progress": 1, "message": ' + value + b"}}\n"
        )
        await still_serves(raw, era)  # the next frame is that call's reply: no error came first
        assert "WARNING agent_as_model.stdio: params.message: " in raw.log()
