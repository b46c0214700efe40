"""`agent-as-model serve --http` over real HTTP, on both eras, with the SDK `Client`.

One open server (loopback, no token) and one guarded server (a token, a small body limit) are
started per module as real processes on free 127.0.0.1 ports; each is ready when `/healthz`
answers. The guards answer 401 (token missing or wrong), 403 (a foreign Origin), 421 (a foreign
Host: the SDK's DNS-rebinding answer) and 413 (a body over the limit); the command refuses unsafe
start-ups (a non-loopback bind or a configured provider without a token, `--record` with `--http`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mcp import MCPError

from agent_as_model.adapters.dialects import DIALECTS, register, unregister
from agent_as_model.adapters.dialects.products import prompt
from agent_as_model.commands import cli, http_options
from tests import http_servers
from tests.helpers import listed_tools, text_of
from tests.http_servers import HttpServer, http_client
from tests.scripted_host import ScriptedHost

pytestmark = pytest.mark.anyio

TOKEN = "s3cret-token-for-tests"
SMALL_BODY = 2048
MISSING_CAPABILITY = -32021
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
PING = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}


@pytest.fixture(scope="module")
def open_server() -> Iterator[HttpServer]:
    with http_servers.running() as server:
        yield server


@pytest.fixture(scope="module")
def guarded_server() -> Iterator[HttpServer]:
    with http_servers.running(
        "--max-body-bytes", str(SMALL_BODY), env={http_options.AUTH_TOKEN_ENV: TOKEN}
    ) as s:
        yield s


def test_healthz_answers_ok(open_server: HttpServer) -> None:
    answer = httpx2.get(f"{open_server.base}/healthz")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok"}  # no token configured: nothing more to anyone


async def test_tools_are_listed_over_http(open_server: HttpServer, era: str) -> None:
    async with http_client(open_server.url, era) as client:
        listed = await client.list_tools()
    assert [tool.name for tool in listed.tools] == listed_tools()


async def test_chat_complete_is_answered_by_the_host_over_http(open_server: HttpServer, era: str) -> None:
    host = ScriptedHost("the host's own answer")
    async with http_client(open_server.url, era, host) as client:
        assert client.protocol_version == ("2025-11-25" if era == "legacy" else "2026-07-28")
        result = await client.call_tool("chat_complete", {"messages": [{"role": "user", "content": "q"}]})
        assert not result.is_error, text_of(result)
        assert text_of(result) == "the host's own answer"
        assert host.asked == 1 and host.wire()["messages"][0]["content"]["text"] == "q"
        # A caller error names the field and says nothing was sent; the next call works.
        bad = await client.call_tool("generate", {"prompt": 7})
        assert bad.is_error and "prompt" in text_of(bad) and "Nothing was sent to the host." in text_of(bad)
        again = await client.call_tool("generate", {"prompt": "p"})
        assert not again.is_error and "the host's own answer" in text_of(again)
    assert host.asked == 2


async def test_a_host_without_sampling_is_refused_over_http(open_server: HttpServer, era: str) -> None:
    async with http_client(open_server.url, era) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("generate", {"prompt": "p"})
    assert refused.value.error.code == MISSING_CAPABILITY


async def test_the_token_lets_the_sdk_client_in(guarded_server: HttpServer, era: str) -> None:
    host = ScriptedHost("guarded answer")
    async with http_client(guarded_server.url, era, host, token=TOKEN) as client:
        result = await client.call_tool("generate", {"prompt": "p"})
    assert not result.is_error and "guarded answer" in text_of(result)


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-token", f"Basic {TOKEN}", TOKEN])
def test_a_missing_or_wrong_token_gets_401(guarded_server: HttpServer, authorization: str | None) -> None:
    headers = {**ACCEPT, **({"Authorization": authorization} if authorization else {})}
    answer = httpx2.post(guarded_server.url, json=PING, headers=headers)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith("Bearer")
    assert "bearer token" in answer.json()["error"]


def test_healthz_needs_no_token(guarded_server: HttpServer) -> None:
    answer = httpx2.get(f"{guarded_server.base}/healthz")
    assert answer.status_code == 200 and answer.json() == {"status": "ok"}
    wrong = httpx2.get(f"{guarded_server.base}/healthz", headers={"Authorization": "Bearer nope"})
    assert wrong.json() == {"status": "ok"}
    told = httpx2.get(f"{guarded_server.base}/healthz", headers={"Authorization": f"Bearer {TOKEN}"})
    assert told.json()["pid"] == guarded_server.process.pid and "version" in told.json()


def test_a_foreign_origin_gets_403(guarded_server: HttpServer) -> None:
    headers = {**ACCEPT, "Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"}
    answer = httpx2.post(guarded_server.url, json=PING, headers=headers)
    assert answer.status_code == 403 and "Origin" in answer.text


def test_a_foreign_host_gets_421(guarded_server: HttpServer) -> None:
    headers = {**ACCEPT, "Authorization": f"Bearer {TOKEN}", "Host": "evil.example"}
    answer = httpx2.post(guarded_server.url, json=PING, headers=headers)
    assert answer.status_code == 421 and "Host" in answer.text


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_a_body_over_the_limit_gets_413(guarded_server: HttpServer, version: str) -> None:
    headers = {**ACCEPT, "Authorization": f"Bearer {TOKEN}", "MCP-Protocol-Version": version}
    body: dict[str, Any] = {**PING, "params": {"padding": "x" * (SMALL_BODY + 1)}}
    answer = httpx2.post(guarded_server.url, json=body, headers=headers)
    assert answer.status_code == 413 and "too large" in answer.text
    # The server still serves the next request.
    assert httpx2.get(f"{guarded_server.base}/healthz").status_code == 200


def refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["serve", "--http", *argv])
    assert stopped.value.code == 2
    return capsys.readouterr().err


def test_a_non_loopback_bind_needs_a_token(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.delenv(http_options.AUTH_TOKEN_ENV, raising=False)
    err = refusal(capsys, "--host", "0.0.0.0")
    assert "--host 0.0.0.0 is not a loopback address" in err and "--auth-token" in err


def test_a_configured_provider_needs_a_token(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.delenv(http_options.AUTH_TOKEN_ENV, raising=False)
    monkeypatch.setenv(http_options.PROVIDER_ENV, "anthropic")
    err = refusal(capsys)
    assert "a provider backend is configured (anthropic)" in err and "--auth-token" in err


def test_a_provider_flag_counts_too(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.delenv(http_options.AUTH_TOKEN_ENV, raising=False)
    monkeypatch.delenv(http_options.PROVIDER_ENV, raising=False)
    err = refusal(capsys, "--provider", "openai", "--provider-model", "m")
    assert "a provider backend is configured (openai)" in err and "--auth-token" in err
    parser = cli._parser()
    args = parser.parse_args(["serve", "--http", "--provider", "openai", "--auth-token", TOKEN])
    settings = http_options.settings_from_args(parser, args)
    assert settings is not None and settings.auth_token == TOKEN


def test_any_host_needs_a_token(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    # '*' switches the DNS-rebinding check off: on loopback without a token a web page could call in.
    monkeypatch.delenv(http_options.AUTH_TOKEN_ENV, raising=False)
    err = refusal(capsys, "--allowed-host", "*")
    assert "--allowed-host '*'" in err and "--auth-token" in err
    parser = cli._parser()
    args = parser.parse_args(["serve", "--http", "--allowed-host", "*", "--auth-token", TOKEN])
    settings = http_options.settings_from_args(parser, args)
    assert settings is not None and settings.allowed_hosts == ("*",)


def test_a_token_from_the_environment_allows_a_non_loopback_bind(monkeypatch: Any) -> None:
    monkeypatch.setenv(http_options.AUTH_TOKEN_ENV, TOKEN)
    parser = cli._parser()
    settings = http_options.settings_from_args(
        parser, parser.parse_args(["serve", "--http", "--host", "0.0.0.0"])
    )
    assert settings is not None and settings.auth_token == TOKEN and settings.host == "0.0.0.0"


def test_record_with_http_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    err = refusal(capsys, "--record", str(tmp_path / "r.jsonl"))
    assert "--record cannot be used with --http" in err and "stdio" in err
    assert not (tmp_path / "r.jsonl").exists()


@pytest.mark.parametrize(
    ("argv", "named"),
    [(["--path", "/healthz"], "--path"), (["--workers", "0"], "--workers"), (["--port", "0"], "--port")],
)
def test_bad_http_options_are_named(capsys: pytest.CaptureFixture[str], argv: list[str], named: str) -> None:
    assert named in refusal(capsys, *argv)


def test_stdio_stays_the_default() -> None:
    args = cli._parser().parse_args(["serve"])
    assert args.http is False


@pytest.mark.parametrize("stored", [False, True])
def test_a_tools_input_schema_is_looked_up_without_listing(stored: bool) -> None:
    # HTTP checks Mcp-Param-* headers against the called tool's schema; the server answers that
    # lookup itself, so no POST runs the tools/list handler, and a schema without header
    # declarations is not even handed over to be walked.
    from agent_as_model import server as served

    store = object() if stored else None
    lookup = served.build_server(store=store).get_tool_input_schema  # type: ignore[arg-type]
    assert lookup is not None
    listing = served._tools(stored)
    assert ("responses_retrieve" in [t["name"] for t in listing["tools"]]) is stored
    for tool in listing["tools"]:
        assert "x-mcp-header" not in str(tool["inputSchema"])
        assert lookup(tool["name"]) is None  # nothing to compare: no property declares a header
    assert lookup("no_such_tool") is None
    # A tool that declares one (none of ours does yet: a dialect registered here) is handed over
    # as listed.
    own = prompt.DIALECT.INPUT_SCHEMA
    region = {"type": "string", "x-mcp-header": "Region"}
    headed = {**own, "properties": {**own["properties"], "region": region}}
    register(prompt.DIALECT._replace(NAME="routed", INPUT_SCHEMA=headed))
    try:
        assert "routed" in [t["name"] for t in served._tools(stored)["tools"]]
        schema = lookup("routed")
        assert schema == DIALECTS["routed"].INPUT_SCHEMA and schema["properties"]["region"] == region
        assert lookup("chat_complete") is None
    finally:
        unregister("routed")


async def test_an_undeclared_mcp_param_header_changes_nothing(open_server: HttpServer) -> None:
    # No input schema of ours declares a header, so an Mcp-Param-* header is not compared with
    # anything: the call is answered as without it, as the SDK did when it walked the schemas.
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "list_models",
        "Mcp-Param-Model": "not-an-argument",
    }
    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "list_models", "arguments": {}, "_meta": envelope},
    }
    async with httpx2.AsyncClient(timeout=30) as http:
        answer = await http.post(open_server.url, json=body, headers=headers)
    assert answer.status_code == 200, answer.text
    assert "agent-default" in answer.text
