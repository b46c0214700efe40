"""Inline images and audio reach the host's model, checked before anything is sent.

Bodies are built with the products' own SDK types (openai, anthropic, google-genai); the PNG and
the WAV are made here (zlib + struct, the wave module); the scripted host checks the bytes it got.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import struct
import wave
import zlib
from typing import Any

import pytest
from anthropic.types import Base64ImageSourceParam, ImageBlockParam, TextBlockParam
from anthropic.types.user_message_param import UserMessageParam
from google.genai import types as genai
from mcp_types import (
    AudioContent,
    CreateMessageRequestParams,
    CreateMessageResultWithTools,
    ImageContent,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
)
from openai.types.chat import (
    ChatCompletionContentPartImageParam,
    ChatCompletionContentPartInputAudioParam,
    ChatCompletionContentPartTextParam,
    ChatCompletionUserMessageParam,
)
from openai.types.responses import EasyInputMessageParam, ResponseInputImageParam, ResponseInputTextParam

from agent_as_model.adapters.backends.providers import anthropic as provider_anthropic
from agent_as_model.adapters.backends.providers import openai as provider_openai
from agent_as_model.adapters.dialects import media
from agent_as_model.commands import cli
from agent_as_model.commands.limit_options import limits_of
from agent_as_model.errors import CallError
from agent_as_model.limits import Limits
from agent_as_model.server import build_server
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio


def png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as clip:
        clip.setnchannels(1)
        clip.setsampwidth(2)
        clip.setframerate(8000)
        clip.writeframes(b"\x00\x00\x10\x00" * 40)
    return out.getvalue()


PNG, WAV = png(), wav()
PNG64, WAV64 = base64.b64encode(PNG).decode(), base64.b64encode(WAV).decode()


def chat_body(image: str = f"data:image/png;base64,{PNG64}") -> dict[str, Any]:
    message = ChatCompletionUserMessageParam(
        role="user",
        content=[
            ChatCompletionContentPartTextParam(type="text", text="what is this?"),
            ChatCompletionContentPartImageParam(type="image_url", image_url={"url": image, "detail": "low"}),
            ChatCompletionContentPartInputAudioParam(
                type="input_audio", input_audio={"data": WAV64, "format": "wav"}
            ),
        ],
    )
    return {"messages": [message]}


def messages_body(data: str = PNG64, media_type: str = "image/png") -> dict[str, Any]:
    source = Base64ImageSourceParam(type="base64", media_type=media_type, data=data)  # type: ignore[typeddict-item]
    message = UserMessageParam(
        role="user",
        content=[
            TextBlockParam(type="text", text="what is this?"),
            ImageBlockParam(type="image", source=source),
        ],
    )
    return {"messages": [message], "max_tokens": 50}


def responses_body() -> dict[str, Any]:
    message = EasyInputMessageParam(
        role="user",
        content=[
            ResponseInputTextParam(type="input_text", text="what is this?"),
            ResponseInputImageParam(
                type="input_image", image_url=f"data:image/png;base64,{PNG64}", detail="auto"
            ),
        ],
    )
    return {"input": [message]}


def gemini_body() -> dict[str, Any]:
    content = genai.Content(
        role="user",
        parts=[
            genai.Part(text="what is this?"),
            genai.Part(inline_data=genai.Blob(mime_type="image/png", data=PNG)),
            genai.Part(inline_data=genai.Blob(mime_type="audio/wav", data=WAV)),
        ],
    )
    return {"contents": [content.model_dump(mode="json", exclude_none=True)]}  # URL-safe base64


def decoded(block: Any) -> tuple[str, str, bytes]:
    return block.type, block.mime_type, base64.b64decode(block.data, validate=True)


class BytesHost(ScriptedHost):
    """Answers with what it received: each block's type, MIME type and the sha256 of its bytes."""

    def __init__(self) -> None:
        super().__init__(self.describe)

    @staticmethod
    def describe(params: CreateMessageRequestParams) -> str:
        blocks = params.messages[-1].content_as_list
        seen = [
            [b.type, b.mime_type, hashlib.sha256(base64.b64decode(b.data, validate=True)).hexdigest()]
            if isinstance(b, ImageContent | AudioContent)
            else [b.type, getattr(b, "text", "")]
            for b in blocks
        ]
        return json.dumps(seen)


# An MP3 frame header (MPEG-1 Layer III, 128 kbit/s, 44.1 kHz) and silence: the magic number.
MP3 = b"\xff\xfb\x90\x64" + bytes(413)


