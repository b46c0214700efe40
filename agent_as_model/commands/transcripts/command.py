"""The command-line face of transcripts: `serve --record FILE [--redact]` and `replay FILE`.

cli.py owns the parser; this module adds its options and runs them, so cli.py stays a switchboard.
Exit statuses of `replay`: 0 every server frame matched, 1 a divergence, 2 nothing could be
replayed (an unreadable, damaged or truncated file, or a server command that would not start).
"""

from __future__ import annotations

import argparse
import io
import os
import shlex
import sys
from contextlib import AsyncExitStack
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import anyio

from agent_as_model.commands.transcripts import DEFAULT_TIMEOUT
from agent_as_model.limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:  # the targets pull in the SDK; `--version` and `--help` should not wait for it
    from agent_as_model.commands.transcripts.fileformat import Transcript
    from agent_as_model.commands.transcripts.replay import Report
    from agent_as_model.commands.transcripts.targets import ServerFactory

MATCHED, DIVERGED, UNREPLAYABLE = 0, 1, 2


def add_record_options(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--record",
        metavar="FILE.jsonl",
        help="write every JSON-RPC frame on stdio, both directions, to FILE (one JSON object a line)",
    )
    serve.add_argument(
        "--redact",
        action="store_true",
        help="with --record: replace the text of messages and completions by same-length placeholders",
    )


def add_replay_command(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser(
        "replay",
        help="replay a recording against a fresh server and show every server frame that differs",
        description=(
            "Play the host side of a recording made with `serve --record` to a fresh server, answer its "
            "sampling requests and MRTR rounds from the recording, and compare every server frame. "
            "Exit status: 0 all match, 1 a divergence, 2 an unreadable or truncated recording."
        ),
    )
    parser.add_argument("file", metavar="FILE.jsonl", help="a recording made with `serve --record`")
    parser.add_argument(
        "--against",
        metavar="CMD",
        help="a stdio MCP server command to replay against (default: this server, in-process)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"how long to wait for each server frame once the server is up (default {DEFAULT_TIMEOUT:g})",
    )


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text}")
    return value


def check_record_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if getattr(args, "redact", False) and not getattr(args, "record", None):
        parser.error("--redact needs --record FILE")


def run_serve_recorded(
    args: argparse.Namespace, provider: Any = None, limits: Limits = DEFAULT_LIMITS
) -> int:
    """`serve --record`; `provider`: the operator's gateway (its providers' exchanges are recorded too)."""
    from agent_as_model.commands.transcripts.recorder import serve_recorded

    try:
        stream = open(args.record, "w", encoding="utf-8", newline="\n")  # noqa: SIM115 - serve_recorded closes it
    except OSError as err:
        print(f"agent-as-model: cannot record to {args.record}: {err.strerror or err}", file=sys.stderr)
        return UNREPLAYABLE
    from agent_as_model.adapters.backends import ProviderUnavailable

    try:
        anyio.run(partial(serve_recorded, stream, redact=args.redact, provider=provider, limits=limits))
    except ProviderUnavailable as err:
        print(f"agent-as-model: {err}", file=sys.stderr)
        return 2
    return 0


def run_replay(args: argparse.Namespace) -> int:
    return replay_file(args.file, against=args.against, timeout=args.timeout)


def replay_file(
    path: str | Path,
    *,
    against: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    out: Report | None = None,
    err: TextIO | None = None,
    factory: ServerFactory | None = None,
) -> int:
    """Replay one file and report; the exit status."""
    return anyio.run(
        partial(replay_path, path, against=against, timeout=timeout, out=out, err=err, factory=factory)
    )


async def replay_path(
    path: str | Path,
    *,
    against: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    out: Report | None = None,
    err: TextIO | None = None,
    factory: ServerFactory | None = None,
) -> int:
    """`replay_file` inside a running event loop. `factory` builds the in-process server."""
    # Imported here: `agent-as-model serve` reads this module's options on every start.
    from agent_as_model.commands.progress import Progress
    from agent_as_model.commands.transcripts.fileformat import TranscriptError, load
    from agent_as_model.commands.transcripts.replay import replay
    from agent_as_model.commands.transcripts.targets import command, in_process

    report: Report = out if out is not None else _QuietWhenClosed(sys.stdout)
    err = err or sys.stderr
    try:
        transcript = load(path)
    except TranscriptError as error:
        print(f"agent-as-model replay: {error}", file=err)
        return UNREPLAYABLE
    async with AsyncExitStack() as stack:
        if factory is None and transcript.provider_settings is not None:
            factory = _replayed_provider(transcript)
        try:
            opened = command(shlex.split(against)) if against else in_process(factory)
            target = await stack.enter_async_context(opened)
        except (OSError, ValueError) as error:  # the command would not start (or not even split)
            print(f"agent-as-model replay: cannot start {against!r}: {error}", file=err)
            return UNREPLAYABLE
        progress = Progress(len(transcript.frames), err)
        outcome = await replay(transcript, target, out=report, timeout=timeout, progress=progress)
    return DIVERGED if outcome.diverged else MATCHED


def _replayed_provider(transcript: Transcript) -> ServerFactory | None:
    """A recording of a provider-served session: the in-process server routes calls as the
    recorded one did and answers the provider from the recorded exchanges, with no network."""
    from agent_as_model.adapters.backends import settings_from_json
    from agent_as_model.adapters.routes import Gateway, gateway_from_json
    from agent_as_model.server import build_server

    recorded = transcript.provider_settings
    assert recorded is not None
    try:
        if "gateway" in recorded:  # providers and routes of a configuration file
            gateway = gateway_from_json(recorded["gateway"])
        else:  # the --provider flags' one provider
            gateway = Gateway.of_provider(settings_from_json(recorded))
    except (KeyError, TypeError, ValueError):
        return None
    return partial(
        build_server,
        gateway=gateway,
        provider_replay=transcript.provider_exchanges,
        replay_redacted=transcript.header.redacted,
    )


class _QuietWhenClosed(io.TextIOBase):
    """stdout that goes quiet when its reader goes away (`replay FILE | head`): the exit status
    still tells the outcome, and no traceback buries it."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._gone = False

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                self._stream.write(text)
            except BrokenPipeError:
                self._go_quiet()
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._go_quiet()

    def _go_quiet(self) -> None:
        self._gone = True
        # What Python's docs advise: point the descriptor at the null device, so the flush at exit
        # does not fail all over again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        finally:
            os.close(devnull)


__all__ = [
    "DIVERGED",
    "MATCHED",
    "UNREPLAYABLE",
    "add_record_options",
    "add_replay_command",
    "check_record_options",
    "replay_file",
    "replay_path",
    "run_replay",
    "run_serve_recorded",
]
