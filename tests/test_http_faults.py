"""Faults over real HTTP (`serve --http` processes): invalid ids, over-long numbers and lone
surrogates named under the request's id, a legacy host answer that cannot be read ending its
call at once, `/healthz` (in test_http.py) and the Host header's form."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests import http_servers
from tests.http_servers import HttpServer
from tests.scripted_host import ERAS, ScriptedHost
from tests.wire_capture import modern_meta

pytestmark = pytest.mark.anyio

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
VERSION = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}


@pytest.fixture(scope="module")
def server() -> Iterator[HttpServer]:
    with http_servers.running() as running:
        yield running


def post(server: HttpServer, era: str, body: bytes, **headers: str) -> httpx2.Response:
    sent = {**ACCEPT, "MCP-Protocol-Version": VERSION[era], **headers}
    return httpx2.post(server.url, content=body, headers=sent, timeout=30)


def call_body(era: str, ident: bytes, prompt: bytes) -> bytes:
    meta = b"" if era == "legacy" else b', "_meta": ' + json.dumps(modern_meta()).encode()
    return (
        b'{"jsonrpc": "2.0", "id": ' + ident + b', "method": "tools/call", "params": {"name": "generate", '
        b'"arguments": {"prompt": ' + prompt + b"}" + meta + b"}}"
    )


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("ident", "kind"),
    [(b"1.5", "a number"), (b"true", "a boolean"), (b"{}", "an object"), (b"[]", "an array")],
)
def test_an_invalid_id_gets_invalid_request_with_id_null(
    server: HttpServer, era: str, ident: bytes, kind: str
) -> None:
    before = len(server.log_text())  # the server is shared: only this case's lines are read
    answer = post(server, era, call_body(era, ident, b'"q"'))
    assert answer.status_code == 400
    frame = answer.json()
    assert frame["id"] is None and frame["error"]["code"] == -32600
    assert "an id must be a string or an integer" in frame["error"]["message"]
    logged = server.log_text()[before:]
    assert f"WARNING agent_as_model.http: the request's id is {kind}: an id must be" in logged
    assert f'the body began b\'{{"jsonrpc": "2.0", "id": {ident.decode()}, ' in logged


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("prompt", "named"),
    [
        (b"7" * 4400, "params.arguments.prompt: an integer of 4400 digits (at most 4300 are read)"),
        (b'"x\\udfffy"', "params.arguments.prompt: a lone surrogate (U+DFFF) is not Unicode text"),
    ],
)
def test_an_over_long_number_or_lone_surrogate_is_named_with_the_id(
    server: HttpServer, era: str, prompt: bytes, named: str
) -> None:
    answer = post(server, era, call_body(era, b'"c-9"', prompt))
    assert answer.status_code == 400
    assert answer.json() == {
        "jsonrpc": "2.0",
        "id": "c-9",
        "error": {"code": -32602, "message": f"Invalid params: {named}"},
    }


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("headers", "status", "said"),
    [
        ({"Origin": "http://evil.example"}, 403, "Invalid Origin header"),
        ({"Host": "evil.example"}, 421, "Invalid Host header"),
        ({"Host": "evil.example:8080"}, 421, "Invalid Host header"),
    ],
)
@pytest.mark.parametrize("bad", [(b"1.5", b'"q"'), (b'"c-1"', b'"a\\ud800"')])
def test_a_foreign_origin_or_host_is_refused_before_its_frame_is_judged(
    server: HttpServer, era: str, headers: dict[str, str], status: int, said: str, bad: tuple[bytes, bytes]
) -> None:
    # The SDK's DNS-rebinding check comes first: a bad frame from a foreign page is not answered.
    answer = post(server, era, call_body(era, *bad), **headers)
    assert (answer.status_code, answer.text) == (status, said)


@pytest.mark.parametrize("host", ["127.0.0.1:1@evil.com", "localhost:80/x", "a b"])
def test_a_host_header_with_userinfo_or_a_path_is_refused(server: HttpServer, host: str) -> None:
    answer = post(server, "2026-07-28", b"{}", Host=host)
    assert answer.status_code == 421 and "Host" in answer.text


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]"])
async def test_a_loopback_host_without_a_port_is_accepted(server: HttpServer, host: str) -> None:
    async with (
        httpx2.AsyncClient(headers={"Host": host}, timeout=30) as http,
        Client(streamable_http_client(server.url, http_client=http), mode="2026-07-28") as client,
    ):
        assert (await client.call_tool("list_models", {})).is_error is False


class Tamper(httpx2.AsyncBaseTransport):
    """Rewrites the host's answer on its way to the server: what a misbehaving host would send."""

    def __init__(self, mark: bytes, written: bytes, rewrite: Callable[[bytes], bytes] | None = None) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._mark = mark
        # By default the mark itself is replaced; `rewrite` may instead rewrite the whole body.
        self._rewrite = rewrite or (lambda body: body.replace(mark, written))

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        if self._mark in body:
            headers = [(k, v) for k, v in request.headers.raw if k.lower() != b"content-length"]
            request = httpx2.Request(
                request.method, request.url, headers=headers, content=self._rewrite(body)
            )
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@pytest.mark.parametrize(
    ("written", "named"),
    [
        (b'"a\\ud800"', "result.content.text: a lone surrogate (U+D800) is not Unicode text"),
        (b"1" * 4400, "result.content.text: an integer of 4400 digits"),
    ],
)
async def test_a_legacy_answer_that_cannot_be_read_fails_its_call_at_once(
    server: HttpServer, written: bytes, named: str
) -> None:
    host = ScriptedHost("TAMPERED")
    transport = Tamper(b'"TAMPERED"', written)
    kwargs: dict[str, Any] = {"mode": "legacy", "sampling_callback": host}
    async with (
        httpx2.AsyncClient(transport=transport, timeout=httpx2.Timeout(30, read=300)) as http,
        Client(streamable_http_client(server.url, http_client=http), **kwargs) as client,
    ):
        result = await client.call_tool("generate", {"prompt": "q"})
        again = await client.call_tool("generate", {"prompt": "q"})
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith(f"generate: sampling/createMessage: the host's answer could not be read: {named}")
    assert again.is_error  # the connection still serves (the same tampering host, the same answer)


