"""The floor: a minimal stdio MCP server that does the same sampling round trip as agent-as-model.

`bench_calls.py` runs it side by side with the real server, so the ratio of their CPU per call
is the cost of our own code (argument reading, the call machine, the dialects, the state
binding) and nothing else: transport, JSON-RPC, pydantic models and the request-state seal are
the SDK's and are paid by both.

Two tools, `generate` and `chat_complete`, each ask the host exactly once with the payload
shape agent-as-model sends (the messages, `maxTokens` 4096, `modelPreferences.hints`
`[{name: "agent-default"}]`, `systemPrompt` when the request has one) and return its text:

* before 2026-07-28: one `sampling/createMessage` request related to the tool call;
* 2026-07-28: an `InputRequiredResult` on round one, the answer taken on the retry. Round one
  carries a short `requestState`, as ours does, so the `RequestStateBoundary` seals and
  unseals on both servers alike.

`chat_complete` with a `previous_response_id` does the session-cursor work of docs/cursors.md
and nothing more: before it asks the host, it verifies a `cur_` cursor against the history cut
at its last assistant message (one canonical dump, one sha256), and with the answer it mints the
next cursor and returns `{"completion", "response_id"}` as sorted-key JSON text and
structuredContent, as agent-as-model does. On 2026-07-28 the retry is bound to its arguments by
the sealed state, so, like agent-as-model, it does not verify again.

The heap is frozen (`gc.freeze()`) once the server is built, as agent-as-model's `serve` does,
so neither server's full collections walk its start-up objects.

The default build uses the low-level `Server` plus a `RequestStateBoundary`, the layer
`agent_as_model/server.py` is built on. `--mcpserver` builds the same tools on `MCPServer`
instead (decorated functions, pydantic argument validation): an informational second floor.
No argument checking beyond what the SDK does: a floor does nothing it does not have to.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Literal

import anyio
from mcp.server import Server, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResultWithTools,
    InputRequiredResult,
    ListToolsResult,
    ModelHint,
    ModelPreferences,
    RequestId,
    SamplingMessage,
    TextContent,
    Tool,
)
from mcp_types.version import is_version_at_least

SERVER_NAME = "agent-as-model-floor"
MODERN_FROM = "2026-07-28"
KEY = "completion"
MAX_TOKENS = 4096
MODEL_HINT = "agent-default"

Role = Literal["user", "assistant"]

_OBJECT: dict[str, Any] = {"type": "object"}
_TOOLS = ListToolsResult(
    tools=[
        Tool(name="generate", input_schema={**_OBJECT, "properties": {"prompt": {"type": "string"}}}),
        Tool(
            name="chat_complete",
            input_schema={
                **_OBJECT,
                "properties": {"messages": {"type": "array"}, "previous_response_id": {"type": "string"}},
            },
        ),
    ]
)


def cursor(transcript: Sequence[Mapping[str, Any]]) -> str:
    """docs/cursors.md: the cursor of a chat_complete transcript under the default model alias."""
    text = json.dumps(
        {"model": MODEL_HINT, "tool": "chat_complete", "transcript": list(transcript)},
        sort_keys=True,
        separators=(",", ":"),
    )
    return "cur_" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def history_of(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    return [{"role": m["role"], "content": m["content"]} for m in messages]


def verify_cursor(messages: Sequence[Mapping[str, Any]], previous: str) -> None:
    if not previous:
        return  # "" starts a chain
    history = history_of(messages)
    last = max(i for i, entry in enumerate(history) if entry["role"] == "assistant")
    if cursor(history[: last + 1]) != previous:
        raise ValueError("previous_response_id does not match the history")


def generate_params(prompt: str) -> CreateMessageRequestParams:
    return _params(system=None, turns=[("user", prompt)])


def chat_params(messages: Sequence[Mapping[str, Any]]) -> CreateMessageRequestParams:
    system = [m["content"] for m in messages if m["role"] in ("system", "developer")]
    turns: list[tuple[Role, str]] = [
        (m["role"], m["content"]) for m in messages if m["role"] in ("user", "assistant")
    ]
    return _params(system="\n\n".join(system) or None, turns=turns)


def _params(system: str | None, turns: Sequence[tuple[Role, str]]) -> CreateMessageRequestParams:
    return CreateMessageRequestParams(
        messages=[
            SamplingMessage(role=role, content=TextContent(type="text", text=text)) for role, text in turns
        ],
        max_tokens=MAX_TOKENS,
        system_prompt=system,
        model_preferences=ModelPreferences(hints=[ModelHint(name=MODEL_HINT)]),
    )


async def round_trip(
    name: str,
    params: Callable[[], CreateMessageRequestParams],
    *,
    protocol_version: str | None,
    session: ServerSession,
    request_id: RequestId | None,
    input_responses: Mapping[str, Any] | None,
    chain: tuple[Sequence[Mapping[str, Any]], str] | None = None,
) -> CallToolResult | InputRequiredResult:
    """The one sampling round trip, on whichever era the connection negotiated. `params` makes the
    payload, only when it is sent: a 2026-07-28 retry does not need it. `chain`: the messages and
    the previous_response_id of a call with cursors on."""
    if is_version_at_least(protocol_version or "", MODERN_FROM):
        answer = (input_responses or {}).get(KEY)
        if answer is None:
            if chain is not None:
                verify_cursor(*chain)
            return InputRequiredResult(
                input_requests={KEY: CreateMessageRequest(params=params())}, request_state=name
            )
    else:
        if chain is not None:
            verify_cursor(*chain)
        answer = await session.send_request(
            CreateMessageRequest(params=params()),
            CreateMessageResultWithTools,
            metadata=ServerMessageMetadata(related_request_id=request_id),
        )
    content = answer.content
    text = content.text if isinstance(content, TextContent) else ""
    if chain is not None:
        history = [*history_of(chain[0]), {"role": "assistant", "content": text}]
        output = {"completion": text, "response_id": cursor(history)}
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(output, sort_keys=True))],
            structured_content=output,
        )
    return CallToolResult(content=[TextContent(type="text", text=text)])


# -- the low-level floor: the layer agent_as_model/server.py is built on --------------------------


def build_lowlevel_server() -> Server[Any]:
    server: Server[Any] = Server(SERVER_NAME, on_list_tools=_list_tools, on_call_tool=_call_tool)
    server.middleware.append(
        RequestStateBoundary(RequestStateSecurity.ephemeral(), default_audience=SERVER_NAME)
    )
    return server


async def _list_tools(ctx: ServerRequestContext[Any], params: object) -> ListToolsResult:
    return _TOOLS


async def _call_tool(
    ctx: ServerRequestContext[Any], params: CallToolRequestParams
) -> CallToolResult | InputRequiredResult:
    arguments = params.arguments or {}
    chain = None
    if params.name == "generate":
        payload = partial(generate_params, arguments["prompt"])
    else:
        payload = partial(chat_params, arguments["messages"])
        if "previous_response_id" in arguments:
            chain = (arguments["messages"], arguments["previous_response_id"])
    return await round_trip(
        params.name,
        payload,
        protocol_version=ctx.protocol_version,
        session=ctx.session,
        request_id=ctx.request_id,
        input_responses=params.input_responses,
        chain=chain,
    )


# -- the MCPServer floor: informational, the SDK's high-level layer ---------------------------------


def build_mcpserver() -> MCPServer:
    server = MCPServer(SERVER_NAME)

    @server.tool()
    async def generate(prompt: str, ctx: Context) -> CallToolResult | InputRequiredResult:
        return await _from_context("generate", partial(generate_params, prompt), ctx)

    @server.tool()
    async def chat_complete(
        messages: list[dict[str, Any]], ctx: Context, previous_response_id: str | None = None
    ) -> CallToolResult | InputRequiredResult:
        # The chain case does the same cursor work as the low-level floor.
        chain = None if previous_response_id is None else (messages, previous_response_id)
        return await _from_context("chat_complete", partial(chat_params, messages), ctx, chain)

    return server


async def _from_context(
    name: str,
    params: Callable[[], CreateMessageRequestParams],
    ctx: Context,
    chain: tuple[Any, str] | None = None,
) -> CallToolResult | InputRequiredResult:
    return await round_trip(
        name,
        params,
        protocol_version=ctx.protocol_version,
        session=ctx.session,
        request_id=ctx.request_id,
        input_responses=ctx.input_responses,
        chain=chain,
    )


async def _serve_lowlevel(transport: str) -> None:
    server = build_lowlevel_server()
    gc.freeze()  # as agent-as-model's serve does once its server is built
    if transport == "ours":
        # agent-as-model's own stdio reader and writer (agent_as_model/transports/stdio.py), which
        # answers every bad line: with it, floor and server share the transport, and the ratio is
        # the cost of our code alone.
        from agent_as_model.limits import DEFAULT_MAX_FRAME
        from agent_as_model.transports.stdio import serve_stdio

        await serve_stdio(server, max_frame=DEFAULT_MAX_FRAME)
        return
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _serve_http(port: int) -> None:
    """The same low-level server on the SDK's streamable-HTTP app under uvicorn, one process, as
    a minimal SDK HTTP server is run (`bench_http.py`'s floor): stateful for legacy sessions,
    h11, and `/healthz` so the benchmark can tell when it is up. Nothing else of ours."""
    import uvicorn
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def health(request: Any) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    server = build_lowlevel_server()
    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        json_response=False,
        stateless_http=False,
        host="127.0.0.1",
        custom_starlette_routes=[Route("/healthz", health, methods=["GET"])],
    )
    gc.freeze()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", http="h11", server_header=False)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--mcpserver",
        action="store_true",
        help="build the tools on MCPServer instead of the low-level Server",
    )
    parser.add_argument(
        "--stdio",
        choices=("sdk", "ours"),
        default="sdk",
        help="the low-level floor's stdio transport: the SDK's (default) or agent-as-model's own",
    )
    parser.add_argument(
        "--http", type=int, metavar="PORT", help="serve the low-level floor over streamable HTTP on PORT"
    )
    args = parser.parse_args(argv)
    if args.http is not None:
        _serve_http(args.http)
    elif args.mcpserver:
        server = build_mcpserver()
        gc.freeze()
        server.run()
    else:
        anyio.run(_serve_lowlevel, args.stdio)
    return 0


if __name__ == "__main__":
    sys.exit(main())
