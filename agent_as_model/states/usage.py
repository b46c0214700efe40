"""The usage of a completion nobody counted: an estimate by one documented rule (spec section 10).

A provider's API counts its tokens, and a host may report them in its result's `_meta`
(`backends/base.py`, `host_usage`); MCP sampling itself carries no counts. Then the object's
`usage` is this estimate, marked `estimated` in `_meta["agent-as-model/result"]["usage"]`, never
zeros passed off as counts. The rule (docs/decisions.md): a token is about four characters of
text, rounded up, over what the model read (the system prompt, every turn's text, each tool call
as its name and JSON input, each tool result's text) and what it wrote (the text and its calls).
"""

from __future__ import annotations

import json

from agent_as_model.neutral import Completion, Request, Text, ToolResult, ToolUse, Usage

# Characters per token: the usual rule of thumb for English text with the products' tokenizers.
CHARS_PER_TOKEN = 4


def estimate(request: Request, completion: Completion) -> Usage:
    read = len(request.system or "")
    for turn in request.turns:
        for block in turn.blocks:
            if type(block) is Text:  # the common block, told by its type alone (the cheapest test)
                read += len(block.text)
            elif isinstance(block, ToolUse):
                read += _call_chars(block)
            elif isinstance(block, ToolResult):
                read += len(block.content)
    wrote = len(completion.text)
    for call in completion.tool_calls:
        wrote += _call_chars(call)
    return Usage(_tokens(read), _tokens(wrote), "estimated")


def _call_chars(call: ToolUse) -> int:
    return len(call.name) + len(json.dumps(call.input, sort_keys=True))


def _tokens(chars: int) -> int:
    return -(-chars // CHARS_PER_TOKEN)
