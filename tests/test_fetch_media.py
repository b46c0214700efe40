"""`serve --fetch-media`, remote images fetched behind address checks.

A local HTTP server (threading http.server on 127.0.0.1, a free port) serves the PNG; it is
fetched only when `--fetch-media-allow 127.0.0.1` names it, since loopback is refused otherwise.
"""

from __future__ import annotations

import hashlib
import http.server
import ipaddress
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from anthropic.types import ImageBlockParam, TextBlockParam, URLImageSourceParam
from anthropic.types.user_message_param import UserMessageParam
from openai.types.chat import (
    ChatCompletionContentPartImageParam,
    ChatCompletionContentPartTextParam,
    ChatCompletionUserMessageParam,
)
from openai.types.responses import EasyInputMessageParam, ResponseInputImageParam, ResponseInputTextParam

from agent_as_model.adapters.dialects import parse
from agent_as_model.adapters.fetching import why_refused
from agent_as_model.commands import cli
from agent_as_model.commands.limit_options import limits_of
from agent_as_model.engine import driver
from agent_as_model.limits import FetchPolicy, Limits
from agent_as_model.server import build_server
from agent_as_model.states import validate
from tests.scripted_host import ScriptedHost, connect
from tests.test_media import (
    IMAGE,
    PNG,
    PNG64,
    WAV,
    BytesHost,
    completion,
    responses_tool_history,
    seen_blocks,
)

pytestmark = pytest.mark.anyio

# An image whose base64 is over the size whose decoding and hashing leaves the event loop.
LARGE = PNG + bytes(validate.LARGE_FETCHED)

# The server's handler never returns from /slow until the test ends: the fetch's time cap ends it.
RELEASE = threading.Event()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.server.seen.append((self.path, self.headers.get("Host")))  # type: ignore[attr-defined]
        port = self.server.server_address[1]
        routes = {
            "/pixel.png": (200, "image/png", PNG),
            "/pixel-typed.png": (200, "image/png; charset=binary", PNG),
            "/page.html": (200, "text/html", b"<html></html>"),
            "/lies.png": (200, "image/png", WAV),
            "/big.png": (200, "image/png", PNG + bytes(4096)),
            "/large.png": (200, "image/png", LARGE),
            "/missing.png": (404, "text/plain", b"no"),
        }
        if self.path == "/changing.png":  # other bytes on the second fetch, the same after
            served = self.server.served = getattr(self.server, "served", 0) + 1  # type: ignore[attr-defined]
            routes[self.path] = (200, "image/png", PNG if served == 1 else PNG + b"\x00")
        if self.path == "/slow.png":
            RELEASE.wait(60)
            return
        if self.path.startswith("/n/"):  # the same pixel under as many names as a test wants
            routes[self.path] = (200, "image/png", PNG)
        if self.path.startswith("/wait/"):  # each a little slow: the call's fetches add up
            RELEASE.wait(0.4)
            routes[self.path] = (200, "image/png", PNG)
        if self.path.startswith("/to/"):  # a redirect to the URL after /to/
            self.send_response(302)
            self.send_header("Location", self.path[4:].replace("PORT", str(port)))
            self.end_headers()
            return
        status, kind, body = routes.get(self.path, (404, "text/plain", b"no"))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:  # quiet: stdout/stderr are the test runner's
        pass


@pytest.fixture
def site() -> Iterator[Any]:
    RELEASE.clear()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.seen = []  # type: ignore[attr-defined]
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        RELEASE.set()
        server.shutdown()
        server.server_close()


def base(server: Any) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def fetching(**policy: Any) -> Any:
    allow = frozenset(policy.pop("allow", ("127.0.0.1",)))
    bounds = policy.pop("limits", {})
    limits = Limits(fetch=FetchPolicy(enabled=True, allow=allow, **policy), **bounds)
    return build_server(limits=limits)


def chat_with(url: str) -> dict[str, Any]:
    message = ChatCompletionUserMessageParam(
        role="user",
        content=[
            ChatCompletionContentPartTextParam(type="text", text="what is this?"),
            ChatCompletionContentPartImageParam(type="image_url", image_url={"url": url, "detail": "auto"}),
        ],
    )
    return {"messages": [message]}


