"""After heavy work the heap is trimmed once, however many calls asked (engine/offload.py); what
it gives back is measured in benchmarks/README.md, not here."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import anyio
import pytest

from agent_as_model.engine import offload
from tests.helpers import GUARD, command_environment

# A fresh process each (the trim is looked up once per process), whose C library is a stand-in
# found where the real one is (`ctypes.CDLL(None)`): it keeps the pads it was asked to trim with.
STAND_IN_LIBC = """
import ctypes, json, sys, threading

trimmed = threading.Event()
pads = []


class Glibc:
    def malloc_trim(self, pad):
        pads.append(pad)
        trimmed.set()
        return 1


class Musl:  # a C library without malloc_trim
    pass


ctypes.CDLL = lambda name: {libc}()
from agent_as_model.engine import offload
"""


def run_with(libc: str, code: str) -> Any:
    """What `code` prints as JSON, run after the stand-in C library `libc` is in place."""
    done = subprocess.run(
        [sys.executable, "-c", STAND_IN_LIBC.format(libc=libc) + code],
        env=command_environment(),
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_many_heavy_calls_make_one_trim_and_a_later_one_another() -> None:
    code = f"""
for _ in range(5):
    offload.release_later()
assert trimmed.wait({GUARD})
first = list(pads)
trimmed.clear()
offload.release_later()  # the trim was taken: the next heavy call asks for another
assert trimmed.wait({GUARD})
print(json.dumps([first, pads]))
"""
    assert run_with("Glibc", code) == [[0], [0, 0]]


def test_without_glibc_nothing_is_scheduled() -> None:
    code = """
offload.release_later()
print(json.dumps([threading.active_count(), pads]))
"""
    assert run_with("Musl", code) == [1, []]  # no timer thread was started


@pytest.mark.parametrize("argv", [[], ["serve"]])
def test_serving_hands_the_gil_back_within_a_millisecond(
    monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """Both ways into the stdio server (no command, and `serve`) set the shorter switch interval
    before serving: read when the server's event loop would start."""
    from agent_as_model.commands import cli

    seen: list[float] = []
    monkeypatch.setattr(anyio, "run", lambda *args: seen.append(sys.getswitchinterval()))
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
