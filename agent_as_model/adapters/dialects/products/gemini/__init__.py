"""Google Gen AI shape (`gemini_generate_content`): a `generateContent` body -> neutral, completion
-> a `GenerateContentResponse` object.

The body is what the official `google-genai` SDK sends: `contents` (role `user` / `model`, parts
`text`, `functionCall {id?, name, args}`, `functionResponse {id?, name, response}`),
`systemInstruction`, `generationConfig`, `tools` (`functionDeclarations`) and `toolConfig`. The
SDK writes some objects in camelCase and others in snake_case (it dumps its pydantic types with
their field names), and its types accept both, so every key here is read in either spelling and
errors name the spelling the caller wrote. Limits, stop sequences and the output contract live in
`generationConfig`; the body's `view` lifts them to the names the shared readers look for.

A `functionCall` without an `id` (the Gemini Developer API often sends none) gets
`call_<content index>_<part index>`; a `functionResponse` without one answers the first call of
that name, in the model content before it, not yet answered. A `functionResponse`'s `response`
object travels as its text: the string of `{"output": "..."}` (or of `{"error": "..."}`, an error
result), else its sorted-key JSON text. docs/decisions.md has the why of each.

The result is a `GenerateContentResponse`: one candidate whose content holds the text part and a
`functionCall` part per tool call (the host's call ids kept, names mapped back), `finishReason`
from the host's stopReason, `modelVersion` the host's model, and `responseId` (the session cursor
when cursors are on, else a `resp_` id).
"""

from __future__ import annotations

import json
import uuid
from collections import ChainMap, deque
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects import common, media, options, usage
from agent_as_model.adapters.dialects.dialect import Body, Dialect, Redaction
from agent_as_model.adapters.dialects.turns import Turns, call_id
from agent_as_model.adapters.dialects.writing import (
    Reading,
    Said,
    Unit,
    Unreadable,
    Writing,
    completion,
    leading_system,
    read_object,
    refuse,
)
from agent_as_model.adapters.tools import definitions, listing
from agent_as_model.errors import CallError, caller_error
from agent_as_model.neutral import (
    DEFAULT_MODEL,
    Completion,
    Media,
    OutputContract,
    Request,
    Text,
    ToolChoice,
    ToolResult,
    ToolSpec,
    Usage,
)
from agent_as_model.neutral import ToolUse as Call
from agent_as_model.schemas import check_object_schema

if TYPE_CHECKING:  # only for annotations: importing random costs start-up time
    import random

NAME = "gemini_generate_content"
DESCRIPTION = (
    "Complete a Gemini generateContent-shaped request (google-genai body) with the host agent's own "
    "model; returns a GenerateContentResponse {candidates: [{content, finishReason}], ...}."
    " contents: user/model parts of text, functionCall, functionResponse; systemInstruction "
    "is the system prompt; generationConfig: temperature, maxOutputTokens, stopSequences, "
    "responseMimeType application/json + responseSchema (validated JSON text). tools/toolConfig go to "
    "a host with sampling.tools, else per --host-without-tools (see _meta). camelCase or snake_case. "
    "Inline media too."
)

# MCP's stopReason -> Gemini's finishReason. A stop sequence and a tool call both end with STOP on
# Gemini; a host that names no reason ended its turn. Anything else (`other`) is OTHER.
_FINISH = {
    None: "STOP",
    "endTurn": "STOP",
    "stopSequence": "STOP",
    "toolUse": "STOP",
    "maxTokens": "MAX_TOKENS",
}


def _finish_reason(completion: Completion) -> str:
    """The one finishReason of a completion, for the object and for `_meta` alike. Tool calls in
    the result are whole even when the host says it hit the limit (interpretation accepted them),
    so they end with STOP, as Gemini ends a function-calling turn."""
    if completion.tool_calls:
        return "STOP"
    return _FINISH.get(completion.stop_reason, "OTHER")


def _unless(harmless: object, reason: str) -> options.Refusal:
    """A refusal of every value but the one that changes nothing (`false`)."""
    return lambda v: None if v == harmless and type(v) is type(harmless) else reason


