"""Spec section 14: a refusal states the true reason for what it names, and the remedy. Every
refused parameter of every dialect is walked, its reason checked against what it refuses; every
kind of non-text part is refused where it stands with a reason true of the part and the place
(a file "is not carried", never "takes text only" in a turn that takes images); a Responses id
this server did not mint gets the true answer with and without a store; `background: true` runs
in the foreground; `store: true` on a server that keeps nothing says so. Both eras."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.products.gemini import keys as gemini
from agent_as_model.adapters.store import DEFAULT_TTL, StoreSettings
from agent_as_model.server import build_server, open_store
from agent_as_model.states.commit import RESULT_META, WARNINGS
from tests import sdk_truth
from tests.scripted_host import ScriptedHost, connect

# What the reason of each refused parameter must say: the thing it refuses, in words. A refusal
# added without an entry here fails `test_every_refused_parameter_names_what_it_refuses`.
NAMES = {
    "stream": "streaming",
    "n": "choice",
    "logprobs": "log probabilities",
    "top_logprobs": "log probabilities",
    "modalities": "modality",
    "audio": "audio output",
    "web_search_options": "web search",
    "conversation": "conversations",
    "prompt": "prompt templates",
    "mcp_servers": "MCP servers",
    "container": "containers",
    "moderation": "moderation",
    "functions": "functions",
    "function_call": "function_call",
    "cachedContent": "cached contents",
    "cached_content": "cached contents",
    "continuationToken": "continuation token",
    "continuation_token": "continuation token",
    # generationConfig
    "responseLogprobs": "log probabilities",
    "responseModalities": "TEXT",
    "speechConfig": "speech output",
    "audioTimestamp": "audio timestamps",
    "enableAffectiveDialog": "affective dialog",
    "imageConfig": "image output",
    "responseFormat": "responseMimeType",
    "translationConfig": "translation",
    "audioTranscriptionConfig": "audio transcription",
    # parts, calls and responses of a Gemini body
    "audioTranscription": "transcription",
    "partialArgs": "streamed in pieces",
    "willContinue": "streamed in pieces|goes on responding",
}
# A value each refusal is asked about: what a caller sends when it means it.
MEANT: tuple[Any, ...] = (True, 2, {"voice": "alloy"}, "x", ["audio"])


def _tables() -> list[tuple[str, str, Any]]:
    """Every refusal of every registered dialect, and Gemini's nested ones: (where, name, refusal)."""
    found = [
        (tool, name, refusal) for tool, d in DIALECTS.items() for name, refusal in d.body.refused.items()
    ]
    for where, table in (
        ("generationConfig", gemini.CONFIG_REFUSED),
        ("a part", gemini.PART_REFUSED),
        ("a functionCall", gemini.CALL_REFUSED),
        ("a functionResponse", gemini.RESPONSE_REFUSED),
    ):
        found += [(where, name, refusal) for name, refusal in table.items()]
    return found


@pytest.mark.parametrize(
    ("where", "name", "refusal"), _tables(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_refused_parameter_names_what_it_refuses(where: str, name: str, refusal: Any) -> None:
    assert name in NAMES, f"{where}: the refusal of {name!r} has no words to check: add them to NAMES"
    reasons = [reason for reason in (refusal(value) for value in MEANT) if reason is not None]
    assert reasons, f"{where}: {name!r} is refused for none of {MEANT}"
    words = NAMES[name].split("|")
    for reason in reasons:
        assert any(w.lower() in reason.lower() for w in words), f"{where}: {name!r}: {reason!r}"
        # A true reason does not blame a server that keeps nothing: with --store it keeps responses.
        assert "server keeps none" not in reason and "keeps no state" not in reason, reason


# -- non-text parts, where each stands ------------------------------------------------------------

IMAGE_URL = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
FILE_PART = {
    "type": "file",
    "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"},
}
DOCUMENT = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "Notes."}}
INPUT_FILE = {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}
ASKED = {"type": "tool_use", "id": "t1", "name": "f", "input": {}}
NOT_CARRIED = "is not carried: MCP sampling has content for text, images and audio only"
TEXT_ONLY = "this part of the conversation takes text only"


def chat(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"messages": [*messages, {"role": "user", "content": "q"}]}


