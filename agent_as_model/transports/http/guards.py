"""Two ASGI guards of `serve --http` in front of the SDK's app: the Host header's form, and the
JSON-RPC frame of each POST (transports/frame_checks.py, the same judgement as on stdio).

- **Host**: the SDK's DNS-rebinding check matches `127.0.0.1:*` by prefix, so `127.0.0.1:1@evil.com`
  passed it. A Host that is not a name or an address with an optional numeric port (RFC 9110:
  no userinfo, no path) is refused here with 421, before that check runs.
- **Frames**: a POST whose body the SDK would take for a notification though it carries an
  invalid id, or would refuse with a bare "Validation error" (a lone surrogate, an integer
  thousands of digits long), gets the JSON-RPC error that names what was wrong, with a WARNING
  log line. A posted *response* (a legacy host's answer) that cannot be read is handed on as
  the error reply that ends the request it answers at once. Only a body the SDK would refuse
  anyway is parsed a second time, and only once the SDK's own checks (the Host allow-list, the
  Origin, the Content-Type) have passed: a foreign origin learns nothing about its frame.
- **A legacy call whose client went away**: when the client closes a `tools/call` POST's stream
  before its answer, the call is cancelled (`_cancelled_when_gone`), since nothing can answer it.
"""

from __future__ import annotations

import json
import logging
import os
import re
from typing import Any

import anyio
import anyio.lowlevel
import mcp_types as types
from mcp.server.transport_security import TransportSecurityMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent_as_model import __version__
from agent_as_model.adapters.callers import TokenTable
from agent_as_model.transports import frame_checks

log = logging.getLogger("agent_as_model.http")

# A host name or IPv4 address, or a bracketed IPv6 address, then an optional numeric port.
_HOST_FORM = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
SHOWN = 80  # bytes of a refused body shown in the log
LARGE_BODY = 256 * 1024  # bytes: a body whose parse holds the event loop for milliseconds


class HostForm:
    """Refuse a Host header that is not `name[:port]` (userinfo, a path, odd characters)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = next((v for k, v in scope["headers"] if k == b"host"), None)
            # No Host at all (an HTTP/1.0 probe, as haproxy's httpchk sends) is the SDK's to judge.
            if host is not None and not _HOST_FORM.fullmatch(host.decode("latin-1")):
                log.warning("refused a Host header not of the form name[:port]: %r", host[:SHOWN])
                await Response("Invalid Host header", status_code=421)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class FrameCheck:
    """Judge the JSON-RPC frame of every POST to the MCP endpoint before the SDK reads it, once
    the SDK's own security checks (`security`: Host allow-list, Origin, Content-Type) have passed."""

    def __init__(self, app: ASGIApp, path: str, max_body: int, security: Any = None) -> None:
        self.app = app
        self.path = path
        self.max_body = max_body
        self.security = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        # The SDK checks Host and Origin before it reads a body; so must this: a foreign page's
        # POST gets the SDK's 421/403 whatever its body holds, never an answer about the frame.
        refused = await self.security.validate_request(Request(scope), is_post=True)
        if refused is not None:
            await refused(scope, receive, send)
            return
        body, messages, whole = await _read(receive, self.max_body)
        if not whole:  # over the limit: the SDK answers 413 from the same bytes
            await self.app(scope, _replay(messages, receive), send)
            return
        message, verdict = _verdict(body)
        if len(body) > LARGE_BODY:
            # The SDK parses the body again as soon as it has it: a turn of the loop between the
            # two parses lets other requests in, rather than holding the loop for both at once.
            await anyio.lowlevel.cancel_shielded_checkpoint()
        if verdict is None:
            # Only the call's id is kept. The parsed frame, the joined body and the list of its
            # chunks would otherwise live in this frame as long as the SDK's handling of the
            # request does: for a legacy call, through the whole round with its host, each a
            # copy of the conversation beside the SDK's own, which raise the server's high-water
            # mark several times the body's size (benchmarks/README.md "Hostile request classes").
            call = _session_call(scope, message)
            replayed = _replay(messages, receive)
            del message, body, messages
            if call is not None:
                await _cancelled_when_gone(self.app, scope, replayed, send, call)
            else:
                await self.app(scope, replayed, send)
            return
        log.warning("%s; the body began %r", verdict.reason, body[:SHOWN])
        instead = frame_checks.for_the_server(verdict)
        if instead is not None:  # a legacy host's answer: end the request it answers
            text = instead.model_dump_json(by_alias=True, exclude_unset=True).encode()
            await self.app(_with_length(scope, len(text)), _replay([_body(text)], receive), send)
            return
        if verdict.response:
            await self.app(scope, _replay(messages, receive), send)  # the SDK refuses it itself
            return
        reply = verdict.reply().model_dump_json(by_alias=True, exclude_unset=True)
        await Response(reply, status_code=400, media_type="application/json")(scope, receive, send)


