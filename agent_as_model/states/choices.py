"""validated -> awaiting_choices: several independent completions of one call (`n`, Gemini's
`candidateCount`, spec section 10).

Each completion is a record of its own, made here from where the call stands (validated: the
arguments are read once), with its own router (`Router.choices`). The driver walks them side by
side, so on the legacy era their sampling requests are in flight at once and on 2026-07-28 their
input requests go in one round; each is checked and repaired on its own. Answered, they are
joined into the product's object (`commit.commit_choices`); on 2026-07-28 the ones still to be
answered go in one `InputRequiredResult` (`take_asked`).
"""

from __future__ import annotations

from mcp_types import InputRequiredResult

from agent_as_model.states.call import CallRecord


def asks_several(record: CallRecord) -> bool:
    """Whether the call asks for several completions (each then walks the machine on its own)."""
    return record.request.n > 1


def split_choices(record: CallRecord) -> None:
    """One record per completion, each asking for one, each starting where the call stands."""
    n = record.request.n
    # Each asks for one completion, and none passes the caller's body through (its `n` would
    # ask the provider for them all again).
    one = record.request._replace(n=1, product=None)
    choices = []
    for router in record.router.choices(n):
        choice = CallRecord(record.dialect, record.arguments, router, record.limits)
        choice.request = one
        choice.state = record.state  # validated: each is built, sent and read on its own
        choices.append(choice)
    record.choices = tuple(choices)


def take_asked(record: CallRecord, asked: InputRequiredResult) -> None:
    """awaiting_choices -> suspended: the round that asks for the completions still to be answered
    (the router made it of theirs: `Router.suspend`)."""
    record.asked = asked
