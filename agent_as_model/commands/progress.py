"""A one-line progress display for long work (`replay`, the benchmarks, the soak), on a terminal only.

It writes to stderr (stdout carries the report, which may be piped), appears only once the work
has run for a moment (a short recording replays before anyone could read it), redraws at most
ten times a second, and erases itself at the end. Not on a terminal (a pipe, a log file) it
writes nothing, so logs and pipes stay clean.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

DELAY = 0.5
INTERVAL = 0.1


class Progress:
    def __init__(
        self,
        total: int,
        stream: TextIO,
        *,
        label: str = "replaying",
        unit: str = "frame",
        delay: float = DELAY,
        enabled: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._total = total
        self._stream = stream
        self._label = label
        self._unit = unit
        self._delay = delay  # 0 for work known to be long (a benchmark): shown from the first update
        self._enabled = _is_terminal(stream) if enabled is None else enabled
        self._clock = clock
        self._start = clock()
        self._last_draw: float | None = None

    def update(self, done: int, note: str = "") -> None:
        if not self._enabled:
            return
        now = self._clock()
        if now - self._start < self._delay or (
            self._last_draw is not None and now - self._last_draw < INTERVAL
        ):
            return
        self._last_draw = now
        share = 100 * done // self._total if self._total else 100
        note = f", {note}" if note else ""
        self._stream.write(f"\r{self._label}: {self._unit} {done}/{self._total} ({share}%){note}\x1b[K")
        self._stream.flush()

    def clear(self) -> None:
        """Erase the line (before a report line, and at the end); the next update draws it again."""
        if self._enabled and self._last_draw is not None:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._last_draw = None


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
