"""interpreted -> committed: the next session cursor is minted (when cursors are on), and the
dialect shapes the completion into the tool result.

Every JSON text the tools return is exactly `json.dumps(obj, sort_keys=True)` (spec section 1),
strict (`arguments.json_text`): later features commit to those bytes. A JSON object also
travels as structuredContent, equal to the text. Beside it, `_meta["agent-as-model/result"]`
says what the product's own API would have (spec section 9): which backend answered (`host`, or
`provider:<name>/<model>`), the model it named and the stop reason in the product's words (the
dialect's `describe`).
"""

from __future__ import annotations

import logging
from typing import Any

from mcp_types import CallToolResult, TextContent

from agent_as_model import cursors
from agent_as_model.adapters.backends.base import PASSED
from agent_as_model.adapters.dialects import DIALECTS, hints, media, usage
from agent_as_model.adapters.dialects.dialect import Dialect
from agent_as_model.arguments import json_text
from agent_as_model.neutral import Request
from agent_as_model.states import emulation
from agent_as_model.states.call import CallRecord, WithoutTools

log = logging.getLogger("agent_as_model")

# The key of the result metadata in a tool result's `_meta` (spec section 9).
RESULT_META = "agent-as-model/result"


def commit_result(record: CallRecord) -> None:
    completion, request = record.completion, record.request
    cursor = None
    chain = request.chain
    if chain is not None:  # cursors on: mint over the history plus what this call returns
        history, text = chain.history, completion.text
        if completion.parts:
            # An answer with media: its entry holds each media part in its place, as a passed-back
            # turn's does (docs/cursors.md).
            text = media.entry_text(completion.parts)
        if chain.calls_join is not None and completion.tool_calls and not text:
            # Passed back, these call items join the assistant message item before them: mint
            # the entry the next call will read (docs/cursors.md).
            history, text = history[:-1], chain.calls_join
        returned = cursors.completion_text(text, completion.tool_calls)
        cursor = cursors.result_cursor(request.model, request.tool, history, returned)
    dialect = record.dialect
    # `result: "object"` was refused at parse for a tool with no object shape.
    render = dialect.render_object if request.result == "object" else dialect.render
    assert render is not None
    answer = record.host_answer
    native = answer.native
    if native is not None and render is dialect.render_object:
        # The provider's API speaks the call's product and took its body as written: its own
        # object is the result, unchanged (docs/providers.md, "Same-product pass-through").
        output: str | dict[str, Any] = dict(native)
    else:
        output = render(completion, request, cursor)
    describe = dialect.describe
    source = answer.source
    # The object's `model` is the model that answered; the alias the caller asked for is kept
    # here, with who counted the usage (spec section 10).
    # Nobody counted: an object estimates its usage by the documented rule when it renders it
    # (`usage.usage_of`), so a text result, which shows no counts, costs no estimate.
    counted = completion.usage
    fields = {
        # Spec section 9: what the product's API would have said beside the result, in its words.
        **(describe(completion) if describe is not None else {}),
        "backend": source,
        "requested_model": request.model,
        "usage": counted.source if counted else usage.ESTIMATED,
    }
    if request.warnings and native is None:
        # Accepted and not enforced (adapters/dialects/hints.py), spec section 14: said only when
        # the neutral conversation was sent; a body passed through carried every parameter.
        fields[WARNINGS] = _warnings(request, source)
    if native is not None:
        fields[PASSED_THROUGH] = True
    if answer.passed:  # the backends of the call's route passed over before this one, and why
        fields[PASSED] = list(answer.passed)
    # Made with its metadata: each assignment to a result's field is a pydantic __setattr__.
    result = record.result = tool_result(output, {RESULT_META: fields})
    handling = record.plan.without_tools
    if handling is not None:
        add_tools_meta(result, handling)
    if chain is not None and chain.form == "anchor" and native is None and not _has_assistant_turn(request):
        # A product that keeps responses sends only the new input with the id of the last one:
        # here nothing was stored, so the host saw this input alone. Say so, in its words. (A
        # body passed through took the id to the API that may hold the response.)
        add_warning(result, history_not_passed(dialect, chain.previous))
    storage = dialect.storage
    if record.store is None and storage is not None and storage.asks_to_keep(record.arguments):
        add_warning(result, NOT_KEPT if native is None else NOT_KEPT_HERE)
    log.info("%s: answered by %s", record.tool, source)


# How a provider's answer names its backend (`HostAnswer.source`: "provider:<name>/<model>").
PROVIDER = "provider:"


def _warnings(request: Request, source: str) -> list[str]:
    """The call's warnings, true of the backend that answered: a hint reaches the host alone."""
    if request.hinted and source.startswith(PROVIDER):
        return hints.reworded(request.warnings, request.hinted, source)
    return list(request.warnings)


# Set in the result metadata when the provider's API took the caller's body as written.
PASSED_THROUGH = "passed_through"


