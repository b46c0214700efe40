"""After heavy work the heap is trimmed once, however many calls asked (engine/offload.py); what
it gives back is measured in benchmarks/README.md, not here."""

from __future__ import annotations

import threading
import time

import pytest

from agent_as_model.engine import offload

CEILING = 30.0  # seconds: a generous wait for the timer thread, never a timed assertion


def test_many_heavy_calls_make_one_trim_and_a_later_one_another(monkeypatch: pytest.MonkeyPatch) -> None:
    trims: list[int] = []
    done = threading.Event()

    def trim(pad: int) -> int:
        trims.append(pad)
        done.set()
        return 1

    monkeypatch.setattr(offload, "_TRIM", trim)
    monkeypatch.setattr(offload, "TRIM_DELAY", 0.05)
    for _ in range(5):
        offload.release_later()
    assert done.wait(CEILING)
    assert trims == [0]
    # The next heavy call after the trim was taken asks for another.
    deadline = time.monotonic() + CEILING
    while offload._pending.locked() and time.monotonic() < deadline:
        time.sleep(0.01)
    done.clear()
    offload.release_later()
    assert done.wait(CEILING)
    assert trims == [0, 0]


def test_without_glibc_nothing_is_scheduled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(offload, "_TRIM", None)
    offload.release_later()
    assert not offload._pending.locked()


@pytest.mark.parametrize("argv", [[], ["serve"]])
def test_serving_hands_the_gil_back_within_a_millisecond(
    monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """Both ways into the stdio server (no command, and `serve`) set the shorter switch interval
    before serving; read at the moment the server would start."""
    import sys

    from agent_as_model.commands import cli

    seen: list[float] = []
    monkeypatch.setattr(cli, "_serve", lambda *args: seen.append(sys.getswitchinterval()) or 0)
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        assert cli.main(argv) == 0
    finally:
        sys.setswitchinterval(before)
    assert seen == [offload.SWITCH_INTERVAL]


def test_the_trim_is_glibcs_and_looked_up_only_when_first_asked_for() -> None:
    """`malloc_trim` is found among the process's own symbols (this project's machines run
    glibc), and serving over stdio does not import ctypes to find it before a heavy call."""
    import platform
    import subprocess
    import sys

    if platform.libc_ver()[0] == "glibc":
        trim = offload._libc_trim()
        assert trim is not None and trim(0) in (0, 1)
    started = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, agent_as_model.commands.cli, agent_as_model.transports.stdio, agent_as_model.server;"
            "print('ctypes' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert started.stdout.strip() == "False"
