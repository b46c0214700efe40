"""received -> validated: the dialect reads the arguments into a neutral request, before
anything is sent. The checks of the conversation as a whole (below) run at build, after the route
is chosen (`check_conversation`); a proven retry, which passed them on its round one, takes its
own row and does not run them (`states/resume.py`).

The conversation's tool turns are checked against MCP's ordering rules, and a session cursor is
verified against the history passed back. Those rules (SEP-1577; the SDK's
`validate_tool_use_result_messages` checks the last two messages only, and raises an opaque
error) are checked here over the whole conversation, so a malformed sequence is a caller error
naming the turn, before anything is sent, on both eras alike:
- a turn with tool results holds only tool results and follows an assistant turn with tool calls;
- the results answer exactly the calls of that turn (same ids, each once);
- an assistant turn with tool calls is followed by their results.
"""

from __future__ import annotations

from agent_as_model import cursors
from agent_as_model.adapters.dialects.parse import read_request, with_fetched
from agent_as_model.adapters.tools.definitions import known_tools
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Request, ToolResult, ToolUse, Turn, has_tool_blocks
from agent_as_model.states.call import CallRecord
from agent_as_model.states.entries import check_arguments, check_written, written


def validate_call(record: CallRecord) -> None:
    record.request = read_arguments(record)  # the later states read the request


def read_arguments(record: CallRecord) -> Request:
    """The call's arguments read by its dialect into a neutral request, with the server's
    defaults and bounds applied; a `CallError` naming the path of the first problem."""
    bound = record.limits.max_entries
    key = record.dialect.body.conversation
    counted = None
    if bound < LARGE_ENTRIES or large_input(record):
        # Before the reading: a conversation far over the bound is not read at all.
        counted = check_written(record.arguments.get(key), key, bound)
    request, record.unfetched = read_request(record.dialect, record.arguments, record.fetched)
    if not request.plain:  # tool calls, whose arguments' values count too
        if counted is None:  # no more than LARGE_ENTRIES as written: within the bound
            counted = check_written(record.arguments.get(key), key, bound)
        check_arguments(request, counted, bound)
    if request.result is None and record.limits.result == "object" and record.dialect.render_object:
        # The server's default (`serve --result object`), where the tool has an object shape: a
        # raw prompt stays text, as it has no other (docs/decisions.md).
        request = request._replace(result="object")
    if request.n > 1:
        check_choices(request, record.limits.max_n)
    if request.media:
        check_media(request, record.limits.max_media_bytes, record.limits.max_media_call_bytes)
    return request


def wants_media(record: CallRecord) -> bool:
    """The reading met remote media still to fetch (`serve --fetch-media`)."""
    return record.unfetched is not None


# Fetched media, in base64 characters, beyond which it is decoded, checked and hashed in a worker
# thread: the work is linear in the bytes, which the caller chose by the URLs it sent, and a call's
# media bound lets them grow large enough to hold up every other request on the event loop.
LARGE_FETCHED = 1 << 20


def large_fetched(record: CallRecord) -> bool:
    """Whether the media fetched for this call is over `LARGE_FETCHED` (one sum over its parts)."""
    fetched = record.fetched
    return fetched is not None and sum(len(part.data) for part in fetched.values()) > LARGE_FETCHED


def put_fetched(record: CallRecord) -> None:
    """The fetched media in the request, in the place of what stood in
    for them, checked as inline media is (the arguments are not read again)."""
    unfetched = record.unfetched
    assert unfetched is not None and record.fetched is not None  # wanted only while fetching is on
    request = with_fetched(record.request, unfetched, record.fetched)
    record.unfetched = None
    check_media(request, record.limits.max_media_bytes, record.limits.max_media_call_bytes)
    record.request = request


def check_media(request: Request, part_bound: int, call_bound: int) -> None:
    """The inline media's decoded bytes: each part, and all of them together."""
    total = 0
    for part in request.media:
        if part.size > part_bound:
            raise caller_error(
                part.path,
                f"the media part is {part.size} bytes, over the bound of {part_bound} "
                "(serve --max-media-bytes)",
            )
        total += part.size
        if total > call_bound:
            raise caller_error(
                part.path,
                f"the call's media come to more than the bound of {call_bound} bytes together "
                "(serve --max-media-call-bytes)",
            )


def check_choices(request: Request, max_n: int) -> None:
    """Several completions (spec section 10): within the server's bound, in an object (a text
    result holds one), and without a cursor (a cursor follows one conversation)."""
    if request.n > max_n:
        raise caller_error(
            request.n_path, f"at most {max_n} completions per call (the server's --max-n), got {request.n}"
        )
    if request.result != "object":
        raise caller_error(
            request.n_path,
            f"{request.n} completions need result: 'object' (a text result holds one completion)",
        )
    if request.chain is not None:
        raise caller_error(
            cursors.PARAMETER,
            f"a cursor follows one conversation, and {request.n_path} {request.n} asks for several: "
            "omit previous_response_id, or ask for one completion",
        )


