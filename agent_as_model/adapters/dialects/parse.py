"""The one parse path: any dialect's arguments into a typed `Request`, read from its declaration.

The order is the same for every dialect, so an error names the first problem the same way
everywhere: unknown parameters and the product's hints and refusals; the conversation (the
dialect's own reader); then, for a body beyond the plain one, the output contract, tools and
tool_choice, the persona, max_tokens under its native name, stop sequences, repair attempts and
the cursor chain, and what becomes of the hints (hints.py); last the model and the limits. A
dialect whose parameters nest (a config object) hands those readers its `view` of the arguments,
and errors name the caller's paths.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects import common, contracts, extensions, hints, media, options
from agent_as_model.adapters.dialects.dialect import Dialect
from agent_as_model.adapters.dialects.turns import Turns
from agent_as_model.errors import CallError, caller_error
from agent_as_model.neutral import (
    EMPTY,
    Chain,
    Hinted,
    OutputContract,
    Persona,
    Request,
    ToolChoice,
    ToolSpec,
)
from agent_as_model.records import Record

if TYPE_CHECKING:
    from agent_as_model.neutral import BackendChoice


def parse_request(dialect: Dialect, args: Mapping[str, Any]) -> Request:
    """The arguments read with remote media refused (the default)."""
    return read_request(dialect, args, None)[0]


def read_request(
    dialect: Dialect, args: Mapping[str, Any], fetched: Mapping[str, media.Fetched] | None
) -> tuple[Request, Unfetched | None]:
    """`fetched`: None while remote media is refused; with `serve --fetch-media`, what was
    fetched so far, by URL. Remote media not fetched yet leaves a stand-in in the request, and
    what `with_fetched` needs to put the fetched parts in their place once they are."""
    body = dialect.body
    plain = args.keys() <= body.plain
    # Refusals that hold for the host alone, left to the router (a product a provider may speak).
    host_only: list[CallError] | None = None
    if not plain:
        common.reject_unknown(args, dialect.INPUT_SCHEMA["properties"])
        host_only = [] if dialect.PRODUCT is not None else None
        options.check_natives(args, body.hints, body.refused, host_only)
    turns = Turns()
    turns.fetched = fetched
    if dialect.PRODUCT is not None:  # parts only the host cannot take, kept like the parameters
        turns.keeps_host_only = True
    dialect.read_conversation(args, turns)
    # Everything else is read first, so nothing is fetched for a call that is refused anyway.
    request = _read(dialect, args, turns, plain, host_only)
    # The parameters' first (the nested ones after the top-level ones), then the conversation's,
    # then the tools', each in body order: the order a reading that raised them at once would
    # meet them in.
    if turns.host_only or request.host_only:
        host_only = [*(host_only or ()), *turns.host_only, *request.host_only]
    if host_only:
        request = request._replace(host_only=tuple(host_only))
    if fetched is None or not turns.wanted:
        return request, None
    return request, Unfetched(tuple(turns.wanted), turns)


class Unfetched(Record):
    """A reading that met remote media to fetch: each `(url, path, allowed types)`, and the
    reading's conversation, whose stand-ins the fetched parts replace."""

    wanted: tuple[tuple[str, str, tuple[str, ...]], ...]
    turns: Turns


def with_fetched(request: Request, unfetched: Unfetched, fetched: Mapping[str, media.Fetched]) -> Request:
    """The request with the fetched parts in the place of their stand-ins, checked as inline
    media is; what the reading derived from the conversation made again from it, the arguments
    not read again."""
    turns = unfetched.turns
    turns.take_fetched(fetched)
    chain = request.chain
    return request._replace(
        turns=tuple(turns.build()),
        media=tuple(turns.media_parts),
        fetched=tuple(turns.fetched_digests),
        chain=None if chain is None else chain._replace(history=turns.transcript()),
    )


def _read(
    dialect: Dialect, args: Mapping[str, Any], turns: Turns, plain: bool, host_only: list[CallError] | None
) -> Request:
    body = dialect.body
    if plain:  # the common, hot path: nothing but the conversation and its limits
        return _request(dialect, args, turns)
    if body.view is None:
        return _options(dialect, args, args, turns)
    view, origins = body.view(args, host_only)  # nested parameters' host-only refusals join the list
    try:
        request = _options(dialect, args, view, turns, origins)
    except CallError as err:
        raise _moved(err, origins) from None
    # The body a provider of the product takes as written is the caller's, not the readers' view.
    return request._replace(own=args) if dialect.PRODUCT is not None else request