def _verdict(body: bytes) -> tuple[Any, frame_checks.Verdict | None]:
    """The frame's message (None when there is none), and the verdict when it is refused here."""
    if not body.strip():
        return None, None  # the SDK says what an empty body is
    message = frame_checks.parse(body)
    if not isinstance(message, frame_checks.Verdict):
        return message, None
    # Not JSON at all, a batch, a body nested too deeply: the SDK's own answers say so.
    return None, message if message.misread or message.response else None


# -- a legacy call whose client went away ------------------------------------------------------------
#
# A legacy call's sampling requests go out on its POST's own event stream. This server keeps no
# event store, so a stream the client closed can never be resumed: what the call sends after
# that is dropped, and the call would wait for its host's answer until --host-timeout (holding its
# conversation, many times its size in memory, all that while). So when the client disconnects before
# the call's answer, the call is cancelled as the client could have done itself: a
# `notifications/cancelled` for its id, posted to the SDK on the client's session.


def _session_call(scope: Scope, message: Any) -> int | str | None:
    """The id of a legacy session's `tools/call`, or None for any other frame."""
    if (
        isinstance(message, types.JSONRPCRequest)
        and message.method == "tools/call"
        and any(k == b"mcp-session-id" for k, _ in scope["headers"])
    ):
        return message.id
    return None


async def _cancelled_when_gone(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send, call: int | str
) -> None:
    answered = False
    cancelled = False

    async def sending(message: Message) -> None:
        nonlocal answered
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            answered = True
        await send(message)

    async def receiving() -> Message:
        nonlocal cancelled
        message = await receive()
        if message["type"] == "http.disconnect" and not answered and not cancelled:
            cancelled = True
            log.info("the client closed the stream of call %r before its answer: cancelling it", call)
            with anyio.CancelScope(shield=True):
                await _post_cancel(app, scope, call)
        return message

    await app(scope, receiving, sending)


async def _post_cancel(app: ASGIApp, scope: Scope, ident: int | str) -> None:
    text = json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": ident, "reason": "the client closed the call's stream before its answer"},
        }
    ).encode()
    given = [_body(text)]

    async def receive() -> Message:
        return given.pop() if given else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        return None  # the 202 goes to no one: the client is gone

    await app(_with_length(scope, len(text)), receive, send)


async def _read(receive: Receive, limit: int) -> tuple[bytes, list[Message], bool]:
    """The body (up to `limit` bytes), the ASGI messages read, and whether that was all of it."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return b"", messages, False
        size += len(message.get("body", b""))
        if size > limit:
            return b"", messages, False
        if not message.get("more_body", False):
            return b"".join(m.get("body", b"") for m in messages), messages, True


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def again() -> Message:
        return pending.pop(0) if pending else await receive()

    return again


def _body(data: bytes) -> Message:
    return {"type": "http.request", "body": data, "more_body": False}


def _with_length(scope: Scope, length: int) -> Scope:
    headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
    return {**scope, "headers": [*headers, (b"content-length", str(length).encode())]}


def health(tokens: TokenTable) -> Any:
    """`/healthz`: "ok" to anyone (a load balancer's probe); the version and pid only to a caller
    that carries a bearer token the server takes, since they tell an attacker what to aim at."""

    async def healthz(request: Any) -> Any:
        given = request.headers.get("authorization", "").encode("latin-1")
        if tokens and tokens.caller_of(given) is not None:
            return JSONResponse({"status": "ok", "version": __version__, "pid": os.getpid()})
        return JSONResponse({"status": "ok"})

    return healthz
