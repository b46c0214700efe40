"""JSON Schema (draft 2020-12) for the caller's schemas: checking them, validating against them.

Three pure functions serve every place a caller hands us a schema (`output_schema`, a persona's
schemas, tool definitions):

- `check_object_schema`: is this a schema we can use? A valid draft 2020-12 schema whose root is
  `"type": "object"` (what an MCP tool's input schema and a structured answer both need), with
  every `$ref` resolvable inside the schema itself. Nothing is ever fetched.
- `validator_for`: one compiled validator per distinct schema, cached, so a schema sent on every
  turn of a conversation is compiled once.

Both are cached by a digest of the schema's canonical JSON text (`_canonical`): a product
sends the same tools and the same `response_format` on every turn, and checking a schema against
the draft's meta-schema costs far more per property than its canonical text and digest
(benchmarks/README.md, "What each cache, ContextVar and late import buys"). Only a schema that
passed is remembered (an error names the caller's path, which differs from call to call, and a
failing check is cheap next to a passing one); a new or changed schema is checked in full,
within the bounds below. `stats` says how the checks and the validators have served since the
process started (how many schemas were checked in full, how many found checked before, how many
values validated), for an operator, a benchmark or a test.
- `first_violation`: where an instance breaks a schema, as a JSON pointer, and why, in words
  built from the schema alone. The instance is the host's answer, which may hold anything the
  caller asked for (secrets included), so no part of its values ever reaches an error message.

Patterns (`pattern`, `patternProperties`) are matched by `patterns`, within one time bound per
check (`--schema-timeout`): a check that runs out of it raises `patterns.SchemaTimeout`, which
names the pattern, where it sits in the schema, and the bound. The schema check takes a pattern
exactly when that engine does, and when its compiled size is within `patterns.MAX_PATTERN_SIZE`.

Every keyword the validator applies is one step of the check's budget (`--schema-steps`), counted
inside the validator (`_counted`), as is every pattern it searches (`patterns`), so a check that
would take exponential time or memory (`$ref` fan-out, nested `oneOf`, patterns over many
properties) raises `patterns.TooManySteps` and stops where it is. Checking a caller's schema
against the draft's meta-schema is jsonschema's own check run with those counted keywords
(`_meta_validator`), within a budget of its own of as many steps: the meta-schema applies some
thirty keywords to each subschema, so a schema of many properties is refused, not checked for
seconds. `uniqueItems` is our own: linear
in the array (jsonschema's compares unhashable items pairwise). No message a step makes grows with
a value: jsonschema writes the value it checks into every error it makes, so the check reads
quiet copies (`quieted`) whose repr is a constant, and a reason quotes a schema's values only as
far as its limit (`_short`). A keyword's own pass over one node's members (every name for
`additionalProperties`, an `enum`'s values) is still one step.

Formats are annotations, not assertions (draft 2020-12's default): `"format": "email"` does not
reject a string. Hosts differ in which formats they know, and a check we added would fail
answers that the caller's own API would have taken.

`jsonschema` (with `referencing`) is imported the first time a schema is checked, not when this
module is: it was most of what the server's own start-up cost, and most calls never carry a
schema (benchmarks/README.md, "What each cache, ContextVar and late import buys").
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import threading
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from agent_as_model import patterns
from agent_as_model.arguments import not_json, path_of, type_name
from agent_as_model.caches import BoundedCache
from agent_as_model.errors import caller_error

if TYPE_CHECKING:  # imported where first used (see the module's docstring)
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator
    from referencing import Registry, Resource

# Enough for every schema of a busy process, and bounded, so a caller sending a fresh schema per
# call cannot grow the process without limit. The checked schemas are remembered by digest alone
# (32 bytes and an entry each); a compiled validator holds its own copy of the schema, bounded by
# the total of the canonical texts (a parsed schema takes several times its text: at most a few
# hundred MB in the worst case, and some KB for an ordinary schema).
CHECKED_CACHE_SIZE = 4096
VALIDATOR_CACHE_SIZE = 256
VALIDATOR_CACHE_BYTES = 32 * 1024 * 1024
_checked = BoundedCache(CHECKED_CACHE_SIZE)
_validators = BoundedCache(VALIDATOR_CACHE_BYTES, VALIDATOR_CACHE_SIZE)
# What `stats` counts, under a lock of its own: the checks run in worker threads.
_stats = {"checked_in_full": 0, "found_checked": 0, "validated": 0}
_stats_lock = threading.Lock()


@functools.cache
def _no_retrieval() -> Registry[Any]:
    """An empty registry: `$ref`s resolve inside the schema and to the draft meta-schemas only.
    Without it jsonschema would fetch any other URI with urlopen (http, or file:// on this
    machine): a caller-chosen request made by the server."""
    from referencing import Registry

    return Registry()


# The draft's format checks for a schema, except that a `pattern` must compile for the engine
# that will match it (`patterns`), not for Python's `re`.
@functools.cache
def _schema_formats() -> Any:
    from jsonschema import Draft202012Validator

    formats = copy.copy(Draft202012Validator.FORMAT_CHECKER)
    formats.checkers = {**formats.checkers, "regex": (patterns.compiles, patterns.pattern_error())}
    return formats


@functools.cache
def _meta_schema() -> dict[str, Any]:
    from jsonschema import Draft202012Validator

    return Draft202012Validator.META_SCHEMA  # type: ignore[no-any-return]


@functools.cache
def _meta_validator() -> Validator:
    """The draft's meta-schema compiled with the counted keywords (`_draft202012`), as
    `check_schema` compiles it with jsonschema's own."""
    return _draft202012()(_meta_schema(), format_checker=_schema_formats())  # type: ignore[no-any-return]


