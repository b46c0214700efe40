"""The stdio tap: sees every byte on the wire, both directions, without changing one.

It sits between the OS file descriptors and the server's own stdio reader and writer
(`transports/stdio.py`): bytes read from stdin and bytes written to stdout pass through unchanged,
and are cut into lines for whoever listens, so the server reads and writes what it would untapped,
bad lines included. Like the SDK, fd 0 and fd 1 point away from the wire while serving (at the
null device and at stderr), so a stray print cannot corrupt it.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    LineSink = Callable[[bytes], None]


class LineSplitter:
    """Cuts a byte stream into lines (without the newline) as bytes arrive."""

    def __init__(self, sink: Callable[[bytes], None]) -> None:
        self._sink = sink
        self._pending = bytearray()

    def feed(self, data: bytes) -> None:
        self._pending += data
        while (end := self._pending.find(b"\n")) >= 0:
            line = bytes(self._pending[:end])
            del self._pending[: end + 1]
            self._sink(line)

    def finish(self) -> None:
        """End of stream: a last line without a newline still travelled, so it is recorded too."""
        if self._pending:
            line = bytes(self._pending)
            self._pending.clear()
            self._sink(line)


class TapReader(io.RawIOBase):
    """Reads a file descriptor and shows every byte read to a splitter."""

    def __init__(self, fd: int, splitter: LineSplitter) -> None:
        self._fd = fd
        self._splitter = splitter

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = os.read(self._fd, len(buffer))
        if data:
            buffer[: len(data)] = data
            self._splitter.feed(data)
        else:
            self._splitter.finish()
        return len(data)


class TapWriter(io.RawIOBase):
    """Writes to a file descriptor and shows every byte to a splitter *before* writing it.

    Before, not after: once the bytes are out the host may answer at once, and its answer must
    not be recorded ahead of the frame it answers. So every call writes all it is given (a
    partial write would have shown the splitter bytes that had not gone out yet).
    """

    def __init__(self, fd: int, splitter: LineSplitter) -> None:
        self._fd = fd
        self._splitter = splitter

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        self._splitter.feed(bytes(view))
        return write_all(self._fd, view)


def write_all(fd: int, data: Any) -> int:
    """Write every byte of `data` to `fd` (a pipe may take a frame in several writes)."""
    view = memoryview(data).cast("B")
    written = 0
    while written < len(view):
        written += os.write(fd, view[written:])
    return len(view)


@contextmanager
def claim_stdio() -> Iterator[tuple[int, int]]:
    """Private duplicates of the wire's fds 0 and 1; fd 0 reads the null device and fd 1 writes
    to stderr until the wire is given back."""
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    try:
        yield wire_in, wire_out
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        # The duplicates stay open: a worker thread may still be blocked reading one of them (the
        # SDK keeps its own for the same reason), and a reused descriptor number would be worse.


@contextmanager
def tapped_wire(client_line: LineSink, server_line: LineSink) -> Iterator[tuple[TapReader, TapWriter]]:
    """The wire's raw (reader, writer), tapped: every line the host sends goes to `client_line` as
    it is read, every line the server sends to `server_line` before it is written."""
    with claim_stdio() as (wire_in, wire_out):
        yield TapReader(wire_in, LineSplitter(client_line)), TapWriter(wire_out, LineSplitter(server_line))
