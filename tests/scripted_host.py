"""A scripted host: the sampling side of an MCP client, answering from a script and keeping
every sampling request it saw, so a test can assert on exactly what the server sent."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp import Client
from mcp.client import ClientRequestContext
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ErrorData,
    SamplingCapability,
    SamplingToolsCapability,
    TextContent,
)

from agent_as_model.server import build_server

ERAS = ("legacy", "2026-07-28")

Answer = str | CreateMessageResult | CreateMessageResultWithTools | ErrorData
Script = Callable[[CreateMessageRequestParams], Answer]


def text_answer(text: str, model: str = "scripted-model") -> CreateMessageResult:
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text), model=model)


class ScriptedHost:
    def __init__(self, *answers: Answer | Script) -> None:
        self._answers = list(answers) or ["scripted answer"]
        self.seen: list[CreateMessageRequestParams] = []

    @property
    def asked(self) -> int:
        return len(self.seen)

    def wire(self, index: int = -1) -> dict[str, Any]:
        """The sampling params exactly as they travelled (camelCase, no nulls)."""
        return self.seen[index].model_dump(by_alias=True, mode="json", exclude_none=True)

    async def __call__(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | CreateMessageResultWithTools | ErrorData:
        self.seen.append(params)
        answer = self._answers[min(len(self.seen), len(self._answers)) - 1]
        if callable(answer):
            answer = answer(params)
        if isinstance(answer, str):
            return text_answer(answer)
        return answer


@asynccontextmanager
async def connect(
    mode: str, host: ScriptedHost | None = None, *, tools: bool = False, server: Any = None
) -> AsyncIterator[Client]:
    """An SDK Client on `mode`, in-process, declaring sampling when a host is given."""
    kwargs: dict[str, Any] = {"mode": mode}
    if host is not None:
        kwargs["sampling_callback"] = host
        if tools:
            kwargs["sampling_capabilities"] = SamplingCapability(tools=SamplingToolsCapability())
    async with Client(server or build_server(), **kwargs) as client:
        yield client
