"""Bearer tokens to callers' names, held only as sha256 digests: the door finds the caller of a
request's token by comparing its digest with every caller's in constant time (`hmac.compare_digest`,
and no early end), so neither the time of an answer nor a memory dump gives a token away."""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable

from agent_as_model.adapters.callers.base import TOKEN_CALLER, CallersSettings

BEARER = b"Bearer "
DIGEST = re.compile(r"[0-9a-f]{64}")


def digest_of(token: str | bytes) -> str:
    """A token's sha256, in hex: what the configuration holds in its place."""
    data = token.encode() if isinstance(token, str) else token
    return hashlib.sha256(data).hexdigest()


class TokenTable:
    """Each accepted token's digest and the caller it names."""

    def __init__(self, named: Iterable[tuple[str, str]]) -> None:
        self._entries = [(bytes.fromhex(digest), name) for digest, name in named]

    def __bool__(self) -> bool:
        return bool(self._entries)

    def caller_of(self, authorization: bytes) -> str | None:
        """The caller whose token an `Authorization` header carries; None for none of them."""
        token = authorization[len(BEARER) :] if authorization.startswith(BEARER) else b""
        given = hashlib.sha256(token).digest()
        found = None
        for digest, name in self._entries:  # every one, matched or not: the time says nothing
            if hmac.compare_digest(given, digest) and token:
                found = name
        return found


def token_table(settings: CallersSettings | None, auth_token: str | None) -> TokenTable:
    """The callers' tokens, and `--auth-token`'s as the caller `default`."""
    named = [] if settings is None else [(d, c.name) for c in settings.callers for d in c.digests]
    if auth_token:
        named.append((digest_of(auth_token), TOKEN_CALLER))
    return TokenTable(named)