# Schema-side values (enum members, const, patterns) are quoted in reasons only up to this length.
_QUOTE_LIMIT = 80


def check_object_schema(value: object, path: str) -> dict[str, Any]:
    """`value` itself if it is a usable object schema, else a caller error naming where it is not.

    The error path continues `path` into the schema (`output_schema.properties.age.type`), so the
    caller sees the exact keyword to fix.
    """
    if not isinstance(value, dict):
        raise caller_error(path, f"expected a JSON Schema object, got {type_name(value)}")
    canonical = _canonical(value)
    digest = None if canonical is None else canonical[0]
    if digest is not None and _checked.get(digest) is not None:
        _count("found_checked")
        return value  # this very schema passed every check below before
    _count("checked_in_full")
    _check_in_full(value, path)
    if digest is not None:
        _checked.put(digest, True, 1)
    return value


def stats() -> dict[str, int]:
    """How the checks and the validators have served since the process started, told without
    timing anything: `checked_in_full`, the schemas `check_object_schema` checked against the
    draft (passing or not); `found_checked`, those it found among the schemas that passed before
    and did not check again; `validated`, the values `first_violation` validated against a schema
    (a host's answer, a persona's request); `validators` and `validator_bytes`, the compiled
    validators held now and the size of their schemas' text (within `VALIDATOR_CACHE_SIZE` and
    `VALIDATOR_CACHE_BYTES`)."""
    with _stats_lock:
        counted = dict(_stats)
    return {**counted, "validators": len(_validators), "validator_bytes": _validators.held}


def forget_checked() -> None:
    """Forget which schemas passed: the next check of each is made in full again."""
    _checked.clear()


def _count(what: str) -> None:
    with _stats_lock:
        _stats[what] += 1


def _check_in_full(value: dict[str, Any], path: str) -> None:
    # jsonschema's own check against the draft's meta-schema (`check_schema`: its first error),
    # with every keyword counted against the check's budget as a validation is: the meta-schema
    # applies some thirty keywords to each subschema of the caller's, so a schema of many
    # properties would otherwise cost seconds outside every bound.
    try:
        with patterns.bounded(_meta_schema(), timed=False):
            error = next(_meta_validator().iter_errors(value), None)
    except patterns.TooManySteps as err:
        raise caller_error(path, _too_large(err.bound)) from None
    except patterns.PatternTooLarge as err:
        where = patterns.where(value, err.pattern)
        raise caller_error(_schema_path(path, _pointer_parts(where)), err.reason()) from None
    except RecursionError:
        raise caller_error(path, "the schema is nested too deeply to check") from None
    if error is not None:
        raise caller_error(_schema_path(path, error.absolute_path), _schema_reason(error))
    root_type = value.get("type")
    if root_type != "object":
        got = "no 'type'" if "type" not in value else f"type {_quote(root_type)}"
        raise caller_error(path, f'the root of the schema must have "type": "object", it has {got}')
    _check_refs(value, path)


