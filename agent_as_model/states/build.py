"""validated -> payload_ready: the neutral request becomes one sampling/createMessage payload.

The payload is the same on both eras: the legacy era sends it as a request, the modern era puts
it in an InputRequiredResult. `payload_digest` is what a modern round binds its answer to.
"""

from __future__ import annotations

import hashlib

from mcp_types import (
    CreateMessageRequestParams,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
    ToolResultContent,
    ToolUseContent,
)

from agent_as_model.engine.record import CallRecord
from agent_as_model.errors import MissingCapability
from agent_as_model.neutral import Block, Request, Text, ToolResult, ToolUse


def build_payload_for(record: CallRecord) -> None:
    # The capability check sits here, after validation and before anything is sent: a host that
    # cannot sample learns so from a clear -32021, on both eras alike.
    if not record.sampling.declared:
        raise MissingCapability({"sampling": {}})
    assert record.request is not None
    record.payload = build_payload(record.request)


def build_payload(request: Request) -> CreateMessageRequestParams:
    messages = [
        SamplingMessage(
            role=turn.role,
            content=_block(turn.blocks[0]) if len(turn.blocks) == 1 else [_block(b) for b in turn.blocks],
        )
        for turn in request.turns
    ]
    return CreateMessageRequestParams(
        messages=messages,
        max_tokens=request.max_tokens,
        system_prompt=request.system,
        temperature=request.temperature,
        model_preferences=ModelPreferences(hints=[ModelHint(name=request.model)]),
    )


def _block(block: Block) -> TextContent | ToolUseContent | ToolResultContent:
    if isinstance(block, Text):
        return TextContent(type="text", text=block.text)
    if isinstance(block, ToolUse):
        return ToolUseContent(type="tool_use", id=block.id, name=block.name, input=block.input)
    if isinstance(block, ToolResult):
        return ToolResultContent(
            type="tool_result",
            tool_use_id=block.tool_use_id,
            content=[TextContent(type="text", text=block.content)],
            is_error=block.is_error or None,
        )
    raise TypeError(f"not a neutral block: {block!r}")


def payload_digest(payload: CreateMessageRequestParams) -> str:
    """sha256 over the payload's JSON as the SDK's model serialises it (camelCase, no nulls).

    pydantic-core writes that JSON in about a third of the time of a dict dump plus a sorted
    `json.dumps`; its field order is fixed by the SDK's model, so equal payloads give equal digests.
    """
    wire = payload.model_dump_json(by_alias=True, exclude_none=True)
    return hashlib.sha256(wire.encode("utf-8")).hexdigest()
