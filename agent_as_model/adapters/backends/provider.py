"""A provider's model (opt-in, spec section 8): the same sampling payload the host would get, sent
to an OpenAI-compatible or Anthropic API through its official SDK, read back as a `HostAnswer`.

Off by default: nothing here runs, and no key is read, unless the operator configures a provider
(`ProviderSettings`). A provider API is one module (`providers/openai.py`, `providers/anthropic.py`; see
`ProviderModule` for what it declares: its request body, its reply reader, its SDK, the SDK's
error base class and its key variable) and one line in `adapters/provider_names.py`. This module
holds what they share: the settings, the model allow-list, the SDK's import and client set-up,
the request and its error handling (`SdkApi`), and how a failed exchange is told.

A model name is never silently mapped: `agent-default` is the configured model, any other name
must be on the allow-list, or the call is an error that lists the allowed names.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any, Protocol

from mcp_types import CreateMessageRequestParams, TextContent, ToolUseContent

from agent_as_model.adapters.backends.attempts import GaveUp, attempts, retry_after_seconds, retryable_status
from agent_as_model.adapters.backends.base import HostAnswer, ProviderUnavailable
from agent_as_model.adapters.provider_names import POLICIES, PROVIDER_MODULES, ProviderName, ProviderSettings
from agent_as_model.errors import SAID, CallError, caller_error, host_error, quoted
from agent_as_model.neutral import DEFAULT_MODEL, Usage
from agent_as_model.records import Record

log = logging.getLogger("agent_as_model")


class Reply(Record):
    """What a provider's API answered, in MCP's sampling vocabulary."""

    blocks: tuple[Any, ...]  # TextContent / ToolUseContent
    model: str
    stop_reason: str | None
    usage: Usage | None = None  # the API's own token counts, when its reply has them


class Failure(Record):
    """A failed exchange, as the SDK reported it: the HTTP status when there was one."""

    status: int | None
    what: str  # what happened, in words, never the key nor a traceback
    said: str | None = None  # the provider's own message, already cut to a bound

    def told(self) -> str:
        return self.what if self.said is None else f"{self.what}; {SAID}{self.said}"


class ProviderApi(Protocol):
    """One provider's API through its SDK: the payload out, the reply back."""

    def body(self, payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
        """The API's request body for this payload (what is sent, without the SDK's headers)."""
        ...

    async def create(self, payload: CreateMessageRequestParams, model: str) -> Reply: ...

    def failure(self, err: Exception) -> Failure | None:
        """The SDK's error as a `Failure`, or None when it is not one of the SDK's errors."""
        ...


# How a provider module's client sends one request body: the SDK's own `create`, awaited.
Send = Callable[[dict[str, Any]], Awaitable[Any]]


class ProviderModule(Protocol):
    """What a provider module declares: the module is the provider (`adapters/provider_names.py`
    registers it by its import path, and a test may register one of its own)."""

    # The import name of the API's official SDK, which is also this project's extra for it.
    SDK: str
    # The name, in the SDK, of the class every error it raises derives from.
    ERROR_BASE: str
    # The environment variable the SDK reads its key from (the only place a key comes from);
    # `serve --help` and docs/providers.md name it. A module may also declare `KEY_HINT`, words
    # the missing-key error adds after the variable's name (read with a default: it is optional).
    KEY_VARIABLE: str

    def client(self, sdk: ModuleType, settings: ProviderSettings) -> Send:
        """The SDK's client for the settings, as the function that sends a body. The SDK reads the
        key itself. Its settings' `max_retries` is 0: `SdkApi` makes the attempts, each bounded
        from request to last byte (`attempts.py`). Raise `ProviderUnavailable` for what the SDK
        would only find on the first request (a missing key)."""
        ...

    def request_body(self, payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
        """The API's request body for this payload (what is sent, without the SDK's headers)."""
        ...

    def read_reply(self, response: Any) -> Reply:
        """The SDK's response, in MCP's sampling vocabulary; raise (AttributeError, TypeError,
        KeyError, IndexError, ValueError) for one that cannot be read."""
        ...


def provider_module(name: ProviderName) -> ProviderModule:
    """The registered module of provider `name` (imported now; it imports no SDK)."""
    module: ProviderModule = importlib.import_module(PROVIDER_MODULES[name])  # type: ignore[assignment]
    return module


class SdkApi:
    """A provider's API through its official SDK: what every provider module shares. The SDK is
    imported, and its client made, only now (the provider was configured)."""

    def __init__(self, name: ProviderName, module: ProviderModule, settings: ProviderSettings) -> None:
        self._module = module
        try:
            sdk = importlib.import_module(module.SDK)
        except ImportError:
            extra = module.SDK
            raise ProviderUnavailable(
                f"--provider {name} needs the {extra} SDK: install this project with its {extra} extra "
                f"(pip install '/path/to/checkout[{extra}]'), or pip install {extra} beside it"
            ) from None
        self._sdk = sdk
        self._settings = settings
        self._error_base: type[Exception] = getattr(sdk, module.ERROR_BASE)
        try:
            # The attempts are ours (`create`): the SDK's would each take a full timeout per read
            # and sleep as long as Retry-After says.
            self._send = module.client(sdk, settings._replace(max_retries=0))
        except self._error_base as err:
            raise ProviderUnavailable(
                f"--provider {name}: {first_line(err)} "
                f"(set {module.KEY_VARIABLE}{getattr(module, 'KEY_HINT', '')})"
            ) from None

    def body(self, payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
        return self._module.request_body(payload, model)

    async def create(self, payload: CreateMessageRequestParams, model: str) -> Reply:
        body = self._module.request_body(payload, model)
        settings = self._settings
        response = await attempts(
            lambda: self._send(body),
            timeout=settings.timeout,
            retries=settings.max_retries,
            retryable=self._retryable,
            retry_after=lambda err: retry_after_seconds(
                getattr(getattr(err, "response", None), "headers", None)
            ),
        )
        try:
            return self._module.read_reply(response)
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as err:
            raise _Unreadable(str(err)) from None

    def _retryable(self, err: Exception) -> bool:
        sdk = self._sdk
        if isinstance(err, sdk.APIStatusError):
            return retryable_status(err.status_code)
        return isinstance(err, sdk.APIConnectionError)  # a timeout of the SDK's own too

    def failure(self, err: Exception) -> Failure | None:
        if isinstance(err, GaveUp):
            last = self._failure(err.last) if err.last is not None else None
            if last is None:
                took = f"{self._settings.timeout:g} s an attempt, from request to last byte"
                last = Failure(None, f"no answer within --provider-timeout ({took})")
            return Failure(last.status, last.what + err.why, last.said)
        return self._failure(err)

    def _failure(self, err: Exception) -> Failure | None:
        # The official SDKs generated alike (openai, anthropic) share these error classes' names.
        sdk = self._sdk
        if isinstance(err, _Unreadable):
            return unreadable(err.detail, HTTP_OK)
        if isinstance(err, ValueError):  # the SDKs let a body that is not JSON through as a decode error
            return unreadable(f"not JSON: {err}", HTTP_OK)
        if isinstance(err, sdk.APITimeoutError):
            return Failure(None, "no answer within --provider-timeout")
        if isinstance(err, sdk.APIConnectionError):
            return Failure(None, "could not connect (is the server at --provider-base-url running?)")
        if isinstance(err, sdk.APIResponseValidationError):
            return Failure(err.status_code, "its answer could not be read")
        if isinstance(err, sdk.APIStatusError):
            words = status_words(err.status_code, self._module.KEY_VARIABLE)
            said = provider_said(getattr(err, "body", None))
            return Failure(err.status_code, words, None if said is None else quoted(said))
        if isinstance(err, self._error_base):
            return Failure(None, first_line(err))
        return None


class _Unreadable(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def first_line(err: Exception) -> str:
    return (str(err).splitlines() or [type(err).__name__])[0]


class ProviderBackend:
    """The backend: the payload to the provider's model, its reply as a `HostAnswer`."""

    def __init__(self, settings: ProviderSettings, api: ProviderApi) -> None:
        self.settings = settings
        self._api = api
        self.who = f"The provider {settings.provider} (not the host)"

    def model_for(self, hint: str) -> str:
        """The provider's model for the call's `model`; an error listing the allowed ones."""
        if hint == DEFAULT_MODEL:
            return self.settings.model
        if hint in self.settings.allowed():
            return hint
        allowed = ", ".join(self.settings.allowed())
        raise caller_error(
            "model",
            f"{hint!r} is not a model this server's provider {self.settings.provider} may use "
            f"(allowed: {allowed}); a name is never mapped to another",
        )

    def source(self, model: str) -> str:
        return f"provider:{self.settings.provider}/{self.model_for(model)}"

    def admit(self, payload: CreateMessageRequestParams) -> None:
        # The request body, written once before the exchange: a part the API has no shape for is
        # refused now, naming it, with nothing sent (the exchange writes it again to send it).
        self._api.body(payload, self.model_for(_hint(payload)))

    async def exchange(
        self, payload: CreateMessageRequestParams, round_no: int, findings: tuple[CallError, ...]
    ) -> HostAnswer:
        # One request, every round: the payload holds all a repair needs, so nothing is kept.
        model = self.model_for(_hint(payload))
        name = self.settings.provider
        try:
            reply = await self._api.create(payload, model)
        except CallError:
            raise
        except Exception as err:
            failure = self._api.failure(err)
            if failure is None:
                raise
            status = f"HTTP {failure.status}" if failure.status is not None else "no HTTP answer"
            raise host_error(f"provider {name}", f"{status}: {failure.told()}") from None
        source = self.source(model)
        log.info("answered by %s", source)
        return HostAnswer(
            "assistant", reply.blocks, reply.model or model, reply.stop_reason, source, reply.usage
        )


def _hint(payload: CreateMessageRequestParams) -> str:
    prefs = payload.model_preferences
    if prefs is not None and prefs.hints and prefs.hints[0].name:
        return prefs.hints[0].name
    return DEFAULT_MODEL


def status_words(status: int | None, key_variable: str) -> str:
    """What an HTTP status from a provider means to the operator (shared by both APIs)."""
    if status == 401:
        return f"the API key was refused (check {key_variable})"
    if status == 403:
        return "the key may not use this model or endpoint"
    if status == 404:
        return (
            "the model or endpoint is unknown to the provider "
            "(check --provider-model and --provider-base-url)"
        )
    if status == 429:
        return "rate limited"
    if status is not None and status >= 500:
        return "the provider failed (a server error)"
    return "the provider refused the request"


# The status of an answer that came but could not be read (the SDKs raise on any other).
HTTP_OK = 200


def unreadable(detail: str, status: int | None = None) -> Failure:
    return Failure(status, f"its answer could not be read ({quoted(detail)})")


def provider_said(body: object) -> str | None:
    """The provider's own message in an error body (`{"error": {"message"}}` for both APIs, or a
    bare string), if it has one."""
    inner = body.get("error", body) if isinstance(body, dict) else body
    message = inner.get("message") if isinstance(inner, dict) else inner
    return message if isinstance(message, str) and message.strip() else None


# --- record and replay (`serve --record`, `replay`) ------------------------------------------------

# Receives each provider exchange as a JSON-ready dict: {"provider", "model", "request": the API
# body, and "reply" or "failure" (its status, what the error result says, and "said", the
# provider's own message that ends it, when there is one)}. The request is the body the SDK
# sends, never its headers: the key is not in it.
Tap = Callable[[dict[str, Any]], None]
BodyOf = Callable[[CreateMessageRequestParams, str], dict[str, Any]]


def settings_json(settings: ProviderSettings) -> dict[str, Any]:
    """What a recording keeps of the settings, so replay routes calls alike (no key, no URL)."""
    return {
        "provider": settings.provider,
        "model": settings.model,
        "models": list(settings.models),
        "use": settings.use,
        "onHostError": settings.on_host_error,
    }


def settings_from_json(value: dict[str, Any]) -> ProviderSettings:
    provider = value.get("provider")
    use = value.get("use", "when-host-cannot")
    if provider not in PROVIDER_MODULES or use not in POLICIES or not isinstance(value.get("model"), str):
        raise ValueError("not provider settings")
    return ProviderSettings(
        provider=provider,
        model=value["model"],
        models=tuple(str(m) for m in value.get("models") or ()),
        use=use,
        on_host_error=value.get("onHostError") is True,
    )


def reply_json(reply: Reply) -> dict[str, Any]:
    return {
        "blocks": [b.model_dump(by_alias=True, mode="json", exclude_none=True) for b in reply.blocks],
        "model": reply.model,
        "stopReason": reply.stop_reason,
        # The API's own counts, so a replayed reply reports them as the live one did.
        **({} if reply.usage is None else {"usage": _usage_json(reply.usage)}),
    }


def _usage_json(usage: Usage) -> dict[str, int]:
    return {"inputTokens": usage.input_tokens, "outputTokens": usage.output_tokens}


def reply_from_json(value: dict[str, Any]) -> Reply:
    blocks = tuple(
        TextContent.model_validate(b) if b["type"] == "text" else ToolUseContent.model_validate(b)
        for b in value["blocks"]
    )
    usage = None
    if "usage" in value:
        counts = value["usage"]
        if not isinstance(counts, dict):
            raise ValueError("usage is not an object")
        given, wrote = counts.get("inputTokens"), counts.get("outputTokens")
        if type(given) is not int or type(wrote) is not int or given < 0 or wrote < 0:
            raise ValueError("usage: inputTokens and outputTokens must be non-negative integers")
        usage = Usage(given, wrote, "provider")
    return Reply(blocks, str(value["model"]), value.get("stopReason"), usage)


class TappedApi:
    """A provider's API whose every exchange is also handed to `tap` (`serve --record`)."""

    def __init__(self, inner: ProviderApi, provider: ProviderName, tap: Tap) -> None:
        self._inner = inner
        self._provider = provider
        self._tap = tap

    def body(self, payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
        return self._inner.body(payload, model)

    async def create(self, payload: CreateMessageRequestParams, model: str) -> Reply:
        record: dict[str, Any] = {
            "provider": self._provider,
            "model": model,
            "request": self._inner.body(payload, model),
        }
        try:
            reply = await self._inner.create(payload, model)
        except Exception as err:
            failure = self._inner.failure(err)
            if failure is not None:
                told: dict[str, Any] = {"status": failure.status, "what": failure.told()}
                if failure.said is not None:  # the provider's own words, which `--redact` covers
                    told["said"] = failure.said
                self._tap({**record, "failure": told})
            raise
        self._tap({**record, "reply": reply_json(reply)})
        return reply

    def failure(self, err: Exception) -> Failure | None:
        return self._inner.failure(err)


class _Replayed(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.what)
        self.failure = failure


class ReplayedApi:
    """A provider's API answered from a recording, in order, with no network (`replay`). A
    request that differs from the recorded one (unless the recording is redacted, where texts
    are placeholders) or one past the end of the recording fails, so the divergence shows in the
    tool result the replay compares."""

    def __init__(self, exchanges: list[dict[str, Any]], body_of: BodyOf, *, compare_requests: bool) -> None:
        self._exchanges = list(exchanges)
        self._body_of = body_of
        self._compare = compare_requests

    def body(self, payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
        return self._body_of(payload, model)

    async def create(self, payload: CreateMessageRequestParams, model: str) -> Reply:
        if not self._exchanges:
            raise _Replayed(Failure(None, "the recording holds no provider answer for this request"))
        recorded = self._exchanges.pop(0)
        if recorded.get("model") != model or (
            self._compare and recorded.get("request") != self._body_of(payload, model)
        ):
            raise _Replayed(Failure(None, "this request differs from the recorded provider request"))
        failure = recorded.get("failure")
        if isinstance(failure, dict):
            raise _Replayed(Failure(failure.get("status"), str(failure.get("what"))))
        try:
            return reply_from_json(recorded["reply"])
        except (KeyError, TypeError, ValueError) as err:
            raise _Replayed(unreadable(f"the recorded reply: {err}")) from None

    def failure(self, err: Exception) -> Failure | None:
        return err.failure if isinstance(err, _Replayed) else None