@pytest.mark.parametrize("mime", ["audio/mp3", "audio/mpeg", "audio/x-wav", "audio/wave"])
async def test_gemini_takes_the_audio_types_its_sdk_writes(era: str, mime: str) -> None:
    # Gemini's documentation writes MP3 as audio/mp3; WAV also travels as audio/x-wav.
    raw = MP3 if "mp" in mime else WAV
    content = genai.Content(role="user", parts=[genai.Part(inline_data=genai.Blob(mime_type=mime, data=raw))])
    host = BytesHost()
    async with connect(era, host) as client:
        result = await client.call_tool(
            "gemini_generate_content", {"contents": [content.model_dump(mode="json", exclude_none=True)]}
        )
    assert not result.is_error, result.content[0].text
    assert json.loads(completion("gemini_generate_content", result)) == [
        ["audio", mime, hashlib.sha256(raw).hexdigest()]
    ]


IMAGE = ["image", "image/png", hashlib.sha256(PNG).hexdigest()]
AUDIO = ["audio", "audio/wav", hashlib.sha256(WAV).hexdigest()]
QUESTION = ["text", "what is this?"]

CASES = {
    "chat_complete": (chat_body(), [QUESTION, IMAGE, AUDIO]),
    "messages_create": (messages_body(), [QUESTION, IMAGE]),
    "responses_create": (responses_body(), [QUESTION, IMAGE]),
    "gemini_generate_content": (gemini_body(), [QUESTION, IMAGE, AUDIO]),
}


def completion(tool: str, result: Any) -> str:
    text = result.content[0].text
    if tool == "responses_create":
        return json.loads(text)["output"][0]["content"][0]["text"]
    if tool == "gemini_generate_content":
        return json.loads(text)["candidates"][0]["content"]["parts"][0]["text"]
    return text


@pytest.mark.parametrize("tool", list(CASES))
async def test_inline_media_reaches_the_host_byte_for_byte(era: str, tool: str) -> None:
    body, expected = CASES[tool]
    host = BytesHost()
    async with connect(era, host) as client:
        result = await client.call_tool(tool, body)
    assert not result.is_error, result.content[0].text
    assert json.loads(completion(tool, result)) == expected  # the host checked the bytes it got
    assert host.asked == 1


