"""Request bodies written by the official SDKs, and what the SDKs say a create call takes.

Each writer calls the SDK's own create method on a client whose HTTP transport is in memory: the
transport keeps the JSON body the SDK posts and answers with a minimal reply of the product's
shape, so nothing leaves the process and a body is exactly what the SDK sends (its defaults, its
serialisation of its own pydantic objects, Gemini's mix of camelCase and snake_case). The SDK
reads the reply as it would read the API's; a writer whose call raises after the body was posted
(a streamed call reading a JSON reply) still has its body.

`create_keys` and `gemini_keys` list every parameter of each create call, from the SDKs' own
types (OpenAI's and Anthropic's create-params TypedDicts) and, for Gemini, from the SDK's own
converter of a `GenerateContentConfig` into the request body.
"""

from __future__ import annotations

import enum
import json
import types as pytypes
import typing
from functools import cache
from typing import Any

import anthropic
import httpx2
import openai
import pydantic
from anthropic.types import message_create_params
from google import genai
from google.genai import _common as genai_common
from google.genai import models as genai_models
from google.genai import types as genai_types
from google.genai._api_client import BaseApiClient
from openai.types.chat import completion_create_params
from openai.types.responses import response_create_params

GEMINI_MODEL = "gemini-2.5-flash"
_BASE = "http://capture.invalid"  # never dialled: the transport answers in memory

_REPLIES: dict[str, dict[str, Any]] = {
    "/chat/completions": {
        "id": "chatcmpl-0",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "stop"}],
    },
    "/responses": {
        "id": "resp_0",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": "m",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    },
    "/messages": {
        "id": "msg_0",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "m",
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    },
    ":generateContent": {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}}]},
}


class _Capture:
    """The in-memory transport: the body of the last request, and the model of a Gemini URL."""

    def __init__(self) -> None:
        self.body: dict[str, Any] | None = None

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        path = request.url.path
        if ":generateContent" in path:  # Gemini names the model in the URL, not the body
            body = {**body, "model": path.split("/models/")[1].split(":")[0]}
        self.body = body
        reply = next(reply for end, reply in _REPLIES.items() if path.endswith(end))
        return httpx2.Response(200, json=reply)

    def take(self) -> dict[str, Any]:
        body, self.body = self.body, None
        assert body is not None, "the SDK posted nothing"
        return body


_CAPTURE = _Capture()


@cache
def _http() -> httpx2.Client:
    return httpx2.Client(transport=httpx2.MockTransport(_CAPTURE.handle))


@cache
def _openai() -> openai.OpenAI:
    return openai.OpenAI(api_key="unused", base_url=f"{_BASE}/v1", http_client=_http(), max_retries=0)


@cache
def _anthropic() -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="unused", base_url=_BASE, http_client=_http(), max_retries=0)


@cache
def _genai() -> genai.Client:
    options = genai_types.HttpOptions(
        base_url=_BASE, httpx_client=_http(), retry_options=genai_types.HttpRetryOptions(attempts=1)
    )
    return genai.Client(api_key="unused", http_options=options)


def _written(call: Any, **params: Any) -> dict[str, Any]:
    try:
        call(**params)
    except Exception:  # a streamed call cannot read the JSON reply: its body was posted already
        if _CAPTURE.body is None:
            raise
    return _CAPTURE.take()


def chat(**params: Any) -> dict[str, Any]:
    """The body `OpenAI().chat.completions.create(**params)` posts."""
    return _written(_openai().chat.completions.create, **params)


def responses(**params: Any) -> dict[str, Any]:
    """The body `OpenAI().responses.create(**params)` posts."""
    return _written(_openai().responses.create, **params)


def messages(**params: Any) -> dict[str, Any]:
    """The body `Anthropic().messages.create(**params)` posts."""
    return _written(_anthropic().messages.create, **params)


def gemini(contents: Any, config: genai_types.GenerateContentConfig | None = None) -> dict[str, Any]:
    """The body `genai.Client().models.generate_content(...)` posts, with the model of its URL."""
    return _written(_genai().models.generate_content, model=GEMINI_MODEL, contents=contents, config=config)


def gemini_config(**fields: Any) -> genai_types.GenerateContentConfig:
    """A config whose function calls the caller's loop runs (the SDK runs none itself)."""
    no_afc = genai_types.AutomaticFunctionCallingConfig(disable=True)
    return genai_types.GenerateContentConfig(automatic_function_calling=no_afc, **fields)


# -- what each create call takes -------------------------------------------------------------------

CREATE_PARAMS = {
    "chat_complete": completion_create_params.CompletionCreateParamsBase,
    "responses_create": response_create_params.ResponseCreateParamsBase,
    "messages_create": message_create_params.MessageCreateParamsBase,
}

