"""answered -> interpreted: the host's content blocks become a neutral completion.

Decided from the blocks alone, never by re-reading the text (spec section 4): a plain answer
that looks like a tool-call envelope stays plain text. The one exception is the operator's: with
tools emulated for a host without `sampling.tools` (`serve --host-without-tools emulate`), calls
are read from an answer that is wholly the reply contract's object, and only then
(`states/emulation.py`). Tool calls are accepted only when tools
were forwarded, under the names the host was given (mapped back to the caller's). An output
contract (spec section 3) is checked here: a failure names the JSON pointer of the violation and
never quotes the output, and it is `repairable`, so the machine may ask again. So is a persona's
output_schema (spec section 5), whose failures name the persona and are final.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.backends.base import HostAnswer
from agent_as_model.adapters.dialects import media
from agent_as_model.arguments import json_text, not_json, type_name, with_article
from agent_as_model.errors import CallError, host_error
from agent_as_model.neutral import (
    Completion,
    Media,
    OutputContract,
    Persona,
    Request,
    Text,
    ToolUse,
)
from agent_as_model.patterns import OverBudget
from agent_as_model.schemas import first_violation, json_pointer, pointer_text
from agent_as_model.states import emulation
from agent_as_model.states.build import STRUCTURED_TOOL
from agent_as_model.states.call import CallRecord, HostPlan
from agent_as_model.states.fence import fenced_body

if TYPE_CHECKING:
    from agent_as_model.neutral import StopReason


def take_answer(record: CallRecord, answer: HostAnswer) -> None:
    record.host_answer = answer
    record.answered += (answer,)


def checks_output(record: CallRecord) -> bool:
    """Whether interpreting the answer checks it against a caller's schema (an output contract or
    a persona's output_schema): bounded in time but not instant, so the driver runs it off the
    event loop."""
    request = record.request
    if request is None:
        return False
    persona = request.persona
    return (
        request.output is not None
        or (persona is not None and persona.output_schema is not None)
        or record.plan.without_tools == "emulated"  # each call checked against its tool's schema
    )


def interpret_answer(record: CallRecord) -> None:
    answer = record.host_answer
    if answer.role != "assistant":
        raise host_error("role", f"the host answered with role {answer.role!r}, expected 'assistant'")
    if not answer.blocks:
        # An empty content list is valid JSON for the SDK but no answer at all: taking it as an
        # empty completion would hand the caller nothing while saying all went well.
        raise host_error("content", "the host answered with no content blocks (an empty content list)")
    takes_media = record.dialect.answers_media
    texts, calls, parts = _read_blocks(answer, record.plan, takes_media)
    text = "\n".join(texts)
    request = record.request
    stop = _stop_reason(answer.stop_reason)
    contract = request.output
    structured: dict[str, Any] | None = None
    if parts:
        _check_answer_media(parts, record.limits.max_media_bytes, record.limits.max_media_call_bytes)
        if contract is not None:
            # The output is one JSON object: media beside it has no place in the result.
            first = next(p for p in parts if type(p) is Media)
            raise host_error(
                first.path,
                f"the host answered with {first.kind} ({first.mime_type}) where the output "
                f"contract of {contract.path} asks for one JSON object",
            )
    if contract is not None:
        try:
            # A provider that took the product's own format with the body as written answers in
            # that API's words, as text, whatever the route's plan asked the others for.
            if record.plan.structured == "tool" and answer.native is None:
                structured = _tool_output(calls, contract)
            else:
                structured = _text_output(text, contract)
        except CallError:
            if stop == "maxTokens":  # not a schema problem: the output never ended
                raise _cut(contract, request) from None
            raise
        text, calls = json_text(structured), []
    elif record.plan.offered:
        check_tool_limits(request, calls)
    elif record.plan.without_tools == "emulated":
        # Calls only from an answer that is wholly the reply contract's object (emulation.py):
        # the host's text is then the calls, not a text beside them.
        calls = emulation.read_calls(text, request)
        if calls:
            text = ""
    persona = request.persona
    if persona is not None and persona.output_schema is not None and not calls:
        # A turn that calls tools is not the persona's answer yet; the final answer is checked.
        _persona_output(text, persona, persona.output_schema)
    record.completion = Completion(
        text=text,
        tool_calls=tuple(calls),
        structured=structured,
        model=answer.model,
        stop_reason=stop,
        usage=answer.usage,
        parts=tuple(parts),
    )


def _check_answer_media(parts: list[Text | Media], part_bound: int, call_bound: int) -> None:
    """The host's media stays within the server's bounds, as the caller's does."""
    total = 0
    for part in parts:
        if type(part) is not Media:
            continue
        total += part.size
        if part.size > part_bound:
            raise host_error(
                part.path,
                f"the host's {part.kind} is {part.size} bytes, over the bound of {part_bound} "
                "(serve --max-media-bytes)",
            )
        if total > call_bound:
            raise host_error(
                part.path,
                f"the host's media come to more than the bound of {call_bound} bytes together "
                "(serve --max-media-call-bytes)",
            )