_ROLES = {"user": "user", "model": "assistant"}
_CONTENT_KEYS = ("role", "parts")
_PART_DATA = ("text", "functionCall", "functionResponse")
# The SDK's Part fields beyond its data (a `model_dump()` of a Part holds them all, mostly null).
# Hints, type-checked and ignored: the part's own metadata (`partMetadata`), and settings of how
# the model reads media or speaks text, which mean nothing for the text parts taken here.
_PART_HINTS = {
    "partMetadata": "object",
    "mediaResolution": "object",
    "mediaProcessing": "string",
    "documentMetadata": "object",
    "spreadsheetMetadata": "object",
    "audioMetadata": "object",
    "speechMetadata": "object",
}
_PART_REFUSED: dict[str, options.Refusal] = {
    "audioTranscription": lambda v: (
        "a transcription belongs to audio, which the host's model cannot take: put its text in a text part"
    ),
}
_PART_KEYS = (
    *_PART_DATA,
    "inlineData",
    "fileData",
    "thought",
    "thoughtSignature",
    *_PART_HINTS,
    *_PART_REFUSED,
)
_NOT_TEXT = ("videoMetadata",)  # refused as non-text parts
# Inline media (issue 24): images and audio the checks of adapters/dialects/media.py know.
_INLINE_TYPES = (*media.IMAGE_TYPES, *media.AUDIO_TYPES)
_BLOB_KEYS = ("mimeType", "data", "displayName")
_SERVER_SIDE = ("executableCode", "codeExecutionResult", "toolCall", "toolResponse")
_STREAMED = "cannot be honoured: the host's model is given whole calls and whole responses"
# FunctionCall: `partialArgs` and `willContinue: true` are a call streamed in pieces (Vertex AI).
_CALL_REFUSED: dict[str, options.Refusal] = {
    "partialArgs": lambda v: None if v == [] else f"a call's arguments streamed in pieces {_STREAMED}",
    "willContinue": _unless(False, f"a call streamed in pieces {_STREAMED}"),
}
_CALL_KEYS = ("id", "name", "args", *_CALL_REFUSED)
# FunctionResponse: `willContinue: true` makes a NON_BLOCKING function a generator of responses
# (Live API); `scheduling` applies only to such functions and is ignored otherwise, as here.
_RESPONSE_HINTS = {"scheduling": "string"}
_RESPONSE_REFUSED: dict[str, options.Refusal] = {
    "willContinue": _unless(False, f"a function that goes on responding {_STREAMED}"),
}
# The SDK's FunctionResponsePart: `inlineData` taken; its media hints accepted and ignored.
_RESPONSE_PART_HINTS = {
    "mediaProcessing": "string",
    "mediaResolution": "object",
    "videoMetadata": "object",
    "documentMetadata": "object",
    "spreadsheetMetadata": "object",
    "audioMetadata": "object",
}
_RESPONSE_PART_KEYS = ("inlineData", "fileData", *_RESPONSE_PART_HINTS)
_RESPONSE_KEYS = ("id", "name", "response", "parts", *_RESPONSE_HINTS, *_RESPONSE_REFUSED)
_DECLARATION_KEYS = (
    "name",
    "description",
    "parameters",
    "parametersJsonSchema",
    "response",
    "responseJsonSchema",
    "behavior",
)
# Gemini's built-in tools: they run on Google's side and cannot be forwarded to a host's model.
_BUILT_IN_TOOLS = (
    "googleSearch",
    "googleSearchRetrieval",
    "codeExecution",
    "retrieval",
    "urlContext",
    "computerUse",
    "fileSearch",
    "googleMaps",
    "enterpriseWebSearch",
    "mcpServers",
    "parallelAiSearch",
    "exaAiSearch",
)
_TOOL_KEYS = ("functionDeclarations", *_BUILT_IN_TOOLS)
_TOOL_FORMS = "{functionDeclarations: [{name, description, parameters or parametersJsonSchema}]}"
_CHOICE_FORMS = "toolConfig {functionCallingConfig: {mode: AUTO|ANY|NONE|VALIDATED, allowedFunctionNames}}"
_MODES = ("AUTO", "ANY", "NONE", "VALIDATED", "MODE_UNSPECIFIED")
_SCHEMA_TYPES = ("STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL")
_SCHEMA_KEYS = (
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "propertyOrdering",
    "items",
    "anyOf",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "default",
    "minProperties",
    "maxProperties",
    "additionalProperties",
    "defs",
    "ref",
)

_CONFIG_HINTS = {
    "topP": "number",
    "topK": "number",
    "seed": "integer",
    "presencePenalty": "number",
    "frequencyPenalty": "number",
    "thinkingConfig": "object",
    "mediaResolution": "string",
    "routingConfig": "object",
    "modelSelectionConfig": "object",
    "enableEnhancedCivicAnswers": "boolean",
}


def _text_modalities(value: object) -> str | None:
    if isinstance(value, list) and all(isinstance(m, str) and m.upper() == "TEXT" for m in value):
        return None
    return "only TEXT can be honoured: the host's model is asked for text only"


_NOT_HONOURED = "cannot be honoured: the host's model is asked for one text completion"
_CONFIG_REFUSED: dict[str, options.Refusal] = {
    "responseLogprobs": _unless(False, "log probabilities cannot be honoured: MCP sampling returns none"),
    "logprobs": lambda v: "log probabilities cannot be honoured: MCP sampling returns none",
    "responseModalities": _text_modalities,
    "speechConfig": lambda v: f"speech output {_NOT_HONOURED}",
    "audioTimestamp": _unless(False, f"audio timestamps {_NOT_HONOURED}"),
    "enableAffectiveDialog": _unless(False, f"affective dialog {_NOT_HONOURED}"),
    "imageConfig": lambda v: f"image output {_NOT_HONOURED}",
    "responseFormat": lambda v: (
        "is not supported here: ask for JSON with responseMimeType "
        "'application/json' and responseSchema or responseJsonSchema"
    ),
    "translationConfig": lambda v: f"translation {_NOT_HONOURED}",
    "audioTranscriptionConfig": lambda v: f"audio transcription {_NOT_HONOURED}",
}
# generationConfig's keys that the shared readers (and `_output`) read under their own names.
_LIFTED_CONFIG = (
    "candidateCount",
    "temperature",
    "maxOutputTokens",
    "stopSequences",
    "responseMimeType",
    "responseSchema",
    "responseJsonSchema",
)
_CONFIG_KEYS = (*_LIFTED_CONFIG, *_CONFIG_HINTS, *_CONFIG_REFUSED)

# Top-level parameters: each with the SDK's snake_case spelling beside it.
_SPELLINGS = {
    "systemInstruction": "system_instruction",
    "generationConfig": "generation_config",
    "toolConfig": "tool_config",
    "safetySettings": "safety_settings",
    "cachedContent": "cached_content",
}


def _cached(value: object) -> str:
    return "cached contents live on Google's servers and cannot be honoured: pass the text in 'contents'"


def _continued(value: object) -> str:
    return "a continuation token resumes a response held on Google's servers, and this server keeps none"


# `serviceTier` and `store` are request-level settings of Google's service: accepted and ignored
# (the server stores nothing for this tool).
_HINTS = {
    "safetySettings": "array",
    "safety_settings": "array",
    "labels": "object",
    "serviceTier": "string",
    "service_tier": "string",
    "store": "boolean",
}
_REFUSED: dict[str, options.Refusal] = {
    "cachedContent": _cached,
    "cached_content": _cached,
    "continuationToken": _continued,
    "continuation_token": _continued,
}
_STOP = options.StopParameter("stopSequences", max_items=5)
# The persona's request object (spec section 5): the parameters, with their defaults.
_REQUEST_OBJECT: dict[str, Any] = {
    "contents": None,
    "systemInstruction": None,
    "model": DEFAULT_MODEL,
    "generationConfig": None,
    "tools": None,
    "toolConfig": None,
    "output_schema": None,
    "previous_response_id": None,
}
# The common body: the conversation and the model only. It skips the readers of everything else.
_PLAIN = frozenset(["contents", "systemInstruction", "system_instruction", "model"])


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


