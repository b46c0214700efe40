"""Sealing at rest: every stored value is encrypted and authenticated (AES-256-GCM) before it
reaches the store, so a copied database file or a Redis dump reveals no conversation, and a value
that was changed, moved to another id or sealed with another key is refused, never read as data.

The key is derived (HKDF-SHA256, its own `info`) from the secret that seals the 2026-07-28
requestState (`AGENT_AS_MODEL_STATE_KEY`), so an operator manages one secret; the derived key is
not the state key, so neither use can stand in for the other. The older state keys the operator
still lists (`AGENT_AS_MODEL_STATE_KEY_FALLBACKS`) open what they sealed; only the current one
seals. Without a state key an embedded store keeps one beside its database (keyfile.py), and a
Redis store is refused at start-up (docs/security.md).

A sealed value: one version byte, a 12-byte random nonce, then the ciphertext and its tag. The
response id is the associated data: a value copied under another id fails authentication.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from agent_as_model.adapters.store.base import Store

VERSION = b"\x01"
NONCE_BYTES = 12
_INFO = b"agent-as-model stored responses v1"
# ASCII (the default): a lone surrogate in a caller's text still encodes.
_COMPACT = json.JSONEncoder(separators=(",", ":"))


class Unreadable(Exception):
    """A stored value that failed authentication (another key, or changed): not data."""


def derive_key(secret: str | bytes | None) -> bytes:
    """The sealing key of stored values: derived from `secret`, or random for this process."""
    if not secret:
        return AESGCM.generate_key(bit_length=256)
    material = secret.encode("utf-8") if isinstance(secret, str) else secret
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(material)


class SealedStore:
    """A store of JSON objects, sealed, each living `ttl` seconds. `keys[0]` seals; every key opens
    (the ones after it are older state keys, kept while what they sealed must stay readable)."""

    def __init__(self, store: Store, keys: Sequence[bytes], ttl: float) -> None:
        self.store = store
        self.ttl = ttl
        self._aeads = [AESGCM(key) for key in keys]

    @property
    def where(self) -> str:
        return self.store.where

    def seal(self, ident: str, value: dict[str, Any]) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        plain = _COMPACT.encode(value).encode("ascii")
        return VERSION + nonce + self._aeads[0].encrypt(nonce, plain, ident.encode("utf-8"))

    def unseal(self, ident: str, sealed: bytes) -> dict[str, Any]:
        if sealed[:1] != VERSION or len(sealed) < 1 + NONCE_BYTES + 16:
            raise Unreadable("not a value this server sealed")
        nonce, body = sealed[1 : 1 + NONCE_BYTES], sealed[1 + NONCE_BYTES :]
        for aead in self._aeads:
            try:
                plain = aead.decrypt(nonce, body, ident.encode("utf-8"))
                break
            except InvalidTag:
                continue
        else:
            raise Unreadable("it failed authentication") from None
        value = json.loads(plain)
        if not isinstance(value, dict):
            raise Unreadable("not a stored response")
        return value

    async def get(self, ident: str) -> dict[str, Any] | None:
        sealed = await self.store.get(ident)
        return None if sealed is None else self.unseal(ident, sealed)

    async def add(self, ident: str, value: dict[str, Any]) -> bool:
        return await self.store.add(ident, self.seal(ident, value), self.ttl)

    async def delete(self, ident: str) -> bool:
        return await self.store.delete(ident)

    async def aclose(self) -> None:
        await self.store.aclose()