# The list of warnings in the result metadata: what the caller should know went differently
# from what its product's own API would have done.
WARNINGS = "warnings"


def history_not_passed(dialect: Dialect, previous: str) -> str:
    """What a call continuing `previous` with no history is told: in the words of its own product's
    stored responses, or else of the first registered product that keeps responses (the ids it
    names are theirs, whatever tool was given one)."""
    storages = [dialect.storage, *(other.storage for other in DIALECTS.values())]
    storage = next((storage for storage in storages if storage is not None), None)
    if storage is not None:
        return storage.history_not_passed(previous)
    return (
        f"previous_response_id: {previous} names a stored response, but this server stores none: the "
        "host saw only this call's input, not the conversation before it. Pass the earlier turns in "
        "the input"
    )


# A call that asked in so many words for its response to be kept, on a server that keeps none.
NOT_KEPT = (
    "store: this server keeps no responses (it was not started with --store): this response cannot "
    "be retrieved, nor continued by its id; pass the earlier turns in the input to continue it"
)
# The same, when the body went as written to a provider whose API keeps responses by its own rules.
NOT_KEPT_HERE = (
    "store: this server keeps no responses (it was not started with --store); the provider that "
    "answered was sent store as written and keeps the response by its own rules: a call continuing it "
    "by its id reaches it when the call's route sends it to a provider of this API; this server "
    "cannot retrieve it"
)


def add_tools_meta(result: CallToolResult, handling: WithoutTools) -> None:
    """Say that the caller's tools never reached the model as tools, why, and what became of them
    (nothing is dropped silently)."""
    add_result_meta(
        result, {"tools": {"forwarded": False, "handling": handling, "reason": emulation.NO_SAMPLING_TOOLS}}
    )
    if handling == "dropped":
        add_warning(result, TOOLS_DROPPED)


TOOLS_DROPPED = (
    "the call's tools were dropped: the host declared sampling without sampling.tools, so its model "
    "answered in plain text without seeing them (the server's operator may choose "
    "--host-without-tools emulate, or a provider with --use-provider when-host-cannot)"
)


def _has_assistant_turn(request: Request) -> bool:
    return any(turn.role == "assistant" for turn in request.turns)


def add_warning(result: CallToolResult, warning: str) -> None:
    """Append `warning` to the result metadata's `warnings`."""
    meta = (result.meta or {}).get(RESULT_META, {})
    add_result_meta(result, {WARNINGS: [*meta.get(WARNINGS, ()), warning]})


def add_result_meta(result: CallToolResult, fields: dict[str, Any]) -> None:
    """Merge `fields` into the result's `_meta["agent-as-model/result"]` (made if absent)."""
    meta = dict(result.meta or {})
    meta[RESULT_META] = {**meta.get(RESULT_META, {}), **fields}
    result.meta = meta


def tool_result(
    output: str | dict[str, Any] | list[Any], meta: dict[str, Any] | None = None
) -> CallToolResult:
    """`meta`: the result's `_meta`, given only when there is one (a field set to None is still
    a field set)."""
    extra: dict[str, Any] = {} if meta is None else {"_meta": meta}
    if isinstance(output, str):
        return CallToolResult(content=[TextContent(type="text", text=output)], **extra)
    text = json_text(output)
    structured = output if isinstance(output, dict) else None
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured, **extra
    )


def error_result(message: str) -> CallToolResult:
    """The tool result of a call that failed: its message, as an error."""
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def commit_choices(record: CallRecord) -> None:
    """Several completions of one call (`n`), each committed on its own record: the product's
    object of them all, in order, with the first one's metadata and who counted the usage."""
    dialect, request, choices = record.dialect, record.request, record.choices
    completions = [choice.completion for choice in choices]
    render = dialect.render_choices
    assert render is not None  # only a product that declares `choices` reads an `n`
    record.result = tool_result(render(completions, request, None))
    describe = dialect.describe
    meta: dict[str, Any] = describe(completions[0]) if describe is not None else {}
    sources = {choice.host_answer.source for choice in choices}
    usages = {c.usage.source if c.usage is not None else usage.ESTIMATED for c in completions}
    meta.update(
        backend=choices[0].host_answer.source if len(sources) == 1 else sorted(sources),
        requested_model=request.model,
        usage=usages.pop() if len(usages) == 1 else usage.ESTIMATED,
    )
    if request.warnings:  # accepted and not enforced (adapters/dialects/hints.py)
        # Several answerers of one call (a route that fell back for some completions): the hints
        # went to the host when it answered any of them, and its words are kept.
        source = choices[0].host_answer.source if len(sources) == 1 else "host"
        meta[WARNINGS] = _warnings(request, source)
    add_result_meta(record.result, meta)
    handling = choices[0].plan.without_tools  # the same plan for every completion of one call
    if handling is not None:
        add_tools_meta(record.result, handling)