class _Object:
    """One object of the body, read in either spelling: values by their camelCase name, paths as
    the caller wrote them. Unknown keys, and one key given in both spellings, are errors.

    A null is "not given" and skipped before the key check: the SDK's own `model_dump()` writes
    every field of its types, nulls included, and one of them passed back must be taken. A key
    with a value stays an error when no SDK type defines it."""

    __slots__ = ("path", "values", "written")

    def __init__(self, raw: object, path: str, known: tuple[str, ...], what: str) -> None:
        obj = common.require_object(raw, path)
        self.path = path
        self.values: dict[str, Any] = {}
        self.written: dict[str, str] = {}
        for key, value in obj.items():
            if value is None:
                continue
            name = _camel(key)
            if name not in known:
                raise caller_error(common.path_of(path, key), f"unknown key {ascii(key)} ({what})")
            if name in self.written:
                raise caller_error(
                    common.path_of(path, key), f"is given twice, as {self.written[name]!r} and {key!r}"
                )
            self.written[name] = key
            self.values[name] = value

    def check(self, hinted: Mapping[str, str], refused: Mapping[str, options.Refusal]) -> None:
        """Type-check the hints among the values and refuse what cannot be honoured, naming the
        key as the caller wrote it."""
        try:
            options.check_natives(self.values, hinted, refused)
        except CallError as err:
            raise caller_error(self.at(err.path), err.reason) from None

    def get(self, name: str) -> Any:
        return self.values.get(name)

    def at(self, name: str) -> str:
        """The path of `name` as the caller wrote it (camelCase when it was not given)."""
        return common.path_of(self.path, self.written.get(name, name))

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)


def _top(args: Mapping[str, Any], name: str) -> tuple[Any, str]:
    """A top-level parameter in either spelling, and the key it was given under."""
    snake = _SPELLINGS.get(name)
    if snake is not None and args.get(name) is not None and args.get(snake) is not None:
        raise caller_error(snake, f"is given twice, as {name!r} and {snake!r}")
    if snake is not None and args.get(snake) is not None:
        return args[snake], snake
    return args.get(name), name


# -- the conversation ---------------------------------------------------------------------------


def _read_conversation(args: Mapping[str, Any], turns: Turns) -> None:
    system, where = _top(args, "systemInstruction")
    if system is not None:
        turns.fold("system", _system_text(system, where))
    contents = args.get("contents")
    if contents is None:
        raise caller_error("contents", "is required")
    if isinstance(contents, str):
        turns.text("user", common.require_unicode(contents, "contents"), "contents")
        return
    pending = _Pending(())  # the calls of the last model content not yet answered
    for i, raw in enumerate(common.require_list(contents, "contents", non_empty=True)):
        path = f"contents[{i}]"
        content = _Object(raw, path, _CONTENT_KEYS, "a content is {role, parts}")
        role = _role(content)
        parts = common.require_list(content.get("parts"), content.at("parts"), non_empty=True)
        if role == "assistant":
            pending = _read_model(parts, i, content.at("parts"), path, turns)
        else:
            _read_user(parts, content.at("parts"), path, turns, pending)


def _system_text(value: object, path: str) -> str:
    """A string, or a content whose text parts are joined by newlines (its role is not read)."""
    if isinstance(value, str):
        return common.require_unicode(value, path)
    content = _Object(value, path, _CONTENT_KEYS, "systemInstruction is a string or {parts}")
    if content.get("role") is not None:
        common.require_string(content.get("role"), content.at("role"))
    texts = []
    parts_path = content.at("parts")
    for j, raw in enumerate(common.require_list(content.get("parts"), parts_path, non_empty=True)):
        kind, part = _part(raw, common.path_of(parts_path, j))
        if kind != "text":
            raise caller_error(part.at(kind), "systemInstruction takes text parts only")
        texts.append(common.require_string(part.get("text"), part.at("text")))
    return "\n".join(texts)


def _role(content: _Object) -> str:
    role = content.values.get("role", "user")
    where = content.at("role")
    if not isinstance(role, str):
        raise caller_error(where, f"expected 'user' or 'model', got {common.type_name(role)}")
    if role in _ROLES:
        return _ROLES[role]
    if role == "system":
        raise caller_error(where, "'system' is not a content role here: pass it as systemInstruction")
    raise caller_error(where, f"expected 'user' or 'model', got {role!r}")


def _part(raw: object, path: str, fetching: bool = False) -> tuple[str, _Object]:
    """A part and which of text, functionCall or functionResponse it carries (exactly one); with
    `fetching` (a user content, `serve --fetch-media`) a fileData part too."""
    obj = common.require_object(raw, path)
    for key in obj:
        name = _camel(key)
        if name in _NOT_TEXT and obj[key] is not None:
            common.reject_non_text(name, path)
        if name == "fileData" and obj[key] is not None and not fetching:
            raise caller_error(common.path_of(path, key), f"a fileData part: {media.REMOTE}")
        if name in _SERVER_SIDE and obj[key] is not None:
            raise caller_error(
                common.path_of(path, key),
                f"a {name} part cannot be passed to the host's model: code execution and Google's "
                "server-side tools run on Google's side",
            )
    part = _Object(obj, path, _PART_KEYS, "a part is {text}, {functionCall} or {functionResponse}")
    kinds = [k for k in (*_PART_DATA, "inlineData", "fileData") if k in part.values]
    if len(kinds) != 1:
        found = " and ".join(kinds) or "none"
        raise caller_error(
            path, f"a part holds exactly one of text, functionCall or functionResponse ({found})"
        )
    if part.get("thought") is not None and part.get("thought") is not False:
        raise caller_error(
            part.at("thought"),
            "thought parts (the model's own reasoning) cannot be passed to the host's model: remove them",
        )
    if part.get("thoughtSignature") is not None:  # passed back by the SDK; nothing to verify it with
        common.require_string(part.get("thoughtSignature"), part.at("thoughtSignature"))
    part.check(_PART_HINTS, _PART_REFUSED)
    return kinds[0], part


