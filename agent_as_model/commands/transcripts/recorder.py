"""`serve --record`: every line the stdio tap (transports/tap.py) sees becomes a transcript record.

A line is parsed, placed in the exchange (which request a response answers), redacted when asked,
stamped with the time since the start and written at once (fileformat.py). The negotiated protocol
version is spotted on the way and written as its own line the moment it is known.
"""

from __future__ import annotations

import gc
import threading
import time
from datetime import datetime, timezone
from typing import Any, TextIO

from agent_as_model import __version__
from agent_as_model.adapters.backends import is_modern, settings_json
from agent_as_model.adapters.routes import gateway_json
from agent_as_model.commands.transcripts.exchange import (
    CLIENT_TO_SERVER,
    SERVER_TO_CLIENT,
    Exchange,
    FrameContext,
    id_key,
)
from agent_as_model.commands.transcripts.fileformat import (
    NOT_JSON,
    TranscriptWriter,
    compact,
    frame_record,
    header_record,
    parse_wire_line,
    protocol_record,
    provider_record,
    provider_settings_record,
)
from agent_as_model.commands.transcripts.redact import Redactor
from agent_as_model.limits import DEFAULT_LIMITS, Limits
from agent_as_model.server import SERVER_NAME, build_server
from agent_as_model.transports import stdio
from agent_as_model.transports.tap import tapped_wire

PROTOCOL_META = "io.modelcontextprotocol/protocolVersion"


def era_of(protocol_version: str) -> str:
    return "modern" if is_modern(protocol_version) else "legacy"


class ProtocolWatch:
    """Spots the negotiated protocol version: the `initialize` result on the legacy era, the first
    request whose `_meta` names a version and is answered with a result on 2026-07-28."""

    def __init__(self) -> None:
        self._asked: dict[str, str | None] = {}  # client request id -> the version its _meta names
        self.version: str | None = None

    def see(self, direction: str, frame: Any, context: FrameContext) -> str | None:
        """The version, the one time it becomes known."""
        if self.version is not None or not isinstance(frame, dict):
            return None
        if direction == CLIENT_TO_SERVER and context.kind == "request":
            params = frame.get("params")
            meta = params.get("_meta") if isinstance(params, dict) else None
            named = meta.get(PROTOCOL_META) if isinstance(meta, dict) else None
            if context.method == "initialize" or isinstance(named, str):
                self._asked[id_key(frame.get("id"))] = named if isinstance(named, str) else None
            return None
        if direction != SERVER_TO_CLIENT or context.kind != "response":
            return None
        key = id_key(frame.get("id"))
        if key not in self._asked or not isinstance(frame.get("result"), dict):
            return None
        named = self._asked.pop(key)
        version = frame["result"].get("protocolVersion") if context.method == "initialize" else named
        if isinstance(version, str):
            self.version = version
            return version
        return None


class Recorder:
    """Turns wire lines into transcript records: parse, classify, redact, stamp the time, write."""

    def __init__(self, writer: TranscriptWriter, *, redactor: Redactor | None = None) -> None:
        self._writer = writer
        self._redactor = redactor
        self._exchange = Exchange()
        self._protocol = ProtocolWatch()
        self._lock = threading.Lock()  # stdin and stdout are tapped from two worker threads
        self._start = time.monotonic()

    def start(self, *, server_name: str, server_version: str) -> None:
        started = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self._writer.write(
            header_record(
                server_name=server_name,
                server_version=server_version,
                redacted=self._redactor is not None,
                started=started,
            )
        )

    def provider_settings(self, settings: dict[str, Any]) -> None:
        self._writer.write(provider_settings_record(settings))

    def provider_exchange(self, exchange: dict[str, Any]) -> None:
        """One provider exchange (the SDK's request body and the reply or failure; no headers)."""
        if self._redactor is not None:
            exchange = self._redactor.provider(exchange)
        self._writer.write(provider_record(time.monotonic() - self._start, exchange))

    def line(self, direction: str, data: bytes) -> None:
        # surrogateescape keeps undecodable bytes recoverable instead of replacing them.
        text = data.decode("utf-8", "surrogateescape")
        with self._lock:
            t = time.monotonic() - self._start
            frame = parse_wire_line(text)
            context = self._exchange.see(direction, frame)
            negotiated = self._protocol.see(direction, frame, context)
            if self._redactor is None:
                raw = text if frame is NOT_JSON or compact(frame) != text else None
                record = frame_record(t, direction, frame, raw)
            elif frame is NOT_JSON:
                record = frame_record(t, direction, NOT_JSON, self._redactor.placeholder(text))
            else:
                record = frame_record(t, direction, self._redactor.frame(direction, frame, context), None)
            records = [record]
            if negotiated is not None:
                records.append(protocol_record(t, negotiated, era_of(negotiated)))
            self._writer.write(*records)

    def client_line(self, data: bytes) -> None:
        self.line(CLIENT_TO_SERVER, data)

    def server_line(self, data: bytes) -> None:
        self.line(SERVER_TO_CLIENT, data)


async def serve_recorded(
    stream: TextIO, *, redact: bool, provider: Any = None, limits: Limits = DEFAULT_LIMITS
) -> None:
    """Serve MCP over stdio like `serve`, recording every frame to `stream` (closed at the end);
    `provider`: the operator's gateway (its providers' exchanges are recorded too)."""
    writer = TranscriptWriter(stream)
    try:
        recorder = Recorder(writer, redactor=Redactor() if redact else None)
        recorder.start(server_name=SERVER_NAME, server_version=__version__)
        tap = None
        if provider is not None:
            one = provider.one_provider()  # the --provider flags': recorded as they always were
            # No URL in a recording, as for the --provider flags' settings: replay needs none.
            unaddressed = provider._replace(
                providers=tuple(p._replace(base_url=None) for p in provider.providers)
            )
            recorder.provider_settings(settings_json(one) if one else {"gateway": gateway_json(unaddressed)})
            tap = recorder.provider_exchange
        server = build_server(gateway=provider, provider_tap=tap, limits=limits)
        gc.freeze()  # as `serve` does (`transports.freeze_heap`): start-up out of the collector's reach
        # The same hygienic reader as a plain `serve`, over the tapped wire.
        with tapped_wire(recorder.client_line, recorder.server_line) as (wire_in, wire_out):
            await stdio.serve(server, wire_in.read, wire_out.write, max_frame=limits.max_frame)
    finally:
        writer.close()
