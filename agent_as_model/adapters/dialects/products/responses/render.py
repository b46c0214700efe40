"""A completion -> a Response object, whose output holds a message item and one `function_call`
item per tool call the host made, with the request's settings echoed as the API does; `describe`
says its status in the result's metadata.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any

from agent_as_model.adapters.dialects import usage
from agent_as_model.arguments import json_text
from agent_as_model.neutral import Completion, Request, ToolChoice, ToolSpec


def render(completion: Completion, request: Request, cursor: str | None) -> str | dict[str, Any]:
    """The Response object: what `openai.types.responses.Response` requires, with the request's
    tool settings echoed as the API does, and `status: "incomplete"` when the answer was cut at
    the token limit (tests validate every one against the SDK type)."""
    # One random hex serves both ids, so a reader can tie the message item to its response.
    ident = uuid.uuid4().hex
    status = _status(completion)
    output: list[dict[str, Any]] = []
    if completion.text or not completion.tool_calls:  # with tool calls, an empty text has no item
        output.append(
            {
                "type": "message",
                "id": f"msg_{ident}",
                "status": status,
                "role": "assistant",
                "content": [{"type": "output_text", "text": completion.text, "annotations": []}],
            }
        )
    output.extend(
        {
            "type": "function_call",
            "id": f"fc_{call.id}",  # derived from the host's call id, as the reference does
            "call_id": call.id,
            "name": call.name,
            "arguments": json_text(call.input),
            "status": "completed",
        }
        for call in completion.tool_calls
    )
    echo = request.echo
    counted = usage.usage_of(completion, request)
    response: dict[str, Any] = {
        "id": cursor or f"resp_{ident}",  # with cursors on, the id is the cursor (spec section 6)
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": completion.model or request.model,  # the model that answered (spec section 10)
        "output": output,
        # The request's settings, as the API echoes them: as the caller sent them.
        "instructions": echo.get("instructions"),
        "parallel_tool_calls": request.single_call is None,
        "tool_choice": _choice(request.tool_choice),
        "tools": [
            _tool_echo(tool, sent)
            for tool, sent in zip(request.tools, _sent_tools(echo, request), strict=True)
        ],
        "temperature": request.temperature,
        "max_output_tokens": echo.get("max_output_tokens", echo.get("max_tokens")),
        "usage": {
            "input_tokens": counted.input_tokens,
            # Nothing is cached and no reasoning is reported through MCP: none of either.
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": counted.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": counted.input_tokens + counted.output_tokens,
        },
    }
    if "text" in echo:
        response["text"] = echo["text"]
    response.update((key, echo[key]) for key in ECHOED if key in echo)
    if status == "incomplete":
        response["incomplete_details"] = _INCOMPLETE
    return response


# The request's parameters the Response echoes as sent, when sent (the API's own echo: a caller
# reads `response.metadata` back). Absent when not sent: the object then says nothing of them.
ECHOED = (
    "metadata",
    "top_p",
    "user",
    "service_tier",
    "truncation",
    "store",
    "background",
    "reasoning",
    "max_tool_calls",
    "prompt_cache_key",
    "prompt_cache_retention",
    "safety_identifier",
)


def _sent_tools(echo: Mapping[str, Any], request: Request) -> list[Any]:
    """The tool definitions as sent, one for each tool read (each entry is one tool)."""
    sent = echo.get("tools")
    return sent if isinstance(sent, list) and len(sent) == len(request.tools) else [None] * len(request.tools)


# The Responses API's words for an answer cut at the token limit.
_INCOMPLETE = {"reason": "max_output_tokens"}


def _status(completion: Completion) -> str:
    # Tool calls are whole even when the host also says it hit the limit: the caller can run them.
    if completion.stop_reason == "maxTokens" and not completion.tool_calls:
        return "incomplete"
    return "completed"


def _choice(choice: ToolChoice | None) -> str | dict[str, Any]:
    if choice is None:
        return "auto"
    if choice.name is not None:
        return {"type": "function", "name": choice.name}
    return choice.mode


def _tool_echo(tool: ToolSpec, given: Any) -> dict[str, Any]:
    """A Responses function tool as the caller sent it (`strict` included); one sent in the seed
    shape {name, description, input_schema} as the function tool it stands for."""
    if isinstance(given, dict) and given.get("type") == "function":
        return given
    echoed: dict[str, Any] = {"type": "function", "name": tool.name, "parameters": tool.input_schema}
    echoed["strict"] = False  # the seed shape has no strict mode
    if tool.description is not None:
        echoed["description"] = tool.description
    return echoed


def describe(completion: Completion) -> dict[str, Any]:
    """The result metadata: the Response's own `status` (and `incomplete_details`) beside the model."""
    meta: dict[str, Any] = {"model": completion.model, "status": _status(completion)}
    if meta["status"] == "incomplete":
        meta["incomplete_details"] = dict(_INCOMPLETE)
    return meta