def _read_model(parts: list[Any], i: int, path: str, at: str, turns: Turns) -> _Pending:
    texts: list[str] = []
    calls: list[Call] = []
    # With media (a host's answer of images or audio passed back, issue 24): the texts and media
    # in their order, as that answer was rendered, so its transcript entry is the one minted.
    mixed: list[Text | Media] = []
    for j, raw in enumerate(parts):
        kind, part = _part(raw, common.path_of(path, j))
        if kind == "text":
            text = common.require_string(part.get("text"), part.at("text"))
            texts.append(text)
            if mixed:
                mixed.append(Text(text))
        elif kind == "functionCall":
            calls.append(_call(part.get(kind), part.at(kind), f"call_{i}_{j}"))
        elif kind == "inlineData":
            if not mixed:
                mixed.extend(Text(t) for t in texts)
            mixed.append(_inline(part.get(kind), part.at(kind)))
        else:
            raise caller_error(part.at(kind), "a functionResponse part belongs in a user content")
    turns.start("assistant", at)
    if mixed:
        for block in mixed:
            if type(block) is Media:
                turns.media(block, block.path)
            else:
                turns.add(block)
    elif texts or not calls:
        turns.add(Text("\n".join(texts)))
    for call in calls:
        turns.add(call)
    return _Pending([(call.id, call.name) for call in calls])


class _Pending:
    """The calls of a model content not yet answered, in order: a response takes the first one
    with its id, or without an id the first one with its name. Indexed both ways, so answering n
    calls is linear in n whatever order the responses come in."""

    def __init__(self, calls: Sequence[tuple[str, str]]) -> None:
        self._calls = calls
        self._taken = [False] * len(calls)
        self._by_id: dict[str, deque[int]] = {}
        self._by_name: dict[str, deque[int]] = {}
        for index, (ident, name) in enumerate(calls):
            self._by_id.setdefault(ident, deque()).append(index)
            self._by_name.setdefault(name, deque()).append(index)

    def _take(self, queue: deque[int] | None) -> tuple[str, str] | None:
        while queue:
            index = queue.popleft()
            if not self._taken[index]:
                self._taken[index] = True
                return self._calls[index]
        return None

    def by_id(self, ident: str) -> tuple[str, str] | None:
        return self._take(self._by_id.get(ident))

    def by_name(self, name: str) -> tuple[str, str] | None:
        return self._take(self._by_name.get(name))


def _read_user(parts: list[Any], path: str, at: str, turns: Turns, pending: _Pending) -> None:
    texts: list[str] = []
    fetching = turns.fetched is not None
    read = [_part(raw, common.path_of(path, j), fetching) for j, raw in enumerate(parts)]
    if any(kind in ("inlineData", "fileData") for kind, _ in read):
        _read_media(read, at, turns)
        return
    for kind, part in read:
        if kind == "text":
            texts.append(common.require_string(part.get("text"), part.at("text")))
        elif kind == "functionResponse":
            if texts:
                raise caller_error(
                    part.at(kind), "functionResponse parts must come before any text in a user content"
                )
            turns.tool_result(_response(part.get(kind), part.at(kind), pending), at)
        else:
            raise caller_error(part.at(kind), "a functionCall part belongs in a model content")
    if texts:
        turns.text("user", "\n".join(texts), at)


def _read_media(read: list[tuple[str, _Object]], at: str, turns: Turns) -> None:
    """A user content with `inlineData` parts (images, audio): each part in its place (issue 24)."""
    turns.start("user", at)
    for kind, part in read:
        if kind == "text":
            turns.add(Text(common.require_string(part.get("text"), part.at("text"))))
        elif kind == "inlineData":
            part_media = _inline(part.get(kind), part.at(kind))
            turns.media(part_media, part_media.path)
        elif kind == "fileData":  # only with `serve --fetch-media` (`_part`)
            part_media = _file(part.get(kind), part.at(kind), turns)
            turns.media(part_media, part_media.path)
        else:
            raise caller_error(
                part.at(kind),
                f"a {kind} part cannot share a user content with media: send it in its own content",
            )


def _inline(raw: object, path: str) -> Media:
    """An `inlineData` blob, checked (media.py)."""
    blob = _Object(raw, path, _BLOB_KEYS, "inlineData is {mimeType, data}")
    data = blob.get("data")
    if isinstance(data, str):  # the SDK's JSON writes bytes URL-safe; MCP takes standard base64
        data = data.replace("-", "+").replace("_", "/")
    return media.inline(data, blob.get("mimeType"), blob.at("data"), _INLINE_TYPES)


def _file(raw: object, path: str, turns: Turns) -> Media:
    """A `fileData` part with an http(s) `fileUri`, fetched (`serve --fetch-media`); a Files API
    or `gs://` URI cannot be read by a plain GET and is refused. A declared `mimeType` must be
    the type the response says."""
    blob = _Object(raw, path, ("fileUri", "mimeType", "displayName"), "fileData is {mimeType, fileUri}")
    uri = common.require_string(blob.get("fileUri"), blob.at("fileUri"))
    if not media.is_remote(uri):
        raise caller_error(blob.at("fileUri"), f"only http(s) URIs are fetched: {media.REMOTE}")
    declared = blob.get("mimeType")
    allowed: tuple[str, ...] = _INLINE_TYPES
    if declared is not None:
        declared = common.require_string(declared, blob.at("mimeType")).lower()
        if declared not in _INLINE_TYPES:
            raise caller_error(
                blob.at("mimeType"),
                f"media type {ascii(declared)} is not allowed here ({', '.join(_INLINE_TYPES)})",
            )
        allowed = (declared,)
    return turns.remote(uri, blob.at("fileUri"), allowed)


def _call(raw: object, path: str, derived: str) -> Call:
    call = _Object(raw, path, _CALL_KEYS, "a functionCall is {id, name, args}")
    call.check({}, _CALL_REFUSED)
    ident = derived if call.get("id") is None else call_id(call.get("id"), call.at("id"))
    name = definitions.tool_name(call.get("name"), call.at("name"))
    args = call.get("args")
    if args is not None and not isinstance(args, dict):
        raise caller_error(call.at("args"), f"expected an object, got {common.type_name(args)}")
    return Call(ident, name, args or {})


