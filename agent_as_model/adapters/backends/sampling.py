"""The host through sampling (before 2026-07-28): one real sampling/createMessage request, related to
the tool call.

A host that does not answer within `--host-timeout` ends the call with a host error, and the
request is cancelled (the SDK sends notifications/cancelled for it); an answer the transport
could not read ends it at once (`UNREADABLE`). While waiting, a call that carries a
progressToken gets notifications/progress every `progress_interval` seconds.
"""

from __future__ import annotations

import secrets

import anyio
from mcp import MCPError
from mcp.server.session import ServerSession
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    CallToolRequestParams,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResultWithTools,
    ProgressToken,
    RequestId,
)
from mcp_types.jsonrpc import REQUEST_TIMEOUT
from pydantic import ValidationError

from agent_as_model.adapters.backends.base import HostAnswer, host_declined
from agent_as_model.errors import CallError, host_error, quoted
from agent_as_model.limits import DEFAULT_LIMITS, Limits

# The `data` key of the error reply a transport hands the server in place of a host's answer it
# could not read (transports/frame_checks.py): the request ends at once, as a host violation. The
# key ends in a secret made fresh in each process: that reply is built inside the server and
# never sent, so a host writing a look-alike key into its own error's data cannot turn its
# decline into a violation (nor make the server echo a text of its choosing).
UNREADABLE = f"agent-as-model/unreadable-answer/{secrets.token_hex(16)}"
# What the SDK raises when a request's clock runs out (with code REQUEST_TIMEOUT and no data): an
# error a host answers with carries its own message, so it is not taken for the server's timeout.
TIMED_OUT = "Request 'sampling/createMessage' timed out"


class LegacySampling:
    who = None  # the host

    def __init__(
        self,
        session: ServerSession,
        request_id: RequestId | None,
        limits: Limits = DEFAULT_LIMITS,
        progress_token: ProgressToken | None = None,
    ) -> None:
        self._session = session
        # Relating the request to the tool call keeps it on the call's stream (mcp-notes 1.5).
        self._metadata = ServerMessageMetadata(related_request_id=request_id)
        self._request_id = None if request_id is None else str(request_id)
        self._limits = limits
        self._progress_token = progress_token

    def source(self, model: str) -> str:
        return "host"

    def admit(self, payload: CreateMessageRequestParams) -> None:
        return None  # the host takes every sampling payload this server builds

    async def exchange(
        self, payload: CreateMessageRequestParams, round_no: int, findings: tuple[CallError, ...]
    ) -> HostAnswer:
        # A repair round is asked in this same request: its payload holds all it needs, findings
        # included, so nothing is kept across requests.
        timeout = self._limits.host_timeout
        try:
            result = await self._ask(CreateMessageRequest(params=payload), timeout)
        except MCPError as err:
            data = err.error.data
            if err.error.code == REQUEST_TIMEOUT and data is None and err.error.message == TIMED_OUT:
                # A host that never answers has failed the request: with --provider-on-host-error
                # the provider answers instead, as for a decline.
                why = f"the host did not answer within {timeout:g} s (--host-timeout)"
                why += "; the request was cancelled"
                raise host_declined("sampling/createMessage", why) from None
            if isinstance(data, dict) and isinstance(data.get(UNREADABLE), str):
                raise host_error("sampling/createMessage", quoted(data[UNREADABLE])) from None
            said = f"the host answered with error {err.error.code}"
            raise host_declined(
                "sampling/createMessage", f"{said}: {quoted(err.error.message)}", brief=said
            ) from None
        except ValidationError as err:
            raise host_error(
                "sampling/createMessage", f"the host's answer is not a sampling result ({_first(err)})"
            ) from None
        return HostAnswer.of(result)

    async def _ask(self, request: CreateMessageRequest, timeout: float) -> CreateMessageResultWithTools:
        # WithTools accepts a single block or an array, so an odd answer is ours to judge. The
        # SDK's own request clock bounds the wait (`timeout`): every request it sends already runs
        # in a cancel scope of its own, so a deadline there costs a call nothing more, where a
        # scope of ours around it cost every call. When it runs out the SDK sends the host
        # notifications/cancelled for the request and raises REQUEST_TIMEOUT. Its clock starts
        # once the request is written: a write the transport holds back (a host that stopped
        # reading, which pauses the server's reading too) is not the host's delay.
        if self._progress_token is None:
            return await self._session.send_request(
                request,
                CreateMessageResultWithTools,
                request_read_timeout_seconds=timeout,
                metadata=self._metadata,
            )
        # The caller asked for progress: tell it every few seconds that the host is still at
        # work, so a client that resets its timeout on progress keeps waiting.
        outcome: list[CreateMessageResultWithTools | Exception] = []
        done = anyio.Event()

        async def ask() -> None:
            try:
                outcome.append(
                    await self._session.send_request(
                        request,
                        CreateMessageResultWithTools,
                        request_read_timeout_seconds=timeout,
                        metadata=self._metadata,
                    )
                )
            except (MCPError, ValidationError) as err:
                outcome.append(err)
            finally:
                done.set()

        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            await self._report_progress(done)
        if isinstance(outcome[0], Exception):
            raise outcome[0]
        return outcome[0]

    async def _report_progress(self, done: anyio.Event) -> None:
        assert self._progress_token is not None
        interval = self._limits.progress_interval
        started = anyio.current_time()
        while True:
            with anyio.move_on_after(interval):
                await done.wait()
            if done.is_set():
                return
            waited = anyio.current_time() - started
            try:
                await self._session.send_progress_notification(
                    self._progress_token,
                    progress=round(waited, 3),
                    message=f"waiting for the host's model to answer ({waited:.0f} s)",
                    related_request_id=self._request_id,
                )
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the client has gone; the call ends with the connection


def progress_token(params: CallToolRequestParams) -> ProgressToken | None:
    """The progress token the tools/call carries in its `_meta`, if any."""
    meta = params.meta or {}
    token = meta.get("progress_token")
    return token if isinstance(token, str | int) and not isinstance(token, bool) else None


def _first(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "result"
    return f"{where}: {first.get('msg', 'invalid')}"
