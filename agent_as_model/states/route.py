"""validated -> routed: who serves the call, chosen from its parsed request.

The call's router (`adapters/backends/router.py`) decides from the request's `backend`, `model`
and `tools`, what the host declared and the operator's provider; a call that asked for what this
server cannot give (`backend: "provider"` with none configured, a model the provider may not
use) is refused here, with its path, before anything is sent. The route also says whether this
request is a proven retry (`Route.proven`), which build reads.
"""

from __future__ import annotations

from agent_as_model.states.record import CallRecord


def route_call(record: CallRecord) -> None:
    record.route = record.router.route(record.request)