def _response(raw: object, path: str, pending: _Pending) -> ToolResult:
    answer = _Object(raw, path, _RESPONSE_KEYS, "a functionResponse is {id, name, response}")
    answer.check(_RESPONSE_HINTS, _RESPONSE_REFUSED)
    media_parts = _response_parts(answer.get("parts"), answer.at("parts"))
    name = definitions.tool_name(answer.get("name"), answer.at("name"))
    if answer.get("id") is not None:
        ident = call_id(answer.get("id"), answer.at("id"))
        called = pending.by_id(ident)
        if called is not None and called[1] != name:
            raise caller_error(
                answer.at("name"),
                f"is {ascii(name)}, but the functionCall {ident!r} it answers called {ascii(called[1])}",
            )
    else:
        found = pending.by_name(name)
        if found is None:
            raise caller_error(
                answer.at("id"),
                f"is missing, and no functionCall of {ascii(name)} in the model content before it is left "
                "to answer: give the id of the call this answers",
            )
        ident = found[0]
    response = answer.get("response")
    if not isinstance(response, dict):
        where = answer.at("response")
        raise caller_error(where, f"expected an object, got {common.type_name(response)}")
    text, is_error = _response_text(response)
    if media_parts:  # the response's text first, then its media (issue 24)
        return ToolResult(ident, text, is_error, (Text(text), *media_parts))
    return ToolResult(ident, text, is_error)


def _response_parts(raw: object, path: str) -> tuple[Media, ...]:
    """A functionResponse's `parts` (the SDK's FunctionResponsePart): `inlineData` images and
    audio; a `fileData` part is remote media, refused."""
    if raw is None:
        return ()
    found: list[Media] = []
    for j, item in enumerate(common.require_list(raw, path)):
        where = common.path_of(path, j)
        obj = common.require_object(item, where)
        for key in obj:
            if _camel(key) == "fileData" and obj[key] is not None:
                raise caller_error(common.path_of(where, key), f"a fileData part: {media.REMOTE}")
        part = _Object(obj, where, _RESPONSE_PART_KEYS, "a function response part is {inlineData}")
        part.check(_RESPONSE_PART_HINTS, {})
        if part.get("inlineData") is None:
            raise caller_error(where, "a function response part holds inlineData (an image or audio)")
        found.append(_inline(part.get("inlineData"), part.at("inlineData")))
    return tuple(found)


def _response_text(response: dict[str, Any]) -> tuple[str, bool]:
    """Gemini's convention: `output` holds a function's output and `error` its error."""
    if len(response) == 1:
        ((key, value),) = response.items()
        if key in ("output", "error") and isinstance(value, str):
            return value, key == "error"
    return json.dumps(response, sort_keys=True), False


# -- generationConfig and toolConfig: the body's view for the shared readers --------------------


# Every name the view answers itself, null when not set: Gemini has no such key at the top level
# (the unknown-key check refused one there), so a shared reader never reads one from there.
# `max_tokens` is the shared limit's own name; Gemini's is generationConfig.maxOutputTokens.
_LIFTED = (*_LIFTED_CONFIG, "max_tokens", "tool_choice")


def _view(args: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, str]]:
    """The arguments as the shared readers read them: all of them (every one passed the unknown-key
    check, so a shared parameter reaches its reader here as it does for every other dialect), under
    generationConfig's keys and toolConfig's choice, lifted to the flat names those readers look
    for. `origins` maps each lifted name to the path the caller wrote, which errors about it name."""
    lifted: dict[str, Any] = dict.fromkeys(_LIFTED)
    origins: dict[str, str] = {}
    raw_config, written = _top(args, "generationConfig")
    if raw_config is not None:
        config = _Object(raw_config, written, _CONFIG_KEYS, "a generationConfig key")
        config.check(_CONFIG_HINTS, _CONFIG_REFUSED)
        for name in _LIFTED_CONFIG:
            lifted[name] = config.get(name)
            origins[name] = config.at(name)
    raw_tool_config, written = _top(args, "toolConfig")
    if raw_tool_config is not None:
        lifted["tool_choice"], choice_origins = _tool_choice(raw_tool_config, written, args.get("tools"))
        origins.update(choice_origins)
    return ChainMap(lifted, args), origins  # type: ignore[arg-type]


def _output(view: Mapping[str, Any]) -> OutputContract | None:
    """responseMimeType `application/json`, with responseSchema (Gemini's Schema) or
    responseJsonSchema (JSON Schema) as the contract; without either, any JSON object. Read from
    the view, so paths are the flat names; the parse path names them as the caller wrote them."""
    mime = view.get("responseMimeType")
    given = [name for name in ("responseSchema", "responseJsonSchema") if view.get(name) is not None]
    if len(given) > 1:
        raise caller_error(given[1], f"asks for structured output, and so does {given[0]}: give one")
    if mime is not None:
        mime = common.require_string(mime, "responseMimeType")
    if mime is None or mime == "text/plain":
        if given:
            raise caller_error(given[0], "needs responseMimeType 'application/json'")
        return None
    if mime != "application/json":
        if mime == "text/x.enum":
            raise caller_error(
                "responseMimeType", "enum output cannot be honoured: structured output here is a JSON object"
            )
        raise caller_error(
            "responseMimeType", f"expected 'text/plain' or 'application/json', got {ascii(mime)}"
        )
    if not given:
        return OutputContract({"type": "object"}, "responseMimeType")
    name = given[0]
    value = view[name]
    schema = _schema(value, name) if name == "responseSchema" else value
    return OutputContract(check_object_schema(schema, name), name)