# The canonical forms worked out during one request, by the identity of the schema object (held,
# so the identity cannot be reused while the request lives): the check at the parse and the
# validator at the answer read the same object, and a large schema's dump is a third of what a
# call with it costs. None outside a request (`remember_per_request`).
_PER_REQUEST: ContextVar[dict[int, tuple[object, bytes, str]] | None] = ContextVar(
    "schemas_per_request", default=None
)


def remember_per_request() -> None:
    """Keep this request's canonical forms for the rest of it (the server calls it per request;
    each request runs in a context of its own, so they go when it ends)."""
    _PER_REQUEST.set({})


def per_request() -> dict[int, tuple[object, bytes, str]] | None:
    """This request's kept forms, by the identity of what they are of (None outside a request):
    also for the digests of other values read twice in a request (`definitions.read_tools`)."""
    return _PER_REQUEST.get()


def _canonical(schema: Mapping[str, Any]) -> tuple[bytes, str] | None:
    """The digest of the schema's canonical JSON text (sorted keys), and the text; None when it has
    none (nested too deeply to write, or holding what JSON cannot): then nothing is cached."""
    kept = _PER_REQUEST.get()
    if kept is not None:
        found = kept.get(id(schema))
        if found is not None and found[0] is schema:
            return found[1], found[2]
    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return None
    digest = hashlib.sha256(text.encode()).digest()
    if kept is not None:
        kept[id(schema)] = (schema, digest, text)
    return digest, text


def validator_for(schema: Mapping[str, Any]) -> Validator:
    """The compiled validator of `schema`, shared by every equal schema.

    The key is the schema's canonical JSON text, so equal schemas share one validator whatever
    their key order, and the validator works on its own copy: a caller mutating its dict later
    cannot change a cached validator.
    """
    canonical = _canonical(schema)
    if canonical is None:  # not JSON: compiled for this use only, from the caller's own dict
        return _draft202012()(quieted(copy.deepcopy(dict(schema))), registry=_no_retrieval())
    digest, text = canonical
    found = _validators.get(digest)
    if found is None:
        found = _draft202012()(quieted(json.loads(text)), registry=_no_retrieval())
        _validators.put(digest, found, len(text))
    return found  # type: ignore[no-any-return]


def _properties(
    validator: Validator, properties: Mapping[str, Any], instance: object, schema: Mapping[str, Any]
) -> Iterable[ValidationError]:
    """Draft 2020-12 `properties`, except that a property whose subschema is `false` is named.

    jsonschema (4.26) drops the path of an error from a `false` subschema, so the pointer would
    name the parent object; this says which property the schema forbids.
    """
    if not isinstance(instance, dict):
        return
    for name, subschema in properties.items():
        if name not in instance:
            continue
        if subschema is False:
            from jsonschema.exceptions import ValidationError

            yield ValidationError("a property whose schema is false", path=[name], schema_path=[name])
        else:
            yield from validator.descend(instance[name], subschema, path=name, schema_path=name)


def _unique_items(
    validator: Validator, unique: bool, instance: object, schema: Mapping[str, Any]
) -> Iterable[ValidationError]:
    """Draft 2020-12 `uniqueItems`, by hashing each item's JSON value once (see `_same`): linear in
    the array, where jsonschema's falls back to comparing every pair of objects."""
    if not unique or not isinstance(instance, list):
        return
    seen: set[Any] = set()
    for item in instance:
        patterns.step()
        key = _same(item)
        if key in seen:
            from jsonschema.exceptions import ValidationError

            yield ValidationError("items must be unique")
            return
        seen.add(key)


