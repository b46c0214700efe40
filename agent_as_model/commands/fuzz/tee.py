"""A stdio relay that records: `python -m agent_as_model.commands.fuzz.tee FILE -- CMD [ARGS...]`.

It starts CMD, passes every byte between its own stdio and CMD's unchanged, and writes every line
to FILE in the transcript format of `serve --record` (docs/transcripts.md), with the same
recorder. So the fuzzer can record the minimal failing chain against any stdio server, not only
this one. CMD's stderr passes through; the relay's own exit status is CMD's.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from contextlib import suppress

from agent_as_model.commands.transcripts.fileformat import TranscriptWriter
from agent_as_model.commands.transcripts.recorder import Recorder
from agent_as_model.transports.tap import LineSplitter

CHUNK = 1 << 16
UNKNOWN_VERSION = "(unknown)"


def _pump(
    read: Callable[[], bytes],
    write: Callable[[bytes], None],
    close: Callable[[], None],
    splitter: LineSplitter,
) -> None:
    """Copy until end of stream; each chunk is shown to the recorder before it is passed on, so
    an answer can never be recorded ahead of the frame it answers."""
    try:
        while data := read():
            splitter.feed(data)
            write(data)
    except OSError:  # the other side went away: nothing more travels
        pass
    finally:
        splitter.finish()
        with suppress(OSError):
            close()


def relay(path: str, command: Sequence[str]) -> int:
    child = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    writer = TranscriptWriter(open(path, "w", encoding="utf-8", newline="\n"))  # noqa: SIM115 - closed below
    recorder = Recorder(writer)
    recorder.start(server_name=shlex.join(command), server_version=UNKNOWN_VERSION)
    child_in, child_out = child.stdin, child.stdout

    def to_child(data: bytes) -> None:
        child_in.write(data)
        child_in.flush()

    def to_host(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(1, view) :]

    inbound = threading.Thread(
        target=_pump,
        args=(lambda: os.read(0, CHUNK), to_child, child_in.close, LineSplitter(recorder.client_line)),
        daemon=True,  # blocked reading our stdin when the server exits on its own
    )
    outbound = threading.Thread(
        target=_pump,
        args=(
            lambda: os.read(child_out.fileno(), CHUNK),
            to_host,
            lambda: None,
            LineSplitter(recorder.server_line),
        ),
    )
    inbound.start()
    outbound.start()
    outbound.join()  # the server closed its stdout: it is done
    status = child.wait()
    writer.close()
    return status


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 3 or args[1] != "--":
        print("usage: python -m agent_as_model.commands.fuzz.tee FILE -- CMD [ARGS...]", file=sys.stderr)
        return 2
    return relay(args[0], args[2:])


if __name__ == "__main__":
    raise SystemExit(main())
