"""A raw prompt (`generate`): one user message, no system prompt, completion -> text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects import common, contracts
from agent_as_model.adapters.dialects.dialect import Body, Dialect
from agent_as_model.adapters.dialects.turns import Turns
from agent_as_model.adapters.dialects.writing import Said, Unit, Writing, read_text_result, refuse
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Completion

if TYPE_CHECKING:  # only for annotations: importing random costs start-up time
    import random

NAME = "generate"
DESCRIPTION = (
    "Send a raw prompt to the host agent's own model as one user message (no system prompt, no role "
    "mapping) and return the completion text: the shortest path."
)

# The persona's request object (spec section 5): these parameters, with their defaults.
_REQUEST_OBJECT = contracts.request_object_defaults("prompt", tools=False)

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string", "description": "The prompt, sent as one user message."},
        "temperature": common.temperature_schema(2),
        "max_tokens": common.MAX_TOKENS_SCHEMA,
    },
    "required": ["prompt"],
    "additionalProperties": False,
}


def _read_conversation(args: Mapping[str, Any], turns: Turns) -> None:
    if "prompt" not in args:
        raise caller_error("prompt", "is required")
    turns.text("user", common.require_string(args["prompt"], "prompt"), "prompt")


# A raw prompt has no product of its own: its stop reason is said as Chat Completions'
# `finish_reason` (docs/decisions.md). `generate` takes no tools, so `tool_calls` never occurs.
_FINISH = common.stop_vocabulary(
    end_turn="stop", stop_sequence="stop", max_tokens="length", tool_use="tool_calls"
)


def _describe(completion: Completion) -> dict[str, Any]:
    return common.result_meta(completion, "finish_reason", _FINISH)


# The caller's side, for the fuzzer, the property tests and the soak (`Writing`, writing.py).
# How a caller writes `generate`'s one prompt (its `Writing`): a single user message.


def write_request(units: Sequence[Unit], vary: random.Random | None = None) -> dict[str, Any]:
    if len(units) != 1 or not isinstance(units[0], Said) or units[0].role != "user":
        raise refuse("anything but one user message: a prompt has no history")
    return {"prompt": units[0].text}


WRITING = Writing(write_request, read_text_result, roles=("user",), leading_system=False, tool_turns=False)


DIALECT = Dialect(
    NAME=NAME,
    DESCRIPTION=DESCRIPTION,
    INPUT_SCHEMA=INPUT_SCHEMA,
    body=Body(
        conversation="prompt",
        turn_noun="prompt",
        plain=frozenset(["prompt", "model", "temperature", "max_tokens"]),
        request_object=_REQUEST_OBJECT,
        text_arguments=("prompt",),
        has_history=False,  # the prompt is the whole request: a cur_ cursor has nothing to check
    ),
    read_conversation=_read_conversation,
    render=common.text_result,
    EXAMPLE={"prompt": "Write a haiku about keys you do not need."},
    describe=_describe,
    writing=WRITING,
)
