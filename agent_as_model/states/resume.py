"""received -> resumed -> answered: a 2026-07-28 retry proven by its sealed state.

On 2026-07-28 a call is two requests with the same arguments (spec section 2), and round one
already read them, checked the conversation (tool-turn order, a cursor) and built the payload.
When the retry's sealed state binds the host's answers to exactly that payload (`Router.proven`;
`backends/mrtr.py` says what binds it), nothing of that is done again: the retry takes the
request round one read (`states/recall.py`; read now, in full, when none is remembered), routes it
and puts it to the host as round one did (the plan, which interpret reads), and takes the answers
the state holds, with no exchange and no payload. Each step is a row of the machine's table,
with its guard, beside the steps of a call that is read and sent.

A repair round's retry replays the rounds before the one its state was minted for: each earlier
answer, with what it was found to break, is repaired again without being checked again (repairs
stay linear); the payload is built only when a round must be asked (`repair.ask_again`).
"""

from __future__ import annotations

from agent_as_model.adapters.backends.base import Resumption
from agent_as_model.errors import CallError
from agent_as_model.states.build import check_sampling, has_tool_blocks_in, plan_for
from agent_as_model.states.call import CallRecord, HostPlan
from agent_as_model.states.recall import holds_read, take_read
from agent_as_model.states.repair import add_repair
from agent_as_model.states.validate import checks_caller_schemas, large_input, read_arguments


def proven_retry(record: CallRecord) -> bool:
    """Before the arguments are read: the request is a retry its sealed state proves."""
    return record.router.proven() is not None


def proven_as_read(record: CallRecord) -> bool:
    """Once the arguments are read: the request is a retry its sealed state proves with the media
    this reading fetched (`serve --fetch-media`), or a completion of several whose own state does."""
    return record.router.proven(record.request.fetched) is not None


def resume_call(record: CallRecord) -> None:
    """received -> resumed: the request round one of this call read from these very arguments,
    how it was put to the host, and the answers the state binds."""
    resumption = _proven(record, ())
    read = take_read(record.tool, resumption.call)
    if read is None:  # another worker's round one, evicted, or a state presented again
        record.request = read_arguments(record)
        _resume(record, None)
        return
    record.request = read.request
    if record.large is None:
        record.large = read.large
    _resume(record, read.plan)


def resume_as_read(record: CallRecord) -> None:
    """validated -> resumed: the same, for a request read already."""
    _proven(record, record.request.fetched)
    _resume(record, None)


def _proven(record: CallRecord, fetched: tuple[str, ...]) -> Resumption:
    resumption = record.resumption = record.router.proven(fetched)
    assert resumption is not None  # the row's guard said so
    return resumption


def _resume(record: CallRecord, round_one: HostPlan | None) -> None:
    request = record.request
    route = record.route = record.router.route(request, record.resumption)
    check_sampling(route)
    # Round one's plan, when its host took tools as this one does (the plan is a function of the
    # request and that): nothing per tool is worked out again.
    if round_one is not None and round_one.host_tools == route.support.tools:
        record.plan = round_one
    else:
        tool_blocks = has_tool_blocks_in(request)
        record.plan = plan_for(request, route.support.tools, record.limits.host_without_tools, tool_blocks)


def resumes_off_loop(record: CallRecord) -> bool:
    """Whether resuming reads the arguments in a worker thread: round one's reading is not
    remembered, and reading them may check a caller's schema or the conversation is large
    (`validates_off_loop`)."""
    resumption = record.router.proven()
    if resumption is not None and holds_read(record.tool, resumption.call):
        return False
    return checks_caller_schemas(record) or large_input(record)


def replays_round(record: CallRecord) -> bool:
    """The state holds this round's answer as one an earlier request of the call judged."""
    resumption = record.resumption
    return resumption is not None and record.round_no < len(resumption.earlier)


def take_replayed(record: CallRecord) -> None:
    """resumed -> replayed: an earlier round's answer, as that round's host gave it."""
    assert record.resumption is not None  # resumed
    record.host_answer = record.resumption.earlier[record.round_no].answer


def repair_replayed(record: CallRecord) -> None:
    """replayed -> resumed: the repair the earlier request asked for, the same again without
    checking the answer again; the state answered the round it led to."""
    assert record.resumption is not None  # resumed
    add_repair(record, record.resumption.earlier[record.round_no].finding)


def take_bound_answer(record: CallRecord) -> None:
    """resumed -> answered: the host's answer to the round the state was minted for (a host
    error when it is no sampling result)."""
    assert record.resumption is not None  # resumed
    answer = record.resumption.answer
    if isinstance(answer, CallError):
        raise answer
    record.host_answer = answer
    record.answered += (answer,)