def _same(value: object) -> Any:
    """A hashable value equal for two JSON values exactly when JSON Schema calls them equal: 1 and
    1.0 alike, true and 1 not, objects whatever their key order."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, int | float):
        return ("number", int(value) if isinstance(value, float) and value.is_integer() else value)
    if isinstance(value, list):
        return ("array", tuple(_same(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _same(item)) for key, item in value.items()))
    return ("other", id(value))


# jsonschema writes the value it checks into the message of every error it makes (`type`: "{the
# whole instance!r} is not of type ...", `enum`: the instance and every enum value), on every
# failing branch of a combinator or a `$ref` fan-out, and the check never reads those messages:
# its reason is worded from the schema by `_rule`. A value whose repr is a constant makes that
# cost nothing, so a check reads a quiet copy of the instance, and a validator a quiet copy of its
# schema: objects, arrays and strings longer than this print as `{...}`, `[...]`, `'...'`.
QUIET_FROM = 80


class _QuietDict(dict):  # type: ignore[type-arg]
    __slots__ = ()

    def __repr__(self) -> str:
        return "{...}"


class _QuietList(list):  # type: ignore[type-arg]
    __slots__ = ()

    def __repr__(self) -> str:
        return "[...]"

    def __getitem__(self, index: Any) -> Any:
        # A slice is quiet too: `items: false` writes the items past the prefix into its message.
        found = list.__getitem__(self, index)
        return _QuietList(found) if isinstance(index, slice) else found


class _QuietStr(str):
    __slots__ = ()

    def __repr__(self) -> str:
        return "'...'"


def quieted(value: Any) -> Any:
    """A copy of a JSON value whose objects, arrays and long strings (keys too) have a constant
    repr; equal to it, of the same types to `isinstance`. Linear, and iterative: a value nested
    deeper than Python's recursion is copied all the same."""
    root = [value]
    pending: list[tuple[Any, Any]] = [(root, 0)]  # (container, key): the value to replace there
    while pending:
        parent, key = pending.pop()
        item = parent[key]
        if isinstance(item, str):
            if len(item) > QUIET_FROM:
                parent[key] = _QuietStr(item)
        elif isinstance(item, dict):
            copied = _QuietDict()
            for name, child in item.items():
                copied[_QuietStr(name) if isinstance(name, str) and len(name) > QUIET_FROM else name] = child
            parent[key] = copied
            pending.extend((copied, name) for name in copied)
        elif isinstance(item, list):
            copied_list = _QuietList(item)
            parent[key] = copied_list
            pending.extend((copied_list, index) for index in range(len(copied_list)))
    return root[0]


def _counted(keyword: Any) -> Any:
    """A keyword of the validator that first takes one step of the check's budget."""

    def counted(validator: Validator, value: Any, instance: object, schema: Mapping[str, Any]) -> Any:
        patterns.step()
        return keyword(validator, value, instance, schema)

    return counted


# The keywords whose errors hold the errors of their branches (`context`).
GROUPING = ("oneOf", "anyOf")


def _grouping(keyword: Any) -> Any:
    """A combinator whose errors the check's budget notes (`patterns.grouped`)."""

    def noted(validator: Validator, value: Any, instance: object, schema: Mapping[str, Any]) -> Any:
        for error in keyword(validator, value, instance, schema) or ():
            yield patterns.grouped(error)

    return noted


@functools.cache
def _draft202012() -> Any:
    """Draft 2020-12 with the `properties` fix and the linear `uniqueItems` above, every keyword
    counted against the check's budget; everything else is jsonschema's own."""
    from jsonschema import Draft202012Validator, validators

    keywords = {**Draft202012Validator.VALIDATORS, "properties": _properties, "uniqueItems": _unique_items}
    keywords.update({name: _grouping(keywords[name]) for name in GROUPING})
    counted = validators.extend(Draft202012Validator, {name: _counted(fn) for name, fn in keywords.items()})
    _keep_class(validators, counted)
    return counted


def _keep_class(validators: Any, counted: Any) -> None:
    """jsonschema moves a check to the validator class a subschema's `$schema` names, each time it
    descends into one (`evolve` asks the module's `validator_for`, with the class it is in as the
    default): every keyword under such a subschema would then be jsonschema's own and count no
    step, so a `$ref` fan-out whose definitions each name a `$schema` (the draft's own, or another)
    ran with no budget at all. Within the counted class, the check stays in it: every subschema is
    read as draft 2020-12 (as the spec says a caller's schema is, and as the draft's own
    meta-schema is), and everything else asks jsonschema as before."""
    original = validators.validator_for
    if getattr(original, "keeps", None) is counted:
        return

    def validator_for(schema: Any, *args: Any, **kwargs: Any) -> Any:
        default = args[0] if args else kwargs.get("default")
        if default is counted:
            return counted
        return original(schema, *args, **kwargs)

    validator_for.keeps = counted  # type: ignore[attr-defined]
    validators.validator_for = validator_for


