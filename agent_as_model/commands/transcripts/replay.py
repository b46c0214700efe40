"""`replay`: play a recording's host side to a fresh server and compare what the server says.

Frames are taken in recorded order. A host frame is sent (re-addressed and with fresh tokens, see
below); a server frame is awaited and compared with its recorded twin after normalisation
(normalise.py). Twins are found by key, not by position: a response by the id of the request it
answers (the host's ids are replayed as recorded), a server request or notification by its method
and how many of those came before. A frame may arrive early (kept until its turn) within the same
burst of server frames; one that belongs after a later host frame means the expected frame is not
coming, so a changed server is reported frame by frame instead of hanging.

What the fresh server minted, the host echoes back, so it is substituted in later host frames:
- the server's requests are re-addressed: the host's recorded answer to sampling request 1 goes
  out with the id the fresh server gave that request;
- on 2026-07-28, the retried `tools/call` carries the `requestState` the fresh server sealed in
  its own `InputRequiredResult`, not the recorded one (sealed under another process's key, it
  would be refused); likewise `resp_`/`msg_` ids, and cursors in a redacted recording.
A request the fresh server makes that the recording has no answer for is answered with a JSON-RPC
error so that the server can finish the call and the difference shows in its result.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from agent_as_model.commands.progress import Progress
from agent_as_model.commands.transcripts import DEFAULT_TIMEOUT, diff
from agent_as_model.commands.transcripts.exchange import (
    CLIENT_TO_SERVER,
    SERVER_TO_CLIENT,
    Exchange,
    FrameContext,
    id_key,
)
from agent_as_model.commands.transcripts.fileformat import (
    NOT_JSON,
    FrameEntry,
    Transcript,
    compact,
    parse_wire_line,
)
from agent_as_model.commands.transcripts.minted import MINTED_IN_TEXT
from agent_as_model.commands.transcripts.normalise import Normalised, normalise, pair_tokens

if TYPE_CHECKING:
    from agent_as_model.commands.transcripts.targets import Target

NO_ANSWER = {
    "code": -32603,
    "message": "agent-as-model replay: the recording holds no answer to this request",
}

FrameKey = tuple[str, str, int]


class Report(Protocol):
    """Where the report goes: stdout, a StringIO in tests."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


@dataclass
class Outcome:
    server_frames: int = 0
    matched: int = 0
    differing: int = 0
    missing: int = 0
    unexpected: int = 0

    @property
    def diverged(self) -> bool:
        return bool(self.differing or self.missing or self.unexpected)

    def summary(self) -> str:
        if not self.diverged:
            return f"{self.server_frames} server frames, all match"
        parts = [f"{self.differing} differ", f"{self.missing} missing", f"{self.unexpected} unexpected"]
        return f"{self.server_frames} server frames: {self.matched} match, " + ", ".join(parts)


class _Keys:
    """Names each server frame so that a replayed frame finds its recorded twin."""

    def __init__(self) -> None:
        self._seen: Counter[tuple[str, str]] = Counter()

    def key(self, frame: Any) -> FrameKey:
        kind, name = "other", ""
        if isinstance(frame, dict):
            method = frame.get("method")
            if isinstance(method, str):
                kind, name = ("request" if "id" in frame else "notification"), method
            elif "id" in frame:
                kind, name = "response", id_key(frame["id"])
        number = self._seen[(kind, name)]
        self._seen[(kind, name)] += 1
        return kind, name, number


@dataclass(frozen=True)
class _Step:
    entry: FrameEntry
    key: FrameKey | None  # server frames only
    burst: int  # how many host frames came before it