def check_conversation(request: Request, tool_blocks: bool) -> None:
    """The tool-turn order over the whole conversation, and a cur_ cursor against the history
    passed back (spec section 6). `tool_blocks`: whether the conversation holds tool calls or
    results (`neutral.has_tool_blocks`, which build asks once for this and the plan)."""
    if tool_blocks:
        check_tool_turns(request.turns)
    chain = request.chain
    if chain is not None:
        previous = cursors.Previous(chain.form, chain.previous)
        cursors.verify(previous, request.model, request.tool, chain.history)


def checks_caller_schemas(record: CallRecord) -> bool:
    """Whether validating this call may check a caller's JSON Schema: an argument beyond the plain
    body (the conversation and its limits) whose value is an object or an array can carry one (an
    output contract, tool definitions, a persona, a product's config). Patterns are matched in
    bounded time, but checking a schema costs in proportion to its size, so the driver then
    validates off the event loop, where it cannot hold up other requests. A plain body, and one
    whose extras are scalars (a cursor, a stop word, a hint), carries no schema and stays on the
    loop, because a thread hop has a cost of its own (both figures: benchmarks/README.md, "Figures
    the code cites"). Definitions read before (`known_tools`: the same array, as written) are
    not read again, so they check nothing: a call whose only such argument is they stays on the loop
    too (the hop cost more than the work: benchmarks/README.md)."""
    plain = record.dialect.body.plain
    for key, value in record.arguments.items():
        if key in plain or not isinstance(value, dict | list):
            continue
        shape = record.dialect.tools
        if key == "tools" and shape is not None and known_tools(value, key, shape) is not None:
            continue
        return True
    return False


# Entries (messages, their parts, their tool calls: `entries.py`) beyond which a conversation is
# read, checked and turned into a payload in a worker thread: the reading is linear, but tens of
# thousands of entries take long enough to hold up every other request on the event loop.
LARGE_ENTRIES = 1000


def large_input(record: CallRecord) -> bool:
    """Whether the call's conversation holds more than `LARGE_ENTRIES` entries as written.
    Counting stops at the bound, so it costs the loop little, and it is counted once per record."""
    large = record.large
    if large is None:
        conversation = record.arguments.get(record.dialect.body.conversation)
        large = record.large = isinstance(conversation, list) and written(conversation, LARGE_ENTRIES)[1] >= 0
    return large


def validates_off_loop(record: CallRecord) -> bool:
    """Whether reading this call's arguments runs in a worker thread: it may check a caller's
    schema, or its conversation is large."""
    return checks_caller_schemas(record) or large_input(record)


def check_tool_turns(turns: tuple[Turn, ...]) -> None:
    if not has_tool_blocks(turns):
        return  # nothing to order
    calls_before: list[str] | None = None  # the call ids of the assistant turn just before
    previous_path = ""
    for turn in turns:
        calls = [b.id for b in turn.blocks if isinstance(b, ToolUse)]
        results = [b.tool_use_id for b in turn.blocks if isinstance(b, ToolResult)]
        if results:
            if len(results) != len(turn.blocks):
                raise caller_error(turn.path, "a turn with tool results must hold only tool results")
            if calls_before is None:
                raise caller_error(turn.path, "tool results must follow an assistant turn with tool calls")
            _match(turn.path, calls_before, results)
        elif calls_before is not None:
            raise caller_error(previous_path, _unanswered(calls_before))
        if len(set(calls)) != len(calls):
            raise caller_error(turn.path, "two tool calls share one id")
        calls_before = calls or None
        previous_path = turn.path
    if calls_before is not None:
        raise caller_error(previous_path, _unanswered(calls_before))


def _match(path: str, calls: list[str], results: list[str]) -> None:
    # Sets, not list scans: a turn may answer tens of thousands of calls.
    called, answered = set(calls), set(results)
    extra = next((r for r in results if r not in called), None)
    if extra is not None:
        raise caller_error(path, f"tool result for {extra!r}, which the assistant turn before did not call")
    if len(answered) != len(results):
        raise caller_error(path, f"two tool results for {_first_repeated(results)!r}")
    missing = next((c for c in calls if c not in answered), None)
    if missing is not None:
        raise caller_error(path, f"no tool result for call {missing!r} of the assistant turn before")


def _first_repeated(items: list[str]) -> str:
    seen: set[str] = set()
    for item in items:
        if item in seen:
            return item
        seen.add(item)
    raise ValueError("no item is repeated")


def _unanswered(calls: list[str]) -> str:
    return (
        f"the tool call(s) {', '.join(repr(c) for c in calls)} need their results in the next turn "
        "before the model can be asked again"
    )