def messages_with(url: str) -> dict[str, Any]:
    message = UserMessageParam(
        role="user",
        content=[
            TextBlockParam(type="text", text="what is this?"),
            ImageBlockParam(type="image", source=URLImageSourceParam(type="url", url=url)),
        ],
    )
    return {"messages": [message], "max_tokens": 50}


def responses_with(url: str) -> dict[str, Any]:
    message = EasyInputMessageParam(
        role="user",
        content=[
            ResponseInputTextParam(type="input_text", text="what is this?"),
            ResponseInputImageParam(type="input_image", image_url=url, detail="auto"),
        ],
    )
    return {"input": [message]}


BODIES = {"chat_complete": chat_with, "messages_create": messages_with, "responses_create": responses_with}
PATHS = {
    "chat_complete": "messages[0].content[1].image_url.url",
    "messages_create": "messages[0].content[1].source.url",
    "responses_create": "input[0].content[1].image_url",
}


@pytest.mark.parametrize("tool", list(BODIES))
async def test_an_allowed_url_is_fetched_and_reaches_the_host_inline(era: str, tool: str, site: Any) -> None:
    host = BytesHost()
    async with connect(era, host, server=fetching()) as client:
        result = await client.call_tool(tool, BODIES[tool](f"{base(site)}/pixel.png"))
    assert not result.is_error, result.content[0].text
    assert json.loads(completion(tool, result)) == [["text", "what is this?"], IMAGE]
    port = site.server_address[1]
    # Fetched once a round (the 2026-07-28 retry fetches again: docs/decisions.md), the Host as written.
    assert set(site.seen) == {("/pixel.png", f"127.0.0.1:{port}")}


