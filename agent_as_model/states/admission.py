"""received -> awaiting_admission -> admitted: a call passes its caller's limits before anything
is spent (spec section 17), and what it spent is counted when it ends.

The gate is the server's (`adapters/callers`, configured only when some caller has a limit); the
caller is the one the door found for the request (`Visit`). A 2026-07-28 retry (a request that
carries the state an earlier request of its call sealed, unsealed by the SDK and bound to these
very arguments) is the call its round one began: admitted then, it is neither counted again nor
refused, since the host's answers it brings have been asked for already. Its tokens are counted
when it ends, as any call's. The admission's I/O is the
driver's (`engine/admission.py`), in a state of its own, as the store's is.

A call's tokens are the input and output of each answer it took in this request (a repair's
round is one more answer; a 2026-07-28 retry's earlier rounds, replayed, were counted by the
requests that took them): as the provider or the host counted them, else estimated by the usage
rule of `adapters/dialects/usage.py`, and the estimated part is counted apart, so `agent-as-model
callers` and a refusal can say so.
"""

from __future__ import annotations

import json

from agent_as_model.adapters.backends.base import HostAnswer
from agent_as_model.adapters.callers import Spent, Ticket
from agent_as_model.adapters.dialects import usage
from agent_as_model.neutral import Completion, Request
from agent_as_model.states.call import CallRecord


def must_admit(record: CallRecord) -> bool:
    """The server limits its callers, and this request begins a call (no retry of one)."""
    return record.gate is not None and not record.router.continues()


def take_admission(record: CallRecord, ticket: Ticket) -> None:
    """awaiting_admission -> admitted: the call's place, given back when it ends."""
    record.ticket = ticket


def spent(record: CallRecord) -> Spent:
    """The tokens of every answer this request took, its completions' (`n`) included."""
    tokens = estimated = 0
    for answer in record.answered:
        counted = answer.usage
        if counted is not None:
            tokens += counted.input_tokens + counted.output_tokens
        else:
            guessed = _estimate(record.request, answer)
            tokens += guessed
            estimated += guessed
    for choice in record.choices:
        more = spent(choice)
        tokens += more.tokens
        estimated += more.estimated
    return Spent(tokens, estimated)


def _estimate(request: Request, answer: HostAnswer) -> int:
    """The usage rule over what the model read (the call's conversation) and what it wrote (the
    answer's text and tool calls, whatever it was found to be)."""
    read = usage.estimate(request, Completion("")).input_tokens
    wrote = 0
    for block in answer.blocks:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            wrote += len(text)
        elif getattr(block, "type", None) == "tool_use":
            wrote += len(str(block.name)) + len(json.dumps(block.input, sort_keys=True, default=str))
    return read + -(-wrote // usage.CHARS_PER_TOKEN)