_STOP_REASONS: dict[str | None, StopReason | None] = {
    None: None,
    "endTurn": "endTurn",
    "stopSequence": "stopSequence",
    "maxTokens": "maxTokens",
    "toolUse": "toolUse",
}


def _stop_reason(said: str | None) -> StopReason | None:
    """MCP's stopReason is an open string: the four it names are kept, anything else is `other`."""
    return _STOP_REASONS.get(said, "other")


def _cut(contract: OutputContract, request: Request) -> CallError:
    limit = f"{request.max_tokens_path} {request.max_tokens}"  # named as the caller wrote it
    return host_error(
        contract.path,
        f"the host's answer was cut at the token limit ({limit}, stopReason maxTokens) before the "
        "output was complete; raise the limit",
    )


def check_tool_limits(request: Request, calls: list[ToolUse]) -> None:
    """The limits the caller set on tool use (spec section 4), kept on the answer: MCP sampling
    carries `toolChoice` but a host may not honour it, and it has no one-call switch at all (the
    host's model is told in the system prompt, build.py). A breach of the choice is final; more
    calls than one where one is allowed are repairable: the repair round answers each call as not
    run and asks for one (repair.py, docs/decisions.md)."""
    choice = request.tool_choice
    if choice is not None and choice.mode == "none" and calls:
        raise host_error(choice.path, f"is 'none', yet the host called tool {ascii(calls[0].name)}")
    if choice is not None and choice.mode == "required" and not calls:
        wanted = f"tool {ascii(choice.name)}" if choice.name is not None else "a tool"
        raise host_error(choice.path, f"asks for a call of {wanted}, yet the host answered without one")
    if request.single_call is not None and len(calls) > 1:
        raise host_error(
            request.single_call,
            f"allows one tool call, yet the host made {len(calls)}",
            repair=f"You made {len(calls)} tool calls where at most one is allowed; none was run.",
        )


def _read_blocks(
    answer: HostAnswer, plan: HostPlan, takes_media: bool
) -> tuple[list[str], list[ToolUse], list[Text | Media]]:
    """The answer's texts and tool calls; and, when it holds media a product can show, its texts
    and media in their order (else empty: the common answer makes no list of parts)."""
    texts: list[str] = []
    calls: list[ToolUse] = []
    parts: list[Text | Media] = []
    offered = plan.offered  # what the payload offered, by host-side name
    for i, block in enumerate(answer.blocks):
        kind = getattr(block, "type", type(block).__name__)
        if kind == "text":
            texts.append(block.text)
        elif kind == "tool_use":
            calls.append(_tool_call(i, block, plan, offered))
        elif takes_media and kind in ("image", "audio"):
            if not parts:  # the texts before the first media part, in their place
                parts.extend(Text(t) for t in texts)
            parts.append(media.answered(kind, block.data, block.mime_type, f"content[{i}]"))
            continue
        else:
            raise host_error(
                f"content[{i}]", f"the host answered with a block of type '{kind}': only text is accepted"
            )
        if parts and kind == "text":
            parts.append(Text(block.text))
    return texts, calls, parts


