"""The call machine's table, checked by transitions: where transitions earns its place.

`machine.py` derives the lookup `fire` uses straight from `TABLE` (no `transitions.Machine` is
built at import, and none per call: the measured reason is in benchmarks/README.md, "The call
machine"). Here transitions builds its own machine from the same table, and that machine's
public structure (`get_transitions`, `get_triggers`) is checked against the lookup: every
transition transitions holds is one `fire` takes, and nothing else. The tests run it
(property_tests/test_machine.py) and so does `make docs`, before the diagram is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from transitions import Machine

from agent_as_model.engine.machine import MOVES, TABLE, Move, Table, sources


def build_machine(table: Table = TABLE) -> Any:
    """The `transitions.Machine` of the table, with no model attached: transitions checks its
    states, triggers and destinations as it builds it (an unknown state raises)."""
    specs: list[dict[str, Any]] = []
    for row in table.transitions:
        spec: dict[str, Any] = {"trigger": row.trigger, "source": list(sources(row)), "dest": row.dest}
        if row.work is not None:
            spec["before"] = row.work
        if row.guard is not None:
            spec["conditions"] = row.guard
        specs.append(spec)
    return Machine(
        model=None,
        states=[state.name for state in table.states],
        transitions=specs,
        initial=table.states[0].name,
        auto_transitions=False,
        ignore_invalid_triggers=False,
    )


def check(table: Table = TABLE, moves: Mapping[tuple[str, str], Move] = MOVES) -> None:
    """Raise ValueError where transitions' machine of `table` and the lookup `moves` disagree."""
    machine = build_machine(table)
    for row in table.transitions:
        for source in sources(row):
            reported = machine.get_transitions(trigger=row.trigger, source=source)
            if [(t.source, t.dest) for t in reported] != [(source, row.dest)]:
                raise ValueError(f"transitions has {reported} for '{row.trigger}' from {source}")
            if moves.get((row.trigger, source)) != (row.dest, row.guard, row.work):
                raise ValueError(f"the lookup does not take '{row.trigger}' from {source} as the table says")
    for state in table.states:
        triggers = set(machine.get_triggers(state.name))
        if triggers != {trigger for trigger, source in moves if source == state.name}:
            raise ValueError(f"transitions and the lookup disagree on the triggers from {state.name}")
