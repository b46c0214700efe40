"""The entries of a request's conversation: counted, and bounded by `serve --max-entries`.

An entry is what the MCP SDK shapes, validates and serialises one by one on the event loop when the
request travels on: each entry of the conversation (a message, an input item, a content), each
member of an array in it (its parts or content blocks, its tool calls), and each member of an array
in one of those (a tool result's parts). That work runs in C that keeps the GIL, so over HTTP a
request of many entries holds every other request while it runs; the bound keeps that short
(docs/security.md has what 1,000 entries cost). Entries are weighed by that cost: a tool call or a
tool result is TOOL_ENTRY entries, as the SDK's work on one is several times its work on a message
or a part. The values in a tool call's arguments (every member of every object and array in them,
at any depth) travel too, untyped, at a small part of an entry's cost: VALUES_PER_ENTRY of them
count as one entry.

The conversation as written is counted before it is read, so a conversation far over the bound
costs no reading at all (each tool call and result one entry there, a count the weighed one
never falls below); the weight of tool calls and results, and the arguments of tool calls, are
counted once read, since the dialects write them each in their own shape, and chat and Responses
write the arguments as JSON text. Counting stops once past the bound, so it costs at most the
bound's worth of steps, and nothing of a conversation within it is counted twice.
"""

from __future__ import annotations

import itertools
from typing import Any

from agent_as_model.errors import caller_error
from agent_as_model.neutral import Request, ToolResult, ToolUse

_DICTS = {dict}
# Values in tool calls' arguments that count as one entry: the SDK's work on an untyped value is
# about this share of its work on a typed entry (benchmarks/README.md, "The entries of a request").
VALUES_PER_ENTRY = 20
# Entries one tool call, or one tool result, counts as: the SDK's work on one (a typed block with
# its own fields, and a result's content inside it) is about this many times its work on a plain
# message (benchmarks/README.md, "The entries of a request").
TOOL_ENTRY = 3


def written(conversation: list[Any], stop: int) -> tuple[int, int]:
    """The entries of a conversation as written, counted until past `stop`; and the index of the
    entry with which the count passed it (-1 when it did not)."""
    if len(conversation) > stop:
        return stop + 1, stop
    if set(map(type, conversation)) == _DICTS and list not in map(
        type, itertools.chain.from_iterable(map(dict.values, conversation))
    ):
        # The common conversation, objects whose values hold no array (chat's messages of text):
        # one entry each. Asked in C (map, chain, `in`), not in a Python loop per entry: every
        # call asks it, on the event loop.
        return len(conversation), -1
    count = 0
    for index, entry in enumerate(conversation):  # plain loops: no generator per entry
        count += 1
        if type(entry) is dict:
            for value in entry.values():
                if type(value) is list:
                    count += len(value)
                    for item in value:
                        if type(item) is dict:
                            for inner in item.values():
                                if type(inner) is list:
                                    count += len(inner)
        if count > stop:
            return count, index
    return count, -1


def check_written(conversation: object, key: str, bound: int) -> int:
    """The conversation's entries as written, refused past `bound` with the path of the entry that
    passed it; the count."""
    if not isinstance(conversation, list):
        return 0  # the dialect's reader names what is wrong with it
    count, passed = written(conversation, bound)
    if passed >= 0:
        raise caller_error(f"{key}[{passed}]", _over(bound))
    return count


def check_arguments(request: Request, counted: int, bound: int) -> None:
    """The weight of tool calls and results past their one entry each (TOOL_ENTRY), and the
    values in the tool calls' arguments (VALUES_PER_ENTRY to an entry), on top of the `counted`
    entries as written: refused past `bound` with the path of the message whose tool calls or
    results passed it."""
    if request.plain:
        return  # every turn one text: no tool call
    extra = (TOOL_ENTRY - 1) * VALUES_PER_ENTRY  # in values, the unit of `left`
    left = (bound - counted) * VALUES_PER_ENTRY
    # The weights first, then the arguments: a call whose arguments pass the bound is named as
    # such, not the result after it.
    for turn in request.turns:
        for block in turn.blocks:
            if type(block) is ToolUse or type(block) is ToolResult:
                left -= extra
                if left < 0:
                    raise caller_error(turn.path, _over(bound, "with its tool calls and results"))
    for turn in request.turns:
        for block in turn.blocks:
            if type(block) is ToolUse:
                left -= values(block.input, left)
                if left < 0:
                    raise caller_error(turn.path, _over(bound, "with the arguments of its tool calls"))


def values(value: dict[str, Any] | list[Any], stop: int) -> int:
    """The members of every object and array in `value`, itself included, counted until past
    `stop`."""
    count = 0
    pending: list[Any] = [value]
    while pending:
        node = pending.pop()
        members = node.values() if type(node) is dict else node
        count += len(members)
        if count > stop:
            return count
        pending.extend(member for member in members if type(member) is dict or type(member) is list)
    return count


def _over(bound: int, where: str = "by here") -> str:
    return (
        f"the conversation comes to more than {bound} entries {where} (each message and part is "
        f"one, each tool call and tool result {TOOL_ENTRY}, and every {VALUES_PER_ENTRY} values in "
        "tool calls' arguments one), the server's bound (serve --max-entries)"
    )
