"""The key an embedded store keeps beside its database, when the operator gave none.

Without `AGENT_AS_MODEL_STATE_KEY` a process would seal with a key of its own, and over stdio every
new host session is a new process: the responses it stored would stay in the file, unreadable. So
`--store sqlite:PATH` keeps a key in `PATH.key`, made on first use and read after. It is made
whole or not at all (written to a file of its own, then linked into place, which fails if another
process made it meanwhile: that one is read), readable and writable by its owner only, and a key
file that others may read or write is refused, as ssh refuses a private key: whoever reads it can
open every stored response and mint states the server accepts (docs/security.md).
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from agent_as_model.errors import StartupError

# Appended to the database's path: `responses.db` keeps its key in `responses.db.key`.
KEY_SUFFIX = ".key"
# What a key must hold, in bytes (the SDK's own bound for requestState keys).
MIN_KEY_BYTES = 32


def kept_key(path: Path, where: str) -> str:
    """The key in `path`, made there now if there is none. `where` names the store in errors."""
    try:
        return _read(path, where)
    except FileNotFoundError:
        pass
    made = secrets.token_urlsafe(32)
    fresh = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    try:
        handle = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(made + "\n")
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(fresh, path)
        except FileExistsError:  # another process made one meanwhile: theirs seals the store
            return _read(path, where)
    except OSError as err:
        raise StartupError(f"--store {where}: cannot make its key file {path} ({err.strerror})") from None
    finally:
        fresh.unlink(missing_ok=True)
    return made


def _read(path: Path, where: str) -> str:
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as err:
        raise StartupError(f"--store {where}: cannot read its key file {path} ({err})") from None
    if stat.S_IMODE(mode) & 0o077:
        raise StartupError(
            f"--store {where}: its key file {path} may be read or changed by others (mode "
            f"{stat.S_IMODE(mode):04o}); make it its owner's alone: chmod 600 {path}"
        )
    key = text.strip()
    if len(key.encode("utf-8")) < MIN_KEY_BYTES:
        raise StartupError(
            f"--store {where}: its key file {path} holds no key of {MIN_KEY_BYTES} bytes or more. "
            "Removing it makes a new key, and the responses stored under the old one cannot be read"
        )
    return key