def first_violation(schema: Mapping[str, Any] | None, instance: object) -> tuple[str, str] | None:
    """`(pointer, reason)` of the most relevant violation, or None when `instance` is valid.

    `pointer` is the RFC 6901 JSON pointer of the offending value in the instance: `""` is the
    instance itself (the root), `/items/0/age` a nested one. The reason names the rule that failed
    and where it sits in the schema (`expected type integer, got string (schema
    /properties/age/type)`); it never quotes the instance. `schema` None means "no schema" (any
    JSON object), which nothing violates. A value strict JSON cannot carry (NaN, an infinity, an
    integer too long to write) violates every schema. The schema must have passed `check_object_schema`.
    Raises `patterns.OverBudget` when the check cannot be finished within its bounds: its
    patterns take longer than the time bound (`SchemaTimeout`), it takes more steps than its
    budget (`TooManySteps`), or a pattern is too large to compile (`PatternTooLarge`).
    """
    if schema is None:
        return None
    _count("validated")
    strict = not_json(instance)
    if strict is not None:
        # A NaN satisfies `{"type": "number"}` in jsonschema, yet no JSON text can hold it: the
        # answer would be returned as text that is not JSON (spec section 3: never bad output).
        return json_pointer(strict[0]), strict[1]
    from jsonschema.exceptions import best_match

    try:
        with patterns.bounded(schema):
            error = best_match(validator_for(schema).iter_errors(quieted(instance)))
    except RecursionError:
        # A recursive schema ("$ref": "#") and an answer nested thousands deep; it cannot be
        # shown valid, so it is not taken.
        return "", "nested too deeply to validate"
    if error is None:
        return None
    return json_pointer(
        error.absolute_path
    ), f"{_rule(error)} (schema {json_pointer(error.absolute_schema_path)})"


def json_pointer(parts: Iterable[str | int]) -> str:
    """RFC 6901: each step prefixed by "/", with "~" written "~0" and "/" written "~1"."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def _rule(error: ValidationError) -> str:
    """What `error` means, from the schema's side only (jsonschema's messages quote the instance)."""
    keyword = error.validator
    expected: Any = error.validator_value
    instance = error.instance
    if keyword == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        return f"expected type {wanted}, got {_json_type(instance)}"
    if keyword == "required":
        missing = [name for name in expected if isinstance(instance, dict) and name not in instance]
        noun = "property" if len(missing) == 1 else "properties"
        return f"missing required {noun} {_names(missing)}"
    if keyword == "dependentRequired" and isinstance(instance, dict):
        for trigger, needed in expected.items():
            absent = [name for name in needed if trigger in instance and name not in instance]
            if absent:
                return f"property {_quote(trigger)} requires {_names(absent)}"
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        # The unexpected names come from the instance: say which names are allowed instead.
        declared = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        listed = _listing(declared, _QUOTE_LIMIT)
        allowed = f" (allowed: {listed})" if declared and listed is not None else ""
        return f"has a property the schema does not allow{allowed}"
    if keyword == "enum":
        listed = _listing(expected, _QUOTE_LIMIT)
        return "must be one of the enum values" + ("" if listed is None else f": {listed}")
    if keyword == "const":
        shown = _short(expected, _QUOTE_LIMIT)
        return "must equal the schema's const value" + ("" if shown is None else f" {shown}")
    if keyword in _BOUNDS:
        return _BOUNDS[keyword].format(expected)
    if keyword == "pattern":
        shown = _short(expected, _QUOTE_LIMIT)
        return "does not match the pattern" + ("" if shown is None else f" {shown}")
    if keyword in ("items", "unevaluatedItems") and expected is False:
        return "has more items than the schema allows"
    if keyword == "not":
        return "matches the schema under 'not', which it must not"
    if keyword == "anyOf":
        return "matches none of the anyOf alternatives"
    if keyword == "oneOf":
        return "must match exactly one oneOf alternative (it matches none or several)"
    if keyword in ("contains", "minContains", "maxContains"):
        return "too few or too many items match 'contains'"
    if keyword == "properties":  # only `_properties` reports under its own keyword
        return "the schema forbids this property (its schema is false)"
    if keyword is None:  # a `false` subschema: nothing is allowed here
        return "no value is allowed here (the schema is false)"
    return f"fails the {_quote(keyword)} keyword"


_BOUNDS = {
    "minimum": "must be >= {}",
    "maximum": "must be <= {}",
    "exclusiveMinimum": "must be > {}",
    "exclusiveMaximum": "must be < {}",
    "multipleOf": "must be a multiple of {}",
    "minLength": "shorter than minLength {}",
    "maxLength": "longer than maxLength {}",
    "minItems": "fewer items than minItems {}",
    "maxItems": "more items than maxItems {}",
    "uniqueItems": "items must be unique",
    "minProperties": "fewer properties than minProperties {}",
    "maxProperties": "more properties than maxProperties {}",
}


def _json_type(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return "integer"
    return type_name(value)


# A list of names (the required properties missing, say) is shown up to this many characters.
_NAMES_LIMIT = 200


def _names(names: list[Any]) -> str:
    """The names quoted and joined, as many as fit in `_NAMES_LIMIT` characters, then how many more."""
    shown: list[str] = []
    used = 0
    for name in names:
        quoted = _short(name, _NAMES_LIMIT - used)
        if quoted is None:
            break
        shown.append(quoted)
        used += len(quoted) + 2
    more = len(names) - len(shown)
    if not more:
        return ", ".join(shown)
    return ", ".join([*shown, f"and {more} more"]) if shown else f"{more} of them"


def _listing(values: Iterable[Any], limit: int) -> str | None:
    """The values quoted and joined, if that takes at most `limit` characters; else None, having
    written no more of it than that."""
    parts: list[str] = []
    used = -2
    for value in values:
        quoted = _short(value, limit - used - 2)
        if quoted is None:
            return None
        parts.append(quoted)
        used += len(quoted) + 2
    return ", ".join(parts)


def _short(value: object, limit: int) -> str | None:
    """`value` as a reason quotes it (a string as Python writes it, anything else as JSON with
    sorted keys), if that takes at most `limit` characters; else None. Written no further than the
    limit: a schema's value may be megabytes, and a reason is made for every check that fails."""
    if isinstance(value, str):
        if len(value) + 2 > limit:
            return None
        quoted = ascii(str(value))
        return quoted if len(quoted) <= limit else None
    written: list[str] = []
    size = 0
    for chunk in _SORTED.iterencode(value):
        size += len(chunk)
        if size > limit:
            return None
        written.append(chunk)
    return "".join(written)