class Replayer:
    def __init__(
        self,
        transcript: Transcript,
        target: Target,
        *,
        out: Report,
        timeout: float = DEFAULT_TIMEOUT,
        progress: Progress | None = None,
    ) -> None:
        self._transcript = transcript
        self._target = target
        self._out = out
        self._timeout = timeout
        self._heard = False  # whether the server has sent anything yet
        self._progress = progress
        self.outcome = Outcome()
        self._steps: list[_Step] = []
        self._pending: dict[FrameKey, int] = {}  # recorded server frames not yet met -> their burst
        keys, burst = _Keys(), 0
        for entry in transcript.frames:
            if entry.direction == CLIENT_TO_SERVER:
                burst += 1
                self._steps.append(_Step(entry, None, burst))
            else:
                key = keys.key(entry.frame)
                self._steps.append(_Step(entry, key, burst))
                self._pending[key] = burst
        self._fresh_keys = _Keys()
        self._early: dict[FrameKey, _Fresh] = {}
        self._ids: dict[str, Any] = {}  # recorded id of a server request -> the fresh server's id
        self._never_asked: set[str] = set()
        self._tokens: dict[str, str] = {}
        self._live = Exchange()  # the replayed conversation, to caption frames nobody recorded
        self._closed = False  # the server stopped reading
        self._output_closed = False  # the server stopped writing

    async def run(self) -> Outcome:
        for done, step in enumerate(self._steps):
            if self._progress is not None:
                self._progress.update(done)
            if step.key is None:
                await self._send(step.entry)
            else:
                await self._expect(step)
        await self._target.close_input()
        await self._drain()
        if self._progress is not None:
            self._progress.clear()
        return self.outcome

    # --- the host side -------------------------------------------------------------------------

    async def _send(self, entry: FrameEntry) -> None:
        frame = entry.frame
        if frame is NOT_JSON:
            line = entry.wire_text()
        else:
            outgoing, changed = frame, False
            if entry.context.kind == "response" and isinstance(frame, dict):
                asked = id_key(frame.get("id"))
                if asked in self._never_asked:
                    self._report(
                        f"frame {entry.number} (line {entry.line}) not sent: "
                        f"{diff.caption(entry.direction, frame, entry.context)}: "
                        "the replayed server never made that request"
                    )
                    return
                if asked in self._ids and self._ids[asked] != frame.get("id"):
                    outgoing, changed = {**frame, "id": self._ids[asked]}, True
            outgoing, substituted = self._substitute(outgoing)
            line = compact(outgoing) if changed or substituted else entry.wire_text()
        self._live.see(CLIENT_TO_SERVER, parse_wire_line(line))
        if not self._closed and not await self._target.send(line):
            self._closed = True

    def _substitute(self, value: Any) -> tuple[Any, bool]:
        """`value` with every value the recorded server minted replaced by the fresh server's."""
        if not self._tokens:
            return value, False
        if isinstance(value, str):
            if value in self._tokens:
                return self._tokens[value], True
            replaced = MINTED_IN_TEXT.sub(lambda m: self._tokens.get(m.group(0), m.group(0)), value)
            return replaced, replaced != value
        if isinstance(value, dict):
            pairs = {k: self._substitute(v) for k, v in value.items()}
            return {k: v for k, (v, _) in pairs.items()}, any(c for _, c in pairs.values())
        if isinstance(value, list):
            items = [self._substitute(v) for v in value]
            return [v for v, _ in items], any(c for _, c in items)
        return value, False

    # --- the server side -----------------------------------------------------------------------

    async def _expect(self, step: _Step) -> None:
        assert step.key is not None
        self._pending.pop(step.key, None)
        fresh = self._early.pop(step.key, None)
        reason = ""
        if fresh is None:
            fresh, reason = await self._await(step.key, step.burst)
        entry = step.entry
        self.outcome.server_frames += 1
        if fresh is None:
            self.outcome.missing += 1
            if entry.context.kind == "request" and isinstance(entry.frame, dict):
                self._never_asked.add(id_key(entry.frame.get("id")))
            title = f"frame {entry.number} (line {entry.line}) missing: {self._caption(entry)}\n  {reason}"
            self._report(diff.framed(title, diff.listing(_shown(entry.frame, entry.wire_text()), "-")))
            return
        self._compare(entry, fresh)

    async def _await(self, key: FrameKey, burst: int) -> tuple[_Fresh | None, str]:
        """The fresh frame keyed `key`, or None and why not."""
        while True:
            fresh, reason = await self._receive()
            if fresh is None:
                return None, reason
            got = self._fresh_keys.key(fresh.frame)
            if got == key:
                return fresh, ""
            if got in self._pending:
                self._early[got] = fresh
                if self._pending[got] != burst:
                    return None, f"the replayed server went on to: {fresh.caption}"
                continue
            await self._unexpected(fresh)

    async def _receive(self) -> tuple[_Fresh | None, str]:
        if self._output_closed:
            return None, "the replayed server had closed its output"
        # The first frame also waits for the server to start (readiness, not a frame's budget).
        grace = 0.0 if self._heard else self._target.startup_grace
        with anyio.move_on_after(self._timeout + grace):
            line = await self._target.receive()
            self._heard = True
            if line is None:
                self._output_closed = True
                return None, "the replayed server closed its output"
            frame = parse_wire_line(line)
            return _Fresh(line, frame, self._live.see(SERVER_TO_CLIENT, frame)), ""
        return None, f"the replayed server sent nothing for {self._timeout:g} s"

    def _compare(self, entry: FrameEntry, fresh: _Fresh) -> None:
        redacted = self._transcript.header.redacted
        if entry.frame is NOT_JSON or fresh.frame is NOT_JSON:
            recorded = Normalised(_shown(entry.frame, entry.wire_text()))
            replayed = Normalised(_shown(fresh.frame, fresh.line))
        else:
            recorded = normalise(entry.frame, entry.context, redacted=redacted)
            replayed = normalise(fresh.frame, entry.context, redacted=redacted)
            self._tokens.update(pair_tokens(recorded, replayed))
            if entry.context.kind == "request" and isinstance(entry.frame, dict):
                self._ids[id_key(entry.frame.get("id"))] = fresh.frame.get("id")
        if _canonical(recorded.value) == _canonical(replayed.value):
            self.outcome.matched += 1
            return
        self.outcome.differing += 1
        title = f"frame {entry.number} (line {entry.line}) differs: {self._caption(entry)}"
        self._report(diff.framed(title, diff.unified(recorded.value, replayed.value)))

    async def _unexpected(self, fresh: _Fresh) -> None:
        self.outcome.unexpected += 1
        title = f"unexpected frame from the replayed server: {fresh.caption}"
        self._report(diff.framed(title, diff.listing(_shown(fresh.frame, fresh.line), "+")))
        frame = fresh.frame
        if fresh.context.kind == "request" and isinstance(frame, dict) and not self._closed:
            refusal = {"jsonrpc": "2.0", "id": frame["id"], "error": NO_ANSWER}
            self._live.see(CLIENT_TO_SERVER, refusal)
            if not await self._target.send(compact(refusal)):
                self._closed = True

    async def _drain(self) -> None:
        """After the last recorded frame: anything more the server says was not in the recording."""
        for key in list(self._early):
            await self._unexpected(self._early.pop(key))
        while True:
            fresh, _ = await self._receive()
            if fresh is None:
                return
            await self._unexpected(fresh)

    # --- reporting -----------------------------------------------------------------------------

    def _caption(self, entry: FrameEntry) -> str:
        return diff.caption(entry.direction, entry.frame, entry.context)

    def _report(self, text: str) -> None:
        if self._progress is not None:
            self._progress.clear()  # the report goes to stdout; do not write over the progress line
        self._out.write(text + "\n")
        self._out.flush()


