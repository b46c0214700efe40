"""The keys of a Responses request as this product reads them: the roles and text part types of
its input items, the keys of each item type, the hints (type-checked and ignored) and refusals,
the tool and tool_choice forms, and the plain body that skips every other reader. The request
reader, the tool readers and the listed schema read these tables.
"""

from __future__ import annotations

from agent_as_model.adapters.dialects import contracts, options
from agent_as_model.adapters.tools import definitions

ROLES = ("user", "assistant", "system", "developer")
# The real API names the text key `text`; the reference server used `input_text`. Both are accepted.
TEXT_TYPES = ("input_text", "output_text", "text")
TEXT_KEYS = ("text", "input_text")
# The keys of the SDK's own item types (output items dumped and passed back as input): `phase`,
# `async` (`async_` in a pydantic dump), `caller` and `namespace` are accepted when null, or with
# a value that changes nothing (request.py's `_check_item_extras`).
ITEM_KEYS = {
    "message": ("role", "content", "type", "id", "status", "phase"),
    "function_call": (
        "type",
        "call_id",
        "name",
        "arguments",
        "id",
        "status",
        "async",
        "async_",
        "caller",
        "namespace",
    ),
    "function_call_output": ("type", "call_id", "output", "id", "status", "caller", "name", "namespace"),
}
HINTS = options.hints(
    "user",
    "metadata",
    "store",
    "top_p",
    "parallel_tool_calls",
    "service_tier",
    "stream_options",
    "reasoning",
    "prompt_cache_key",
    "safety_identifier",
    "truncation",
    "max_tool_calls",
    "include",
    "prompt_cache_retention",
    "prompt_cache_options",
    "access_programs",
    "background_options",
    "context_management",
    "image",
)
REFUSED = options.refusals("stream", "background", "top_logprobs", "conversation", "prompt", "moderation")
TOOL_FORMS = "{name, description, input_schema} or {type: 'function', name, description, parameters}"
TOOL_KEYS = ("type", *definitions.FUNCTION_KEYS)
CHOICE_FORMS = "'auto', 'required', 'none' or {type: 'function', name}"
# The persona's request object (spec section 5): these parameters, with their defaults.
REQUEST_OBJECT = contracts.request_object_defaults("input", "instructions")
# The common body: the conversation and its limits only. It skips the readers of everything else.
PLAIN = frozenset(["input", "instructions", "model", "temperature", "max_tokens"])
