"""A provider's time, bounded: the server makes the attempts itself (the SDK's own retries are
off), each one bounded from the request to the response's last byte, and one request to the
provider (its attempts and the waits between them) within `--provider-timeout` ×
(`--provider-max-retries` + 1). A call with repair rounds makes one such request per round, each
with its own bound.

The SDKs' timeout is httpx's, per read: a provider that sends one byte a second never trips it,
and their retries sleep as long as `Retry-After` says. Here an attempt that has not finished
within the timeout is cancelled, a retry waits as `Retry-After` (or `retry-after-ms`) asks only
when that wait and more fit in the time left, and otherwise the call ends at once saying why.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio

from agent_as_model import telemetry

_T = TypeVar("_T")

# The first wait between attempts when the provider names none, doubled each time, capped.
BACKOFF_START = 0.5
BACKOFF_MAX = 8.0
# Statuses worth another attempt (as the SDKs judge them): timeouts, conflicts, rate limits and
# the provider's own failures.
RETRY_STATUSES = frozenset({408, 409, 429})


class GaveUp(Exception):
    """The attempts ended without an answer: `last` is the last attempt's error (None: it ran
    out of time), `why` what ended them, in words that follow the failure's own (with their
    leading separator)."""

    def __init__(self, last: Exception | None, why: str) -> None:
        super().__init__(why)
        self.last = last
        self.why = why


def retryable_status(status: int | None) -> bool:
    return status is not None and (status in RETRY_STATUSES or status >= 500)


async def attempts(
    send: Callable[[], Awaitable[_T]],
    *,
    timeout: float,
    retries: int,
    retryable: Callable[[Exception], bool],
    retry_after: Callable[[Exception], float | None],
) -> _T:
    """`send()` until it answers, at most `retries` + 1 times, within `timeout` each and
    `timeout` × (`retries` + 1) in all (for this one request: the caller's next round starts
    afresh). Raises `GaveUp`, or an error `retryable` refuses."""
    deadline = anyio.current_time() + timeout * (retries + 1)
    tried = 0
    while True:
        last: Exception | None = None
        left = deadline - anyio.current_time()
        try:
            with anyio.fail_after(max(0.0, min(timeout, left))):
                return await send()
        except TimeoutError:
            pass  # the attempt ran out of time: cancelled, and worth another
        except Exception as err:
            if not retryable(err):
                raise
            last = err
        tried += 1
        if tried > retries:
            raise GaveUp(last, ", still after the configured retries") from None
        asked = retry_after(last) if last is not None else None
        wait = asked if asked is not None else min(BACKOFF_MAX, BACKOFF_START * 2 ** (tried - 1))
        left = deadline - anyio.current_time()
        if wait >= left:
            remaining = f"the {max(0.0, left):.1f} s of provider time left"
            if asked is not None:
                why = f"; the provider asked to wait {wait:g} s (Retry-After), more than {remaining}"
            else:
                why = f"; no time for another attempt in {remaining}"
            raise GaveUp(last, why) from None
        telemetry.retried(tried, _failed_with(last), wait)
        await anyio.sleep(wait)


def _failed_with(err: Exception | None) -> str:
    """`error.type` of a failed attempt: its HTTP status, `timeout`, or the error's class."""
    if err is None:
        return "timeout"
    status = getattr(err, "status_code", None)
    return str(status) if isinstance(status, int) else type(err).__qualname__


def retry_after_seconds(headers: Any) -> float | None:
    """The wait a response's headers ask for: `retry-after-ms`, or `Retry-After` in seconds or as
    an HTTP date; None when it names none that can be read (nor a finite number). A peer's word,
    so at most `LONGEST_RETRY_AFTER`: a provider cannot keep itself out of a route for ever."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return _bounded(float(millis) / 1000)
        except ValueError:
            pass
    after = headers.get("retry-after")
    if after is None:
        return None
    try:
        return _bounded(float(after))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(after)
    except (TypeError, ValueError, OverflowError):
        return None
    return _bounded(when.timestamp() - time.time())


# The longest wait a Retry-After is taken for (seconds); a longer one is read as this long.
LONGEST_RETRY_AFTER = 3600.0


def _bounded(seconds: float) -> float | None:
    if not math.isfinite(seconds):
        return None
    return min(max(0.0, seconds), LONGEST_RETRY_AFTER)
