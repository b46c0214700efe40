"""`--redact`: the text of messages and completions becomes a same-length placeholder.

What counts as text (everything else is kept: methods, ids, roles, block types, tool names and
schemas, model names, numbers, error messages, the handshake):

- a `tools/call` request's arguments `messages`, `input`, `prompt`, `instructions`, `system`,
  and the host answers it carries back on 2026-07-28 (`inputResponses`);
- a `sampling/createMessage` request's `messages` and `systemPrompt`, wherever it travels (a
  legacy server request, or inside an `InputRequiredResult`), and the host's answer to it;
- a successful `tools/call` result's text blocks and `structuredContent` (not `list_models`);
- a provider's own message in its error (`it said: …`, which may quote the prompt), in the
  provider exchange and in the error result that tells it.

Inside those, strings under structural keys (`role`, `type`, `id`, `name`, `call_id`, `model`,
`status`, …, and those a dialect declares in its `Redaction`) are kept; every other string is
text. Where the shape is the caller's or the model's own (a tool call's `input` or `arguments`,
what a dialect declares `free`, structured output), every string is text and only keys and
non-string values remain. A string holding JSON (a tool result's text, a call's `arguments`, a
host's text answer that is JSON, bare or in a ```json fence) is redacted inside and written back
in the same JSON style, so it still parses where the server parses it. A host's answer that is an
emulated tool call (`{"tool_calls": [{"name", "arguments"}]}`, `serve --host-without-tools
emulate`) keeps its tool names, as a native call does; its arguments are text.

The placeholder for a text of n characters is n characters long: `#` and a keyed hash of the
text, cut to n or padded with dots. It is stable within one recording (the same text, the same
placeholder, so you can see where a text travelled); the key is random per recording and never
written down, so a short text cannot be found by hashing guesses. For the same reason session
cursors (`cur_…`, an unkeyed hash of the conversation) become keyed hashes of the same shape.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from typing import Any

from agent_as_model.adapters.dialects import DIALECTS, media
from agent_as_model.commands.transcripts.exchange import CLIENT_TO_SERVER, SERVER_TO_CLIENT, FrameContext
from agent_as_model.commands.transcripts.minted import CURSOR_IN_TEXT
from agent_as_model.errors import SAID
from agent_as_model.placeholders import Placeholders
from agent_as_model.states.emulation import CALLS as EMULATED_CALLS

STRUCTURAL_KEYS = frozenset(
    {
        "role",
        "type",
        "id",
        "name",
        "call_id",
        "tool_call_id",
        "tool_use_id",
        "toolUseId",
        "status",
        "object",
        "model",
        "mimeType",
        # Inline media's own structure: its type, chat's audio format, an image's detail.
        "mime_type",
        "media_type",
        "format",
        "detail",
        "stopReason",
        "response_id",
    }
)
SAMPLING = "sampling/createMessage"
_FENCE = re.compile(r"(?P<open>\s*```(?:json)?[ \t]*\n)(?P<body>.*?)(?P<close>\n[ \t]*```\s*)", re.DOTALL)

OnText = Callable[[str], Any]
# (the original JSON text, its parsed value, that value with its text mapped) -> what replaces the string
OnJson = Callable[[str, Any, Any], Any]


def map_text(direction: str, frame: Any, context: FrameContext, on_text: OnText, on_json: OnJson) -> Any:
    """A copy of `frame` with every text string (see the module docstring) passed through `on_text`."""
    if not isinstance(frame, dict):
        return frame
    walker = _Walker(on_text, on_json)
    frame = dict(frame)
    if context.kind == "request" and isinstance(frame.get("params"), dict):
        if direction == CLIENT_TO_SERVER and context.method == "tools/call":
            frame["params"] = walker.call_params(frame["params"])
        elif direction == SERVER_TO_CLIENT and context.method == SAMPLING:
            frame["params"] = walker.sampling_params(frame["params"])
    elif context.kind == "response" and isinstance(frame.get("result"), dict):
        if direction == CLIENT_TO_SERVER and context.method == SAMPLING:
            frame["result"] = walker.answer(frame["result"])
        elif direction == SERVER_TO_CLIENT and context.is_completion_call:
            frame["result"] = walker.call_result(frame["result"])
    return frame


class _Walker:
    def __init__(self, on_text: OnText, on_json: OnJson) -> None:
        self.on_text = on_text
        self.on_json = on_json
        self._in_answer = False

    def answer(self, value: Any) -> Any:
        """A host's answer: as `schema`, but a text that is JSON (bare or in a ```json fence) is
        redacted inside, because the server parses it (structured output, a persona's output)."""
        self._in_answer = True
        try:
            return self.schema(value)
        finally:
            self._in_answer = False

    def _answer_text(self, text: str) -> Any:
        fenced = _FENCE.fullmatch(text)
        if fenced is None:
            return self._answer_json(text)
        inner = self._answer_json(fenced["body"])
        if isinstance(inner, str):
            return fenced["open"] + inner + fenced["close"]
        return inner

    def _answer_json(self, text: str) -> Any:
        """A host's text answer that may be JSON: the model's own shape, every string text; except
        an emulated tool call (`serve --host-without-tools emulate`, states/emulation.py), whose
        tool names and ids are structure like a native call's, so a redacted recording replays."""
        return self._redacted_json(text, self._answer_value)

    def _answer_value(self, parsed: Any) -> Any:
        if (
            isinstance(parsed, dict)
            and set(parsed) == {EMULATED_CALLS}
            and isinstance(parsed[EMULATED_CALLS], list)
        ):
            return {EMULATED_CALLS: [self._emulated_call(call) for call in parsed[EMULATED_CALLS]]}
        return self.free(parsed)

    def _emulated_call(self, call: Any) -> Any:
        if not isinstance(call, dict):
            return self.free(call)
        return {k: v if k in ("name", "id") and isinstance(v, str) else self.free(v) for k, v in call.items()}

    def call_params(self, params: dict[str, Any]) -> dict[str, Any]:
        params = dict(params)
        arguments = params.get("arguments")
        if isinstance(arguments, dict):
            texts = _text_arguments(params.get("name"))
            params["arguments"] = {
                key: self.schema(value) if texts is None or key in texts else value
                for key, value in arguments.items()
            }
        answers = params.get("inputResponses")
        if isinstance(answers, dict):
            params["inputResponses"] = {key: self.answer(value) for key, value in answers.items()}
        return params

    def sampling_params(self, params: dict[str, Any]) -> dict[str, Any]:
        params = dict(params)
        if "messages" in params:
            params["messages"] = self.schema(params["messages"])
        if isinstance(params.get("systemPrompt"), str):
            params["systemPrompt"] = self.on_text(params["systemPrompt"])
        return params

    def call_result(self, result: dict[str, Any]) -> dict[str, Any]:
        result = dict(result)
        requests = result.get("inputRequests")
        if isinstance(requests, dict):
            result["inputRequests"] = {key: self._input_request(value) for key, value in requests.items()}
        if result.get("isError") is True:
            return result  # the server's own diagnostics: the debugging signal, kept
        content = result.get("content")
        if isinstance(content, list):
            result["content"] = [self._result_block(block) for block in content]
        if "structuredContent" in result:
            result["structuredContent"] = self._json_value(result["structuredContent"])
        return result

    def _input_request(self, request: Any) -> Any:
        if (
            isinstance(request, dict)
            and request.get("method") == SAMPLING
            and isinstance(request.get("params"), dict)
        ):
            return {**request, "params": self.sampling_params(request["params"])}
        return request

    def _result_block(self, block: Any) -> Any:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            return {**block, "text": self._json_text(block["text"], server_shaped=True)}
        return block

    def _json_value(self, value: Any) -> Any:
        return self.schema(value) if _server_shaped(value) else self.free(value)

    def _json_text(self, text: str, *, server_shaped: bool) -> Any:
        """A string that may hold JSON: redact inside it when it does, else as plain text."""
        return self._redacted_json(text, self._json_value if server_shaped else self.free)

    def _redacted_json(self, text: str, mapped: Callable[[Any], Any]) -> Any:
        """`text` redacted inside by `mapped` when it is a JSON object or array, else as plain text."""
        try:
            parsed = json.loads(text)
        except ValueError:
            return self.on_text(text)
        if not isinstance(parsed, dict | list):
            return self.on_text(text)
        return self.on_json(text, parsed, mapped(parsed))

    def schema(self, value: Any, key: str | None = None) -> Any:
        """A shape the server knows (messages, blocks, its own results): structural strings stay."""
        if isinstance(value, str):
            if key in STRUCTURAL_KEYS or key in _declared("structural"):
                return value
            if key == "arguments":
                return self._json_text(value, server_shaped=False)
            if self._in_answer and key == "text":
                return self._answer_text(value)
            if key in _MEDIA_KEYS:
                stand_in = media_stand_in(value)
                if stand_in is not None:
                    return stand_in
            return self.on_text(value)
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for k, v in value.items():
                # A tool call's input object is the model's own shape: nothing in it is structure.
                free = (k == "input" or k in _declared("free")) and isinstance(v, dict)
                out[k] = self.free(v) if free else self.schema(v, k)
            return out
        if isinstance(value, list):
            return [self.schema(item, key) for item in value]
        return value

    def free(self, value: Any) -> Any:
        """A shape someone else chose: every string is text, keys and other values stay."""
        if isinstance(value, str):
            return self.on_text(value)
        if isinstance(value, dict):
            return {k: self.free(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.free(item) for item in value]
        return value


# Where inline media travels: base64 `data` (MCP's content, Anthropic's source, chat's audio,
# Gemini's inlineData) and data: URLs (chat's `image_url.url`, Responses' `image_url`).
_MEDIA_KEYS = frozenset({"data", "url", "image_url"})
_MEDIA_HEAD = 16  # the bytes kept: the magic number (the type, which mimeType says anyway)


def media_stand_in(text: str) -> str | None:
    """A same-length stand-in for inline media: the same magic number, then zeros, in
    the same base64 alphabet, so the server's checks still pass and a recording replays clean.
    None: `text` is not inline media (it is then redacted as text)."""
    prefix = ""
    data = text
    if text.startswith("data:"):
        head, sep, data = text.partition(",")
        if not sep or not head.endswith(";base64"):
            return None
        prefix = head + sep
    urlsafe = "-" in data or "_" in data
    try:
        raw = base64.b64decode(data.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None
    if media.sniffed(raw) is None:
        return None
    zeroed = raw[:_MEDIA_HEAD] + bytes(max(0, len(raw) - _MEDIA_HEAD))
    encoded = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(zeroed).decode()
    return prefix + encoded if len(encoded) == len(data) else None


def _text_arguments(tool: object) -> tuple[str, ...] | None:
    """The arguments of `tool` that carry caller text, as its dialect declares them; None (all of
    them) for a tool no registered dialect knows, so nothing of an unknown shape leaks."""
    dialect = DIALECTS.get(tool) if isinstance(tool, str) else None
    return dialect.body.text_arguments if dialect is not None else None


def _server_shaped(value: Any) -> bool:
    """The JSON results whose shape the server defines: a Responses object, the tool-call and the
    cursor envelopes. Anything else in a result is structured output, shaped by the caller."""
    if not isinstance(value, dict):
        return False
    return (
        value.get("object") == "response"
        or set(value) in ({"text", "tool_calls"}, {"completion", "response_id"})
        or any(
            d.redaction.result_keys <= value.keys() <= d.redaction.result_keys | d.redaction.echoed
            for d in DIALECTS.values()
            if d.redaction is not None
        )
    )


def _declared(kind: str) -> frozenset[str]:
    """The keys the registered dialects declare `structural` or `free` (dialect.py `Redaction`)."""
    keys: frozenset[str] = frozenset()
    for dialect in DIALECTS.values():
        if dialect.redaction is not None:
            keys |= getattr(dialect.redaction, kind)
    return keys


def dump_like(original: str, parsed: Any, mapped: Any) -> str:
    """Re-serialise `mapped` in the JSON style `original` was written in, when one of the usual
    styles reproduces it; otherwise in the server's own style."""
    for separators in ((", ", ": "), (",", ":")):
        for ensure_ascii in (True, False):
            if json.dumps(parsed, separators=separators, ensure_ascii=ensure_ascii) == original:
                return json.dumps(mapped, separators=separators, ensure_ascii=ensure_ascii)
    return json.dumps(mapped, ensure_ascii=False)


# The keys of a provider request that carry the conversation and the system prompt, in every API.
_PROVIDER_CONVERSATION = ("messages", "system", "input", "instructions", "contents", "systemInstruction")


class Redactor(Placeholders):
    """Same-length, stable placeholders under a per-recording random key (`Placeholders`)."""

    # A provider's error messages this recording has seen, each with its placeholder, so the error
    # result that quotes one (made after the exchange was recorded) gets the same placeholder and
    # a replay of the redacted exchange tells the same error. The last ones only: an error result
    # follows its exchange at once.
    SAID_KEPT = 64

    def __init__(self, key: bytes | None = None) -> None:
        super().__init__(key)
        self._said: dict[str, str] = {}

    def frame(self, direction: str, frame: Any, context: FrameContext) -> Any:
        frame = self._cursors(map_text(direction, frame, context, self.placeholder, dump_like))
        if self._said and direction == SERVER_TO_CLIENT and context.is_completion_call:
            frame = self._said_in_error(frame)
        return frame

    def provider(self, exchange: dict[str, Any]) -> dict[str, Any]:
        """A provider exchange (docs/providers.md): the request's conversation and system prompt
        (in each API's words: Chat's and Messages' `messages` and `system`, Responses' `input` and
        `instructions`, Gemini's `contents` and `systemInstruction`), the reply's blocks and the
        API's own object, as text; models, roles, ids, tool names and definitions kept."""
        walker = _Walker(self.placeholder, dump_like)
        exchange = dict(exchange)
        request = dict(exchange.get("request") or {})
        for key in _PROVIDER_CONVERSATION:
            if key in request:
                request[key] = walker.schema(request[key])
        exchange["request"] = request
        reply = exchange.get("reply")
        if isinstance(reply, dict) and "blocks" in reply:
            exchange["reply"] = {**reply, "blocks": walker.answer(reply["blocks"])}
            if isinstance(reply.get("native"), dict):
                exchange["reply"]["native"] = walker.answer(reply["native"])
        failure = exchange.get("failure")
        if isinstance(failure, dict) and isinstance(failure.get("said"), str) and failure["said"]:
            exchange["failure"] = self._said_in_failure(failure)
        return exchange

    def _said_in_failure(self, failure: dict[str, Any]) -> dict[str, Any]:
        """The provider's own message (the end of `what`, and `said`) as a placeholder, kept for the
        error result that will quote it."""
        said: str = failure["said"]
        stand_in = self.placeholder(said)
        self._said.pop(said, None)
        self._said[said] = stand_in
        while len(self._said) > self.SAID_KEPT:
            del self._said[next(iter(self._said))]
        what = failure.get("what")
        if isinstance(what, str) and what.endswith(said):
            what = what[: len(what) - len(said)] + stand_in
        return {**failure, "what": what, "said": stand_in}

    def _said_in_error(self, frame: Any) -> Any:
        """An error result's text with each provider message it quotes (`it said: …`) replaced by
        that message's placeholder. Only there, and only after `it said: `: the same words
        elsewhere (a tool name, the server's own wording) are not the provider's."""
        result = frame.get("result") if isinstance(frame, dict) else None
        if not isinstance(result, dict) or result.get("isError") is not True:
            return frame
        content = result.get("content")
        if not isinstance(content, list):
            return frame
        # A copy: provider exchanges are recorded on the event loop, frames on the tap's threads.
        known = list(self._said.items())
        blocks = []
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str) and SAID in block["text"]:
                text = block["text"]
                for said, stand_in in known:
                    text = text.replace(SAID + said, SAID + stand_in)
                block = {**block, "text": text}
            blocks.append(block)
        return {**frame, "result": {**result, "content": blocks}}

    def _cursors(self, value: Any) -> Any:
        # A cursor is an unkeyed hash of the conversation: left alone it would confirm a guessed
        # text. It becomes a keyed hash of the same shape, the same one wherever it recurs.
        if isinstance(value, str):
            return CURSOR_IN_TEXT.sub(lambda match: self.cursor(match.group(0)), value)
        if isinstance(value, dict):
            return {key: self._cursors(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._cursors(item) for item in value]
        return value
