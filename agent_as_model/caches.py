"""One bounded cache for everything the server keeps across calls on a caller's behalf: compiled
patterns (`patterns`), checked and compiled schemas (`schemas`), and what round one of a
2026-07-28 call read from its arguments, for its retry (`states/recall.py`).

A caller chooses what goes in (a fresh pattern or schema on every call), so a cache bounded only
by its number of entries would let large entries grow the process without limit. This one is
bounded by the total of each entry's stated size and, optionally, by its number of entries; the
least recently used go first. Shared by the worker threads that run schema checks, so locked.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any


class BoundedCache:
    def __init__(self, capacity: int, max_entries: int | None = None) -> None:
        self._capacity = capacity
        self._max_entries = max_entries
        self._held = 0
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any:
        """The value kept under `key`, or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                return entry[0]
        return None

    def take(self, key: Hashable) -> Any:
        """The value kept under `key`, no longer kept; or None."""
        with self._lock:
            entry = self._entries.pop(key, None)
            if entry is None:
                return None
            self._held -= entry[1]
            return entry[0]

    def put(self, key: Hashable, value: Any, size: int) -> None:
        """Keep `value` (not None) under `key`, stated to hold `size` units. One larger than the
        whole capacity is not kept (it would only push everything else out, then itself)."""
        if size > self._capacity:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (value, size)
            self._held += size
            while self._held > self._capacity or (
                self._max_entries is not None and len(self._entries) > self._max_entries
            ):
                _, (_, freed) = self._entries.popitem(last=False)
                self._held -= freed

    @property
    def held(self) -> int:
        """The total stated size of what is kept now."""
        return self._held

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._held = 0
