"""The usage of a completion nobody counted: an estimate by one documented rule (spec section 10).

A provider's API counts its tokens, and a host may report them in its result's `_meta`
(backends/base.py, `host_usage`); MCP sampling itself carries no counts. Then the object's
`usage` is this estimate, marked `estimated` in `_meta["agent-as-model/result"]["usage"]`, never
zeros passed off as counts. The rule (docs/decisions.md): a token is about four characters of
text, rounded up, over what the model read (the system prompt, every turn's text, each tool call
as its name and JSON input, each tool result's text) and what it wrote (the text and its calls).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.neutral import Completion, Request, Text, ToolResult, ToolUse, Usage

if TYPE_CHECKING:
    from agent_as_model.neutral import UsageSource

# Characters per token: the usual rule of thumb for English text with the products' tokenizers.
CHARS_PER_TOKEN = 4
# What `_meta["agent-as-model/result"]["usage"]` says when nobody counted.
ESTIMATED: UsageSource = "estimated"


def usage_of(completion: Completion, request: Request) -> Usage:
    """The completion's usage: as counted by whoever answered, else estimated (only now, when an
    object shows it)."""
    return completion.usage or estimate(request, completion)


def joint_usage(completions: Sequence[Completion], request: Request) -> Usage:
    """The usage of several completions of one request (`n`): the prompt once, as the products
    count it, and every completion's output; counted by whoever counted them all, else
    `estimated`."""
    if len(completions) == 1:  # the common object: one completion, its own usage
        return usage_of(completions[0], request)
    usages = [usage_of(c, request) for c in completions]
    first = usages[0]
    output = sum(u.output_tokens for u in usages)
    same = all(u.source == first.source for u in usages)
    return Usage(first.input_tokens, output, first.source if same else ESTIMATED)


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
    return Usage(_tokens(read), _tokens(wrote), ESTIMATED)


def estimate_round(payload: Any, blocks: Sequence[Any]) -> Usage:
    """The same estimate for one model round, from the sampling payload it sent (a repair round's
    holds the earlier answers and their errors) and the blocks it got back, before they are read
    into a `Completion`: what telemetry shows on a round that nobody counted."""
    read = len(payload.system_prompt or "")
    for message in payload.messages:
        content = message.content
        read += _blocks_chars(content if isinstance(content, list) else [content])
    return Usage(_tokens(read), _tokens(_blocks_chars(blocks)), ESTIMATED)


def _blocks_chars(blocks: Sequence[Any]) -> int:
    """Sampling blocks' characters as the rule counts them: texts, each call's name and JSON input,
    each tool result's texts."""
    chars = 0
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            chars += len(block.text)
        elif kind == "tool_use":
            chars += len(block.name) + len(json.dumps(block.input, sort_keys=True))
        elif kind == "tool_result":
            chars += _blocks_chars(block.content)
    return chars


def _call_chars(call: ToolUse) -> int:
    return len(call.name) + len(json.dumps(call.input, sort_keys=True))


def _tokens(chars: int) -> int:
    return -(-chars // CHARS_PER_TOKEN)
