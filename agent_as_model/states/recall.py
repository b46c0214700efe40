"""What round one of a 2026-07-28 call read from its arguments, remembered for the call's retry:
the retry reads nothing twice.

On 2026-07-28 a call is two requests with the same arguments. The retry's sealed state proves
that (`Router.proven`: the SDK's seal binds the tool and the exact arguments, the state this
server's version and the call's identity), so the neutral request round one read from them is
the request the retry would read: parsing the conversation again would only make it a second
time. So the round that suspends remembers its request under the call's identity (the state
carries it, `Suspension.call`), and a proven retry takes it instead of reading its arguments
(`states/resume.py`); a request that is not proven, or finds nothing remembered (another
worker's call, evicted, an earlier retry took it), is read in full as ever.

Bounded: a caller decides how many calls it starts and never retries, so the remembered requests
are held in a `BoundedCache` of at most `READS_ENTRIES` entries and `READS_BYTES` of their
estimated size, the least recently remembered going first. A retry takes its entry (a state may be presented
again within its lifetime, and that one is read in full), so only calls between their rounds are
held. The key is the call's identity, random per call and unforgeable without the state's seal;
with the tool name beside it.
"""

from __future__ import annotations

from operator import itemgetter

from agent_as_model.adapters.backends.base import Suspension
from agent_as_model.adapters.tools.definitions import written_size
from agent_as_model.caches import BoundedCache
from agent_as_model.neutral import Request, Text
from agent_as_model.records import Record
from agent_as_model.states.call import CallRecord, HostPlan

# Calls between their rounds. Each is short (a host answers within seconds); a busy server has
# a few hundred in flight at most.
READS_ENTRIES = 1024
READS_BYTES = 64 * 1024 * 1024
# Estimated bytes of one turn's objects beside its texts: the Turn, its blocks' tuples, its path,
# and its entry of the cursor transcript.
TURN_BYTES = 400
# The repr of a request's fields beside the conversation, the system prompt and the model, when
# none of them carries anything of the caller's (`estimated_size`): a few hundred bytes, rounded up.
PLAIN_REST = 1024
_BLOCKS, _FIRST, _TEXT = itemgetter(1), itemgetter(0), itemgetter(0)

_READS = BoundedCache(READS_BYTES, READS_ENTRIES)


class RoundOneRead(Record):
    """What the retry takes: the request, whether its conversation counts as large, and how it
    was put to the host (the plan: the tools' names both ways, worked out once per call)."""

    request: Request
    large: bool | None
    plan: HostPlan


def remember_read(record: CallRecord, suspension: Suspension) -> None:
    """awaiting_host -> suspended: remember what this round read, for the retry of the same call.
    Not a request that fetched remote media: its retry fetches again, and the state binds the
    bytes (mrtr.py). (One of several completions, `n`, remembers its request too, though its
    retry reads the call's arguments in full: a state of several proves nothing before they are
    read. Bounded like the rest; telling the completions apart would cost every call.)"""
    record.asked = suspension.result
    call = suspension.call
    if call is None:
        return
    request = record.request
    if request.fetched:
        return
    _READS.put((record.tool, call), RoundOneRead(request, record.large, record.plan), estimated_size(request))


def take_read(tool: str, call: str | None) -> RoundOneRead | None:
    """What round one of the call remembered for its proven retry, taken (a state presented again
    finds nothing, and reads its arguments in full); None when nothing is remembered."""
    if call is None:
        return None
    found = _READS.take((tool, call))
    return found if isinstance(found, RoundOneRead) else None


def holds_read(tool: str, call: str | None) -> bool:
    """Whether round one of the call remembered what it read (without taking it)."""
    return call is not None and _READS.get((tool, call)) is not None


def estimated_size(request: Request) -> int:
    """Bytes the remembered request holds, roughly: its texts, a fixed share per turn, and the rest
    (tools, schemas, system prompt) by the length of its repr, which C code writes quickly.

    A request that carries nothing of the caller's beyond the conversation, the system prompt
    and the model (no tools, tool choice, contract, stop words, persona, echoed parameters or
    media) has a rest of bounded size: `PLAIN_REST` stands for it, with those two texts, where
    its repr is slow (a NamedTuple's repr formats with `%`, field by field); and a plain
    conversation's texts are summed in C."""
    if (
        request.tools
        or request.tool_choice is not None
        or request.output is not None
        or request.stop
        or request.persona is not None
        or request.echo
        or request.media
        or request.fetched
    ):
        tools = written_size(request.tools) if request.tools else None
        if tools is None:
            size = len(repr(request._replace(turns=(), chain=None)))
        else:  # the definitions by the length of the JSON they were read from, far cheaper
            size = len(repr(request._replace(turns=(), chain=None, tools=()))) + tools
    else:
        size = PLAIN_REST + len(request.system or "") + len(request.model)
    if request.plain:  # each turn one Text: turn[1] its blocks, [0] the Text, [0] its text
        texts = map(_TEXT, map(_FIRST, map(_BLOCKS, request.turns)))
        return size + TURN_BYTES * len(request.turns) + sum(map(len, texts))
    for turn in request.turns:
        size += TURN_BYTES
        for block in turn.blocks:
            size += len(block.text) if type(block) is Text else len(repr(block))
    return size


def forget_all() -> None:
    """Forget every read (tests: a retry that finds nothing reads its arguments in full)."""
    _READS.clear()


def remembered_count() -> int:
    return len(_READS)
