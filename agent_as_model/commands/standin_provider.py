"""A stand-in provider: an HTTP server on 127.0.0.1 that answers as OpenAI's Chat Completions
(`POST /v1/chat/completions`) and Responses (`POST /v1/responses`), Anthropic's Messages
(`POST /v1/messages`) and Gemini's generateContent (`POST /v1beta/models/MODEL:generateContent`)
do, for `demo` and the tests.

It speaks real HTTP, so the official SDK clients talk to it exactly as to a hosted API. It keeps
every request it got (path, headers, JSON body), and answers from a script: a reply body, an HTTP
status (with a Retry-After), a slow answer, one that trickles in a byte at a time, or garbage;
with nothing scripted it echoes the last user text. A test may hold every answer until it lets
them go, and see how many waited at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OPENAI_PATH = "/v1/chat/completions"
RESPONSES_PATH = "/v1/responses"
ANTHROPIC_PATH = "/v1/messages"
GEMINI_PREFIX = "/v1beta/models/"


@dataclass(frozen=True)
class Status:
    """Answer with this HTTP status and an error body; `retry_after`, when given, is sent as the
    `Retry-After` header (otherwise `retry-after-ms: 5`, so retries stay quick)."""

    code: int
    message: str = "stand-in error"
    retry_after: str | None = None


@dataclass(frozen=True)
class Trickle:
    """Answer 200 with `reply` (the echo when None), one byte every `seconds`: each read is
    quick, the whole answer slow."""

    seconds: float
    reply: dict[str, Any] | None = None


@dataclass(frozen=True)
class Slow:
    """Answer only after `seconds` (longer than the client's timeout)."""

    seconds: float


@dataclass(frozen=True)
class Garbage:
    """Answer 200 with a body that is not what the API returns."""

    body: str = "this is not JSON"


Scripted = dict[str, Any] | Status | Slow | Garbage | Trickle


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    # When the request arrived (time.monotonic): a test can show a retry waited what was asked.
    at: float = field(default_factory=time.monotonic)


@dataclass
class StandInProvider:
    """The server's script and what it saw; `url` is set once it listens. While `hold` is set to
    an unset event, every request waits for it before it is answered (a test holds calls in
    flight), and `held` / `most_held` say how many wait now and at most."""

    script: list[Scripted] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    url: str = ""
    hold: threading.Event | None = None
    held: int = 0
    most_held: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_if_held(self) -> None:
        hold = self.hold
        if hold is None:
            return
        with self._lock:
            self.held += 1
            self.most_held = max(self.most_held, self.held)
        try:
            hold.wait()
        finally:
            with self._lock:
                self.held -= 1

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def gemini_base_url(self) -> str:
        return self.url

    def base_url(self, provider: str) -> str:
        """The base URL the SDK of provider API `provider` is given."""
        return self.openai_base_url if provider == "openai" else self.url

    def bodies(self) -> list[dict[str, Any]]:
        return [s.body for s in self.seen]

    def next_answer(self, path: str, body: dict[str, Any]) -> Scripted:
        if self.script:
            return self.script.pop(0)
        text = f"stand-in answer to: {_last_user_text(body)}"
        if path.startswith(GEMINI_PREFIX):
            return gemini_reply(text, model=path[len(GEMINI_PREFIX) :].split(":")[0])
        model = str(body.get("model", "stand-in"))
        if path == RESPONSES_PATH:
            return responses_reply(text, model=model)
        return openai_reply(text, model=model) if path == OPENAI_PATH else anthropic_reply(text, model=model)


def openai_reply(
    text: str | None = "ok",
    *,
    tool_calls: Sequence[tuple[str, str, str]] = (),
    finish_reason: str = "stop",
    model: str = "stand-in-model",
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            for call_id, name, arguments in tool_calls
        ]
    return {
        "id": "chatcmpl-standin",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        # The API's own counts (fixed figures: a stand-in has no tokenizer).
        "usage": {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13},
    }


def anthropic_reply(
    text: str | None = "ok",
    *,
    tool_uses: Sequence[tuple[str, str, dict[str, Any]]] = (),
    stop_reason: str = "end_turn",
    model: str = "stand-in-model",
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text is not None else []
    content += [{"type": "tool_use", "id": i, "name": n, "input": inp} for i, n, inp in tool_uses]
    return {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def responses_reply(
    text: str | None = "ok",
    *,
    calls: Sequence[tuple[str, str, str]] = (),
    status: str = "completed",
    model: str = "stand-in-model",
) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if text is not None:
        output.append(
            {
                "type": "message",
                "id": "msg_standin",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    output += [
        {
            "type": "function_call",
            "id": f"fc_{call_id}",
            "call_id": call_id,
            "name": name,
            "arguments": arguments,
        }
        for call_id, name, arguments in calls
    ]
    return {
        "id": "resp_standin",
        "object": "response",
        "created_at": 0,
        "model": model,
        "status": status,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 9,
            "output_tokens": 4,
            "total_tokens": 13,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def gemini_reply(
    text: str | None = "ok",
    *,
    calls: Sequence[tuple[str, dict[str, Any]]] = (),
    finish_reason: str = "STOP",
    model: str = "stand-in-model",
) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": text}] if text is not None else []
    parts += [{"functionCall": {"name": name, "args": args}} for name, args in calls]
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": finish_reason, "index": 0}
        ],
        "modelVersion": model,
        "responseId": "standin-response",
        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4, "totalTokenCount": 13},
    }


def _last_user_text(body: dict[str, Any]) -> str:
    if isinstance(body.get("input"), str):  # Responses
        return str(body["input"])
    turns = body.get("messages") or body.get("input") or body.get("contents") or []
    for message in reversed(turns if isinstance(turns, list) else []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content", message.get("parts"))
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _handler(provider: StandInProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # stdout is for protocol frames only
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"unreadable": raw.decode("utf-8", "replace")}
            provider.seen.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            provider.wait_if_held()
            known = self.path in (OPENAI_PATH, RESPONSES_PATH, ANTHROPIC_PATH)
            if not known and not (
                self.path.startswith(GEMINI_PREFIX) and self.path.endswith(":generateContent")
            ):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            answer = provider.next_answer(self.path, body)
            if isinstance(answer, Slow):
                time.sleep(answer.seconds)
                answer = Status(504, "the stand-in was slow on purpose")
            if isinstance(answer, Status):
                error = {"type": "error", "error": {"type": "stand_in", "message": answer.message}}
                # retry-after-ms: the server honours it, so its retries stay quick against the stand-in.
                wait = {"retry-after": answer.retry_after} if answer.retry_after else {"retry-after-ms": "5"}
                self._send(answer.code, error, wait)
            elif isinstance(answer, Trickle):
                reply = answer.reply or provider.next_answer(self.path, body)
                self._trickle(json.dumps(reply).encode(), answer.seconds)
            elif isinstance(answer, Garbage):
                self._send_raw(200, answer.body.encode(), "application/json")
            else:
                self._send(200, answer)

        def _trickle(self, data: bytes, seconds: float) -> None:
            try:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                for i in range(len(data)):
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
                    time.sleep(seconds)
            except OSError:  # the client gave up: nothing more to send
                pass

        def _send(self, code: int, obj: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self._send_raw(code, json.dumps(obj).encode(), "application/json", headers)

        def _send_raw(
            self, code: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
        ) -> None:
            try:
                self.send_response(code)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (a timeout): nothing to answer
                pass

    return Handler


class _Listener(ThreadingHTTPServer):
    # The socketserver default of 5 pending connections drops the SYNs of a crowd of callers held
    # at the provider at once, and each dropped one waits out TCP's retransmission back-off.
    request_queue_size = 256
    daemon_threads = True
    block_on_close = False


@contextmanager
def running(script: list[Scripted] | None = None) -> Iterator[StandInProvider]:
    """A stand-in provider listening on 127.0.0.1 (a free port) for the duration of the block."""
    provider = StandInProvider(script=list(script or []))
    server = _Listener(("127.0.0.1", 0), _handler(provider))
    provider.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="stand-in-provider", daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()
