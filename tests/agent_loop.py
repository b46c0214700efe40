"""What a caller's agent loop does with a tool-calling result, in each dialect's own shape, and
the host answer that calls tools. Shared by the tests, the doc examples and the fixture recorder,
so every one of them passes a turn back exactly the same way."""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CreateMessageResultWithTools, TextContent, ToolUseContent

Call = tuple[str, str, dict[str, Any]]  # (id, name, input)


def tool_answer(text: str, *calls: Call, model: str = "scripted-model") -> CreateMessageResultWithTools:
    """A host answer that calls tools, after its text (none when empty)."""
    content: list[Any] = [TextContent(type="text", text=text)] if text else []
    content += [ToolUseContent(type="tool_use", id=i, name=n, input=a) for i, n, a in calls]
    return CreateMessageResultWithTools(role="assistant", content=content, model=model, stop_reason="toolUse")


def next_request(tool: str, request: dict[str, Any], result_text: str, tool_output: str) -> dict[str, Any]:
    """The request after a tool-calling result: the assistant's turn appended in the dialect's
    own shape, then each tool's result (all answered with `tool_output`)."""
    if tool == "responses_create":
        output = json.loads(result_text)["output"]
        results = [
            {"type": "function_call_output", "call_id": item["call_id"], "output": tool_output}
            for item in output
            if item["type"] == "function_call"
        ]
        return {**request, "input": [*request["input"], *output, *results]}
    if tool == "gemini_generate_content":
        content = json.loads(result_text)["candidates"][0]["content"]
        called = [part["functionCall"] for part in content["parts"] if "functionCall" in part]
        answered = [
            {"functionResponse": {"id": c["id"], "name": c["name"], "response": {"output": tool_output}}}
            for c in called
        ]
        return {**request, "contents": [*request["contents"], content, {"role": "user", "parts": answered}]}
    envelope = json.loads(result_text)
    calls = envelope["tool_calls"]
    if tool == "chat_complete":
        said: dict[str, Any] = {
            "role": "assistant",
            "content": envelope["text"] or None,
            "tool_calls": [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": json.dumps(c["input"])},
                }
                for c in calls
            ],
        }
        answers = [{"role": "tool", "tool_call_id": c["id"], "content": tool_output} for c in calls]
        return {**request, "messages": [*request["messages"], said, *answers]}
    blocks: list[Any] = [{"type": "text", "text": envelope["text"]}] if envelope["text"] else []
    blocks += [{"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["input"]} for c in calls]
    results = [{"type": "tool_result", "tool_use_id": c["id"], "content": tool_output} for c in calls]
    said_turns = [{"role": "assistant", "content": blocks}, {"role": "user", "content": results}]
    return {**request, "messages": [*request["messages"], *said_turns]}