def _tool_choice(raw: object, path: str, tools: object) -> tuple[Any, dict[str, str]]:
    """`{functionCallingConfig: {mode, allowedFunctionNames}}` as the shared tool_choice: AUTO and
    VALIDATED are auto (VALIDATED's checking is the host's), ANY is required, NONE is none; ANY
    with one allowed name is that tool. MCP cannot restrict the list per call, so other allowed
    lists are taken only when they name every declared function."""
    config = _Object(
        raw,
        path,
        ("functionCallingConfig", "retrievalConfig", "includeServerSideToolInvocations"),
        "a toolConfig key",
    )
    if config.get("retrievalConfig") is not None:  # for Google's retrieval tools: a hint
        common.require_object(config.get("retrievalConfig"), config.at("retrievalConfig"))
    if config.get("functionCallingConfig") is None:
        return None, {}
    calling = _Object(
        config.get("functionCallingConfig"),
        config.at("functionCallingConfig"),
        ("mode", "allowedFunctionNames", "streamFunctionCallArguments"),
        "functionCallingConfig is {mode, allowedFunctionNames}",
    )
    if calling.get("streamFunctionCallArguments"):
        raise caller_error(calling.at("streamFunctionCallArguments"), "streaming cannot be honoured")
    mode_path = calling.at("mode")
    mode = common.require_string(calling.values.get("mode", "AUTO"), mode_path).upper()
    if mode not in _MODES:
        raise caller_error(mode_path, f"expected one of {', '.join(_MODES[:4])}, got {calling.get('mode')!r}")
    origins = {"tool_choice": mode_path}
    names_path = calling.at("allowedFunctionNames")
    allowed = [
        common.require_string(n, common.path_of(names_path, k))
        for k, n in enumerate(common.require_list(calling.values.get("allowedFunctionNames", []), names_path))
    ]
    choice = {"ANY": "required", "NONE": "none"}.get(mode, "auto")
    if not allowed:
        return choice, origins
    if mode not in ("ANY", "VALIDATED"):
        raise caller_error(names_path, f"is taken only with mode ANY or VALIDATED, not {mode}")
    if set(allowed) == _declared_names(tools):
        return choice, origins
    if mode == "ANY" and len(allowed) == 1:
        origins["tool_choice.name"] = common.path_of(names_path, 0)
        return {"type": "function", "name": allowed[0]}, origins
    raise caller_error(
        names_path,
        "MCP sampling cannot restrict the tool list per call: pass only the allowed function "
        "declarations in tools (and name one function here, or all of them)",
    )


def _declared_names(tools: object) -> set[str]:
    """The function names declared in `tools`, read leniently: the tools' own errors come later."""
    names: set[str] = set()
    for tool in tools if isinstance(tools, list) else ():
        if not isinstance(tool, dict):
            continue
        declarations = tool.get("functionDeclarations", tool.get("function_declarations"))
        entries = declarations if isinstance(declarations, list) else [tool]
        names.update(d["name"] for d in entries if isinstance(d, dict) and isinstance(d.get("name"), str))
    return names


def _schema(raw: object, path: str) -> dict[str, Any]:
    """Gemini's Schema (an OpenAPI 3.0 subset, types in upper case) as JSON Schema."""
    schema = _Object(raw, path, _SCHEMA_KEYS, "a Schema key")
    out: dict[str, Any] = {}
    for name in schema:
        value, where = schema.get(name), schema.at(name)
        if name == "type":
            kind = common.require_string(value, where).upper()
            if kind not in _SCHEMA_TYPES and kind != "TYPE_UNSPECIFIED":
                raise caller_error(where, f"expected one of {', '.join(_SCHEMA_TYPES)}, got {value!r}")
            if kind != "TYPE_UNSPECIFIED":
                out["type"] = kind.lower()
        elif name in ("properties", "defs"):
            members = common.require_object(value, where)
            key = "properties" if name == "properties" else "$defs"
            out[key] = {k: _schema(v, common.path_of(where, k)) for k, v in members.items()}
        elif name == "items":
            out["items"] = _schema(value, where)
        elif name == "anyOf":
            out["anyOf"] = [
                _schema(v, common.path_of(where, k)) for k, v in enumerate(common.require_list(value, where))
            ]
        elif name == "additionalProperties":
            out[name] = value if isinstance(value, bool) else _schema(value, where)
        elif name == "ref":
            out["$ref"] = common.require_string(value, where)
        elif name not in ("nullable", "propertyOrdering", "example"):  # the rest mean the same
            out[name] = value
    if schema.get("nullable") is True and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


# -- the result -----------------------------------------------------------------------------------


def _render(completion: Completion, request: Request, cursor: str | None) -> dict[str, Any]:
    return _render_candidates((completion,), request, cursor)


def _candidate(completion: Completion, index: int) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if completion.parts:  # the host answered with media: its texts and media in their order
        parts.extend(_answer_part(part) for part in completion.parts)
    elif completion.text or not completion.tool_calls:  # with calls, an empty text has no part
        parts.append({"text": completion.text})
    parts.extend(
        {"functionCall": {"id": call.id, "name": call.name, "args": call.input}}
        for call in completion.tool_calls
    )
    return {
        "content": {"role": "model", "parts": parts},
        "finishReason": _finish_reason(completion),
        "index": index,
    }


def _answer_part(part: Text | Media) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"text": part.text}
    # Standard base64, as Google's API writes a Blob's bytes in JSON (the SDK reads it).
    return {"inlineData": {"mimeType": part.mime_type, "data": part.data}}


def _render_candidates(
    completions: Sequence[Completion], request: Request, cursor: str | None
) -> dict[str, Any]:
    """A GenerateContentResponse, one candidate per completion (`candidateCount`)."""
    first = completions[0]
    return {
        "candidates": [_candidate(completion, i) for i, completion in enumerate(completions)],
        "modelVersion": first.model or request.model,
        "usageMetadata": _usage_metadata(usage.joint_usage(completions, request)),
        # With cursors on, the id is the cursor (spec section 6); else a random id in the
        # Responses form, so it may anchor a chain like one.
        "responseId": cursor or f"resp_{uuid.uuid4().hex}",
    }


def _usage_metadata(counted: Usage) -> dict[str, int]:
    return {
        "promptTokenCount": counted.input_tokens,
        "candidatesTokenCount": counted.output_tokens,
        "totalTokenCount": counted.input_tokens + counted.output_tokens,
    }


# -- tool definitions: Tools of functionDeclarations, or the seed shape -------------------------


def _entries(obj: Mapping[str, Any], path: str) -> list[tuple[Mapping[str, Any], str]]:
    """A Tool's function declarations, each with its path; a seed tool is itself."""
    if "name" in obj or "input_schema" in obj:
        return [(obj, path)]
    tool = _Object(obj, path, _TOOL_KEYS, f"a tool is {_TOOL_FORMS} or {{name, description, input_schema}}")
    for name in tool:
        if name != "functionDeclarations":
            raise caller_error(
                tool.at(name),
                f"the built-in tool {name!r} cannot be forwarded: Google's built-in tools run on Google's "
                "side; only functionDeclarations reach the host's model",
            )
    where = tool.at("functionDeclarations")
    if tool.get("functionDeclarations") is None:
        raise caller_error(where, "is required (a tool is " + _TOOL_FORMS + ")")
    declarations = common.require_list(tool.get("functionDeclarations"), where)
    return [
        (common.require_object(d, common.path_of(where, j)), common.path_of(where, j))
        for j, d in enumerate(declarations)
    ]


