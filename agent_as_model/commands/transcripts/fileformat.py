"""The transcript file: one JSON object a line, written as frames travel and read back for replay.

    {"kind": "header", "format": "agent-as-model-transcript", "formatVersion": 1, "server": {...}, ...}
    {"kind": "frame", "t": 0.0021, "dir": "c2s", "frame": {...the JSON-RPC message...}}
    {"kind": "protocol", "t": 0.0043, "protocolVersion": "2025-11-25", "era": "legacy"}
    {"kind": "providerSettings", "settings": {"provider": "openai", "model": ..., ...}}
    {"kind": "provider", "t": 0.01, "provider": "openai", "model": ..., "request": {...}, "reply": {...}}

Line 1 is the header. A `frame` line holds one line of the stdio wire, parsed; `raw` holds the
line's exact text as well whenever re-serialising the parsed frame compactly would not give back
the same characters (and alone when the line was not JSON), so the wire can be rebuilt exactly.
The `protocol` line comes once, when the negotiated version becomes known. With a provider
configured (docs/providers.md), a `providerSettings` line follows the header (what routes calls:
no key, no URL; the `--provider` flags' settings, or `{"gateway": ...}`, the named providers and
routes of a configuration file), and each provider exchange is a `provider` line (`provider`: its
name): the API request body (never
the SDK's headers, so never the key) and the `reply` (blocks, model, stopReason) or the
`failure` (status, what, and `said`: the provider's own message that ends `what`, when it gave
one; `--redact` makes it a placeholder in both); replay answers the provider from these, with no
network. Reading checks every line and names the first bad one: replay must not guess at a
damaged recording.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from agent_as_model.commands.transcripts.exchange import DIRECTIONS, Exchange, FrameContext

FORMAT = "agent-as-model-transcript"
FORMAT_VERSION = 1


class TranscriptError(Exception):
    """The file cannot be replayed: unreadable, damaged or truncated. `line` is 1-based."""

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {reason}")


def compact(value: Any) -> str:
    """The form in which both SDKs put a frame on the wire: no spaces, non-ASCII as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def dump_record(record: dict[str, Any]) -> str:
    text = json.dumps(record, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from undecodable wire bytes: escape it instead
        text = json.dumps(record, ensure_ascii=True)
    return text


def header_record(*, server_name: str, server_version: str, redacted: bool, started: str) -> dict[str, Any]:
    return {
        "kind": "header",
        "format": FORMAT,
        "formatVersion": FORMAT_VERSION,
        "server": {"name": server_name, "version": server_version},
        "started": started,
        "redacted": redacted,
    }


def protocol_record(t: float, protocol_version: str, era: str) -> dict[str, Any]:
    return {"kind": "protocol", "t": round(t, 6), "protocolVersion": protocol_version, "era": era}


def provider_settings_record(settings: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "providerSettings", "settings": settings}


def provider_record(t: float, exchange: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "provider", "t": round(t, 6), **exchange}


def frame_record(t: float, direction: str, frame: Any, raw: str | None) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": "frame", "t": round(t, 6), "dir": direction}
    if frame is not NOT_JSON:
        record["frame"] = frame
    if raw is not None:
        record["raw"] = raw
    return record


class _NotJson:
    def __repr__(self) -> str:
        return "NOT_JSON"


NOT_JSON: Any = _NotJson()  # the frame of a wire line that did not parse


def parse_wire_line(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return NOT_JSON


class TranscriptWriter:
    """Appends records, one line each, flushed at once: a crash loses at most the frame in flight.

    The stdio tap calls it from the worker threads that read stdin and write stdout, hence the lock.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._closed = False

    def write(self, *records: dict[str, Any]) -> None:
        with self._lock:
            if self._closed:  # a worker thread can outlive the serving loop; drop, never raise there
                return
            for record in records:
                self._stream.write(dump_record(record) + "\n")
            self._stream.flush()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._stream.close()


# --- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    format_version: int
    server_name: str
    server_version: str
    redacted: bool
    started: str | None


@dataclass(frozen=True)
class FrameEntry:
    number: int  # 1-based, counting frames only
    line: int  # 1-based line of the file
    t: float
    direction: str
    frame: Any  # NOT_JSON when the wire line did not parse
    raw: str | None
    context: FrameContext

    def wire_text(self) -> str:
        """The line exactly as it travelled (without its newline)."""
        return self.raw if self.raw is not None else compact(self.frame)


@dataclass
class Transcript:
    path: str
    header: Header
    frames: list[FrameEntry] = field(default_factory=list)
    protocol_version: str | None = None
    era: str | None = None
    provider_settings: dict[str, Any] | None = None
    provider_exchanges: list[dict[str, Any]] = field(default_factory=list)


def load(path: str | Path) -> Transcript:
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise TranscriptError(name, None, f"cannot read the file: {err.strerror or err}") from err
    return parse(data, name)


def parse(data: bytes, path: str = "<transcript>") -> Transcript:
    if not data:
        raise TranscriptError(path, 1, "empty file: expected the transcript header line")
    lines = data.split(b"\n")
    ends_with_newline = lines[-1] == b""
    if ends_with_newline:
        lines.pop()
    records = [
        _record(path, number, raw, number == len(lines) and not ends_with_newline)
        for number, raw in enumerate(lines, start=1)
    ]
    transcript = Transcript(path, _header(path, records[0]))
    exchange = Exchange()
    for number, record in enumerate(records[1:], start=2):
        kind = record.get("kind")
        if kind == "frame":
            entry = _frame(path, number, record, len(transcript.frames) + 1, exchange)
            transcript.frames.append(entry)
        elif kind == "protocol":
            version = record.get("protocolVersion")
            if not isinstance(version, str):
                raise TranscriptError(path, number, "a protocol line needs a string protocolVersion")
            transcript.protocol_version = version
            era = record.get("era")
            transcript.era = era if isinstance(era, str) else None
        elif kind == "providerSettings":
            settings = record.get("settings")
            if not isinstance(settings, dict):
                raise TranscriptError(path, number, "a providerSettings line needs a settings object")
            transcript.provider_settings = settings
        elif kind == "provider":
            if not isinstance(record.get("request"), dict) or not (
                isinstance(record.get("reply"), dict) or isinstance(record.get("failure"), dict)
            ):
                raise TranscriptError(
                    path, number, "a provider line needs a request and a reply or a failure"
                )
            transcript.provider_exchanges.append(record)
        elif kind == "header":
            raise TranscriptError(path, number, "a second header line: two recordings joined together?")
        else:
            raise TranscriptError(path, number, f"unknown record kind {json.dumps(kind)}")
    unanswered = exchange.unanswered()
    if unanswered:  # the oldest one: the recording was cut while it was in flight
        first = unanswered[0]
        raise TranscriptError(
            path,
            first.tag,
            f"truncated: the recording ends before the response to this {first.context.method} request "
            f"(id {json.dumps(first.request_id)})",
        )
    return transcript


def _record(path: str, number: int, raw: bytes, unterminated_last: bool) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise TranscriptError(path, number, f"not UTF-8 text (byte {err.start + 1})") from err
    try:
        record = json.loads(text)
    except json.JSONDecodeError as err:
        if unterminated_last:
            raise TranscriptError(
                path, number, f"truncated: the file ends in the middle of this line ({err.msg})"
            ) from err
        raise TranscriptError(path, number, f"not valid JSON: {err.msg} at column {err.colno}") from err
    if not isinstance(record, dict):
        raise TranscriptError(path, number, f"expected a JSON object, got {type(record).__name__}")
    return record


def _header(path: str, record: dict[str, Any]) -> Header:
    if record.get("kind") != "header" or record.get("format") != FORMAT:
        raise TranscriptError(path, 1, f"not a transcript: the first line must be the {FORMAT} header")
    version = record.get("formatVersion")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise TranscriptError(path, 1, "the header needs a positive integer formatVersion")
    if version > FORMAT_VERSION:
        raise TranscriptError(
            path, 1, f"format version {version} is newer than this agent-as-model reads ({FORMAT_VERSION})"
        )
    server = record.get("server")
    server = server if isinstance(server, dict) else {}
    started = record.get("started")
    return Header(
        format_version=version,
        server_name=str(server.get("name", "?")),
        server_version=str(server.get("version", "?")),
        redacted=record.get("redacted") is True,
        started=started if isinstance(started, str) else None,
    )


def _frame(path: str, number: int, record: dict[str, Any], index: int, exchange: Exchange) -> FrameEntry:
    direction = record.get("dir")
    if direction not in DIRECTIONS:
        raise TranscriptError(
            path, number, f'a frame line needs dir "c2s" or "s2c", got {json.dumps(direction)}'
        )
    t = record.get("t")
    if not isinstance(t, int | float) or isinstance(t, bool):
        raise TranscriptError(path, number, "a frame line needs a number t (seconds since the start)")
    raw = record.get("raw")
    if raw is not None and not isinstance(raw, str):
        raise TranscriptError(path, number, "raw must be a string")
    if "frame" in record:
        frame = record["frame"]
    elif raw is not None:
        frame = parse_wire_line(raw)
    else:
        raise TranscriptError(path, number, "a frame line needs a frame or a raw line")
    context = exchange.see(str(direction), frame, tag=number)
    return FrameEntry(index, number, float(t), str(direction), frame, raw, context)