@pytest.mark.parametrize(
    ("tool", "body", "expected"),
    [
        ("chat_complete", chat_body("data:image/png;base64,!!!!"), "image_url.url: is not valid base64"),
        (
            "chat_complete",
            chat_body("https://example.com/a.png"),
            "image_url.url: remote media is not fetched",
        ),
        (
            "chat_complete",
            chat_body(f"data:image/bmp;base64,{PNG64}"),
            "media type 'image/bmp' is not allowed here",
        ),
        (
            "messages_create",
            messages_body(media_type="image/jpeg"),
            "messages[0].content[1].source.data: the bytes do not match the declared type image/jpeg "
            "(they look like image/png)",
        ),
        (
            "messages_create",
            {
                "messages": [
                    {"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "x"}}]}
                ]
            },
            "messages[0].content[0].source: a 'url' source: remote media is not fetched",
        ),
        (
            "responses_create",
            {"input": [{"role": "user", "content": [{"type": "input_image", "file_id": "file-1"}]}]},
            "input[0].content[0].file_id: a file id: remote media is not fetched",
        ),
        (
            "gemini_generate_content",
            {
                "contents": [
                    {"role": "user", "parts": [{"inlineData": {"mimeType": "audio/wav", "data": PNG64}}]}
                ]
            },
            "contents[0].parts[0].inlineData.data: the bytes do not match the declared type audio/wav",
        ),
    ],
)
async def test_bad_media_is_named_and_nothing_is_sent(era: str, tool: str, body: Any, expected: str) -> None:
    host = ScriptedHost("unused")
    async with connect(era, host) as client:
        result = await client.call_tool(tool, body)
    assert result.is_error
    assert expected in result.content[0].text, result.content[0].text
    assert "Nothing was sent to the host" in result.content[0].text
    assert host.asked == 0


async def test_the_part_and_call_bounds(era: str) -> None:
    host = ScriptedHost("fine")
    two = messages_body()
    two["messages"][0]["content"].append(two["messages"][0]["content"][1])
    tight_part = build_server(limits=Limits(max_media_bytes=len(PNG) - 1))
    async with connect(era, host, server=tight_part) as client:
        over_part = await client.call_tool("messages_create", messages_body())
    tight_call = build_server(limits=Limits(max_media_call_bytes=len(PNG) + 2))  # one fits, two do not
    async with connect(era, host, server=tight_call) as client:
        over_call = await client.call_tool("messages_create", two)
        one = await client.call_tool("messages_create", messages_body())
    assert (
        f"messages[0].content[1].source.data: the media part is {len(PNG)} bytes, over the bound of "
        f"{len(PNG) - 1} (serve --max-media-bytes). Nothing was sent to the host."
        in over_part.content[0].text
    )
    assert "content[2].source.data: the call's media come to more than the bound" in over_call.content[0].text
    assert "(serve --max-media-call-bytes)" in over_call.content[0].text
    assert not one.is_error
    assert host.asked == 1


def test_the_media_flags_set_the_limits() -> None:
    parser = cli._parser()
    args = parser.parse_args(["serve", "--max-media-bytes", "2048", "--max-media-call-bytes", "4096"])
    limits = limits_of(args)
    assert (limits.max_media_bytes, limits.max_media_call_bytes) == (2048, 4096)
    defaults = limits_of(parser.parse_args(["serve"]))
    assert (defaults.max_media_bytes, defaults.max_media_call_bytes) == (10 * 2**20, 20 * 2**20)


async def test_media_with_structured_output_and_tools_on_the_host(era: str) -> None:
    schema = {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}
    body = {**messages_body(), "output_config": {"format": {"type": "json_schema", "schema": schema}}}
    host = ScriptedHost('{"colour": "green"}')
    async with connect(era, host) as client:
        result = await client.call_tool("messages_create", body)
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == {"colour": "green"}
    sent = host.seen[0].messages[0].content_as_list
    assert [b.type for b in sent] == ["text", "image"]
    assert decoded(sent[1]) == ("image", "image/png", PNG)


async def test_a_cursor_chain_records_media_by_digest(era: str) -> None:
    from agent_as_model.adapters.dialects.turns import Turns

    turns = Turns()
    turns.start("user", "messages[0]")
    turns.add(media.inline(PNG64, "image/png", "x", media.IMAGE_TYPES))
    (entry,) = turns.transcript()
    assert entry == {"role": "user", "content": f"[media image/png;sha256={hashlib.sha256(PNG).hexdigest()}]"}


def _payload(*blocks: Any) -> CreateMessageRequestParams:
    return CreateMessageRequestParams(
        messages=[SamplingMessage(role="user", content=list(blocks))],
        max_tokens=10,
        model_preferences=ModelPreferences(hints=[ModelHint(name="m")]),
    )


def test_the_providers_take_media_in_their_own_shapes() -> None:
    text = TextContent(type="text", text="q")
    image = ImageContent(type="image", data=PNG64, mime_type="image/png")
    audio = AudioContent(type="audio", data=WAV64, mime_type="audio/wav")
    body = provider_openai.request_body(_payload(text, image, audio), "m")
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "q"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG64}"}},
                {"type": "input_audio", "input_audio": {"data": WAV64, "format": "wav"}},
            ],
        }
    ]
    body = provider_anthropic.request_body(_payload(text, image), "m")
    assert body["messages"][0]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG64},
    }
    with pytest.raises(CallError, match="an audio part cannot go to the Anthropic provider"):
        provider_anthropic.request_body(_payload(text, audio), "m")


