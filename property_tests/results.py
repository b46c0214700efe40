"""Reading tool results the way a caller would."""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CallToolResult

from tests.helpers import text_of


def completion_text(tool: str, result: CallToolResult) -> str:
    """The completion inside a successful result: plain text, or the Responses object's output_text."""
    assert not result.is_error, result.content
    text = text_of(result)
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
    return text_of(result)
