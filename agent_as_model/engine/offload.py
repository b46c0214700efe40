"""The server's own worker threads, for request work too long to run on the event loop.

Checks against a caller's schema and the reading of a large conversation run here. They have a
limiter of their own, `WORKERS` threads at once, apart from anyio's default one (40 threads),
which the transports use for their blocking reads and writes (stdio) and the SDK for its own: a
burst of slow checks then waits for one of these threads, and never holds up the I/O that
answers every other request. The limiter is one per event loop (`RunVar`), as anyio's own is.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import anyio.to_thread
from anyio import CapacityLimiter
from anyio.lowlevel import RunVar

# Two shared cores run the server in the benchmarks; a few more threads than cores keep a check
# that waits on the GIL from idling the others, and bound what a flood of them can hold.
WORKERS = 4

T = TypeVar("T")

_LIMITER: RunVar[CapacityLimiter] = RunVar("agent_as_model_offload")


def limiter() -> CapacityLimiter:
    """This event loop's limiter of request work."""
    try:
        return _LIMITER.get()
    except LookupError:
        made = CapacityLimiter(WORKERS)
        _LIMITER.set(made)
        return made


async def off_loop(work: Callable[..., T], *args: object) -> T:
    """Run `work(*args)` in one of the server's worker threads and wait for it, with no full
    collection meanwhile (`no_full_collections`)."""
    return await anyio.to_thread.run_sync(_held, work, args, limiter=limiter())


def _held(work: Callable[..., T], args: tuple[object, ...]) -> T:
    with no_full_collections():
        return work(*args)


# A full collection walks every object alive, and holds the GIL all the while: during a check
# that keeps half a million of jsonschema's errors alive (a `$ref` fan-out under `oneOf`), or the
# reading of a large conversation, Python ran one often, each long enough to be felt, and the
# event loop waited for each (benchmarks/README.md, "Hostile request classes"). So none starts while
# such work runs: what the work leaves behind is freed as its frames go (a stopped check's cycles
# are untangled, `patterns.py`), and the younger generations are still collected. However long
# heavy work goes on, a full collection is let happen at least once every FULL_AT_LEAST seconds,
# so the garbage of everything else cannot pile up without bound.
FULL_AT_LEAST = 10.0
_UNBOUNDED = 2**31 - 1
_holding = threading.Lock()
_held_by = 0  # heavy works running
_held_since = 0.0
_threshold2 = 10  # the third threshold to restore (read when the first work holds it)


@contextmanager
def no_full_collections() -> Iterator[None]:
    global _held_by
    with _holding:
        if _held_by == 0:
            _hold()
        _held_by += 1
    try:
        yield
    finally:
        with _holding:
            _held_by -= 1
            overdue = time.monotonic() - _held_since > FULL_AT_LEAST
            if _held_by == 0 or overdue:
                _release()
        if overdue and _held_by:
            # Others still run: this work, which is done, pays for the collection itself, then
            # the hold starts again for them.
            gc.collect()
            with _holding:
                if _held_by:
                    _hold()


def _hold() -> None:
    """No full collection from now (called with `_holding` held)."""
    global _held_since, _threshold2
    first, second, _threshold2 = gc.get_threshold()
    gc.set_threshold(first, second, _UNBOUNDED)
    _held_since = time.monotonic()


def _release() -> None:
    """The third threshold back as the hold found it (called with `_holding` held)."""
    first, second, _ = gc.get_threshold()
    gc.set_threshold(first, second, _threshold2)


# Seconds after heavy work before the heap is trimmed: by then its request has been answered and
# its objects freed. Without the trim, glibc keeps the freed heap of one large request (many
# times its size) mapped for good (benchmarks/README.md, "Hostile request classes").
TRIM_DELAY = 0.5


def _libc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, which hands freed heap back to the system; None elsewhere (musl,
    macOS), where the trim is not done. The process's own symbols (`CDLL(None)`) include the C
    library it runs on, so no search for the library's file (`ctypes.util.find_library`, which
    runs `ldconfig`)."""
    import ctypes  # here, not at import: only a process that does heavy work needs it

    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


_UNKNOWN: Any = object()
_TRIM: Callable[[int], int] | None = _UNKNOWN  # looked up on the first heavy call (`_trimmer`)
_pending = threading.Lock()  # held while a trim is due: many heavy calls make one trim


def _trimmer() -> Callable[[int], int] | None:
    global _TRIM
    if _TRIM is _UNKNOWN:
        _TRIM = _libc_trim()
    return _TRIM


def release_later() -> None:
    """Trim the heap TRIM_DELAY seconds from now (once, however many calls ask meanwhile), in a
    timer thread of its own: `malloc_trim` runs without the GIL and holds up no request."""
    if _trimmer() is None or not _pending.acquire(blocking=False):
        return
    timer = threading.Timer(TRIM_DELAY, _trim_now)
    timer.daemon = True
    timer.start()


def _trim_now() -> None:
    _pending.release()
    assert _TRIM is not None
    _TRIM(0)


# Seconds a thread may hold the GIL while another waits for it (Python's default is 0.005). A
# schema check is CPU work in a worker thread, and the loop needs the GIL back many times to answer
# one request: at 1 ms a concurrent list_models waited markedly less during a $ref fan-out
# check (benchmarks/README.md, "Figures the code cites").
SWITCH_INTERVAL = 0.001


def share_the_gil() -> None:
    """Let the event loop take the GIL back sooner from request work; called by the commands that
    serve, for the whole process."""
    sys.setswitchinterval(SWITCH_INTERVAL)