async def stdio_call(
    recording: Any, tool: str, arguments: dict[str, Any], answer: dict[str, Any], *flags: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One tools/call to the installed command over real stdio, recorded with `--redact`, the
    host answering `answer`: the sampling request it got, and the tool's result."""
    import anyio
    from anyio.streams.buffered import BufferedByteReceiveStream

    from tests.helpers import COMMAND, INITIALIZED, initialize_request

    serve = [str(COMMAND), "serve", "--record", str(recording), "--redact", *flags]
    process = await anyio.open_process(serve)
    assert process.stdin is not None and process.stdout is not None
    stdout = BufferedByteReceiveStream(process.stdout)

    async def send(frame: dict[str, Any]) -> None:
        assert process.stdin is not None
        await process.stdin.send((json.dumps(frame) + "\n").encode())

    async def receive() -> dict[str, Any]:
        with anyio.fail_after(300):  # a guard against a hung server, not a budget
            frame: dict[str, Any] = json.loads(await stdout.receive_until(b"\n", 1 << 22))
        return frame

    try:
        await send(initialize_request({"sampling": {}}))
        await receive()
        await send(INITIALIZED)
        call = {"name": tool, "arguments": arguments}
        await send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        sampling = result = await receive()
        if sampling.get("method") == "sampling/createMessage":  # else the call ended before asking
            await send({"jsonrpc": "2.0", "id": sampling["id"], "result": answer})
            result = await receive()
        await process.stdin.aclose()
        with anyio.fail_after(300):
            await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return sampling, result


async def replays_clean(recording: Any) -> None:
    import io as text_io

    from agent_as_model.commands.transcripts.command import MATCHED, replay_path

    out = text_io.StringIO()
    assert await replay_path(recording, out=out, err=text_io.StringIO()) == MATCHED, out.getvalue()


@pytest.mark.stdio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_over_stdio_a_redacted_recording_with_media_replays_clean(
    tmp_path: Any, anyio_backend: str
) -> None:
    """The installed command over real stdio: the host gets the image's bytes; `--redact` stands
    the media in with same-length valid data (no pixel of it written down), and the recording
    replays to a match."""
    from agent_as_model.commands.transcripts.fileformat import load

    recording = tmp_path / "media.jsonl"
    arguments = chat_body()
    answer = {"role": "assistant", "content": {"type": "text", "text": "a green pixel"}, "model": "raw"}
    sampling, result = await stdio_call(recording, "chat_complete", arguments, answer)
    blocks = sampling["params"]["messages"][0]["content"]
    assert [b["type"] for b in blocks] == ["text", "image", "audio"]
    assert base64.b64decode(blocks[1]["data"], validate=True) == PNG  # the bytes, over stdio
    assert base64.b64decode(blocks[2]["data"], validate=True) == WAV
    assert result["result"]["content"][0]["text"] == "a green pixel"
    written = recording.read_text(encoding="utf-8")
    assert PNG64[24:] not in written and WAV64[24:] not in written  # the media's data is stood in
    calls = [
        e.frame for e in load(recording).frames if e.direction == "c2s" and e.context.method == "tools/call"
    ]
    url = calls[0]["params"]["arguments"]["messages"][0]["content"][1]["image_url"]["url"]
    assert len(url) == len(arguments["messages"][0]["content"][1]["image_url"]["url"])
    assert base64.b64decode(url.split(",", 1)[1], validate=True).startswith(b"\x89PNG")
    await replays_clean(recording)


def test_the_redaction_stand_in_keeps_length_alphabet_and_type() -> None:
    from agent_as_model.commands.transcripts.redact import media_stand_in

    urlsafe = base64.urlsafe_b64encode(WAV + b"\xff\xfe" * 9).decode()
    for data, mime in ((PNG64, "image/png"), (WAV64, "audio/wav"), (urlsafe, "audio/wav")):
        stand_in = media_stand_in(data)
        assert stand_in is not None and len(stand_in) == len(data) and stand_in != data
        if data is urlsafe:  # the same alphabet: Gemini's SDK writes URL-safe base64
            assert "+" not in stand_in and "/" not in stand_in
        media.inline(
            stand_in.replace("-", "+").replace("_", "/"), mime, "x", media.IMAGE_TYPES + media.AUDIO_TYPES
        )
    assert media_stand_in("just words") is None
    assert media_stand_in("aGVsbG8=") is None  # valid base64 of no known format: redacted as text


# -- item 4: a host that answers with media ------------------------------------------------------


def media_answer(*blocks: Any) -> CreateMessageResultWithTools:
    return CreateMessageResultWithTools(role="assistant", content=list(blocks), model="painter")


IMAGE_BLOCK = ImageContent(type="image", data=PNG64, mime_type="image/png")
AUDIO_BLOCK = AudioContent(type="audio", data=WAV64, mime_type="audio/wav")


def gemini_answer(result: Any) -> genai.GenerateContentResponse:
    assert not result.is_error, result.content[0].text
    return genai.GenerateContentResponse.model_validate_json(result.content[0].text)


async def test_a_media_answer_becomes_gemini_inline_data(era: str) -> None:
    host = ScriptedHost(media_answer(TextContent(type="text", text="here:"), IMAGE_BLOCK, AUDIO_BLOCK))
    async with connect(era, host) as client:
        result = await client.call_tool("gemini_generate_content", gemini_body())
    response = gemini_answer(result)  # validated by google-genai's own types
    assert response.candidates is not None and response.candidates[0].content is not None
    parts = response.candidates[0].content.parts or []
    assert parts[0].text == "here:"
    assert parts[1].inline_data is not None and parts[2].inline_data is not None
    assert (parts[1].inline_data.mime_type, parts[1].inline_data.data) == ("image/png", PNG)
    assert (parts[2].inline_data.mime_type, parts[2].inline_data.data) == ("audio/wav", WAV)
    assert response.candidates[0].finish_reason == genai.FinishReason.STOP


async def test_a_gemini_chain_continues_past_a_media_answer(era: str) -> None:
    """The answer's entry holds the image by digest in its place; passing the SDK's own Content of
    the candidate back continues the chain, and the host is given the image as the model's."""
    host = ScriptedHost(media_answer(IMAGE_BLOCK, TextContent(type="text", text="a pixel")), "more")
    first_body = {**gemini_body(), "previous_response_id": ""}
    async with connect(era, host) as client:
        first = await client.call_tool("gemini_generate_content", first_body)
        response = gemini_answer(first)
        assert response.candidates is not None and response.candidates[0].content is not None
        model_turn = response.candidates[0].content.model_dump(mode="json", exclude_none=True)
        again = genai.Content(role="user", parts=[genai.Part(text="and now?")])
        contents = [*first_body["contents"], model_turn, again.model_dump(mode="json", exclude_none=True)]
        second = await client.call_tool(
            "gemini_generate_content", {"contents": contents, "previous_response_id": response.response_id}
        )
    assert gemini_answer(second).text == "more"
    passed_back = host.seen[1].messages[1]
    assert passed_back.role == "assistant"
    assert [decoded(b) if b.type == "image" else b.text for b in passed_back.content_as_list] == [
        ("image", "image/png", PNG),
        "a pixel",
    ]


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            ImageContent(type="image", data=WAV64, mime_type="image/png"),
            "content[0].data: the host's image: the bytes do not match the declared type image/png "
            "(they look like audio/wav)",
        ),
        (
            ImageContent(type="image", data=PNG64, mime_type="image/svg+xml"),
            "content[0].data: the host's image: media type 'image/svg+xml' is not allowed here",
        ),
        (
            ImageContent(type="image", data="@@@@", mime_type="image/png"),
            "the host's image: is not valid base64",
        ),
    ],
)
async def test_bad_host_media_is_a_host_violation(era: str, block: Any, expected: str) -> None:
    host = ScriptedHost(media_answer(block), "fine")
    async with connect(era, host) as client:
        bad = await client.call_tool("gemini_generate_content", gemini_body())
        good = await client.call_tool("gemini_generate_content", gemini_body())
    assert bad.is_error
    assert expected in bad.content[0].text, bad.content[0].text
    assert "The host was asked; its answer was not used." in bad.content[0].text
    assert gemini_answer(good).text == "fine"