# GenerateContentConfig fields the SDK never sends in a Gemini API body, and why.
GEMINI_NOT_SENT = {
    "http_options": "the SDK's own HTTP settings",
    "should_return_http_response": "the SDK's own switch to return the raw HTTP response",
    "automatic_function_calling": "the SDK runs Python functions itself; the body carries the tools",
    "automatic_continuation": "the SDK's own loop over continuation tokens",
    "model_armor_config": "the SDK refuses it outside Vertex AI: the Gemini API body never has it",
    "generation_output_config": "the SDK refuses it outside Vertex AI: the Gemini API body never has it",
}
# Values the annotation alone cannot give: the tool list is validated by a function, the token is
# bytes, the JSON schema is `Any`, and the first types of the other two's unions are not plausible.
GEMINI_SAMPLES: dict[str, Any] = {
    "response_json_schema": {"type": "object"},
    "tools": [genai_types.Tool(function_declarations=[genai_types.FunctionDeclaration(name="f")])],
    "continuation_token": b"token",
    "response_schema": genai_types.Schema(type=genai_types.Type.OBJECT),
    "speech_config": genai_types.SpeechConfig(),
}


def type_literals(union: Any) -> list[str]:
    """The `type` of each TypedDict of a union (a content block, an input item), in order."""
    found: list[str] = []
    for member in typing.get_args(union):
        if typing.get_origin(member) is typing.Annotated:
            member = typing.get_args(member)[0]
        kind = typing.get_type_hints(member).get("type")
        while kind is not None and typing.get_origin(kind) is not typing.Literal:
            kind = next(a for a in typing.get_args(kind) if a is not type(None))
        if kind is not None and typing.get_args(kind)[0] not in found:
            found.append(typing.get_args(kind)[0])
    return found


def create_keys(tool: str) -> list[str]:
    """The top-level keys of the SDK's create-params type of an OpenAI or Anthropic tool."""
    keys: set[str] = set()
    for klass in CREATE_PARAMS[tool].__mro__:
        keys |= set(getattr(klass, "__annotations__", {}))
    return sorted(keys)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def plausible(annotation: Any) -> Any:
    """A value of a GenerateContentConfig field's type: the first model of a union, else its first
    other type; one item of a list; a member of an enum."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, pytypes.UnionType):
        models = [a for a in args if isinstance(a, type) and issubclass(a, pydantic.BaseModel)]
        return plausible((models or args)[0])
    if typing.get_origin(annotation) is list:
        return [plausible(args[0])]
    if typing.get_origin(annotation) is dict:
        return {"key": "value"}
    assert isinstance(annotation, type), annotation
    if issubclass(annotation, enum.Enum):
        return list(annotation)[-1]
    if issubclass(annotation, pydantic.BaseModel):
        return annotation()
    return {bool: True, int: 1, float: 0.5, str: "x"}[annotation]


def jsonable(value: Any) -> Any:
    """A value as the SDK puts it on the wire: models as dicts, bytes as base64, enums as strings."""
    return json.loads(
        json.dumps(genai_common.encode_unserializable_types(genai_common.convert_to_dict({"v": value}))["v"])
    )


# google-genai has no type for the request body: which config fields land at the body's top level
# rather than in generationConfig is written only in its converter
# (`models._GenerateContentParameters_to_mldev`). So the walk runs that converter, as
# `generate_content` does, on each field with a plausible value, and takes the body it writes.
_GENAI_CLIENT = BaseApiClient(api_key="unused")  # the converter reads its settings; nothing is sent


def _converted(field: str) -> tuple[Any, dict[str, Any] | None]:
    """A plausible value of `field`, and the body the SDK's converter writes for a config with it
    set (None when the SDK refuses it outside Vertex AI)."""
    value = GEMINI_SAMPLES.get(field)
    if value is None:
        value = plausible(genai_types.GenerateContentConfig.model_fields[field].annotation)
    params = genai_types._GenerateContentParameters(
        model=GEMINI_MODEL, contents="hi", config=genai_types.GenerateContentConfig(**{field: value})
    )
    try:
        return value, genai_models._GenerateContentParameters_to_mldev(_GENAI_CLIENT, params)
    except ValueError as err:
        assert "only supported in" in str(err), (field, err)
        return value, None


def gemini_keys(field: str) -> list[tuple[str, Any]]:
    """The (path, value) pairs `generate_content` writes in the body for a config with `field`
    set: `generationConfig.<key>` or a top-level key. A field the SDK refuses outside Vertex AI is
    taken as it would be written, `generationConfig.<camelCase>` (the tool accepts such a body)."""
    value, written = _converted(field)
    if written is None:
        return [] if field in GEMINI_NOT_SENT else [(f"generationConfig.{camel(field)}", jsonable(value))]
    body = jsonable(written)
    del body["_url"], body["contents"]
    config = body.pop("generationConfig", {})
    return [*((f"generationConfig.{k}", v) for k, v in config.items()), *body.items()]


def vertex_only(field: str) -> bool:
    """A GenerateContentConfig field the SDK refuses outside Vertex AI (so never writes for the
    Gemini API); `gemini_keys` still gives the path it would take."""
    return _converted(field)[1] is None


def gemini_paths() -> dict[str, bool]:
    """Every path of a Gemini body a GenerateContentConfig field lands at (and `contents`,
    `model`), each with whether only Vertex AI takes it."""
    paths = {"contents": False, "model": False}
    for field in genai_types.GenerateContentConfig.model_fields:
        if field in GEMINI_NOT_SENT:
            continue
        vertex = vertex_only(field)
        paths.update((path, vertex) for path, _ in gemini_keys(field))
    return dict(sorted(paths.items(), key=lambda item: (item[0].startswith("generationConfig."), item[0])))
