"""The host's sampling result, whichever era carried it, as one `HostAnswer`."""

from __future__ import annotations

from mcp_types import CreateMessageResult, CreateMessageResultWithTools

from agent_as_model.engine.record import HostAnswer


def host_answer(result: CreateMessageResult | CreateMessageResultWithTools) -> HostAnswer:
    content = result.content
    blocks = tuple(content) if isinstance(content, list) else (content,)
    return HostAnswer(role=result.role, blocks=blocks, model=result.model, stop_reason=result.stop_reason)
