"""A provider's API through its official SDK: what every provider module shares.

The SDK is imported, its key read from the operator's variable, and its client made, only when the
provider is configured. Every request is the server's own attempts (`attempts.py`; the SDK's own
retries are off), each bounded from request to last byte. An SDK error is read into what it means
(`SdkError`): the OpenAI and Anthropic SDKs, generated alike, share their error classes' names
(`generated_error`); a module whose SDK raises others declares its own `read_error`.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

from mcp_types import CreateMessageRequestParams

from agent_as_model import telemetry
from agent_as_model.adapters.backends.attempts import GaveUp, attempts, retry_after_seconds, retryable_status
from agent_as_model.adapters.backends.base import ProviderUnavailable
from agent_as_model.adapters.backends.provider import (
    HTTP_OK,
    Failure,
    Passing,
    ProviderModule,
    first_line,
    provider_said,
    setting_name,
    status_words,
    unreadable,
)
from agent_as_model.adapters.backends.provider_types import Reply, SdkError, Send
from agent_as_model.adapters.provider_names import ProviderSettings
from agent_as_model.errors import quoted

# What a module's reader raises for a reply it cannot read.
_UNREADABLE = (AttributeError, TypeError, KeyError, IndexError, ValueError)


def generated_error(sdk: ModuleType, err: Exception) -> SdkError | None:
    """The error of an SDK generated like OpenAI's and Anthropic's (their classes share names)."""
    if isinstance(err, sdk.APITimeoutError):
        return SdkError("timeout")
    if isinstance(err, sdk.APIConnectionError):
        return SdkError("connection")
    if isinstance(err, sdk.APIResponseValidationError):
        return SdkError("unreadable", err.status_code)
    if isinstance(err, sdk.APIStatusError):
        return SdkError("status", err.status_code, getattr(err, "body", None), err.response.headers)
    return None


def where(settings: ProviderSettings) -> str:
    """How a start-up error names the provider: as the operator configured it."""
    return f"[providers.{settings.name}]" if settings.name else f"--provider {settings.provider}"


class SdkApi:
    def __init__(self, settings: ProviderSettings, module: ProviderModule) -> None:
        self._module = module
        self._settings = settings
        extra = getattr(module, "EXTRA", module.SDK)
        try:
            sdk = importlib.import_module(module.SDK)
        except ImportError:
            distribution = getattr(module, "DISTRIBUTION", extra)
            raise ProviderUnavailable(
                f"{where(settings)} needs the {extra} SDK: install this project with its {extra} extra "
                f"(pip install '/path/to/checkout[{extra}]'), or pip install {distribution} beside it"
            ) from None
        self._sdk = sdk
        self._read_error = getattr(module, "read_error", generated_error)
        self._error_base: type[Exception] = _attribute(sdk, module.ERROR_BASE)
        self.key_variable = settings.key_variable or module.KEY_VARIABLE
        hint = getattr(module, "KEY_HINT", "")
        key = None
        if settings.key_variable:  # the operator named the variable: read only that one
            key = os.environ.get(settings.key_variable) or None
            if key is None:
                raise ProviderUnavailable(
                    f"{where(settings)}: no API key (set {settings.key_variable}{hint})"
                )
        # What a provider's words must never carry back to a caller: the key it was sent (an API
        # that refuses a key may quote it), whichever variable it came from.
        self._secret = key or os.environ.get(self.key_variable) or None
        # The attempts are ours (`create`): the SDK's would each take a full timeout per read and
        # sleep as long as Retry-After says.
        unretried = settings._replace(max_retries=0)
        try:
            self._sends: dict[str | None, Send] = {None: module.client(sdk, unretried, key)}
            for product in getattr(module, "PRODUCTS", ()):
                self._sends[product] = module.product_client(sdk, unretried, key, product)  # type: ignore[attr-defined]
        except ProviderUnavailable as err:
            raise ProviderUnavailable(f"{where(settings)}: {err}") from None
        except self._error_base as err:
            raise ProviderUnavailable(
                f"{where(settings)}: {first_line(err)} (set {self.key_variable}{hint})"
            ) from None

    def speaks(self, product: str | None) -> bool:
        return product is not None and product in self._sends

    def body(
        self, payload: CreateMessageRequestParams, model: str, passing: Passing | None = None
    ) -> dict[str, Any]:
        if passing is None:
            return self._module.request_body(payload, model)
        return self._module.passed_body(passing, model)  # type: ignore[attr-defined,no-any-return]

    async def create(
        self, payload: CreateMessageRequestParams, model: str, passing: Passing | None = None
    ) -> Reply:
        body = self.body(payload, model, passing)
        headers = telemetry.trace_headers()
        if headers:  # the round's trace context, as `traceparent` (docs/telemetry.md)
            body = {**body, "extra_headers": headers}
        send = self._sends[None if passing is None else passing.product]
        settings = self._settings
        response = await attempts(
            lambda: send(body),
            timeout=settings.timeout,
            retries=settings.max_retries,
            retryable=self._retryable,
            retry_after=self._retry_after,
        )
        try:
            if passing is None:
                return self._module.read_reply(response)
            return self._module.read_passed(passing.product, response)  # type: ignore[attr-defined,no-any-return]
        except _UNREADABLE as err:
            raise _Unreadable(str(err)) from None

    def _retryable(self, err: Exception) -> bool:
        read = self._read_error(self._sdk, err)
        if read is None:
            return False
        return read.kind in ("timeout", "connection") or (
            read.kind == "status" and retryable_status(read.status)
        )

    def _retry_after(self, err: Exception | None) -> float | None:
        read = self._read_error(self._sdk, err) if err is not None else None
        return None if read is None else retry_after_seconds(read.headers)

    def failure(self, err: Exception) -> Failure | None:
        if isinstance(err, GaveUp):
            last = self._failure(err.last) if err.last is not None else None
            if last is None:
                took = f"{self._settings.timeout:g} s an attempt, from request to last byte"
                last = Failure(None, f"no answer within {setting_name(self._settings, 'timeout')} ({took})")
            return last._replace(what=last.what + err.why, retry_after=self._retry_after(err.last))
        return self._failure(err)

    def _failure(self, err: Exception) -> Failure | None:
        if isinstance(err, _Unreadable):
            return unreadable(self._hidden(err.detail), HTTP_OK)
        read = self._read_error(self._sdk, err)
        if read is None:
            if isinstance(err, ValueError):  # the SDKs let a body that is not JSON through as a decode error
                return unreadable(self._hidden(f"not JSON: {err}"), HTTP_OK)
            if isinstance(err, self._error_base):
                return Failure(None, self._hidden(first_line(err)))
            return None
        settings = self._settings
        if read.kind == "timeout":
            return Failure(None, f"no answer within {setting_name(settings, 'timeout')}")
        if read.kind == "connection":
            return Failure(
                None, f"could not connect (is the server at {setting_name(settings, 'base-url')} running?)"
            )
        if read.kind == "unreadable":
            return Failure(read.status, "its answer could not be read")
        if read.kind == "status":
            words = status_words(read.status, self.key_variable, settings)
            said = provider_said(read.body)
            if said is not None:
                said = self._hidden(said)  # before it is cut: no part of the key may be left either
            return Failure(
                read.status, words, None if said is None else quoted(said), retry_after_seconds(read.headers)
            )
        return Failure(None, self._hidden(first_line(err)))

    def _hidden(self, words: str) -> str:
        """A provider's words without the key it was sent."""
        secret = self._secret
        return words if secret is None else words.replace(secret, HIDDEN_KEY)


# What stands in a provider's words where it quoted the key it was sent.
HIDDEN_KEY = "[the API key]"


class _Unreadable(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _attribute(sdk: ModuleType, dotted: str) -> Any:
    """`errors.APIError` below the SDK's module: its submodule imported when it is one."""
    found: Any = sdk
    for part in dotted.split("."):
        if not hasattr(found, part) and isinstance(found, ModuleType):
            importlib.import_module(f"{found.__name__}.{part}")
        found = getattr(found, part)
    return found