async def test_host_media_is_bounded_and_refused_beside_an_output_contract(era: str) -> None:
    host = ScriptedHost(media_answer(IMAGE_BLOCK))
    tight = build_server(limits=Limits(max_media_bytes=len(PNG) + len(WAV)))  # the call's own media fit
    body = {**gemini_body(), "contents": [{"role": "user", "parts": [{"text": "draw"}]}]}
    over = build_server(limits=Limits(max_media_bytes=len(PNG) - 1))
    async with connect(era, host, server=over) as client:
        too_big = await client.call_tool("gemini_generate_content", body)
    schema = {"type": "object"}
    structured = {
        **body,
        "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": schema},
    }
    async with connect(era, host, server=tight) as client:
        with_contract = await client.call_tool("gemini_generate_content", structured)
    assert f"content[0].data: the host's image is {len(PNG)} bytes, over the bound of {len(PNG) - 1}" in (
        too_big.content[0].text
    )
    assert (
        "content[0].data: the host answered with image (image/png) where the output contract of "
        "generationConfig.responseJsonSchema asks for one JSON object" in with_contract.content[0].text
    ), with_contract.content[0].text


@pytest.mark.parametrize("tool", ["chat_complete", "messages_create", "responses_create", "generate"])
async def test_products_without_a_media_answer_shape_name_what_the_host_sent(era: str, tool: str) -> None:
    from agent_as_model.adapters.dialects import DIALECTS

    host = ScriptedHost(media_answer(TextContent(type="text", text="see"), IMAGE_BLOCK))
    async with connect(era, host) as client:
        result = await client.call_tool(tool, dict(DIALECTS[tool].EXAMPLE or {}))
    assert result.is_error
    assert "content[1]: the host answered with a block of type 'image': only text is accepted" in (
        result.content[0].text
    )


@pytest.mark.stdio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_over_stdio_a_media_answer_reaches_gemini_and_its_redacted_recording_replays(
    tmp_path: Any, anyio_backend: str
) -> None:
    recording = tmp_path / "answer.jsonl"
    answer = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "drawn"},
            {"type": "image", "data": PNG64, "mimeType": "image/png"},
        ],
        "model": "painter",
    }
    _, result = await stdio_call(recording, "gemini_generate_content", gemini_body(), answer)
    response = genai.GenerateContentResponse.model_validate_json(result["result"]["content"][0]["text"])
    assert response.candidates is not None and response.candidates[0].content is not None
    parts = response.candidates[0].content.parts or []
    assert parts[1].inline_data is not None and parts[1].inline_data.data == PNG
    assert PNG64[24:] not in recording.read_text(encoding="utf-8")  # neither the host's nor the result's
    await replays_clean(recording)


