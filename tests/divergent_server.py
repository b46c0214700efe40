"""This server with one deliberate change, so replay tests can show what a divergence looks like.

    python -m tests.divergent_server shout    # completion texts come back upper-cased
    python -m tests.divergent_server refuse   # every completion call fails at once: the host is never asked

The change is an SDK server middleware around the real server (`build_server()`), so everything
else, the tool list and the handshake included, is exactly what the real server says.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from agent_as_model.server import build_server

MODES = ("shout", "refuse")


class Shout:
    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)  # the wire dict, already serialised for the era
        if ctx.method == "tools/call" and isinstance(result, dict) and result.get("isError") is False:
            content = [
                {**block, "text": block["text"].upper()} if block.get("type") == "text" else block
                for block in result.get("content", [])
            ]
            return {**result, "content": content}
        return result


class Refuse:
    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.params or {}
        if ctx.method == "tools/call" and params.get("name") != "list_models":
            return {"content": [{"type": "text", "text": "refused"}], "isError": True}
        return await call_next(ctx)


def build(mode: str) -> Server[Any]:
    server = build_server()
    server.middleware.append(Shout() if mode == "shout" else Refuse())
    return server


async def serve(mode: str) -> None:
    from agent_as_model.limits import DEFAULT_LIMITS
    from agent_as_model.transports.stdio import serve_stdio

    await serve_stdio(build(mode), max_frame=DEFAULT_LIMITS.max_frame)


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        sys.exit(f"usage: python -m tests.divergent_server {'|'.join(MODES)}")
    anyio.run(serve, sys.argv[1])
