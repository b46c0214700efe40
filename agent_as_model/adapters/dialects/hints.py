"""What becomes of the parameters a product takes that the host's model cannot be made to obey
(spec section 14), and of another model's reasoning passed back in a conversation.

MCP sampling carries a model hint, the temperature, the token limit and stop sequences; nothing
else of a product's sampling settings. So each accepted parameter beyond those has a `Fate`:

- it travels as a hint: written into the sampling request's `metadata` under `neutral.HINTS_KEY`
  (MCP's pass-through to the host's model provider), under one neutral name wherever products
  mean the same (`top_p` / `topP` are `top_p`; every product's reasoning settings are one
  `reasoning` object), and named in the result's warnings, since the host may not apply it;
- or it is not applied, and the warning says why;
- or the value given is served as it is (`applied`): `parallel_tool_calls` is kept, a Responses
  `metadata` is echoed, `truncation: "disabled"` is what always happens here. No warning.

A dialect declares the fate of each parameter it accepts (`Body.fates`, keyed by the name its
shared readers see, a dotted path for one nested in a parameter object, as `text.verbosity`);
`read` finds the hints and the warnings of a call's arguments. docs/parameters.md lists them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from agent_as_model.arguments import path_of, reject_unknown, require_object, type_name
from agent_as_model.errors import caller_error
from agent_as_model.neutral import HINTS_KEY, Hinted
from agent_as_model.records import Record

if TYPE_CHECKING:
    # A parameter's value and the path the caller wrote it at -> the hints it travels as (a
    # malformed value is a caller error naming the path).
    Travel = Callable[[Any, str], Mapping[str, Any]]


class Fate(Record):
    """What becomes of one accepted parameter. `travels`: the hints it is sent as (None: it is not
    sent); `applied`: the values served as given, with no warning (None: no value is); `note`: what
    the warning adds (why it is not applied, or what else the caller should know); `check`: what
    its value must be beyond its JSON type (a caller error naming the path); `hint`: the name it
    travels under (docs/parameters.md says it)."""

    travels: Travel | None = None
    applied: Callable[[Any], bool] | None = None
    note: str = ""
    check: Callable[[Any, str], None] | None = None
    hint: str = ""

    def summary(self) -> str:
        """The fate in a few words, for the listing."""
        if self.travels is not None:
            return f"sent to the host as the hint {self.hint} (sampling metadata), named in _meta warnings"
        if self.applied is not None and not self.note:
            return "kept as given"
        if self.applied is not None:
            return "kept as given where it changes nothing, else not applied and named in _meta warnings"
        return "accepted, not applied, named in _meta warnings"

    def describe(self) -> str:
        """The fate and why, for docs/parameters.md."""
        return f"{self.summary()}: {self.note}" if self.note else self.summary()


def _always(value: object) -> bool:
    return True


def forwarded(key: str, note: str = "") -> Fate:
    """Travels as the hint `key`, the value as given."""
    return Fate(travels=lambda value, path: {key: value}, note=note, hint=key)


def not_applied(note: str, applied: Callable[[Any], bool] | None = None) -> Fate:
    return Fate(applied=applied, note=note)


KEPT = Fate(applied=_always)  # served as given: nothing to say


def string_values(value: object, path: str) -> None:
    """An object of strings (OpenAI's `metadata`), as the product's API requires and its response
    objects' types read."""
    for key, item in require_object(value, path).items():
        if not isinstance(item, str):
            raise caller_error(
                path_of(path, key), f"expected a string (metadata values are strings), got {type_name(item)}"
            )


# `metadata` where the product's response object echoes it (Chat Completions, Responses): the
# caller reads it back as it would from the product, which is all it is for.
ECHOED_METADATA = Fate(applied=_always, check=string_values)


def reasoning(
    read: Callable[[Any, str], Mapping[str, Any]], note: str, applied: Callable[[Any], bool] | None = None
) -> Fate:
    """A reasoning setting: travels as the `reasoning` hint `read` makes of it."""
    return Fate(
        travels=lambda value, path: {"reasoning": dict(read(value, path))},
        applied=applied,
        note=note,
        hint="reasoning",
    )


NO_REASONING = "no reasoning comes back: the host answers with its text and tool calls only"
SERVICE = (
    "a setting of the product's own service (its accounts, routing, tiers and regions), which does "
    "not exist when the host's model answers"
)
CACHING = "prompt caching is the product's own; nothing is cached here, and the answer is the same without it"


def effort(value: object, path: str) -> Mapping[str, Any]:
    """A bare effort setting (`reasoning_effort`, `output_config.effort`)."""
    return {"effort": value}


def openai_reasoning(value: object, path: str) -> Mapping[str, Any]:
    """Responses `reasoning` ({effort, summary, ...}): OpenAI's own names are the neutral ones;
    the deprecated `generate_summary` is `summary`."""
    given = require_object(value, path)
    reject_unknown(given, ("effort", "summary", "generate_summary", "context", "mode"), path)
    read: dict[str, Any] = {}
    for key in ("effort", "summary", "generate_summary", "context", "mode"):
        item = given.get(key)
        if item is None:
            continue
        if not isinstance(item, str):
            raise caller_error(path_of(path, key), f"expected a string, got {type_name(item)}")
        read.setdefault("summary" if key == "generate_summary" else key, item)
    return read


# The hints of the parameters several products share, by the name they share. A dialect takes
# these (`fates`) and gives its own where a product means something else by the same name.
FATES: dict[str, Fate] = {
    "top_p": forwarded("top_p"),
    "top_k": forwarded("top_k"),
    "seed": forwarded("seed"),
    "frequency_penalty": forwarded("frequency_penalty"),
    "presence_penalty": forwarded("presence_penalty"),
    # Token ids of the caller's model's tokenizer: meaningful only to a host whose model shares
    # it, so it travels and is warned of rather than refused (docs/decisions.md).
    "logit_bias": forwarded(
        "logit_bias",
        "its token ids are those of the caller's model's tokenizer, which the host's may not share",
    ),
    "verbosity": forwarded("verbosity"),
    "reasoning_effort": reasoning(effort, NO_REASONING),
    "reasoning": reasoning(openai_reasoning, NO_REASONING),
    "parallel_tool_calls": KEPT,  # false: the host is told, and the answer is kept to one call
    "user": not_applied("an end-user id for the product's abuse monitoring; " + SERVICE),
    "safety_identifier": not_applied("an end-user id for the product's abuse monitoring; " + SERVICE),
    "metadata": not_applied("tags an object the product's service keeps; nothing here keeps it"),
    "store": not_applied(
        "the product's service would keep the completion; this server keeps none",
        applied=lambda v: v is False,
    ),
    "service_tier": not_applied(SERVICE),
    "inference_geo": not_applied(SERVICE),
    "speed": not_applied(SERVICE),
    "diagnostics": not_applied(SERVICE),
    "user_profile_id": not_applied(SERVICE),
    "workspace_id": not_applied(SERVICE),
    "access_programs": not_applied(SERVICE),
    "stream_options": KEPT,  # they shape a stream, and nothing streams here
    "prompt_cache_key": not_applied(CACHING),
    "prompt_cache_retention": not_applied(CACHING),
    "prompt_cache_options": not_applied(CACHING),
    "cache_control": not_applied(CACHING),
    "prediction": not_applied(
        "a predicted output only makes the product's answer faster; the host's is the same"
    ),
    "truncation": not_applied(
        "the whole input is always sent: nothing is dropped to fit the host model's context",
        applied=lambda v: v == "disabled",
    ),
    "max_tool_calls": KEPT,  # a bound on built-in tools' calls, and no built-in tool runs here
    "include": not_applied(
        "what it asks for (reasoning content, log probabilities, built-in tools' outputs) is never "
        "produced here",
        applied=lambda v: v == [],
    ),
    "background_options": not_applied("the call runs in the foreground"),
    "background": not_applied(
        "the call ran in the foreground: the Response comes back completed, with nothing to poll",
        applied=lambda v: v is False,
    ),
    "context_management": not_applied(
        "the product's own compaction of a long context; the whole input is always sent"
    ),
    "image": not_applied(
        "how the product compresses images in its context; the host's model reads them as it does"
    ),
}


def fates(*names: str, **own: Fate) -> dict[str, Fate]:
    """The shared fates of these names, and a product's own beside them."""
    return {**{name: FATES[name] for name in names}, **own}


def read(
    args: Mapping[str, Any], declared: Mapping[str, Fate], origins: Mapping[str, str]
) -> tuple[dict[str, Any], tuple[str, ...], tuple[Hinted, ...]]:
    """The hints a call's arguments send the host, the warnings its result carries (each declared
    parameter given, not null, named as the caller wrote it: `origins`), and which of those
    warnings are of a parameter sent as a hint (`reworded` words them for a provider)."""
    hints: dict[str, Any] = {}
    warnings: list[str] = []
    hinted: list[Hinted] = []
    for name, fate in declared.items():
        value = _value_at(args, name)
        if value is None:
            continue
        path = origins.get(name, name)
        if fate.check is not None:
            fate.check(value, path)
        if fate.travels is not None:
            for key, hint in fate.travels(value, path).items():
                known = hints.get(key)
                hints[key] = {**known, **hint} if isinstance(known, dict) and isinstance(hint, dict) else hint
        if fate.applied is not None and fate.applied(value):
            continue
        if fate.travels is not None:
            hinted.append(Hinted(len(warnings), path))
        warnings.append(warning(path, fate))
    return dict(sorted(hints.items())), tuple(warnings), tuple(hinted)


def warning(path: str, fate: Fate) -> str:
    if fate.travels is not None:
        said = (
            f"{path}: sent to the host as a hint (the sampling request's metadata, {HINTS_KEY!r}): "
            "MCP sampling cannot make the host's model apply it"
        )
        return f"{said}; {fate.note}" if fate.note else said
    return f"{path}: accepted, not applied: {fate.note}"


def reworded(warnings: tuple[str, ...], hinted: tuple[Hinted, ...], source: str) -> list[str]:
    """The warnings as true when `source` (a provider, `provider:<name>/<model>`) answered through
    the neutral conversation: it builds its request from the conversation and the limits, and a
    hint has no place there, so the parameter was not sent at all (what its note says of the
    host's model is moot)."""
    said = list(warnings)
    name = source.removeprefix("provider:").split("/", 1)[0]
    for hint in hinted:
        said[hint.at] = (
            f"{hint.path}: not sent to the provider {name!r}, which answered through the neutral "
            "conversation: it has no place for it"
        )
    return said


def _value_at(args: Mapping[str, Any], name: str) -> Any:
    """The argument `name`, or inside one for a dotted name (read after the parse checked it)."""
    if "." not in name:
        return args.get(name)
    value: Any = args
    for key in name.split("."):
        value = value.get(key) if isinstance(value, dict | Mapping) else None
        if value is None:
            return None
    return value


# -- another model's reasoning passed back -------------------------------------------------------

# How many paths a warning lists before it counts the rest.
_LISTED = 8


def left_out(found: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The warnings for the items of another model's reasoning a conversation passed back (each its
    path and what it is, `Turns.left_out`): one a kind, naming where each was."""
    by_kind: dict[str, list[str]] = {}
    for path, kind in found:
        by_kind.setdefault(kind, []).append(path)
    warnings = []
    for kind, paths in by_kind.items():
        named = ", ".join(paths[:_LISTED])
        if len(paths) > _LISTED:
            named += f", and {len(paths) - _LISTED} more"
        warnings.append(
            f"{named}: left out of what the answering model sees: {kind} (another model's reasoning, often "
            "encrypted or signed for that model alone); the rest of each turn was sent, and the cursor "
            "transcript leaves them out too"
        )
    return tuple(warnings)