# -- item 1: tool results that carry images ------------------------------------------------------


def anthropic_tool_history() -> dict[str, Any]:
    from anthropic.types import AssistantMessageParam, ToolResultBlockParam, ToolUseBlockParam

    source = Base64ImageSourceParam(type="base64", media_type="image/png", data=PNG64)
    return {
        "messages": [
            UserMessageParam(role="user", content="draw a pixel"),
            AssistantMessageParam(
                role="assistant", content=[ToolUseBlockParam(type="tool_use", id="t1", name="draw", input={})]
            ),
            UserMessageParam(
                role="user",
                content=[
                    ToolResultBlockParam(
                        type="tool_result",
                        tool_use_id="t1",
                        content=[
                            TextBlockParam(type="text", text="drawn"),
                            ImageBlockParam(type="image", source=source),
                        ],
                    )
                ],
            ),
        ],
        "max_tokens": 50,
    }


def responses_tool_history() -> dict[str, Any]:
    from openai.types.responses import (
        ResponseFunctionToolCallParam,
        ResponseInputImageContentParam,
        ResponseInputTextContentParam,
    )
    from openai.types.responses.response_input_param import FunctionCallOutput

    return {
        "input": [
            EasyInputMessageParam(role="user", content="draw a pixel"),
            ResponseFunctionToolCallParam(type="function_call", call_id="t1", name="draw", arguments="{}"),
            FunctionCallOutput(
                type="function_call_output",
                call_id="t1",
                output=[
                    ResponseInputTextContentParam(type="input_text", text="drawn"),
                    ResponseInputImageContentParam(
                        type="input_image", image_url=f"data:image/png;base64,{PNG64}", detail="low"
                    ),
                ],
            ),
        ]
    }


def gemini_tool_history() -> dict[str, Any]:
    contents = [
        genai.Content(role="user", parts=[genai.Part(text="draw a pixel")]),
        genai.Content(
            role="model", parts=[genai.Part(function_call=genai.FunctionCall(id="t1", name="draw", args={}))]
        ),
        genai.Content(
            role="user",
            parts=[
                genai.Part(
                    function_response=genai.FunctionResponse(
                        id="t1",
                        name="draw",
                        response={"output": "drawn"},
                        parts=[
                            genai.FunctionResponsePart(
                                inline_data=genai.FunctionResponseBlob(mime_type="image/png", data=PNG)
                            )
                        ],
                    )
                )
            ],
        ),
    ]
    return {"contents": [c.model_dump(mode="json", exclude_none=True) for c in contents]}


TOOL_HISTORIES = {
    "messages_create": (anthropic_tool_history, "messages[2].content[0].content[1].source.data"),
    "responses_create": (responses_tool_history, "input[2].output[1].image_url"),
    "gemini_generate_content": (
        gemini_tool_history,
        "contents[2].parts[0].function_response.parts[0].inline_data.data",
    ),
}


def seen_blocks(blocks: list[Any]) -> list[Any]:
    """What a host checks of blocks: a tool result's own content, the bytes of each image."""
    out: list[Any] = []
    for b in blocks:
        if b.type == "tool_result":
            out.append(["tool_result", b.tool_use_id, seen_blocks(b.content)])
        elif b.type in ("image", "audio"):
            out.append(
                [b.type, b.mime_type, hashlib.sha256(base64.b64decode(b.data, validate=True)).hexdigest()]
            )
        else:
            out.append([b.type, b.text])
    return out


@pytest.mark.parametrize("tool", list(TOOL_HISTORIES))
async def test_an_image_in_a_tool_result_reaches_a_host_that_takes_tools(era: str, tool: str) -> None:
    host = ScriptedHost(lambda params: json.dumps(seen_blocks(params.messages[-1].content_as_list)))
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(tool, TOOL_HISTORIES[tool][0]())
    assert not result.is_error, result.content[0].text
    assert json.loads(completion(tool, result)) == [["tool_result", "t1", [["text", "drawn"], IMAGE]]]


@pytest.mark.parametrize("tool", list(TOOL_HISTORIES))
async def test_an_image_in_a_tool_result_follows_its_text_for_a_host_without_tools(
    era: str, tool: str
) -> None:
    host = ScriptedHost(lambda params: json.dumps(seen_blocks(params.messages[-1].content_as_list)))
    async with connect(era, host) as client:
        result = await client.call_tool(tool, TOOL_HISTORIES[tool][0]())
    assert not result.is_error, result.content[0].text
    assert json.loads(completion(tool, result)) == [["text", "[tool result t1: drawn]"], IMAGE]