async def test_the_connection_goes_to_the_checked_address_and_no_proxy_is_used(
    era: str, site: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A name only this test's resolver knows: it resolves (once, through anyio) to the site. A
    # fetch that connected by name would need a second lookup, which fails; a proxy from the
    # environment (here one that does not exist) would be asked instead of the checked address.
    import anyio

    from agent_as_model.adapters import fetching as fetching_module

    real = anyio.getaddrinfo
    lookups: list[str] = []

    async def resolve(host: Any, port: Any, **kwargs: Any) -> Any:
        lookups.append(str(host))
        if host == "images.invalid":
            return await real("127.0.0.1", port, **kwargs)
        return await real(host, port, **kwargs)

    monkeypatch.setattr(fetching_module.anyio, "getaddrinfo", resolve)
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    port = site.server_address[1]
    host = BytesHost()
    async with connect(era, host, server=fetching(allow=("images.invalid",))) as client:
        result = await client.call_tool("chat_complete", chat_with(f"http://images.invalid:{port}/pixel.png"))
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == [["text", "what is this?"], IMAGE]
    assert set(site.seen) == {("/pixel.png", f"images.invalid:{port}")}  # the name as the Host
    assert set(lookups) == {"images.invalid"}


async def test_a_content_type_with_parameters_is_read_by_its_type(era: str, site: Any) -> None:
    host = BytesHost()
    async with connect(era, host, server=fetching()) as client:
        result = await client.call_tool("chat_complete", chat_with(f"{base(site)}/pixel-typed.png"))
    assert json.loads(result.content[0].text) == [["text", "what is this?"], IMAGE]


@pytest.mark.parametrize("tool", list(BODIES))
async def test_by_default_nothing_is_fetched(era: str, tool: str, site: Any) -> None:
    host = ScriptedHost("unused")
    async with connect(era, host) as client:
        result = await client.call_tool(tool, BODIES[tool](f"{base(site)}/pixel.png"))
    assert result.is_error
    where = "messages[0].content[1].source: a 'url' source" if tool == "messages_create" else PATHS[tool]
    assert f"{where}: remote media is not fetched" in result.content[0].text
    assert "--fetch-media" in result.content[0].text
    assert site.seen == [] and host.asked == 0


REFUSALS = {
    "loopback without allow": ("/pixel.png", "resolves to 127.0.0.1, a loopback address"),
    "a redirect to a refused address": ("/to/http://localhost:PORT/pixel.png", "a loopback address"),
    "too big": ("/big.png", "over the bound of"),
    "wrong content type": ("/page.html", "its content type is 'text/html', not one allowed here"),
    "bytes that are not the type": ("/lies.png", "the bytes do not match the declared type image/png"),
    "not found": ("/missing.png", "the server answered HTTP 404"),
    "too slow": ("/slow.png", "took longer than 0.5 s (serve --fetch-media-timeout)"),
    "too many redirects": (
        "/to/http://127.0.0.1:PORT/to/http://127.0.0.1:PORT/pixel.png",
        "more than 1 redirects",
    ),
}
POLICIES: dict[str, dict[str, Any]] = {
    "loopback without allow": {"allow": ()},
    "too big": {"limits": {"max_media_bytes": len(PNG) + 100}},
    "too slow": {"timeout": 0.5},
    "too many redirects": {"redirects": 1},
}


@pytest.mark.parametrize("case", list(REFUSALS))
async def test_refusals_name_the_path_and_nothing_is_sent(era: str, case: str, site: Any) -> None:
    path, expected = REFUSALS[case]
    url = base(site) + path.replace("PORT", str(site.server_address[1]))
    host = ScriptedHost("fine")
    async with connect(era, host, server=fetching(**POLICIES.get(case, {}))) as client:
        refused = await client.call_tool("messages_create", messages_with(url))
        after = await client.call_tool("messages_create", {"messages": [{"role": "user", "content": "hi"}]})
    assert refused.is_error
    text = refused.content[0].text
    assert text.startswith("messages_create: messages[0].content[1].source.url: "), text
    assert expected in text, text
    assert text.endswith("Nothing was sent to the host."), text
    assert host.asked == 1 and after.content[0].text == "fine"  # the server goes on serving


def chat_with_all(urls: list[str]) -> dict[str, Any]:
    parts: list[Any] = [ChatCompletionContentPartTextParam(type="text", text="what are these?")]
    parts += [ChatCompletionContentPartImageParam(type="image_url", image_url={"url": u}) for u in urls]
    return {"messages": [ChatCompletionUserMessageParam(role="user", content=parts)]}


async def test_a_calls_fetches_share_its_media_bound(era: str, site: Any) -> None:
    # Each URL is read only up to what the call's bound has left: a call naming many cannot make
    # the server hold more than one call's media.
    urls = [f"{base(site)}/n/{n}.png" for n in range(5)]
    host = ScriptedHost("unused")
    server = fetching(limits={"max_media_call_bytes": 2 * len(PNG) + 10})
    async with connect(era, host, server=server) as client:
        result = await client.call_tool("chat_complete", chat_with_all(urls))
    text = result.content[0].text
    assert result.is_error and text.startswith("chat_complete: messages[0].content[3].image_url.url: "), text
    assert "bytes left of the call's media bound (serve --max-media-call-bytes)" in text, text
    assert text.endswith("Nothing was sent to the host."), text
    assert [path for path, _ in site.seen] == [f"/n/{n}.png" for n in range(3)]  # none after
    assert host.asked == 0


async def test_one_time_cap_for_all_of_a_calls_fetches(era: str, site: Any) -> None:
    urls = [f"{base(site)}/wait/{n}.png" for n in range(4)]  # 0.4 s each, 1.6 s in all
    host = ScriptedHost("unused")
    async with connect(era, host, server=fetching(timeout=1.0)) as client:
        result = await client.call_tool("chat_complete", chat_with_all(urls))
    text = result.content[0].text
    assert result.is_error, text
    assert "fetching the call's remote media took longer than 1 s (serve --fetch-media-timeout)" in text
    assert len(site.seen) < len(urls) and host.asked == 0


async def test_a_url_with_credentials_is_not_fetched_nor_repeated(era: str, site: Any) -> None:
    port = site.server_address[1]
    host = ScriptedHost("unused")
    async with connect(era, host, server=fetching()) as client:
        result = await client.call_tool(
            "messages_create", messages_with(f"http://user:s3cret@127.0.0.1:{port}/pixel.png")
        )
    text = result.content[0].text
    assert result.is_error and "a URL with credentials (user:password@) is not fetched" in text, text
    assert "s3cret" not in text and f"'http://127.0.0.1:{port}/pixel.png' is not fetched" in text
    assert site.seen == [] and host.asked == 0


def test_an_allow_list_without_fetching_is_refused_at_start_up() -> None:
    from agent_as_model.errors import StartupError

    with pytest.raises(
        StartupError, match="--fetch-media-allow names hosts to fetch from: it needs --fetch-media"
    ):
        limits_of(cli._parser().parse_args(["serve", "--fetch-media-allow", "images.local"]))


async def test_only_http_urls_are_fetched(era: str) -> None:
    host = ScriptedHost("unused")
    async with connect(era, host, server=fetching()) as client:
        chat = await client.call_tool("chat_complete", chat_with("ftp://127.0.0.1/pixel.png"))
        anthropic = await client.call_tool("messages_create", messages_with("file:///etc/passwd"))
    assert "messages[0].content[1].image_url.url: expected a data: URL" in chat.content[0].text
    assert "messages[0].content[1].source.url: only http(s) URLs are fetched" in anthropic.content[0].text
    assert host.asked == 0


async def test_a_file_source_stays_refused_with_fetching_on(era: str) -> None:
    body = {
        "messages": [
            {"role": "user", "content": [{"type": "image", "source": {"type": "file", "file_id": "f1"}}]}
        ]
    }
    async with connect(era, ScriptedHost("unused"), server=fetching()) as client:
        result = await client.call_tool("messages_create", body)
    assert (
        "messages[0].content[0].source: a 'file' source: remote media is not fetched"
        in result.content[0].text
    )


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "a loopback address"),
        ("::1", "a loopback address"),
        ("::ffff:127.0.0.1", "a loopback address"),
        ("10.1.2.3", "a private address"),
        ("192.168.0.1", "a private address"),
        ("172.16.0.1", "a private address"),
        ("fc00::1", "a private address"),
        ("169.254.169.254", "a cloud metadata address"),
        ("fd00:ec2::254", "a cloud metadata address"),
        ("100.100.100.200", "a cloud metadata address"),
        ("169.254.1.1", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("224.0.0.1", "a multicast address"),
        ("0.0.0.0", "the unspecified address"),
        ("240.0.0.1", "a private address"),
        ("100.64.0.1", "not a global address"),
        ("fec0::1", "a site-local address"),
        ("2002:7f00:1::", "a loopback address (carried in 2002:7f00:1::)"),
        ("2002:a9fe:a9fe::", "a cloud metadata address (carried in 2002:a9fe:a9fe::)"),
        ("64:ff9b::a00:1", "a private address (carried in 64:ff9b::a00:1)"),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "a Teredo tunnel address"),
        ("2002:5db8:d70e::", None),  # 6to4 of a global address
        ("93.184.215.14", None),
        ("2606:4700::1111", None),
    ],
)
def test_which_addresses_are_refused(address: str, why: str | None) -> None:
    assert why_refused(ipaddress.ip_address(address)) == why