# Sorted keys, written piece by piece (`iterencode`), so `_short` can stop at its limit.
_SORTED = json.JSONEncoder(sort_keys=True)


def _quote(value: object) -> str:
    """`value` as a reason quotes it (see `_short`), or, past `_NAMES_LIMIT`, says it is long."""
    shown = _short(value, _NAMES_LIMIT)
    return shown if shown is not None else "(a value too long to show)"


def _pointer_parts(pointer: str) -> list[str]:
    if not pointer.startswith("/"):
        return []
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def _schema_path(path: str, parts: Iterable[str | int]) -> str:
    for part in parts:
        path = path_of(path, part)
    return path


def _too_large(bound: int) -> str:
    return (
        f"the schema could not be checked within its budget: checking it against the draft's "
        f"meta-schema took more than {bound} steps ({patterns.STEPS_SETTING}; each keyword applied "
        "is one, some thirty for each property or other subschema of the schema)"
    )


def _schema_reason(err: ValidationError) -> str:
    """jsonschema's own message: it quotes the schema, which is the caller's, so it may be shown."""
    message = str(err.message)
    return message if len(message) <= 200 else message[:199] + "…"


def _check_refs(schema: dict[str, Any], path: str) -> None:
    """Every `$ref` and `$dynamicRef` must resolve within the schema (or to a draft meta-schema).

    The validator resolves references lazily, so an unresolvable one would surface only when an
    answer reaches it, after the host was asked; and a remote URL is never fetched. Walking the
    schema's subresources the way the draft defines them keeps `$id` scoping right.
    """
    from jsonschema_specifications import REGISTRY as META_SCHEMAS
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    root = DRAFT202012.create_resource(schema)
    # The same resolver the validator builds for itself (meta-schemas plus this schema).
    resolver = META_SCHEMAS.combine(_no_retrieval()).resolver_with_root(root)
    pending: list[tuple[Resource[Any], Any]] = [(root, resolver)]
    while pending:
        resource, scope = pending.pop()
        contents = resource.contents
        for keyword in ("$ref", "$dynamicRef"):  # a $dynamicRef starts from its static target
            ref = contents.get(keyword) if isinstance(contents, dict) else None
            if isinstance(ref, str):
                try:
                    scope.lookup(ref)
                except Unresolvable:
                    raise caller_error(
                        path,
                        f"{keyword} {_quote(ref)} does not resolve inside the schema "
                        "(remote references are never fetched; use $defs)",
                    ) from None
        pending.extend((sub, scope.in_subresource(sub)) for sub in resource.subresources())


def pointer_text(pointer: str) -> str:
    """A JSON pointer as an error message shows it: quoted, the root named as such."""
    return f"'{pointer}'" if pointer else "'' (the root)"