def _read_tool(obj: Mapping[str, Any], path: str) -> tuple[ToolSpec, str]:
    if "input_schema" in obj:
        return definitions.read_seed_tool(obj, path, definitions.SEED_KEYS, _TOOL_FORMS)
    declaration = _Object(
        obj, path, _DECLARATION_KEYS, "a function declaration is {name, description, parameters}"
    )
    name_path = declaration.at("name")
    name = definitions.tool_name(declaration.get("name"), name_path)
    description = declaration.get("description")
    if description is not None:
        common.require_string(description, declaration.at("description"))
    for hint in ("response", "responseJsonSchema"):  # the function's output: MCP's tools have no place for it
        if declaration.get(hint) is not None:
            common.require_object(declaration.get(hint), declaration.at(hint))
    if declaration.get("behavior") is not None:
        common.require_string(declaration.get("behavior"), declaration.at("behavior"))
    given = [key for key in ("parameters", "parametersJsonSchema") if key in declaration.values]
    if len(given) > 1:
        raise caller_error(declaration.at(given[1]), "and parameters are both given: give one")
    schema: dict[str, Any] = {"type": "object", "properties": {}}  # none: a function without arguments
    if given:
        where = declaration.at(given[0])
        value = declaration.get(given[0])
        schema = check_object_schema(_schema(value, where) if given[0] == "parameters" else value, where)
    return ToolSpec(name, description, schema), name_path


def _read_choice(value: Mapping[str, Any], path: str, kind: str) -> tuple[ToolChoice, str]:
    # Only the view's choice of one allowed function arrives here as an object.
    name_path = common.path_of(path, "name")
    return ToolChoice("required", definitions.tool_name(value.get("name"), name_path)), name_path


def _write_tool(name: str, description: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    # parametersJsonSchema takes the MCP tool's JSON Schema as it is; `parameters` would need
    # Gemini's OpenAPI subset.
    declared: dict[str, Any] = {"name": name}
    if description is not None:
        declared["description"] = description
    return {**declared, "parametersJsonSchema": schema}


def _group(declarations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # One Tool holding every declaration, as the SDK builds it from Python functions.
    return [{"functionDeclarations": declarations}] if declarations else []


# -- the listed input schema --------------------------------------------------------------------

_TEXT_PART = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
_BLOB = {
    "type": "object",
    "properties": {"mimeType": {"type": "string"}, "data": {"type": "string"}},
    "required": ["mimeType", "data"],
}
_PART = {
    "type": "object",
    "description": "{text}, {inlineData: {mimeType, data}} (an image or audio, base64), {functionCall: "
    "{id?, name, args}} (model) or {functionResponse: {id?, name, response, parts?}} (user); fileData "
    "is refused.",
    "properties": {
        "text": {"type": "string"},
        "inlineData": _BLOB,
        "functionCall": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "args": {"type": "object"}},
        },
        "functionResponse": {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "name": {"type": "string"},
                "response": {"type": "object"},
                "parts": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"inlineData": _BLOB},
                        "required": ["inlineData"],
                    },
                },
            },
        },
    },
}
_SCHEMA_FRAGMENT: dict[str, Any] = {
    "type": "object",
    "description": "Gemini's Schema (OpenAPI subset, type OBJECT, STRING, ...).",
}
_DECLARATION = {
    "type": "object",
    "properties": {
        "name": listing.NAME,
        "description": listing.DESCRIPTION,
        "parameters": _SCHEMA_FRAGMENT,
        "parametersJsonSchema": listing.PARAMETERS,
    },
    "required": ["name"],
}
_TOOLS_SCHEMA = listing.tools_schema(
    {
        "type": "object",
        "description": "A Tool {functionDeclarations: [{name, description, parameters (Gemini Schema) or "
        "parametersJsonSchema}]}; built-in tools (googleSearch, codeExecution, ...) cannot be forwarded.",
        "properties": {"functionDeclarations": {"type": "array", "items": _DECLARATION}},
    },
    listing.SEED_TOOL,
)
_CHOICE_SCHEMA: dict[str, Any] = {
    "type": ["object", "null"],
    "description": "functionCallingConfig: mode AUTO (the model decides), ANY (it must call a function), "
    "NONE (it must not) or VALIDATED (as AUTO); allowedFunctionNames with ANY: one name (that function, "
    "forwarded alone as required) or every declared name. Needs tools, except AUTO and NONE.",
    "properties": {
        "functionCallingConfig": {
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": list(_MODES)},
                "allowedFunctionNames": {"type": "array", "items": {"type": "string"}},
            },
        }
    },
}
_CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "temperature, maxOutputTokens, stopSequences (up to 5), responseMimeType "
    "('application/json' for structured output) with responseSchema (Gemini's Schema) or "
    "responseJsonSchema (JSON Schema); topP, topK, seed, penalties, thinkingConfig: accepted and "
    "ignored; candidateCount asks for that many candidates (above 1 needs result 'object'); "
    "logprobs and non-text modalities are refused.",
    "properties": {
        "candidateCount": {"type": "integer", "minimum": 1, "default": 1},
        "temperature": common.temperature_schema(2),
        "maxOutputTokens": {
            **common.MAX_TOKENS_SCHEMA,
            "description": "Maximum tokens the host may generate.",
        },
        "stopSequences": options.stop_schema(_STOP),
        "responseMimeType": {"type": "string", "enum": ["text/plain", "application/json"]},
        "responseSchema": _SCHEMA_FRAGMENT,
        "responseJsonSchema": {"type": "object", "description": "A JSON Schema with root type object."},
    },
}
_CONTENTS = {
    "description": "A string (one user content) or contents {role: user|model, parts}.",
    "anyOf": [
        {"type": "string"},
        {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {"role": {"enum": list(_ROLES)}, "parts": {"type": "array", "items": _PART}},
                "required": ["parts"],
            },
        },
    ],
}
_SYSTEM = {
    "anyOf": [
        {"type": "string"},
        {
            "type": "object",
            "properties": {"parts": {"type": "array", "items": _TEXT_PART}},
            "required": ["parts"],
        },
    ],
    "description": "System prompt: a string, or a content of text parts (joined by newlines).",
}