def test_the_flags_make_the_policy() -> None:
    parser = cli._parser()
    off = limits_of(parser.parse_args(["serve"]))
    assert off.fetch == FetchPolicy()
    assert (off.fetch.enabled, off.fetch.timeout, off.fetch.redirects) == (False, 10.0, 3)
    on = limits_of(
        parser.parse_args(
            [
                "serve",
                "--fetch-media",
                "--fetch-media-allow",
                "Images.Local",
                "--fetch-media-allow",
                "127.0.0.1",
                "--fetch-media-timeout",
                "2.5",
            ]
        )
    )
    assert on.fetch == FetchPolicy(enabled=True, allow=frozenset({"images.local", "127.0.0.1"}), timeout=2.5)


async def test_a_retry_that_fetches_other_bytes_is_asked_again(site: Any) -> None:
    """2026-07-28: the retry fetches again, and the round's state binds the digests of what it
    fetched; other bytes on the retry are not taken for the answer round one was asked: the host
    is asked again, about the bytes it will be answered for."""
    import base64

    host = ScriptedHost("first", "second")
    async with connect("2026-07-28", host, server=fetching()) as client:
        result = await client.call_tool("chat_complete", chat_with(f"{base(site)}/changing.png"))
    assert result.content[0].text == "second"
    sent = [base64.b64decode(params.messages[0].content_as_list[1].data) for params in host.seen]
    assert sent == [PNG, PNG + b"\x00"]
    assert [path for path, _ in site.seen] == ["/changing.png"] * 3  # round one, two retries


