"""interpreted -> committed: the dialect shapes the completion into the tool result.

Every JSON text the tools return is exactly `json.dumps(obj, sort_keys=True)` (spec section 1):
later features commit to those bytes. A JSON object also travels as structuredContent.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CallToolResult, TextContent

from agent_as_model.engine.record import CallRecord


def commit_result(record: CallRecord) -> None:
    assert record.completion is not None and record.request is not None
    output = record.dialect.render(record.completion, record.request)
    record.output = output
    record.result = tool_result(output)


def tool_result(output: str | dict[str, Any] | list[Any]) -> CallToolResult:
    if isinstance(output, str):
        return CallToolResult(content=[TextContent(type="text", text=output)])
    text = json.dumps(output, sort_keys=True)
    structured = output if isinstance(output, dict) else None
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)
