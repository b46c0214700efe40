"""The conversation of a `generateContent` body -> neutral turns: `systemInstruction` (a string,
or a content of text parts) and `contents` (role `user` / `model`, parts `text`, `functionCall
{id?, name, args}`, `functionResponse {id?, name, response}`, `inlineData`, and with `serve
--fetch-media` `fileData`).

A `functionCall` without an `id` (the Gemini Developer API often sends none) gets
`call_<content index>_<part index>`; a `functionResponse` without one answers the first call of
that name, in the model content before it, not yet answered. A `functionResponse`'s `response`
object travels as its text: the string of `{"output": "..."}` (or of `{"error": "..."}`, an error
result), else its sorted-key JSON text. docs/decisions.md has the why of each.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from agent_as_model.adapters.dialects import common, media
from agent_as_model.adapters.dialects.products.gemini.keys import (
    BLOB_KEYS,
    CALL_KEYS,
    CALL_REFUSED,
    CONTENT_KEYS,
    INLINE_TYPES,
    NOT_TEXT,
    PART_DATA,
    PART_HINTS,
    PART_KEYS,
    PART_REFUSED,
    RESPONSE_HINTS,
    RESPONSE_KEYS,
    RESPONSE_PART_HINTS,
    RESPONSE_PART_KEYS,
    RESPONSE_REFUSED,
    ROLES,
    SERVER_SIDE,
)
from agent_as_model.adapters.dialects.products.gemini.objects import Object, camel, top_level
from agent_as_model.adapters.dialects.turns import Turns, call_id
from agent_as_model.adapters.tools import definitions
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Media, Text, ToolResult
from agent_as_model.neutral import ToolUse as Call


def read_conversation(args: Mapping[str, Any], turns: Turns) -> None:
    system, where = top_level(args, "systemInstruction")
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
        content = Object(raw, path, CONTENT_KEYS, "a content is {role, parts}")
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
    content = Object(value, path, CONTENT_KEYS, "systemInstruction is a string or {parts}")
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


def _role(content: Object) -> str:
    role = content.values.get("role", "user")
    where = content.at("role")
    if not isinstance(role, str):
        raise caller_error(where, f"expected 'user' or 'model', got {common.type_name(role)}")
    if role in ROLES:
        return ROLES[role]
    if role == "system":
        raise caller_error(where, "'system' is not a content role here: pass it as systemInstruction")
    raise caller_error(where, f"expected 'user' or 'model', got {role!r}")


def _part(raw: object, path: str, fetching: bool = False, model: bool = False) -> tuple[str, Object]:
    """A part and which of text, functionCall or functionResponse it carries (exactly one); with
    `fetching` (a user content, `serve --fetch-media`) a fileData part too. A thought part (the
    model's own reasoning) is `thought` in a model content, and refused anywhere else."""
    obj = common.require_object(raw, path)
    for key in obj:
        name = camel(key)
        if name in NOT_TEXT and obj[key] is not None:
            common.reject_non_text(name, path)
        if name == "fileData" and obj[key] is not None and not fetching:
            raise caller_error(common.path_of(path, key), f"a fileData part: {media.REMOTE}")
        if name in SERVER_SIDE and obj[key] is not None:
            raise caller_error(common.path_of(path, key), _server_side(name))
    part = Object(obj, path, PART_KEYS, "a part is {text}, {functionCall} or {functionResponse}")
    kinds = [k for k in (*PART_DATA, "inlineData", "fileData") if k in part.values]
    if len(kinds) != 1:
        found = " and ".join(kinds) or "none"
        raise caller_error(
            path, f"a part holds exactly one of text, functionCall or functionResponse ({found})"
        )
    if part.get("thoughtSignature") is not None:  # passed back by the SDK; nothing to verify it with
        common.require_string(part.get("thoughtSignature"), part.at("thoughtSignature"))
    part.check(PART_HINTS, PART_REFUSED)
    thought = part.get("thought")
    if thought is not None and not isinstance(thought, bool):
        raise caller_error(part.at("thought"), f"expected a boolean, got {common.type_name(thought)}")
    if thought:
        if not model:
            raise caller_error(
                part.at("thought"),
                "a thought part is the model's own reasoning and belongs in a model content (where it "
                "is left out of what the host's model sees); a user content cannot carry it",
            )
        return "thought", part
    return kinds[0], part


def _kept(raw: object, path: str, turns: Turns, fetching: bool) -> bool:
    """Whether the part is one Gemini's API takes and the host cannot (video, remote files while
    fetching is off, the server side's code execution and tool parts, a transcription): kept as a
    refusal for the host alone (`Turns.cannot`) and left out of the conversation. The reasons and
    paths are those `_part` gives when the reading does not keep them."""
    if not turns.keeps_host_only or type(raw) is not dict:
        return False
    for key, value in raw.items():
        if value is None:
            continue
        name = camel(key)
        if name in NOT_TEXT:
            turns.cannot(path, common.not_carried(name))
            return True
        if name == "fileData" and not fetching:
            turns.cannot(common.path_of(path, key), f"a fileData part: {media.REMOTE}")
            return True
        if name in SERVER_SIDE:
            turns.cannot(common.path_of(path, key), _server_side(name))
            return True
    for key, value in raw.items():
        if value is not None and camel(key) in PART_REFUSED:
            reason = PART_REFUSED[camel(key)](value)
            if reason is not None:
                turns.cannot(common.path_of(path, key), reason)
                return True
    return False


def _server_side(name: str) -> str:
    return (
        f"a {name} part cannot be passed to the host's model: code execution and Google's "
        "server-side tools run on Google's side"
    )


def _read_model(parts: list[Any], i: int, path: str, at: str, turns: Turns) -> _Pending:
    texts: list[str] = []
    calls: list[Call] = []
    # With media (a host's answer of images or audio passed back): the texts and media
    # in their order, as that answer was rendered, so its transcript entry is the one minted.
    mixed: list[Text | Media] = []
    for j, raw in enumerate(parts):
        if _kept(raw, common.path_of(path, j), turns, fetching=False):
            continue
        kind, part = _part(raw, common.path_of(path, j), model=True)
        if kind == "thought":  # another model's reasoning: left out, with a warning
            turns.left_out(part.path, "thought parts")
            continue
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
    read = [
        _part(raw, common.path_of(path, j), fetching)
        for j, raw in enumerate(parts)
        if not _kept(raw, common.path_of(path, j), turns, fetching)
    ]
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
            turns.tool_result(_response(part.get(kind), part.at(kind), pending, turns), at)
        else:
            raise caller_error(part.at(kind), "a functionCall part belongs in a model content")
    if texts:
        turns.text("user", "\n".join(texts), at)


def _read_media(read: list[tuple[str, Object]], at: str, turns: Turns) -> None:
    """A user content with `inlineData` parts (images, audio): each part in its place."""
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
    blob = Object(raw, path, BLOB_KEYS, "inlineData is {mimeType, data}")
    data = blob.get("data")
    if isinstance(data, str):  # the SDK's JSON writes bytes URL-safe; MCP takes standard base64
        data = data.replace("-", "+").replace("_", "/")
    return media.inline(data, blob.get("mimeType"), blob.at("data"), INLINE_TYPES)


def _file(raw: object, path: str, turns: Turns) -> Media:
    """A `fileData` part with an http(s) `fileUri`, fetched (`serve --fetch-media`); a Files API
    or `gs://` URI cannot be read by a plain GET and is refused. A declared `mimeType` must be
    the type the response says."""
    blob = Object(raw, path, ("fileUri", "mimeType", "displayName"), "fileData is {mimeType, fileUri}")
    uri = common.require_string(blob.get("fileUri"), blob.at("fileUri"))
    if not media.is_remote(uri):
        raise caller_error(blob.at("fileUri"), f"only http(s) URIs are fetched: {media.REMOTE}")
    declared = blob.get("mimeType")
    allowed: tuple[str, ...] = INLINE_TYPES
    if declared is not None:
        declared = common.require_string(declared, blob.at("mimeType")).lower()
        if declared not in INLINE_TYPES:
            raise caller_error(
                blob.at("mimeType"),
                f"media type {ascii(declared)} is not allowed here ({', '.join(INLINE_TYPES)})",
            )
        allowed = (declared,)
    return turns.remote(uri, blob.at("fileUri"), allowed)


def _call(raw: object, path: str, derived: str) -> Call:
    call = Object(raw, path, CALL_KEYS, "a functionCall is {id, name, args}")
    call.check({}, CALL_REFUSED)
    ident = derived if call.get("id") is None else call_id(call.get("id"), call.at("id"))
    name = definitions.tool_name(call.get("name"), call.at("name"))
    args = call.get("args")
    if args is not None and not isinstance(args, dict):
        raise caller_error(call.at("args"), f"expected an object, got {common.type_name(args)}")
    return Call(ident, name, args or {})


def _response(raw: object, path: str, pending: _Pending, turns: Turns) -> ToolResult:
    answer = Object(raw, path, RESPONSE_KEYS, "a functionResponse is {id, name, response}")
    answer.check(RESPONSE_HINTS, RESPONSE_REFUSED)
    media_parts = _response_parts(answer.get("parts"), answer.at("parts"), turns)
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
    if media_parts:  # the response's text first, then its media
        return ToolResult(ident, text, is_error, (Text(text), *media_parts))
    return ToolResult(ident, text, is_error)


def _response_parts(raw: object, path: str, turns: Turns) -> tuple[Media, ...]:
    """A functionResponse's `parts` (the SDK's FunctionResponsePart): `inlineData` images and
    audio; a `fileData` part is remote media, which Gemini's API takes and the host cannot."""
    if raw is None:
        return ()
    found: list[Media] = []
    for j, item in enumerate(common.require_list(raw, path)):
        where = common.path_of(path, j)
        obj = common.require_object(item, where)
        remote = next((key for key in obj if camel(key) == "fileData" and obj[key] is not None), None)
        if remote is not None:
            turns.cannot(common.path_of(where, remote), f"a fileData part: {media.REMOTE}")
            continue
        part = Object(obj, where, RESPONSE_PART_KEYS, "a function response part is {inlineData}")
        part.check(RESPONSE_PART_HINTS, {})
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
