"""Inline images and audio: read once, checked before anything is sent.

Every product module reads its own shapes (a chat `image_url` data: URL, an Anthropic `image`
block, a Responses `input_image`, a Gemini `inlineData` part) into one `Media` unit through
here, so the checks are the same everywhere: the base64 decodes strictly, the declared type is one
the product allows and matches the bytes' magic number, and each part and the whole call stay
under the byte bounds (`serve --max-media-bytes`, `--max-media-call-bytes`, checked with
the server's limits in states/validate.py). Remote media is refused with a reason unless the
operator started the server with `serve --fetch-media`: then an http(s) URL (a chat or Responses
image URL, an Anthropic `url` source, a Gemini `fileData` URI) is fetched by adapters/fetching.py,
fenced as that module says, and its bytes are checked here like inline ones. What no plain GET
can read (a file id, an Anthropic `file` source, a Gemini Files API or `gs://` URI) is always
refused.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from agent_as_model.errors import CallError, caller_error, host_error
from agent_as_model.neutral import Media, Text
from agent_as_model.records import Record

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
# Chat's `input_audio` formats, by their MIME types.
AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mpeg"}
# The audio types taken (Gemini's own documentation writes MP3 as audio/mp3, and WAV is also
# sent as audio/x-wav or audio/wave); each has its magic number in `_matches`.
AUDIO_TYPES = ("audio/wav", "audio/mpeg", "audio/mp3", "audio/x-wav", "audio/wave")

REMOTE = (
    "remote media is not fetched: this server passes only inline data to the host unless its "
    "operator started it with --fetch-media; send the bytes inline (base64)"
)


class Fetched(Record):
    """What a fetch of remote media brought back: the response's content type, its bytes in
    base64 (adapters/fetching.py)."""

    mime_type: str
    data: str


if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    # Reads an http(s) URL of media the caller wrote at a path: the fetched bytes as a checked part,
    # or a refusal when fetching is off (`Turns.remote`).
    RemoteReader = Callable[[str, str, tuple[str, ...]], Media]


def is_remote(url: str) -> bool:
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    return scheme in ("http", "https")


def _matches(mime: str, raw: bytes) -> bool:
    """Whether the bytes start the way a file of that type does."""
    if mime == "image/png":
        return raw.startswith(b"\x89PNG\r\n\x1a\n")
    if mime == "image/jpeg":
        return raw.startswith(b"\xff\xd8\xff")
    if mime == "image/gif":
        return raw.startswith((b"GIF87a", b"GIF89a"))
    if mime == "image/webp":
        return raw[:4] == b"RIFF" and raw[8:12] == b"WEBP"
    if mime in ("audio/wav", "audio/x-wav", "audio/wave"):
        return raw[:4] == b"RIFF" and raw[8:12] == b"WAVE"
    if mime in ("audio/mpeg", "audio/mp3"):
        return raw.startswith(b"ID3") or (len(raw) > 1 and raw[0] == 0xFF and raw[1] & 0xE0 == 0xE0)
    return False


def sniffed(raw: bytes) -> str | None:
    for mime in IMAGE_TYPES + AUDIO_TYPES:
        if _matches(mime, raw):
            return mime
    return None


def inline(data: object, mime: object, path: str, allowed: tuple[str, ...]) -> Media:
    """One inline part: `data` base64, `mime` its declared type; `path` names the data field."""
    if not isinstance(mime, str):
        raise caller_error(path, "needs a media type (a string such as 'image/png')")
    mime = mime.lower()
    if mime not in allowed:
        raise caller_error(
            path, f"media type {ascii(mime)} is not allowed here (allowed: {', '.join(allowed)})"
        )
    if not isinstance(data, str) or not data:
        raise caller_error(path, "expected base64 data (a non-empty string)")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as err:
        raise caller_error(path, f"is not valid base64 ({err})") from None
    if not _matches(mime, raw):
        found = sniffed(raw)
        said = f"they look like {found}" if found else "they are no known image or audio format"
        raise caller_error(path, f"the bytes do not match the declared type {mime} ({said})")
    digest = hashlib.sha256(raw).hexdigest()
    if mime.startswith("image/"):
        return Media("image", mime, data, digest, len(raw), path)
    return Media("audio", mime, data, digest, len(raw), path)


def data_url(url: object, path: str, allowed: tuple[str, ...], remote: RemoteReader | None = None) -> Media:
    """A `data:<type>;base64,<data>` URL; an http(s) URL is remote media, read by `remote` (refused
    when there is none, or fetching is off)."""
    if not isinstance(url, str) or not url:
        raise caller_error(path, "expected a URL (a data: URL with base64 data)")
    if not url.startswith("data:"):
        if is_remote(url):
            if remote is None:
                raise caller_error(path, REMOTE)
            return remote(url, path, allowed)
        raise caller_error(path, "expected a data: URL (data:<type>;base64,<data>) or an http(s) URL")
    head, sep, data = url[5:].partition(",")
    if not sep or not head.lower().endswith(";base64"):
        raise caller_error(path, "a data: URL must be base64 (data:<type>;base64,<data>)")
    return inline(data, head[: -len(";base64")], path, allowed)


def answered(kind: str, data: object, mime: object, path: str) -> Media:
    """An image or audio block of the host's answer, checked as a caller's part is: a
    host must not hand the caller bytes that are not what they claim either."""
    allowed = IMAGE_TYPES if kind == "image" else AUDIO_TYPES
    try:
        return inline(data, mime, f"{path}.data", allowed)
    except CallError as err:
        raise host_error(err.path, f"the host's {kind}: {err.reason}") from None


def transcript_text(media: Media) -> str:
    """What a cursor's transcript records of a media part (docs/cursors.md)."""
    return f"[media {media.mime_type};sha256={media.digest}]"


def entry_text(blocks: Iterable[Text | Media]) -> str:
    """A turn's texts and media as its transcript entry's content: each in its place, by `\\n`."""
    return "\n".join([b.text if isinstance(b, Text) else transcript_text(b) for b in blocks])
