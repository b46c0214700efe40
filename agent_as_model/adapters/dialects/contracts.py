"""The per-call contracts every completion tool takes: a `persona` (spec section 5) and a cursor
chain through `previous_response_id` (spec section 6).

Both are read with the rest of the arguments, so everything they refuse is refused before
anything is sent (on 2026-07-28: before round one). The persona's input_schema is checked here,
against the request object the spec defines; its output_schema travels in the `Request` to be
checked against the completion (states/interpret.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent_as_model import cursors
from agent_as_model.adapters.dialects.common import DEFAULT_MAX_TOKENS
from agent_as_model.arguments import reject_unknown, require_object, require_string
from agent_as_model.errors import CallError, caller_error
from agent_as_model.neutral import DEFAULT_MODEL, Chain, OutputContract, Persona
from agent_as_model.patterns import OverBudget
from agent_as_model.schemas import check_object_schema, first_violation, pointer_text


def request_object_defaults(*lead: str, tools: bool = True) -> dict[str, Any]:
    """A tool's parameters in the spec's request object (section 5), each with its default:
    `lead` (the conversation's own fields, None), then the shared ones."""
    defaults: dict[str, Any] = dict.fromkeys(lead)
    defaults.update(model=DEFAULT_MODEL, temperature=None, max_tokens=DEFAULT_MAX_TOKENS)
    if tools:
        defaults.update(output_schema=None, tools=None, tool_choice=None)
    defaults[cursors.PARAMETER] = None
    return defaults


def read_chain(
    args: Mapping[str, Any],
    tool: str,
    has_history: bool,
    transcript: Callable[[], tuple[dict[str, str], ...]],
    calls_join: str | None = None,
) -> Chain | None:
    """Cursors on or off; `transcript` is asked only when they are on (it costs a pass)."""
    previous = cursors.previous_of(args, tool, has_history)
    if previous is None:
        return None
    return Chain(previous.value, previous.form, transcript(), calls_join)


def read_persona(
    args: Mapping[str, Any], standard: Mapping[str, Any], output: OutputContract | None
) -> Persona | None:
    """The persona, checked; `standard` is the tool's parameters of the spec's request object,
    each with its default (None where it has none)."""
    raw = args.get("persona")
    if raw is None:
        return None
    persona = require_object(raw, "persona")
    reject_unknown(persona, ("name", "input_schema", "output_schema"), "persona")
    name = require_string(persona.get("name"), "persona.name")
    if not name.strip():
        raise caller_error("persona.name", "must not be empty")
    schemas: dict[str, dict[str, Any]] = {}
    for key in ("input_schema", "output_schema"):
        if persona.get(key) is not None:
            try:
                schemas[key] = check_object_schema(persona[key], f"persona.{key}")
            except CallError as err:  # every persona error names the persona (spec section 5)
                raise caller_error(err.path, f"persona {name!r}: {err.reason}") from None
    if "output_schema" in schemas and output is not None:
        raise caller_error(
            "persona.output_schema",
            f"persona {name!r}: cannot be combined with {output.path}: give one structured-output contract",
        )
    if "input_schema" in schemas:
        try:
            violation = first_violation(schemas["input_schema"], request_object(args, standard))
        except OverBudget as err:
            raise caller_error(
                "persona.input_schema", f"persona {name!r}: the request {err.reason()}"
            ) from None
        if violation is not None:
            pointer, reason = violation
            raise caller_error(
                "persona.input_schema",
                f"persona {name!r}: the request does not satisfy it at JSON pointer {pointer_text(pointer)}: "
                f"{reason}",
            )
    return Persona(name, schemas.get("output_schema"))


# Not part of the request object: the persona itself, `backend`, which says who answers the
# request rather than what it asks, and `result`, which says how the answer is shaped
# (docs/decisions.md).
NOT_IN_REQUEST_OBJECT = ("persona", "backend", "result")


def request_object(args: Mapping[str, Any], standard: Mapping[str, Any]) -> dict[str, Any]:
    """Spec section 5: the tool's parameters with defaults applied, minus `persona` (and the
    routing `backend`); native extras only when the caller gave them."""
    obj = {key: default if args.get(key) is None else args[key] for key, default in standard.items()}
    obj.update(
        (key, value)
        for key, value in args.items()
        if key not in standard and key not in NOT_IN_REQUEST_OBJECT
    )
    return obj
