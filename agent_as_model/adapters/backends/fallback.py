"""A route of several backends (spec section 15): the first is asked, and one that gives no answer
for a reason of its own passes the call to the next, within the call's deadline.

A backend passes the call on when it declines or fails the sampling request (the host, when the
route lets it: `Gateway.host_errors_pass`), times out, or answers 408, 409, 429 or a server error
still after its own retries (a provider: `ProviderFailed`). A provider that fails so is counted
against its cooldown (`cooldown.py`), and one cooling down is passed over. An answer that breaks
the call's contract is not passed on: it was an answer, and it is told as the answerer's. Each
round of the call (a repair) starts at the backend that answered the round before.

On 2026-07-28 the host is asked by ending the request with its round (a `Suspension`, returned as
it is); its answer comes with the retry, which the round trip takes on its own rows. A host that
declines then retries with no answer, and the router passes it over on that retry (`router.py`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence

import anyio
from mcp_types import CreateMessageRequestParams

from agent_as_model import telemetry
from agent_as_model.adapters.backends.base import (
    PASSED,
    Backend,
    HostAnswer,
    HostDeclined,
    ProviderFailed,
    Suspension,
    Unanswered,
)
from agent_as_model.adapters.backends.cooldown import Cooldowns
from agent_as_model.adapters.routes import HOST
from agent_as_model.errors import CallError, host_error
from agent_as_model.records import Record

log = logging.getLogger("agent_as_model")


class Link(Record):
    """One backend of a route: `name` is the provider's name (None: the host)."""

    backend: Backend
    name: str | None = None


def passed_over(source: str, why: str) -> dict[str, str]:
    return {"backend": source, "why": why}


class Route:
    """The backends of one call's route, asked in order (a `Backend` itself)."""

    def __init__(
        self,
        links: Sequence[Link],
        cooldowns: Cooldowns,
        deadline: float,
        passed: Sequence[Mapping[str, str]] = (),
        *,
        host_errors_pass: bool = True,
        model: str = "",
    ) -> None:
        self._links = list(links)
        self._cooldowns = cooldowns
        self._deadline = deadline  # time.monotonic()
        # The ones passed over before any was asked (router.py).
        self._passed: list[dict[str, str]] = [dict(p) for p in passed]
        self._host_errors_pass = host_errors_pass
        self._model = model
        self._at = 0  # the link that answered the last round, or is to be asked first
        self._failed: list[Link] = []  # the links asked that gave no answer, in order

    @property
    def backends(self) -> list[Backend]:
        """The route's backends, in order (telemetry names the route by them)."""
        return [link.backend for link in self._links]

    @property
    def who(self) -> str | None:
        """Who was asked, for the error's last sentence: the backend asked last, after the ones
        that gave no answer ("The host declined; the provider openai")."""
        last = self._links[self._at]
        if not self._failed:
            return last.backend.who
        before = [
            ("the host declined" if f.name is None else f"the provider {f.name} failed") for f in self._failed
        ]
        now = "the host" if last.name is None else f"the provider {last.name}"
        if last.name is not None and all(f.name is not None for f in self._failed):
            now += " (not the host)"
        text = "; ".join([*before, now])
        return text[0].upper() + text[1:]

    def source(self, model: str) -> str:
        return self._links[self._at].backend.source(model)

    def admit(self, payload: CreateMessageRequestParams) -> None:
        # The first backend's: a later one that cannot take the payload is passed over when reached.
        self._links[self._at].backend.admit(payload)

    async def exchange(
        self, payload: CreateMessageRequestParams, round_no: int, findings: tuple[CallError, ...]
    ) -> HostAnswer | Suspension:
        passed = self._passed
        self._passed = []  # told with this round's answer; a later round tells its own
        last: Unanswered | None = None
        asked: list[dict[str, str]] = []  # the ones asked that gave no answer, for the error's words
        start = self._at
        for index in range(start, len(self._links)):
            link = self._links[index]
            backend = link.backend
            source = backend.source(self._model)
            if index > self._at:
                if link.name is not None and (until := self._cooldowns.until(link.name)) is not None:
                    passed.append(passed_over(source, _cooling(until)))
                    continue
                try:
                    backend.admit(payload)
                except CallError as err:
                    passed.append(passed_over(source, err.reason))
                    continue
            left = self._deadline - time.monotonic()
            if left <= 0:
                passed.append(passed_over(source, "the call's deadline had passed (serve --route-deadline)"))
                break
            if index > start and self._failed:  # the one asked last gave no answer: this one is asked
                telemetry.fell_back(_named(self._failed[-1]), _named(link))
            self._at = index
            outcome = await _asked(backend, link, payload, round_no, findings, left, self._host_errors_pass)
            if not isinstance(outcome, Unanswered):
                if isinstance(outcome, Suspension):
                    return outcome
                if link.name is not None:
                    await self._cooldowns.succeeded(link.name)
                return outcome._replace(passed=tuple(passed)) if passed else outcome
            if link.name is not None:
                await self._cooldowns.failed(link.name, outcome.retry_after)
            log.info("%s gave no answer (%s): passing the call on", source, outcome.reason)
            passed.append(passed_over(source, outcome.brief))
            asked.append(passed_over(source, outcome.reason))
            self._failed.append(link)
            last = outcome
        if last is not None:
            self._failed.pop()  # the last one asked is the one the error is told of
        raise _exhausted(last, asked, passed)


def _named(link: Link) -> str:
    return HOST if link.name is None else link.name


async def _asked(
    backend: Backend,
    link: Link,
    payload: CreateMessageRequestParams,
    round_no: int,
    findings: tuple[CallError, ...],
    left: float,
    host_errors_pass: bool,
) -> HostAnswer | Suspension | Unanswered:
    """One backend's answer to the round, or why it gave none (a host's decline is raised when
    the route does not pass it on)."""
    try:
        with anyio.fail_after(left):
            return await backend.exchange(payload, round_no, findings)
    except TimeoutError:
        path = "host" if link.name is None else f"provider {link.name}"
        return ProviderFailed(
            path, f"no answer within the call's deadline ({left:.1f} s left; serve --route-deadline)"
        )
    except HostDeclined as declined:
        if not host_errors_pass:
            raise
        return declined
    except Unanswered as failed:
        return failed


def _cooling(until: float) -> str:
    return f"cooling down after failing, for {max(0.0, until - time.time()):.1f} s more"


def _exhausted(
    last: Unanswered | None, asked: list[dict[str, str]], passed: list[dict[str, str]]
) -> CallError:
    """The error of a route none of whose backends answered: the last one asked, saying which were
    asked before it and gave no answer either, with every backend passed over in the result's
    metadata (those that could not be asked too)."""
    if last is None:
        whys = "; ".join(f"{p['backend']}: {p['why']}" for p in passed)
        err = host_error("model", f"no backend of its route could be asked ({whys})")
    elif len(asked) > 1:
        whys = "; ".join(f"{p['backend']}: {p['why']}" for p in asked[:-1])
        err = host_error(last.path, f"{last.reason} (asked before it, with no answer: {whys})")
    else:
        err = last
    err.meta = {PASSED: passed}
    return err