def _same_as(name: str) -> dict[str, Any]:
    return {"description": f"The same as {name} (the SDK's snake_case spelling)."}


INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "contents": _CONTENTS,
        "systemInstruction": _SYSTEM,
        "generationConfig": _CONFIG_SCHEMA,
        "tools": _TOOLS_SCHEMA,
        "toolConfig": _CHOICE_SCHEMA,
        **options.hint_schemas(_HINTS),
        **options.refused_schemas(_REFUSED),
        **{
            snake: _same_as(camel)
            for camel, snake in _SPELLINGS.items()
            if snake not in _HINTS and snake not in _REFUSED
        },
    },
    "required": ["contents"],
    "additionalProperties": False,
}


def _describe(completion: Completion) -> dict[str, Any]:
    """The result metadata (spec section 9) in Gemini's words: `finishReason`, the object's own."""
    return {"model": completion.model, "finishReason": _finish_reason(completion)}


# The caller's side, for the fuzzer, the property tests and the soak (`Writing`, writing.py).
# How a Gemini caller writes a conversation as `contents`, and reads a GenerateContentResponse
# (`gemini_generate_content`'s `Writing`).
#
# A leading system message becomes `systemInstruction`; a lone user message may be a string
# `contents`; an assistant message is a `model` content; a turn that called tools is a `model`
# content of its text part (none when it has no text) and `functionCall` parts, its results one
# `user` content of `functionResponse` parts (`{"output": <text>}`), which a following user text
# may join as text parts after them.

_WRITTEN_ROLES = {"user": "user", "assistant": "model"}


def _parts(text: str, vary: random.Random | None) -> list[dict[str, Any]]:
    pieces = text.split("\n") if vary is not None and vary.random() < 0.5 else [text]
    return [{"text": piece} for piece in pieces]


def write_request(units: Sequence[Unit], vary: random.Random | None = None) -> dict[str, Any]:
    system, rest = leading_system(units)
    args: dict[str, Any] = {}
    if system is not None:
        args["systemInstruction"] = (
            system if vary is not None and vary.random() < 0.5 else {"parts": _parts(system, vary)}
        )
    lone = len(rest) == 1 and isinstance(rest[0], Said) and rest[0].role == "user"
    if lone and vary is not None and vary.random() < 0.5:
        return {**args, "contents": rest[0].text}  # a string contents: one user entry
    contents: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] | None = None  # the parts of the last functionResponse content
    for unit in rest:
        if isinstance(unit, Said):
            role = _WRITTEN_ROLES.get(unit.role)
            if role is None:
                raise refuse(f"a {unit.role} message past the start: Gemini takes systemInstruction only")
            if role == "user" and pending is not None and vary is not None and vary.random() < 0.5:
                pending += _parts(unit.text, vary)
            else:
                contents.append({"role": role, "parts": _parts(unit.text, vary)})
            pending = None
            continue
        parts = _parts(unit.text, vary) if unit.text else []
        parts += [{"functionCall": {"id": c.id, "name": c.name, "args": c.input}} for c in unit.calls]
        contents.append({"role": "model", "parts": parts})
        pending = None
        if unit.results:
            names = {c.id: c.name for c in unit.calls}
            pending = [
                {"functionResponse": {"id": ident, "name": names[ident], "response": {"output": text}}}
                for ident, text in unit.results
            ]
            contents.append({"role": "user", "parts": pending})
    return {**args, "contents": contents}


def read_result(text: str, structured: Any) -> Reading:
    """The candidate's text parts joined (or the tool-call envelope when it holds function calls)
    and the `responseId`, the cursor."""
    body = read_object(text)
    try:
        [candidate] = body["candidates"]
        parts = candidate["content"]["parts"]
        said = [p["text"] for p in parts if "text" in p]
        made = [
            (p["functionCall"]["id"], p["functionCall"]["name"], p["functionCall"]["args"])
            for p in parts
            if "functionCall" in p
        ]
        cursor = str(body["responseId"])
    except (KeyError, TypeError, ValueError) as err:
        raise Unreadable(f"not a GenerateContentResponse with one candidate: {err!r}") from err
    return Reading(completion("\n".join(said), made), cursor)


WRITING = Writing(write_request, read_result)


DIALECT = Dialect(
    NAME=NAME,
    DESCRIPTION=DESCRIPTION,
    INPUT_SCHEMA=INPUT_SCHEMA,
    body=Body(
        conversation="contents",
        turn_noun="content",
        plain=_PLAIN,
        request_object=_REQUEST_OBJECT,
        text_arguments=("contents", "systemInstruction", "system_instruction"),
        max_tokens_alias="maxOutputTokens",
        stop=_STOP,
        native_output=_output,
        hints=_HINTS,
        refused=_REFUSED,
        view=_view,
        choices="candidateCount",
    ),
    read_conversation=_read_conversation,
    render=_render,
    render_object=_render,
    render_choices=_render_candidates,
    tools=definitions.ToolShape(
        format="gemini",
        read_tool=_read_tool,
        read_choice=_read_choice,
        write_tool=_write_tool,
        forms=_TOOL_FORMS,
        choice_forms=_CHOICE_FORMS,
        tools_schema=_TOOLS_SCHEMA,
        choice_schema=_CHOICE_SCHEMA,
        entries=_entries,
        group=_group,
    ),
    redaction=Redaction(
        result_keys=frozenset(["candidates", "modelVersion", "responseId", "usageMetadata"]),
        structural=frozenset(["finishReason", "modelVersion", "responseId"]),
        free=frozenset(["args", "response"]),  # functionCall.args, functionResponse.response
    ),
    describe=_describe,
    EXAMPLE={
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [{"role": "user", "parts": [{"text": "Name a planet with rings."}]}],
        "generationConfig": {"temperature": 0.2, "maxOutputTokens": 100},
    },
    writing=WRITING,
    answers_media=True,
)