@dataclass(frozen=True)
class _Fresh:
    """A line the replayed server wrote, parsed and placed in the replayed conversation."""

    line: str
    frame: Any
    context: FrameContext

    @property
    def caption(self) -> str:
        return diff.caption(SERVER_TO_CLIENT, self.frame, self.context)


def _shown(frame: Any, line: str) -> Any:
    return frame if frame is not NOT_JSON else {"<line that is not JSON>": line}


def _canonical(value: Any) -> str:
    # Text, not ==: in Python 1 == 1.0 == True, on the wire they are three different things.
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


async def replay(
    transcript: Transcript,
    target: Target,
    *,
    out: Report,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
) -> Outcome:
    """Replay `transcript` against `target`, writing a report to `out`; the outcome counts frames."""
    replayer = Replayer(transcript, target, out=out, timeout=timeout, progress=progress)
    outcome = await replayer.run()
    header = transcript.header
    recorded_on = transcript.protocol_version or "an unknown protocol version"
    details = [f"recorded on {recorded_on} from {header.server_name} {header.server_version}"]
    if header.redacted:
        details.append("redacted")
    out.write(
        f"replayed {transcript.path} ({', '.join(details)})\n"
        f"against {target.description}: {outcome.summary()}\n"
    )
    out.flush()
    return outcome