def said(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": "Look."}, *parts]}


PLACES = [
    # (tool, arguments, path, what the reason says)
    ("chat_complete", chat(said("user", FILE_PART)), "messages[0].content[1]", NOT_CARRIED),
    (
        "chat_complete",
        chat(said("user", {"type": "image", "image": "x"})),
        "messages[0].content[1].type",
        "images and audio go here as image_url or input_audio parts",
    ),
    ("chat_complete", chat(said("system", IMAGE_URL)), "messages[0].content[1]", TEXT_ONLY),
    ("chat_complete", chat(said("assistant", IMAGE_URL)), "messages[0].content[1]", TEXT_ONLY),
    ("chat_complete", chat(said("developer", FILE_PART)), "messages[0].content[1]", NOT_CARRIED),
    (
        "messages_create",
        {"messages": [said("user", DOCUMENT)]},
        "messages[0].content[1]",
        "a document block is not carried: MCP sampling has content for text, images and audio only",
    ),
    (
        "messages_create",
        {"messages": [said("user", {"type": "input_image"})]},
        "messages[0].content[1].type",
        "images and audio go here as image parts",
    ),
    (
        "messages_create",
        {"messages": [{"role": "user", "content": "q"}, said("assistant", {"type": "image", "source": {}})]},
        "messages[1].content[1]",
        TEXT_ONLY,
    ),
    (
        "messages_create",
        {
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": [ASKED]},
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [DOCUMENT]}],
                },
            ]
        },
        "messages[2].content[0].content[0]",
        "a document block is not carried",
    ),
    (
        "messages_create",
        {"system": [DOCUMENT], "messages": [{"role": "user", "content": "q"}]},
        "system[0]",
        NOT_CARRIED,
    ),
    ("responses_create", {"input": [said("user", INPUT_FILE)]}, "input[0].content[1]", NOT_CARRIED),
    (
        "responses_create",
        {"input": [said("user", {"type": "image_url", "image_url": "x"})]},
        "input[0].content[1].type",
        "images and audio go here as input_image parts",
    ),
    (
        "responses_create",
        {
            "input": [
                said("developer", {"type": "input_image", "image_url": "x"}),
                {"role": "user", "content": "q"},
            ]
        },
        "input[0].content[1]",
        TEXT_ONLY,
    ),
    (
        "responses_create",
        {
            "input": [
                {"role": "user", "content": "q"},
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": [INPUT_FILE]},
            ]
        },
        "input[2].output[0]",
        NOT_CARRIED,
    ),
    (
        "gemini_generate_content",
        {"contents": [{"role": "user", "parts": [{"text": "Look."}, {"videoMetadata": {"fps": 1}}]}]},
        "contents[0].parts[1]",
        NOT_CARRIED,
    ),
]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "arguments", "path", "says"), PLACES, ids=lambda v: v if isinstance(v, str) else ""
)
async def test_a_part_that_is_not_text_is_refused_with_the_true_reason(
    era: str, tool: str, arguments: dict[str, Any], path: str, says: str
) -> None:
    host = ScriptedHost("never")
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and text.startswith(f"{tool}: {path}: "), text
    assert says in text, text
    assert text.endswith("Nothing was sent to the host.") and host.asked == 0
    if says != TEXT_ONLY:  # a place that takes images (or a part no place takes) never says text only
        assert TEXT_ONLY not in text, text


# -- Responses ids this server did not mint ---------------------------------------------------------

OPENAI_ID = "resp_68b5f3c1d2e0819aa3c1f4b2e5d6a7b80c9d8e7f6a5b4c3d"  # resp_ and 48 hex digits


def warnings_of(result: Any) -> list[str]:
    return list(((result.meta or {}).get(RESULT_META) or {}).get(WARNINGS, []))


@pytest.mark.anyio
async def test_an_openai_id_without_a_store_says_the_remedy(era: str) -> None:
    host = ScriptedHost("Bergen is rainy.")
    async with connect(era, host) as client:
        alone = await client.call_tool(
            "responses_create", {"input": "And in Bergen?", "previous_response_id": OPENAI_ID}
        )
        with_history = await client.call_tool(
            "responses_create",
            {
                "input": [
                    {"role": "user", "content": "Weather in Oslo?"},
                    {"role": "assistant", "content": "12 C."},
                    {"role": "user", "content": "And in Bergen?"},
                ],
                "previous_response_id": OPENAI_ID,
            },
        )
    assert not alone.is_error and host.asked == 2
    (warning,) = warnings_of(alone)
    assert warning.startswith(f"previous_response_id: {OPENAI_ID} is a Responses id")
    assert "Pass the earlier turns in the input" in warning and "--store" in warning
    assert warnings_of(with_history) == []  # the history was passed: nothing was lost
    assert sdk_truth.response_of(with_history).id.startswith("cur_")  # a chain anchored at it


@pytest.mark.anyio
async def test_an_openai_id_with_a_store_is_not_a_response_of_this_store(era: str, tmp_path: Path) -> None:
    store = open_store(StoreSettings(f"sqlite:{tmp_path / 'r.db'}", DEFAULT_TTL))
    host = ScriptedHost("never")
    async with connect(era, host, server=build_server(store=store)) as client:
        result = await client.call_tool(
            "responses_create", {"input": "And in Bergen?", "previous_response_id": OPENAI_ID}
        )
        retrieved = await client.call_tool("responses_retrieve", {"response_id": OPENAI_ID})
    for refused, path in ((result, "previous_response_id"), (retrieved, "response_id")):
        text = refused.content[0].text  # type: ignore[union-attr]
        assert refused.is_error and f": {path}: no stored response {OPENAI_ID}" in text, text
        assert "never stored by this server" in text
    assert host.asked == 0


# -- background and store ----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_background_runs_in_the_foreground(era: str) -> None:
    host = ScriptedHost("Done.")
    async with connect(era, host) as client:
        result = await client.call_tool("responses_create", {"input": "Go.", "background": True})
    response = sdk_truth.response_of(result)
    assert response.status == "completed" and response.background is True
    assert response.output_text == "Done." and host.asked == 1
    (warning,) = warnings_of(result)
    assert warning.startswith("background: accepted, not applied: the call ran in the foreground")


@pytest.mark.anyio
@pytest.mark.parametrize("with_store", [False, True])
async def test_store_true_is_kept_or_said_not_kept(era: str, with_store: bool, tmp_path: Path) -> None:
    store = open_store(StoreSettings(f"sqlite:{tmp_path / 'r.db'}", DEFAULT_TTL)) if with_store else None
    host = ScriptedHost("Kept?")
    async with connect(era, host, server=build_server(store=store)) as client:
        result = await client.call_tool("responses_create", {"input": "Keep this.", "store": True})
        response = sdk_truth.response_of(result)
        retrieved = await client.call_tool("responses_retrieve", {"response_id": response.id})
    assert response.store is True  # echoed as sent
    if with_store:
        assert warnings_of(result) == [] and not retrieved.is_error
    else:
        (warning,) = warnings_of(result)
        assert warning.startswith("store: this server keeps no responses (it was not started with --store)")
        assert retrieved.is_error  # no such tool on a server without a store