# The `draw` tool of the histories above, in each product's shape: with it, a server that
# emulates tool use (`--host-without-tools emulate`) renders the history as its text.
DRAW_TOOLS: dict[str, list[Any]] = {
    "messages_create": [{"name": "draw", "input_schema": {"type": "object"}}],
    "responses_create": [{"type": "function", "name": "draw", "parameters": {"type": "object"}}],
    "gemini_generate_content": [
        {"function_declarations": [{"name": "draw", "parameters_json_schema": {"type": "object"}}]}
    ],
}


@pytest.mark.parametrize("tool", list(TOOL_HISTORIES))
async def test_an_image_in_a_tool_result_follows_its_line_when_tool_use_is_emulated(
    era: str, tool: str
) -> None:
    host = ScriptedHost(lambda params: json.dumps(seen_blocks(params.messages[-1].content_as_list)))
    emulating = build_server(limits=Limits(host_without_tools="emulate"))
    async with connect(era, host, server=emulating) as client:
        result = await client.call_tool(tool, {**TOOL_HISTORIES[tool][0](), "tools": DRAW_TOOLS[tool]})
    assert not result.is_error, result.content[0].text
    # Gemini's `{"output": ...}` response is read as its output, as for a host that takes tools.
    assert json.loads(completion(tool, result)) == [["text", "Tool result for call t1 (draw): drawn"], IMAGE]


@pytest.mark.parametrize("tool", list(TOOL_HISTORIES))
async def test_a_tool_results_image_is_checked_and_bounded(era: str, tool: str) -> None:
    build, path = TOOL_HISTORIES[tool]
    host = ScriptedHost("unused")
    over = build_server(limits=Limits(max_media_bytes=len(PNG) - 1))
    async with connect(era, host, tools=True, server=over) as client:
        result = await client.call_tool(tool, build())
    assert result.is_error
    assert f"{path}: the media part is {len(PNG)} bytes, over the bound" in result.content[0].text, (
        result.content[0].text
    )
    assert "Nothing was sent to the host" in result.content[0].text
    assert host.asked == 0


@pytest.mark.parametrize(
    ("tool", "body", "expected"),
    [
        (
            "messages_create",
            lambda: _swap(anthropic_tool_history(), PNG64, WAV64),
            "messages[2].content[0].content[1].source.data: the bytes do not match the declared type "
            "image/png",
        ),
        (
            "responses_create",
            lambda: _swap(
                responses_tool_history(), f"data:image/png;base64,{PNG64}", "https://example.com/a.png"
            ),
            "input[2].output[1].image_url: remote media is not fetched",
        ),
        (
            "gemini_generate_content",
            lambda: _swap(gemini_tool_history(), "inline_data", "file_data"),
            "contents[2].parts[0].function_response.parts[0].file_data: a fileData part: remote media is "
            "not fetched",
        ),
    ],
)
async def test_bad_media_in_a_tool_result_is_named(era: str, tool: str, body: Any, expected: str) -> None:
    host = ScriptedHost("unused")
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(tool, body())
    assert result.is_error
    assert expected in result.content[0].text, result.content[0].text
    assert host.asked == 0


def _swap(body: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    swapped: dict[str, Any] = json.loads(json.dumps(body).replace(json.dumps(old), json.dumps(new)))
    return swapped


async def test_a_chain_over_a_tool_result_with_an_image_continues(era: str) -> None:
    """The tool entry holds the image by digest; the next call with the cursor and the answer
    passed back is accepted."""
    from agent_as_model.adapters.dialects.turns import Turns
    from agent_as_model.neutral import Text, ToolResult

    host = ScriptedHost("a green pixel", "again")
    body = {**anthropic_tool_history(), "previous_response_id": ""}
    async with connect(era, host, tools=True) as client:
        first = await client.call_tool("messages_create", body)
        said = json.loads(first.content[0].text)
        more = [
            *body["messages"],
            {"role": "assistant", "content": said["completion"]},
            {"role": "user", "content": "more"},
        ]
        second = await client.call_tool(
            "messages_create", {**body, "messages": more, "previous_response_id": said["response_id"]}
        )
    assert not second.is_error, second.content[0].text
    assert json.loads(second.content[0].text)["completion"] == "again"
    turns = Turns()
    image = media.inline(PNG64, "image/png", "x", media.IMAGE_TYPES)
    turns.tool_result(ToolResult("t1", "drawn", False, (Text("drawn"), image)), "m")
    assert turns.transcript() == (
        {"role": "tool", "tool_call_id": "t1", "content": f"drawn\n[media image/png;sha256={IMAGE[2]}]"},
    )
    assert turns.media_parts == [image]  # counted towards the bounds


def test_the_anthropic_provider_takes_a_tool_results_image_and_openai_refuses_it() -> None:
    from mcp_types import ToolResultContent

    result = ToolResultContent(
        type="tool_result", tool_use_id="t1", content=[TextContent(type="text", text="drawn"), IMAGE_BLOCK]
    )
    body = provider_anthropic.request_body(_payload(result), "m")
    assert body["messages"][0]["content"][0]["content"] == [
        {"type": "text", "text": "drawn"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG64}},
    ]
    with pytest.raises(CallError, match="the tool result 't1' holds an image or audio part"):
        provider_openai.request_body(_payload(result), "m")
    model_turn = CreateMessageRequestParams(
        messages=[SamplingMessage(role="assistant", content=[IMAGE_BLOCK])],
        max_tokens=10,
    )
    for provider in (provider_openai, provider_anthropic):
        with pytest.raises(CallError, match="an image or audio part in a model turn"):
            provider.request_body(model_turn, "m")