async def test_a_legacy_answer_whose_result_is_a_string_fails_its_call_at_once(server: HttpServer) -> None:
    def as_string(body: bytes) -> bytes:
        return json.dumps({**json.loads(body), "result": "str"}).encode()

    transport = Tamper(b'"TAMPERED"', b"", rewrite=as_string)
    kwargs: dict[str, Any] = {"mode": "legacy", "sampling_callback": ScriptedHost("TAMPERED")}
    async with (
        httpx2.AsyncClient(transport=transport, timeout=httpx2.Timeout(30, read=300)) as http,
        Client(streamable_http_client(server.url, http_client=http), **kwargs) as client,
    ):
        result = await client.call_tool("generate", {"prompt": "q"})
    text = result.content[0].text  # type: ignore[union-attr]
    assert text == (
        "generate: sampling/createMessage: the host's answer could not be read: result is a string, "
        "expected an object. The host was asked; its answer was not used."
    )


def test_a_malformed_input_response_is_named_over_http(server: HttpServer) -> None:
    from tests.test_faults_stdio import MALFORMED_ANSWERS

    for answer, named in MALFORMED_ANSWERS:
        params = {
            "name": "generate",
            "arguments": {"prompt": "q"},
            "inputResponses": {"completion": answer},
            "_meta": modern_meta(),
        }
        body = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}).encode()
        reply = post(server, "2026-07-28", body, **{"Mcp-Method": "tools/call", "Mcp-Name": "generate"})
        frame = (
            reply.json() if reply.headers["content-type"].startswith("application/json") else _sse(reply.text)
        )
        assert frame["id"] == 3 and frame["error"]["code"] == -32602, frame
        assert frame["error"]["message"].startswith(f"Invalid request parameters: {named}")


def _sse(text: str) -> dict[str, Any]:
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]
    return json.loads(data[-1])


def test_a_probe_without_a_host_header_still_reaches_healthz(server: HttpServer) -> None:
    import socket

    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as probe:
        probe.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")  # as haproxy's `option httpchk GET /healthz`
        answer = b""
        while chunk := probe.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b'{"status":"ok"}')


WILDCARD_TOKEN = "wildcard-bind-token"


@pytest.fixture(scope="module")
def wide() -> Iterator[HttpServer]:
    with http_servers.running("--host", "0.0.0.0", "--auth-token", WILDCARD_TOKEN) as running:
        yield running


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]", "localhost:{port}", "127.0.0.1:{port}"])
async def test_a_wildcard_bind_accepts_loopback_hosts_with_and_without_a_port(
    wide: HttpServer, host: str
) -> None:
    # 0.0.0.0 listens on loopback too, so what a loopback bind accepts it accepts; others not.
    headers = {"Host": host.format(port=wide.port), "Authorization": f"Bearer {WILDCARD_TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(wide.url, http_client=http), mode="2026-07-28") as client,
    ):
        assert (await client.call_tool("list_models", {})).is_error is False
    foreign = post(wide, "2026-07-28", b"{}", Host="evil.example", Authorization=headers["Authorization"])
    assert (foreign.status_code, foreign.text) == (421, "Invalid Host header")


@pytest.mark.parametrize("bind", ["0.0.0.0", "::"])
@pytest.mark.parametrize(
    ("host", "accepted"), [("localhost", True), ("[::1]:9", True), ("evil.example", False)]
)
async def test_what_each_wildcard_bind_accepts(bind: str, host: str, accepted: bool) -> None:
    # The same allow-list the SDK is given, for both wildcard binds (:: needs no IPv6 here).
    from mcp.server.transport_security import TransportSecurityMiddleware
    from starlette.requests import Request

    from agent_as_model.transports.http.app import transport_security
    from agent_as_model.transports.http.settings import HttpSettings

    check = TransportSecurityMiddleware(transport_security(HttpSettings(host=bind, auth_token="t")))
    scope = {"type": "http", "method": "POST", "headers": [(b"host", host.encode())]}
    refused = await check.validate_request(Request(scope), is_post=False)
    assert (refused is None) is accepted


def test_a_notification_that_cannot_be_read_gets_400_without_an_id(server: HttpServer) -> None:
    body = b'{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"message": "a\\ud800"}}'
    answer = post(server, "2026-07-28", body)
    assert answer.status_code == 400
    assert answer.json()["id"] is None
    assert answer.json()["error"]["message"] == (
        "Invalid params: params.message: a lone surrogate (U+D800) is not Unicode text"
    )
