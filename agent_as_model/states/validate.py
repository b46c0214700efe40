"""received -> validated: the dialect reads the arguments into a neutral request."""

from __future__ import annotations

from agent_as_model.engine.record import CallRecord


def validate_call(record: CallRecord) -> None:
    record.request = record.dialect.parse(record.arguments)
