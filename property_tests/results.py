"""Reading tool results the way a caller would."""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CallToolResult, TextContent


def only_text(result: CallToolResult) -> str:
    assert len(result.content) == 1 and isinstance(result.content[0], TextContent), result.content
    return result.content[0].text


def completion_text(tool: str, result: CallToolResult) -> str:
    """The completion inside a successful result: plain text, or the Responses object's output_text."""
    assert not result.is_error, result.content
    text = only_text(result)
    if tool != "responses_create":
        return text
    response: dict[str, Any] = json.loads(text)
    assert result.structured_content == response
    [message] = response["output"]
    [part] = message["content"]
    assert part["type"] == "output_text"
    completion: str = part["text"]
    return completion


def error_text(result: CallToolResult) -> str:
    assert result.is_error, result.content
    return only_text(result)