def _tool_call(i: int, block: Any, plan: HostPlan, offered: frozenset[str]) -> ToolUse:
    if not offered:
        raise host_error(
            f"content[{i}]",
            f"the host answered with a tool_use block (tool {block.name!r}) but this call forwarded no tools",
        )
    name = plan.names.get(block.name)
    if block.name not in offered or name is None:
        raise host_error(
            f"content[{i}].name", f"the host called tool {block.name!r}, which it was not offered"
        )
    # The structured output's call is checked against its schema, which finds these too.
    output = plan.structured == "tool" and name == STRUCTURED_TOOL
    strict = None if output else not_json(block.input)
    if strict is not None:  # the call would reach the caller as text that is not JSON
        where = f"content[{i}].input"
        problem = f"at JSON pointer {pointer_text(json_pointer(strict[0]))} {strict[1]}"
        raise host_error(
            where,
            f"the host's tool call {problem}",
            repair=f"Your call of tool {block.name!r} {problem}: send only JSON numbers.",
        )
    return ToolUse(id=block.id, name=name, input=dict(block.input))


def _tool_output(calls: list[ToolUse], contract: OutputContract) -> dict[str, Any]:
    outputs = [c for c in calls if c.name == STRUCTURED_TOOL]
    if not outputs:
        raise host_error(
            contract.path,
            f"the host answered without calling the '{STRUCTURED_TOOL}' tool that carries the output",
            repair=f"You answered without calling the '{STRUCTURED_TOOL}' tool that carries the answer.",
        )
    if len(outputs) > 1:
        raise host_error(
            contract.path, f"the host called '{STRUCTURED_TOOL}' {len(outputs)} times; one answer is expected"
        )
    return _checked(outputs[0].input, contract)


def _text_output(text: str, contract: OutputContract) -> dict[str, Any]:
    value, problem = json_answer(text)
    if problem is not None:
        raise _invalid(contract, problem)
    if not isinstance(value, dict):
        kind = "null" if value is None else with_article(type_name(value))
        raise _invalid(contract, f"is JSON but not an object (it is {kind})")
    return _checked(value, contract)


def json_answer(text: str) -> tuple[Any, str | None]:
    """The JSON value of an answer (a fenced json block is accepted), or why it is none."""
    fenced = fenced_body(text)  # a linear scan: the host's text is never met by a backtracking regex
    body = text if fenced is None else fenced
    try:
        return json.loads(body), None
    except json.JSONDecodeError as err:
        # The decoder's message names a position, never the text itself.
        return None, f"is not JSON (line {err.lineno} column {err.colno}: {err.msg})"
    except ValueError:  # Python's int/str conversion limit: a number thousands of digits long
        return None, "is not JSON this server can read (it holds an integer thousands of digits long)"


def _persona_output(text: str, persona: Persona, schema: dict[str, Any]) -> None:
    """Spec section 5: the completion text must be JSON that validates; errors name the persona."""
    value, problem = json_answer(text)
    if problem is None:
        problem = _persona_problem(schema, value)
        if problem is None:
            return
    raise host_error("persona.output_schema", f"persona {persona.name!r}: the host's answer {problem}")


def _persona_problem(schema: dict[str, Any], value: Any) -> str | None:
    try:
        violation = first_violation(schema, value)
    except OverBudget as err:
        return err.reason()
    if violation is None:
        return None
    pointer, rule = violation
    return f"violates it at JSON pointer {pointer_text(pointer)}: {rule}"


def _checked(value: dict[str, Any], contract: OutputContract) -> dict[str, Any]:
    try:
        violation = first_violation(contract.schema, value)
    except OverBudget as err:
        # Not repairable: the same pattern would run out of time on the model's next answer too.
        raise host_error(contract.path, f"the host's answer {err.reason()}") from None
    if violation is not None:
        pointer, reason = violation
        raise _invalid(
            contract,
            f"violates the schema at JSON pointer {pointer_text(pointer)}: {reason}",
        )
    return value


def _invalid(contract: OutputContract, problem: str) -> CallError:
    """`problem` says what is wrong with the answer, without naming whose it is: the caller reads
    it about the host's answer, and a repair round tells it to the model about its own."""
    return host_error(contract.path, f"the host's answer {problem}", repair=f"Your answer {problem}.")