async def test_legacy_fetches_once(site: Any) -> None:
    host = ScriptedHost("seen")
    async with connect("legacy", host, server=fetching()) as client:
        result = await client.call_tool("chat_complete", chat_with(f"{base(site)}/changing.png"))
    assert result.content[0].text == "seen" and len(site.seen) == 1


@pytest.mark.stdio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_over_stdio_the_installed_command_fetches_an_allowed_url(
    tmp_path: Any, anyio_backend: str, site: Any
) -> None:
    import base64

    from tests.test_media import stdio_call

    url = f"{base(site)}/pixel.png"
    answer = {"role": "assistant", "content": {"type": "text", "text": "a green pixel"}, "model": "raw"}
    flags = ("--fetch-media", "--fetch-media-allow", "127.0.0.1")
    sampling, result = await stdio_call(tmp_path / "f.jsonl", "chat_complete", chat_with(url), answer, *flags)
    image = sampling["params"]["messages"][0]["content"][1]
    assert (image["type"], image["mimeType"]) == ("image", "image/png")
    assert base64.b64decode(image["data"], validate=True) == PNG
    assert result["result"]["content"][0]["text"] == "a green pixel"
    asked, refused = await stdio_call(
        tmp_path / "g.jsonl", "chat_complete", chat_with(url), answer, "--fetch-media"
    )
    # No sampling request: the frame back is the tool's error (loopback, not allowed).
    assert "method" not in asked and refused["result"]["isError"] is True
    assert "resolves to 127.0.0.1, a loopback address" in refused["result"]["content"][0]["text"]


def test_the_policy_reaches_the_http_workers() -> None:
    from agent_as_model.limits import limits_json, limits_of_json

    limits = Limits(fetch=FetchPolicy(enabled=True, allow=frozenset({"a.example", "127.0.0.1"}), timeout=2.0))
    assert limits_of_json(json.loads(json.dumps(limits_json(limits)))) == limits
    assert limits_of_json(json.loads(json.dumps(limits_json(Limits())))) == Limits()


def gemini_with(uri: str, mime: str | None = "image/png") -> dict[str, Any]:
    from google.genai import types as genai

    content = genai.Content(
        role="user",
        parts=[
            genai.Part(text="what is this?"),
            genai.Part(file_data=genai.FileData(file_uri=uri, mime_type=mime)),
        ],
    )
    return {"contents": [content.model_dump(mode="json", exclude_none=True, by_alias=True)]}


async def test_a_gemini_file_data_uri_is_fetched_when_it_is_http(era: str, site: Any) -> None:
    host = BytesHost()
    async with connect(era, host, server=fetching()) as client:
        fetched = await client.call_tool("gemini_generate_content", gemini_with(f"{base(site)}/pixel.png"))
        typeless = await client.call_tool(
            "gemini_generate_content", gemini_with(f"{base(site)}/pixel.png", None)
        )
        files_api = await client.call_tool("gemini_generate_content", gemini_with("gs://bucket/pixel.png"))
        mismatch = await client.call_tool(
            "gemini_generate_content", gemini_with(f"{base(site)}/pixel.png", "image/jpeg")
        )
    for result in (fetched, typeless):
        assert json.loads(completion("gemini_generate_content", result)) == [["text", "what is this?"], IMAGE]
    assert "contents[0].parts[1].fileData.fileUri: only http(s) URIs are fetched" in files_api.content[0].text
    assert "its content type is 'image/png', not one allowed here (image/jpeg)" in mismatch.content[0].text
    assert host.asked == 2  # the two fetched calls; the refused ones sent nothing


async def test_a_gemini_file_data_part_stays_refused_by_default(era: str) -> None:
    async with connect(era, ScriptedHost("unused")) as client:
        result = await client.call_tool("gemini_generate_content", gemini_with("https://example.com/a.png"))
    assert (
        "contents[0].parts[1].fileData: a fileData part: remote media is not fetched"
        in result.content[0].text
    )


# -- the arguments are read once: the fetched parts take their stand-ins' places ------------------


