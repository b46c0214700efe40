"""The fuzzer's side of the wire: an SDK `Client` per era over stdio, and the stand-in host.

Hypothesis runs rules synchronously, so the clients live in an event loop of their own (an anyio
blocking portal) and a rule calls a tool through it. One server process per era serves the whole
run: the server keeps no state between calls, so chains of different examples cannot meet. A
server that stops answering (it exits, or a call outlasts the timeout) is lost for the run: it is
not started again.
"""

from __future__ import annotations

import json
import logging
import shlex
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, MCPError
from mcp.client import ClientRequestContext
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import (
    CONNECTION_CLOSED,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    SamplingCapability,
    SamplingToolsCapability,
    TextContent,
    ToolUseContent,
)
from pydantic import ValidationError

from agent_as_model.commands.fuzz.conversation import HostAnswer

ERA_MODES = {"legacy": "legacy", "2026-07-28": "2026-07-28"}
HOST_MODEL = "fuzz-stand-in-host"
STRUCTURED_CALL_ID = "so_1"


class StandInHost:
    """Answers every sampling request with the answer planned for the call in flight, and counts
    how often it was asked (a refused call must not ask it at all)."""

    def __init__(self) -> None:
        self.plan: HostAnswer | None = None
        self.asked = 0

    async def __call__(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | CreateMessageResultWithTools:
        self.asked += 1
        answer = self.plan
        if answer is None:  # asked when the call should have been refused: the count says so
            content = TextContent(type="text", text="(the stand-in host did not expect to be asked)")
            return CreateMessageResult(role="assistant", content=content, model=HOST_MODEL)
        if answer.structured is not None:
            name = params.tools[0].name if params.tools else "structured_output"
            use = ToolUseContent(type="tool_use", id=STRUCTURED_CALL_ID, name=name, input=answer.structured)
            return CreateMessageResultWithTools(
                role="assistant", content=[use], model=HOST_MODEL, stop_reason="toolUse"
            )
        if not answer.calls:
            content = TextContent(type="text", text=answer.text)
            return CreateMessageResult(role="assistant", content=content, model=HOST_MODEL)
        blocks: list[Any] = [TextContent(type="text", text=answer.text)] if answer.text else []
        blocks += [ToolUseContent(type="tool_use", id=c.id, name=c.name, input=c.input) for c in answer.calls]
        return CreateMessageResultWithTools(
            role="assistant", content=blocks, model=HOST_MODEL, stop_reason="toolUse"
        )


@dataclass(frozen=True)
class Outcome:
    """What one tool call came back with, as the caller sees it."""

    is_error: bool
    text: str
    structured: Any
    asked: int  # how many sampling requests the host answered for this call
    rpc_error: str | None = None  # a JSON-RPC error instead of a tool result


class Unreachable(Exception):
    """The server could not be started, or stopped answering."""


def not_a_server(command: Sequence[str], era: str, error: BaseException) -> str:
    """Why connecting failed, in words: the command did not start, or what it said (or did not
    say) to `initialize` shows it is not an MCP server. The SDK's task groups wrap the cause."""
    shown = shlex.join(command)
    causes = list(_leaves(error))
    for cause in causes:
        if isinstance(cause, FileNotFoundError):
            return (
                f"cannot start `{shown}`: no such command (--against takes a stdio MCP server's command line)"
            )
        if isinstance(cause, PermissionError):
            return f"cannot start `{shown}`: permission denied (is it executable?)"
    for cause in causes:
        if isinstance(cause, MCPError) and cause.code != CONNECTION_CLOSED:
            return (
                f"`{shown}` is not an MCP server (or not one this fuzzer can speak to on {era}): it answered "
                f"`initialize` with the JSON-RPC error {cause.code} {cause.message!r}"
            )
    if any(isinstance(cause, MCPError) for cause in causes):
        return f"`{shown}` is not an MCP server: it ended without answering `initialize` on {era}"
    first = causes[0] if causes else error
    return f"`{shown}` did not complete the MCP handshake on {era}: {type(first).__name__}: {first}"


def _leaves(error: BaseException) -> Iterator[BaseException]:
    inner = getattr(error, "exceptions", None)
    if not inner:
        yield error
        return
    for each in inner:
        yield from _leaves(each)


class NotJsonRpc(logging.Filter):
    """Counts the lines a server wrote on stdout that are not JSON-RPC (the SDK logs each with a
    traceback and drops it) and keeps the first: said once, in the fuzzer's own words."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self.first = ""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, ValidationError):
            return True
        self.count += 1
        if not self.first:
            found = error.errors()
            self.first = str(found[0].get("input", ""))[:80] if found else ""
        return False

    def said(self) -> str:
        if not self.count:
            return ""
        lines = "a line" if self.count == 1 else f"{self.count} lines"
        verb = "is" if self.count == 1 else "are"
        return f"; it wrote {lines} on stdout that {verb} not JSON-RPC, the first {self.first!r}"


class Sessions:
    """One connected `Client` per era, each on its own server process.

    The server keeps no state, so a call made again with the same era, tool, arguments and host
    answer gets the answer it got the first time without travelling again: shrinking replays the
    first calls of a failing example many times over, and this keeps it fast. (The recording of a
    failure is made afresh, so a server that answers differently the second time shows there.)
    """

    def __init__(
        self, command: Sequence[str], eras: Sequence[str], timeout: float, errlog: Path | None = None
    ) -> None:
        self._command = list(command)
        # The server's own stderr goes to this file (None: to ours): its logs would bury the report.
        self.errlog = errlog
        self.not_json = NotJsonRpc()
        self._eras = list(eras)
        self._timeout = timeout
        self.host = StandInHost()
        self._stack = ExitStack()
        self._portal: BlockingPortal | None = None
        self._clients: dict[str, Client] = {}
        self._closers: dict[str, AbstractContextManager[Any]] = {}
        self._seen: dict[tuple[str, str, str, str], Outcome] = {}
        self.made = 0  # calls that travelled to a server

    def __enter__(self) -> Sessions:
        stdio_log = logging.getLogger("mcp.client.stdio")
        stdio_log.addFilter(self.not_json)
        self._stack.callback(stdio_log.removeFilter, self.not_json)
        self._portal = self._stack.enter_context(start_blocking_portal())
        try:
            for era in self._eras:
                self._connect(era)
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for era in list(self._clients):
            self._disconnect(era)
        self._stack.close()

    def _connect(self, era: str) -> None:
        assert self._portal is not None
        params = StdioServerParameters(command=self._command[0], args=self._command[1:])
        server: Any = params  # the SDK's own stdio transport, the server's stderr passed through
        if self.errlog is not None:
            errlog = self._stack.enter_context(self.errlog.open("a", encoding="utf-8"))
            errlog.write(f"--- {shlex.join(self._command)} on {era}\n")
            errlog.flush()
            server = stdio_client(params, errlog=errlog)
        client = Client(
            server,
            mode=ERA_MODES[era],
            sampling_callback=self.host,
            sampling_capabilities=SamplingCapability(tools=SamplingToolsCapability()),
        )
        closer = self._portal.wrap_async_context_manager(client)
        try:
            self._clients[era] = closer.__enter__()
        except Exception as err:
            raise Unreachable(not_a_server(self._command, era, err) + self.not_json.said()) from err
        self._closers[era] = closer

    def _disconnect(self, era: str) -> None:
        self._clients.pop(era, None)
        closer = self._closers.pop(era, None)
        if closer is not None:
            # A dead server's pipes may fail to close: it is gone either way.
            with suppress(Exception):
                closer.__exit__(None, None, None)

    def call(self, era: str, tool: str, arguments: dict[str, Any], answer: HostAnswer | None) -> Outcome:
        """Call a tool on that era's server, with the host primed to answer `answer`."""
        assert self._portal is not None
        key = (era, tool, json.dumps(arguments, sort_keys=True), repr(answer))
        if key in self._seen:
            return self._seen[key]
        if era not in self._clients:
            raise Unreachable(f"the server on {era} stopped answering earlier in this run")
        self.host.plan, self.host.asked = answer, 0
        try:
            self.made += 1
            outcome = self._portal.call(self._call, self._clients[era], tool, arguments)
            self._seen[key] = outcome
            return outcome
        except Unreachable:
            self._disconnect(era)
            raise
        finally:
            self.host.plan = None

    async def _call(self, client: Client, tool: str, arguments: dict[str, Any]) -> Outcome:
        try:
            with anyio.fail_after(self._timeout):
                result = await client.call_tool(tool, arguments)
        except MCPError as err:
            if err.code == CONNECTION_CLOSED:  # the SDK's word for a server that went away mid-call
                raise Unreachable(f"the server closed the connection during {tool}") from err
            return Outcome(True, "", None, self.host.asked, rpc_error=f"{err.code}: {err.message}")
        except TimeoutError as err:
            raise Unreachable(f"no answer to {tool} within {self._timeout:g} s") from err
        except Exception as err:
            raise Unreachable(f"the connection failed during {tool}: {err!r}") from err
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        text = texts[0] if len(texts) == 1 and len(result.content) == 1 else "\n".join(texts)
        return Outcome(bool(result.is_error), text, result.structured_content, self.host.asked)
