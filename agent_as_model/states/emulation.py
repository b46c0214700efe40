"""Tool use emulated for a host that samples without `sampling.tools` (`serve --host-without-tools
emulate`).

The host's model cannot be handed tools, so they are written into the system prompt with one
strict reply contract (docs/decisions.md, "Tools on hosts without sampling.tools"):

    a call is the JSON object {"tool_calls": [{"name": "...", "arguments": {...}}, ...]},
    bare or in one fenced block; anything else is text.

An answer is read as calls only when the WHOLE answer, stripped, is that object or one fenced
block holding it: prose that merely contains the JSON (a quote, an example) stays text, so a call
cannot be spoofed by quoting. An answer that is wholly a JSON object with a `tool_calls` key is
taken as the model's attempt at a call, so its form, each call's tool and arguments (against the
tool's schema, with the project's bounded check) and the caller's limits (`tool_choice`, one call
at most) are checked, and a failure is repairable like broken structured output: the calls are
text the model wrote, not calls it made, so asking again costs the caller nothing.

Calls get ids made from where they stand and the tool they call, so a 2026-07-28 retry that reads
the same answer again gives the same ids. Earlier tool calls and results in the conversation travel as
text that keeps their ids and names: the call turn as the same object (with each call's id), the
result as `Tool result for call <id> (<name>): <content>`.

Everything here reads the host's text in one pass (`str.find`, `json.loads`): no regular
expression meets it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from agent_as_model.arguments import path_of, type_name, with_article
from agent_as_model.errors import CallError, host_error
from agent_as_model.neutral import Block, Request, Text, ToolResult, ToolSpec, ToolUse, Turn
from agent_as_model.patterns import OverBudget
from agent_as_model.schemas import first_violation, pointer_text
from agent_as_model.states.fence import FENCE, opened

# The one key of the reply contract's object, and the keys of each call in it ("id" is what the
# conversation's earlier calls show; a model that copies it is not wrong, and its value is not used:
# the server makes every call's id).
CALLS = "tool_calls"
_CALL_KEYS = frozenset(("name", "arguments", "id"))
# What `_meta["agent-as-model/result"].tools.reason` says of such a host.
NO_SAMPLING_TOOLS = "the host declared sampling without the sampling.tools capability"

CONTRACT = (
    "To call tools, answer with only this JSON object and nothing else (bare, or in one ```json "
    'fenced block): {"tool_calls": [{"name": "<tool name>", "arguments": {<the arguments, matching '
    "the tool's parameters>}}]}. Any other answer is read as your plain-text reply to the user, "
    "and JSON inside prose is never a call."
)
HISTORY = (
    'Earlier tool calls appear as that object with an "id" for each call; each result comes back as a '
    'user turn "Tool result for call <id> (<name>): <output>".'
)


def offered(request: Request) -> tuple[ToolSpec, ...]:
    """The tools the model is offered: all of them, or the one a named tool choice names."""
    choice = request.tool_choice
    if choice is not None and choice.name is not None:
        return tuple(t for t in request.tools if t.name == choice.name)
    return request.tools


def tools_prompt(request: Request) -> str:
    """The system prompt's part that offers the tools: their schemas, the choice, the contract."""
    tools = []
    for tool in offered(request):
        written: dict[str, Any] = {"name": tool.name, "parameters": tool.input_schema}
        if tool.description:
            written["description"] = tool.description
        tools.append(written)
    listed = json.dumps(tools, sort_keys=True)
    return f"You have these tools (JSON): {listed}\n{CONTRACT} {_choice_rule(request)}\n{HISTORY}"


