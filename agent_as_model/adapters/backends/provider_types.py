"""What a provider module returns and what its client is: a leaf module.

The provider modules import these, and the registry (`adapters/provider_names.py`) and
`provider.py` import those modules by their import paths, so these live below all of them: nothing
here imports a provider module, the registry or `provider.py`, and no import circle forms even
counting the registry's strings (tests/test_import_contracts.py adds those edges and checks).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from agent_as_model.neutral import Usage
from agent_as_model.records import Record

if TYPE_CHECKING:
    from typing import Literal

    ErrorKind = Literal["status", "timeout", "connection", "unreadable", "other"]


class Reply(Record):
    """What a provider's API answered, in MCP's sampling vocabulary."""

    blocks: tuple[Any, ...]  # TextContent / ToolUseContent
    model: str
    stop_reason: str | None
    usage: Usage | None = None  # the API's own token counts, when its reply has them
    # The API's own response object, as JSON, when the call's body went through as written.
    native: dict[str, Any] | None = None
    response_id: str | None = None  # the API's own id of its answer, when it gave one


# How a provider module's client sends one request body: the SDK's own `create`, awaited.
Send = Callable[[dict[str, Any]], Awaitable[Any]]


def by_keywords(create: Callable[..., Awaitable[Any]]) -> Send:
    """`create` sent a body whose keys it has no keyword for in its `extra_body` (the SDKs'
    documented way to send fields of the API they do not name: a newer parameter, or one a
    release dropped), so a body as the caller wrote it never fails in the SDK's own signature."""
    keywords = frozenset(inspect.signature(create).parameters)

    async def send(body: dict[str, Any]) -> Any:
        extra = {key: value for key, value in body.items() if key not in keywords}
        if extra:
            body = {key: value for key, value in body.items() if key in keywords}
            body["extra_body"] = {**body.get("extra_body", {}), **extra}
        return await create(**body)

    return send


class SdkError(Record):
    """An SDK's error, read: a status with the error body and the response's headers, no answer
    in time, no connection, an answer that could not be read, or another error of the SDK's."""

    kind: ErrorKind
    status: int | None = None
    body: object = None
    headers: Any = None
