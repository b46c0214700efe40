"""answered -> awaiting_host: ask the host again after an answer broke the output contract.

`repair_attempts` (spec section 3) allows that many more asks. Each one is the conversation so far,
the host's own answer as an assistant turn, and the validation error as the next user turn: a
`tool_result` marked as an error when the host called the structured-output tool, or one such
result for each of the caller's tools it called (more calls than the caller allows, a call that
is not JSON), since MCP requires the result of a tool call to follow it; plain text otherwise.
The message is the error's `repair` text: the same JSON pointer and rule the caller would read,
told to the model about its own answer. An emulated tool call (`states/emulation.py`) that
breaks the reply contract, its tool's schema or the caller's limits is repaired the same way, as
text.
Each round's payload is the call's own (`build_payload`, from its request and plan) followed by
every repair's turns so far, so a repair needs nothing of the round before but what the record
holds (a proven 2026-07-28 retry built no payload for the rounds its state answered).
On 2026-07-28 the new payload is a round of its own, bound like the first (backends/mrtr.py).
"""

from __future__ import annotations

from mcp_types import SamplingMessage, TextContent, ToolResultContent

from agent_as_model.adapters.backends.base import REPAIR_TURNS, echoed_blocks
from agent_as_model.errors import CallError
from agent_as_model.states.build import STRUCTURED_TOOL, build_payload
from agent_as_model.states.call import CallRecord


def may_repair(record: CallRecord, err: CallError) -> bool:
    return err.repairable and record.round_no < record.request.repair_attempts


def ask_again(record: CallRecord, err: CallError) -> None:
    """answered -> awaiting_host: the next round's payload, the call's own with every repair's
    turns so far."""
    add_repair(record, err)
    payload = build_payload(record.request, record.plan)
    record.payload = payload.model_copy(update={"messages": [*payload.messages, *record.repairs]})


def add_repair(record: CallRecord, err: CallError) -> None:
    """One more round: the host's answer and what was wrong with it join the conversation."""
    answer = record.host_answer
    assert err.repair is not None
    problem = err.repair
    # The answer as the model gave it, each block cut to a bound: a huge bad answer would
    # otherwise grow every later round (and on 2026-07-28 its sealed state) by its whole size.
    said_blocks = echoed_blocks(answer.blocks)
    said = SamplingMessage(role="assistant", content=said_blocks)
    call = next((b for b in answer.blocks if getattr(b, "type", None) == "tool_use"), None)
    if call is not None and call.name == STRUCTURED_TOOL:
        fix = SamplingMessage(
            role="user",
            content=[
                ToolResultContent(
                    type="tool_result",
                    tool_use_id=call.id,
                    content=[
                        TextContent(type="text", text=f"{problem} Call {STRUCTURED_TOOL} again, corrected.")
                    ],
                    is_error=True,
                )
            ],
        )
    elif call is not None:
        # The answer's own tool calls (the caller's tools, forwarded): MCP answers every tool_use
        # with its result before the next turn, so each is answered as not run, with the problem.
        fix = SamplingMessage(
            role="user",
            content=[
                ToolResultContent(
                    type="tool_result",
                    tool_use_id=block.id,
                    content=[TextContent(type="text", text=f"{problem} Call again, corrected.")],
                    is_error=True,
                )
                for block in said_blocks
                if getattr(block, "type", None) == "tool_use"
            ],
        )
    elif record.plan.without_tools == "emulated":
        fix = SamplingMessage(
            role="user",
            content=TextContent(
                type="text",
                text=f'{problem} Answer again: only the corrected {{"tool_calls": [...]}} JSON object '
                "to call tools, or plain text.",
            ),
        )
    elif record.plan.structured == "tool":
        fix = SamplingMessage(
            role="user",
            content=TextContent(type="text", text=f"{problem} Answer by calling {STRUCTURED_TOOL}."),
        )
    else:
        fix = SamplingMessage(
            role="user",
            content=TextContent(
                type="text", text=f"{problem} Answer again with only the corrected JSON object."
            ),
        )
    turns = (said, fix)
    assert len(turns) == REPAIR_TURNS  # a provider reads a round's repairs off the payload's end by it
    record.repairs = (*record.repairs, *turns)
    record.round_no += 1
    record.findings = (*record.findings, err)  # handed to the backend with the next round
    record.forget_answer()
