"""Stored responses (opt-in, `serve --store URL`): the Responses API's `previous_response_id`,
`responses_retrieve` and `responses_delete`, kept in embedded SQLite or shared Redis.

`StoreSettings` is what the operator chose; `open_store` makes the sealed store it names. Which
responses are stored and how a chain is resolved is the Responses product's (`dialects/products/
responses/storage.py`); when it is done around a call, the machine's states'
(`states/stored.py`, their I/O `engine/stored_responses.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent_as_model.adapters.store.base import DEFAULT_TTL, Store, StoreUnavailable
from agent_as_model.adapters.store.keyfile import KEY_SUFFIX, kept_key
from agent_as_model.adapters.store.sealing import SealedStore, Unreadable, derive_key
from agent_as_model.records import Record

__all__ = [
    "DEFAULT_TTL",
    "FORMS",
    "SealedStore",
    "Store",
    "StoreSettings",
    "StoreUnavailable",
    "Unreadable",
    "kept_state_key",
    "open_store",
    "store_kind",
]

FORMS = "sqlite:PATH, redis://HOST:PORT/DB or rediss://HOST:PORT/DB"


class StoreSettings(Record):
    url: str
    ttl: float = DEFAULT_TTL


def store_kind(url: str) -> str:
    """ "sqlite" or "redis"; a ValueError naming the accepted forms otherwise."""
    if url.startswith("sqlite:") and sqlite_path(url):
        return "sqlite"
    if url.startswith(("redis://", "rediss://")):
        return "redis"
    raise ValueError(f"expected {FORMS}, got {url!r}")


def sqlite_path(url: str) -> str:
    path = url[len("sqlite:") :]
    # sqlite:///abs/path (the URL form) is sqlite:/abs/path
    return path[2:] if path.startswith("///") else path


def kept_state_key(settings: StoreSettings) -> str | None:
    """The state key an embedded store keeps beside its database (`keyfile.py`), made now if it
    has none; None for a store that keeps no key (Redis, whose processes share no file, or an
    in-memory database, which a restart empties anyway). A `StartupError` when it cannot."""
    if store_kind(settings.url) != "sqlite":
        return None
    path = sqlite_path(settings.url)
    if path in ("", ":memory:"):
        return None
    return kept_key(Path(path + KEY_SUFFIX), settings.url)


def open_store(settings: StoreSettings, secret: str | None, older: Sequence[str] = ()) -> SealedStore:
    """The sealed store `settings` names; `secret` is the state key (None: a key for this process),
    `older` the keys it replaced, which still open what they sealed. A store that cannot be opened
    (a bad path, the redis extra missing) is a `StartupError`."""
    store: Store
    if store_kind(settings.url) == "sqlite":
        from agent_as_model.adapters.store.sqlite import SqliteStore

        store = SqliteStore(sqlite_path(settings.url))
    else:
        from agent_as_model.adapters.store.redis import RedisStore

        store = RedisStore(settings.url)
    return SealedStore(store, [derive_key(secret), *(derive_key(key) for key in older)], settings.ttl)