@pytest.mark.parametrize("tool", list(BODIES))
async def test_a_fetching_call_reads_its_arguments_once_a_request(
    era: str, tool: str, site: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reading leaves a stand-in where remote media is; the machine fetches it in its own
    state (`awaiting_media`) and puts the fetched part in its place: the arguments are not read
    again (on 2026-07-28, once in each of the call's two requests)."""
    reads: list[str] = []

    def counted(dialect: Any, args: Any, fetched: Any = None) -> Any:
        reads.append(dialect.NAME)
        return parse.read_request(dialect, args, fetched)

    monkeypatch.setattr(validate, "read_request", counted)
    async with connect(era, BytesHost(), server=fetching()) as client:
        result = await client.call_tool(tool, BODIES[tool](f"{base(site)}/pixel.png"))
    assert not result.is_error, result.content[0].text
    assert json.loads(completion(tool, result)) == [["text", "what is this?"], IMAGE]
    assert reads == [tool] * (2 if era == "2026-07-28" else 1)


async def test_a_fetched_image_in_a_tool_result_reaches_the_host_as_an_inline_one(
    era: str, site: Any
) -> None:
    inline = responses_tool_history()
    remote = responses_tool_history()
    remote["input"][2]["output"][1]["image_url"] = f"{base(site)}/pixel.png"
    answers = []
    for arguments, server in ((inline, None), (remote, fetching())):
        host = ScriptedHost(lambda params: json.dumps(seen_blocks(params.messages[-1].content_as_list)))
        async with connect(era, host, tools=True, server=server) as client:
            result = await client.call_tool("responses_create", arguments)
        assert not result.is_error, result.content[0].text
        answers.append(json.loads(completion("responses_create", result)))
    assert answers[0] == answers[1] == [["tool_result", "t1", [["text", "drawn"], IMAGE]]]
    assert len(site.seen) == (2 if era == "2026-07-28" else 1)


async def test_a_cursor_over_a_fetched_image_commits_to_its_bytes(era: str, site: Any) -> None:
    """The cursor's transcript is made from the conversation with the fetched part in place: the
    same as over the same bytes sent inline, and the chain continues from it."""
    cursors = []
    for url in (f"data:image/png;base64,{PNG64}", f"{base(site)}/pixel.png"):
        async with connect(era, ScriptedHost("a pixel"), server=fetching()) as client:
            result = await client.call_tool("chat_complete", {**chat_with(url), "previous_response_id": ""})
        assert not result.is_error, result.content[0].text
        cursors.append(json.loads(result.content[0].text)["response_id"])
    assert cursors[0] == cursors[1]
    history = [*chat_with(f"{base(site)}/pixel.png")["messages"], {"role": "assistant", "content": "a pixel"}]
    arguments = {
        "messages": [*history, {"role": "user", "content": "and now?"}],
        "previous_response_id": cursors[1],
    }
    async with connect(era, ScriptedHost("still a pixel"), server=fetching()) as client:
        result = await client.call_tool("chat_complete", arguments)
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text)["completion"] == "still a pixel"


async def test_a_large_fetched_image_is_taken_off_the_event_loop_and_still_reaches_the_host(
    era: str, site: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fetched bytes are decoded, checked and hashed in a worker thread when they are large,
    on the event loop when small (the hop would cost more). Every trigger goes through the
    driver's `fire`, also when `off_loop` runs it, so the thread it ran in tells which it was."""
    loop_thread = threading.get_ident()  # the test's coroutine runs on the in-process server's loop
    fired = driver.fire
    on_loop: list[bool] = []

    def noting(record: Any, trigger: str, *args: Any) -> Any:
        if trigger == "fetched":
            on_loop.append(threading.get_ident() == loop_thread)
        return fired(record, trigger, *args)

    monkeypatch.setattr(driver, "fire", noting)
    rounds = 2 if era == "2026-07-28" else 1  # the retry fetches again
    seen = {}
    for name, body in (("large", LARGE), ("pixel", PNG)):
        host = BytesHost()
        async with connect(era, host, server=fetching()) as client:
            result = await client.call_tool("chat_complete", chat_with(f"{base(site)}/{name}.png"))
        assert not result.is_error, result.content[0].text
        image = ["image", "image/png", hashlib.sha256(body).hexdigest()]
        assert json.loads(completion("chat_complete", result)) == [["text", "what is this?"], image]
        seen[name], on_loop[:] = on_loop[:], []
    assert seen == {"large": [False] * rounds, "pixel": [True] * rounds}