async def test_media_a_provider_cannot_take_is_refused_before_anything_is_sent(
    era: str, standin: Any
) -> None:
    # Audio to the Anthropic provider: its request body is written before the exchange, so the
    # refusal names the part and says nothing was sent (neither to the host nor to the provider).
    from tests.provider_harness import provider_server

    host = ScriptedHost("unused")
    async with connect(era, host, server=provider_server(standin, "anthropic")) as client:
        result = await client.call_tool("chat_complete", {**chat_body(), "backend": "provider"})
        after = await client.call_tool(
            "chat_complete", {"messages": [{"role": "user", "content": "hi"}], "backend": "provider"}
        )
    text = result.content[0].text
    assert result.is_error and "audio" in text, text
    assert text.endswith("Nothing was sent to the host."), text
    assert "may have been asked" not in text
    assert len(standin.seen) == 1 and host.asked == 0  # only the call after it reached the provider
    assert not after.is_error


# -- item 7: personas and repairs with media in the conversation ---------------------------------


@pytest.mark.parametrize("tool", list(CASES))
async def test_a_persona_with_media_in_the_conversation(era: str, tool: str) -> None:
    verdict = {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}
    # The request object holds the media as the caller sent it: an input_schema may look at it.
    persona = {"name": "looker", "input_schema": {"type": "object"}, "output_schema": verdict}
    body, expected = CASES[tool]
    host = BytesHost()
    plain_host = BytesHost()
    good = ScriptedHost(lambda params: json.dumps({"colour": json.dumps(BytesHost.describe(params))}))
    async with connect(era, good) as client:
        judged = await client.call_tool(tool, {**body, "persona": persona})
    async with connect(era, host) as client:
        refused = await client.call_tool(tool, {**body, "persona": persona})  # not JSON of the schema
    async with connect(era, plain_host) as client:
        await client.call_tool(tool, body)
    assert not judged.is_error, judged.content[0].text
    assert json.loads(json.loads(completion(tool, judged))["colour"]) == json.dumps(expected)
    assert refused.is_error
    assert "persona.output_schema: persona 'looker': the host's answer violates it" in refused.content[0].text
    assert host.wire() == plain_host.wire()  # the persona changes nothing the host sees, media included


@pytest.mark.parametrize("host_tools", [False, True], ids=["schema-in-prompt", "output-tool"])
async def test_a_repair_round_sends_the_media_again(era: str, host_tools: bool) -> None:
    from mcp_types import ToolUseContent

    schema = {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}
    body = {
        **messages_body(),
        "output_config": {"format": {"type": "json_schema", "schema": schema}},
        "repair_attempts": 1,
    }

    def answer(value: dict[str, Any]) -> Any:
        if host_tools:
            return CreateMessageResultWithTools(
                role="assistant",
                content=[ToolUseContent(type="tool_use", id="o1", name="structured_output", input=value)],
                model="m",
                stop_reason="toolUse",
            )
        return json.dumps(value)

    host = ScriptedHost(answer({"color": "green"}), answer({"colour": "green"}))
    async with connect(era, host, tools=host_tools) as client:
        result = await client.call_tool("messages_create", body)
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == {"colour": "green"}
    assert host.asked == 2
    for params in host.seen:  # the image goes with the repair round too, byte for byte
        first = params.messages[0].content_as_list
        assert decoded(first[1]) == ("image", "image/png", PNG)
    told = json.dumps(host.wire(1)["messages"][-1])  # the repair: the problem, told to the model
    assert "missing required property 'colour'" in told