def _choice_rule(request: Request) -> str:
    choice = request.tool_choice
    rule = "Call a tool only when it helps; otherwise answer in plain text."
    if choice is not None and choice.name is not None:
        rule = f"You must call the tool {json.dumps(choice.name)} now: answer with the JSON object."
    elif choice is not None and choice.mode == "required":
        rule = "You must call at least one tool now: answer with the JSON object."
    elif choice is not None and choice.mode == "none":
        rule = "Do not call any tool now: answer in plain text."
    if request.single_call is not None and not (choice is not None and choice.mode == "none"):
        rule += ' Make at most one call (one entry in "tool_calls").'
    return rule


def names_by_id(turns: Iterable[Turn]) -> dict[str, str]:
    """Each earlier tool call's id and its tool's name, so a result's text can name its tool."""
    return {b.id: b.name for turn in turns for b in turn.blocks if type(b) is ToolUse}


def turn_texts(blocks: tuple[Block, ...], names: Mapping[str, str]) -> list[str]:
    """A tool turn as the texts the host reads: texts as they are, a run of calls as one contract
    object with their ids, each result as a line that names its call and tool."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in blocks:
        if type(block) is ToolUse:
            calls.append({"arguments": block.input, "id": block.id, "name": block.name})
            continue
        if calls:
            texts.append(json.dumps({CALLS: calls}, sort_keys=True))
            calls = []
        if type(block) is ToolResult:
            name = names.get(block.tool_use_id, "unknown tool")
            error = ", an error" if block.is_error else ""
            texts.append(f"Tool result for call {block.tool_use_id} ({name}{error}): {block.content}")
        elif type(block) is Text:
            texts.append(block.text)
        else:
            raise TypeError(f"not a block of a tool turn: {block!r}")
    if calls:
        texts.append(json.dumps({CALLS: calls}, sort_keys=True))
    return texts


def whole_body(text: str) -> str | None:
    """What the whole answer holds when it is one JSON object, bare or as the one fenced block
    the answer is made of; None when it is anything else (prose, prose around a block, two
    blocks). Linear: a strip, a few `find`s."""
    answer = text.strip()
    if answer.startswith("{"):
        return answer if answer.endswith("}") else None
    if not (answer.startswith(FENCE) and answer.endswith(FENCE) and len(answer) >= 2 * len(FENCE)):
        return None
    start = opened(answer, len(FENCE))
    end = len(answer) - len(FENCE)
    if start is None or start > end:
        return None  # not an opening line
    # A fence inside is left to the JSON reading below: a call's arguments may hold one (code, or
    # markdown), and two blocks with prose between never read as one JSON object.
    body = answer[start:end].strip()
    return body if body.startswith("{") and body.endswith("}") else None


def read_calls(text: str, request: Request) -> list[ToolUse]:
    """The calls an answer makes under the contract: none when it is text. A call attempt that
    breaks the contract, a tool's schema or the caller's limits raises a repairable error; an
    answer without calls where the choice demands one does too."""
    body = whole_body(text)
    value = _json_object(body) if body is not None else None
    if value is None or CALLS not in value:
        _check_text(request)
        return []
    tools = {t.name: t for t in offered(request)}
    raw = value[CALLS]
    if set(value) != {CALLS}:
        extra = sorted(k for k in value if k != CALLS)
        raise _broken("content", f"holds keys other than {CALLS!r} ({', '.join(map(repr, extra))})")
    if not isinstance(raw, list) or not raw:
        raise _broken(f"content.{CALLS}", "must be a non-empty list of calls")
    taken = {b.id for turn in request.turns for b in turn.blocks if type(b) is ToolUse}
    calls = [_call(i, item, tools, len(request.turns), taken) for i, item in enumerate(raw)]
    _check_calls(request, calls)
    return calls


def _json_object(body: str) -> dict[str, Any] | None:
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):  # not JSON, an integer past Python's limit, nested too deep
        return None
    return value if isinstance(value, dict) else None


def _call(i: int, item: object, tools: Mapping[str, ToolSpec], turn_count: int, taken: set[str]) -> ToolUse:
    where = f"content.{CALLS}[{i}]"
    if not isinstance(item, dict):
        raise _broken(where, f"must be an object {{name, arguments}}, not {with_article(type_name(item))}")
    unknown = sorted(k for k in item if k not in _CALL_KEYS)
    if unknown:
        listed = ", ".join(map(repr, unknown))
        raise _broken(where, f"holds keys other than 'name' and 'arguments' ({listed})")
    name, arguments = item.get("name"), item.get("arguments")
    if not isinstance(name, str):
        raise _broken(path_of(where, "name"), "must be the name of a tool, as a string")
    tool = tools.get(name)
    if tool is None:
        named = ", ".join(repr(n) for n in tools) or "none"
        raise _broken(
            path_of(where, "name"), f"names tool {ascii(name)}, which was not offered (offered: {named})"
        )
    if not isinstance(arguments, dict):
        raise _broken(path_of(where, "arguments"), "must be a JSON object of the tool's arguments")
    try:
        violation = first_violation(tool.input_schema, arguments)
    except OverBudget as err:
        # Final: the same schema would run out of its budget on the next answer too.
        raise host_error(path_of(where, "arguments"), f"the host's emulated call {err.reason()}") from None
    if violation is not None:
        pointer, rule = violation
        raise _broken(
            path_of(where, "arguments"),
            f"violates the parameters schema of tool {ascii(name)} at JSON pointer "
            f"{pointer_text(pointer)}: {rule}",
        )
    return ToolUse(id=call_id(turn_count, i, name, taken), name=name, input=arguments)


def call_id(turn_count: int, index: int, name: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """An emulated call's id: made from its place (the conversation's length, its index in the
    answer) and its tool, so a 2026-07-28 retry that re-reads the same answer gives the same ids,
    each call of one conversation has its own, and a `--redact`ed recording (whose arguments are
    placeholders) replays to the same ids."""
    # The place alone can repeat: a caller that trims its history can come back to the same length
    # with a call of that place still in it. An id already in the history (`taken`, ids survive
    # redaction) is passed over for the next of the same place, so none is ever reused.
    attempt = 0
    while True:
        place = [turn_count, index, name] if attempt == 0 else [turn_count, index, name, attempt]
        made = "call_" + hashlib.sha256(json.dumps(place).encode("utf-8", "surrogatepass")).hexdigest()[:24]
        if made not in taken:
            return made
        attempt += 1


def _check_text(request: Request) -> None:
    choice = request.tool_choice
    if choice is not None and choice.mode == "required":
        wanted = f"tool {ascii(choice.name)}" if choice.name is not None else "a tool"
        raise host_error(
            choice.path,
            f"asks for a call of {wanted}, yet the host's answer was text, not the tool-call JSON object",
            repair=f"You must call {wanted} now: answer with only the {CALLS!r} JSON object of the "
            "reply contract.",
        )


def _check_calls(request: Request, calls: list[ToolUse]) -> None:
    choice = request.tool_choice
    if choice is not None and choice.mode == "none":
        raise host_error(
            choice.path,
            f"is 'none', yet the host's answer called tool {ascii(calls[0].name)}",
            repair="Do not call any tool now: answer in plain text.",
        )
    if request.single_call is not None and len(calls) > 1:
        raise host_error(
            request.single_call,
            f"allows one tool call, yet the host's answer made {len(calls)}",
            repair=f'You made {len(calls)} calls; make at most one (one entry in "tool_calls").',
        )


def _broken(path: str, problem: str) -> CallError:
    """A call attempt that breaks the contract: told to the caller about the host's answer, and
    to the model about its own."""
    return host_error(
        path,
        f"the host's emulated tool call is not valid here: it {problem}",
        repair=f"Your tool call is not valid: {_in_reply(path)} {problem}.",
    )


def _in_reply(path: str) -> str:
    """Where in its own reply the model went wrong (the caller's path says `content.` first)."""
    return "the object" if path == "content" else path.removeprefix("content.")
