"""Legacy era: the sampling request is related to the tool call that caused it.

The relation is transport metadata (on HTTP it puts the request on the call's own stream), so it
is read here where it lives: on the server's outgoing `SessionMessage`, through a tap on the
server's write stream, with the SDK's own ClientSession answering as the host."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp_types import JSONRPCRequest

from agent_as_model.server import build_server
from tests.scripted_host import ScriptedHost

pytestmark = pytest.mark.anyio


class Tap:
    """Forwards the server's outgoing messages and keeps them."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.sent: list[SessionMessage | Exception] = []

    async def send(self, message: SessionMessage | Exception) -> None:
        self.sent.append(message)
        await self._inner.send(message)

    async def __aenter__(self) -> Tap:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


async def test_sampling_request_is_related_to_the_tool_call() -> None:
    server = build_server()
    host = ScriptedHost("related")
    async with create_client_server_memory_streams() as ((c_read, c_write), (s_read, s_write)):
        tap, client_tap = Tap(s_write), Tap(c_write)
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.run, s_read, tap, server.create_initialization_options())
            async with ClientSession(c_read, client_tap, sampling_callback=host) as session:
                await session.initialize()
                result = await session.call_tool("generate", {"prompt": "q"})
            tg.cancel_scope.cancel()
    assert result.content[0].text == "related"
    sampling = requests(tap, "sampling/createMessage")
    (tool_call,) = requests(client_tap, "tools/call")
    assert len(sampling) == 1
    metadata = sampling[0].metadata
    assert isinstance(metadata, ServerMessageMetadata)
    assert metadata.related_request_id is not None
    assert str(metadata.related_request_id) == str(tool_call.message.id)


def requests(tap: Tap, method: str) -> list[Any]:
    return [
        m
        for m in tap.sent
        if isinstance(m, SessionMessage)
        and isinstance(m.message, JSONRPCRequest)
        and m.message.method == method
    ]