def _options(
    dialect: Dialect,
    given: Mapping[str, Any],
    args: Mapping[str, Any],
    turns: Turns,
    origins: Mapping[str, str] = EMPTY,
) -> Request:
    """Everything beyond the conversation, read from `args` (the dialect's view of what was
    `given`, with `origins` the caller's paths of what it moved); the persona checks the request
    object of the arguments as given."""
    body = dialect.body
    structured = extensions.takes_structured_output(dialect)
    output = options.read_output(args, body.native_output) if structured else None
    if output is not None and origins:  # a contract read from a moved key names the caller's path
        output = output._replace(path=_moved_path(output.path, origins))
    # A server tool (the product's API runs it) holds for the host alone, kept like the parameters.
    tool_refusals: list[CallError] | None = [] if dialect.PRODUCT is not None else None
    tools, choice = options.read_tool_options(args, dialect.tools, output, tool_refusals)
    if tool_refusals and origins:  # a refusal of a moved key names the caller's path
        tool_refusals = [_moved(err, origins) for err in tool_refusals]
    # One call at most: the product's top-level switch (already type-checked as a hint) or its
    # tool choice's own (read by the dialect's choice reader).
    single_call = None
    if body.parallel_calls is not None and args.get(body.parallel_calls) is False:
        single_call = body.parallel_calls
    elif choice is not None:
        single_call = choice.single_call
    if choice is not None and "tool_choice" in origins:  # an answer that breaks it names this path
        choice = choice._replace(path=origins["tool_choice"])
    persona = contracts.read_persona(given, body.request_object, output)
    max_tokens_name = options.read_max_tokens_alias(args, body.max_tokens_alias)
    stop = options.read_stop(args, body.stop)
    repair_attempts = options.read_repair_attempts(args, output, bool(tools)) if structured else 0
    chain = contracts.read_chain(args, dialect.NAME, body.has_history, turns.transcript, turns.open_assistant)
    # A response id of a product whose API keeps responses is that API's own as well as an anchor.
    own_previous = chain is not None and chain.form == "anchor" and dialect.storage is not None
    hinted, warnings, sent_as_hints = hints.read(args, body.fates, origins) if body.fates else (EMPTY, (), ())
    return _request(
        dialect,
        args,
        turns,
        max_tokens_name,
        origins.get(max_tokens_name, max_tokens_name),
        tools=tools,
        tool_choice=choice,
        output=output,
        stop=stop,
        repair_attempts=repair_attempts,
        persona=persona,
        chain=chain,
        single_call=single_call,
        backend=common.read_backend(args),
        n=common.read_choices(args, body.choices),
        n_path=origins.get(body.choices, body.choices) if body.choices is not None else "n",
        hinted=hinted,
        warnings=warnings,
        sent_as_hints=sent_as_hints,
        own_previous=own_previous,
        host_only=tuple(tool_refusals or ()),
    )


def _request(
    dialect: Dialect,
    args: Mapping[str, Any],
    turns: Turns,
    max_tokens_name: str = "max_tokens",
    max_tokens_path: str = "max_tokens",
    *,
    tools: tuple[ToolSpec, ...] = (),
    tool_choice: ToolChoice | None = None,
    output: OutputContract | None = None,
    stop: tuple[str, ...] = (),
    repair_attempts: int = 0,
    persona: Persona | None = None,
    chain: Chain | None = None,
    single_call: str | None = None,
    backend: BackendChoice = "auto",
    n: int = 1,
    n_path: str = "n",
    hinted: Mapping[str, Any] = EMPTY,
    warnings: tuple[str, ...] = (),
    sent_as_hints: tuple[Hinted, ...] = (),
    own_previous: bool = False,
    host_only: tuple[CallError, ...] = (),
) -> Request:
    body = dialect.body
    built = turns.build()
    if turns.left:  # another model's reasoning was left out of the turns: say where
        warnings = (*warnings, *hints.left_out(turns.left))
    if not built and not turns.host_only:  # left out whole, it is the router's to refuse
        raise caller_error(body.conversation, f"needs at least one user or assistant {body.turn_noun}")
    return Request(
        tool=dialect.NAME,
        system="\n\n".join(turns.system) or None,
        turns=tuple(built),
        model=common.read_model(args),
        max_tokens=common.read_max_tokens(args, max_tokens_name),
        max_tokens_path=max_tokens_path,
        temperature=common.read_temperature(args, body.max_temperature),
        tools=tools,
        tool_choice=tool_choice,
        output=output,
        stop=stop,
        repair_attempts=repair_attempts,
        persona=persona,
        chain=chain,
        single_call=single_call,
        backend=backend,
        result=common.read_result(args, dialect.NAME, dialect.render_object is not None),
        echo={key: args[key] for key in body.echo if args.get(key) is not None} if body.echo else EMPTY,
        n=n,
        n_path=n_path,
        media=tuple(turns.media_parts),
        fetched=tuple(turns.fetched_digests),
        plain=turns.plain,
        hints=hinted,
        warnings=warnings,
        hinted=sent_as_hints,
        product=dialect.PRODUCT,
        own=args if dialect.PRODUCT is not None else EMPTY,
        own_previous=own_previous,
        host_only=host_only,
    )


def _moved(err: CallError, origins: Mapping[str, str]) -> CallError:
    """The error with its path as the caller wrote it, when it is about a key the view moved."""
    path = _moved_path(err.path, origins)
    return err if path == err.path else CallError(path, err.reason, err.kind, err.repair)


def _moved_path(path: str, origins: Mapping[str, str]) -> str:
    """`path` as the caller wrote it, when it starts at a key the view moved."""
    for moved in sorted(origins, key=len, reverse=True):
        rest = path[len(moved) :]
        if path.startswith(moved) and (not rest or rest[0] in ".["):
            return origins[moved] + rest
    return path
