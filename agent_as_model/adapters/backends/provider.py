"""A provider's model (opt-in, spec sections 8 and 15): the same sampling payload the host would get,
sent to a provider's API through its official SDK, read back as a `HostAnswer`; or, when the API
speaks the call's own product, the caller's body as written (`Passing`).

Off by default: nothing here runs, and no key is read, unless the operator configures a provider
(`ProviderSettings`). A provider API is one module (`providers/openai.py`, `providers/anthropic.py`,
`providers/gemini.py`; see `ProviderModule` for what it declares: its request body, its reply
reader, its SDK, the SDK's error base class and its key variable, and for the products it speaks,
their pass-through) and one line in `adapters/provider_names.py`. What they share lives once:
here the backend of one configured provider and of one call it serves (the model it is asked for,
how a failure is reported, and whether it passes the call on); in `sdk_api.py` the SDK's import,
client set-up, requests and error reading; in `recorded.py` record and replay.

A model name is never silently mapped: `agent-default` is the configured model, a route names the
model it asks for, and any other name must be one the provider lists.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from types import ModuleType
from typing import Any, Protocol

from mcp_types import CreateMessageRequestParams, SamplingMessage

from agent_as_model.adapters.backends.attempts import retryable_status
from agent_as_model.adapters.backends.base import REPAIR_TURNS, HostAnswer, ProviderFailed
from agent_as_model.adapters.backends.provider_types import Reply, Send
from agent_as_model.adapters.provider_names import PROVIDER_MODULES, ProviderName, ProviderSettings
from agent_as_model.adapters.routes import listed
from agent_as_model.errors import SAID, CallError, caller_error, host_error, quoted
from agent_as_model.neutral import DEFAULT_MODEL
from agent_as_model.records import Record
from agent_as_model.telemetry import conventions

__all__ = ["ProviderSettings", "Reply", "Send"]  # named here too, for the modules that read them here

log = logging.getLogger("agent_as_model")


class Failure(Record):
    """A failed exchange, as the SDK reported it: the HTTP status when there was one."""

    status: int | None
    what: str  # what happened, in words, never the key nor a traceback
    said: str | None = None  # the provider's own message, already cut to a bound
    # Seconds the provider asked to be left alone (Retry-After), when it said.
    retry_after: float | None = None

    def message(self) -> str:
        """What the caller reads: what happened and, when the provider said something, its words."""
        return self.what if self.said is None else f"{self.what}; {SAID}{self.said}"

    @property
    def passes_on(self) -> bool:
        """Whether another backend may answer instead: no HTTP answer, or a status worth another
        attempt (408, 409, 429, a server error), the same the attempts retry."""
        return self.status is None or retryable_status(self.status)


class Passing(Record):
    """A call whose product the provider's API speaks: the body goes as the caller wrote it,
    without the server's own keys (`arguments`), with the model the provider is asked for, and
    with what the server adds of its own: its output contract (`contract`, the schema of
    `output_schema`, asked for in the API's own words) and the turns of its repairs so far."""

    product: str
    arguments: Mapping[str, Any]
    contract: Mapping[str, Any] | None = None
    repairs: tuple[SamplingMessage, ...] = ()
    # The call's token limit as the server read it (its default when the caller gave none), for
    # an API that requires one the caller's product lets it leave out.
    max_tokens: int | None = None


class ProviderApi(Protocol):
    """One provider's API through its SDK: the payload (or the caller's body) out, the reply back."""

    def speaks(self, product: str | None) -> bool:
        """Whether the API takes `product`'s bodies as written (`Passing`)."""
        ...

    def body(
        self, payload: CreateMessageRequestParams, model: str, passing: Passing | None = None
    ) -> dict[str, Any]:
        """The API's request body for this payload, or for the caller's body (what is sent,
        without the SDK's headers)."""
        ...

    async def create(
        self, payload: CreateMessageRequestParams, model: str, passing: Passing | None = None
    ) -> Reply: ...

    def failure(self, err: Exception) -> Failure | None:
        """The SDK's error as a `Failure`, or None when it is not one of the SDK's errors."""
        ...


class ProviderModule(Protocol):
    """What a provider module declares: the module is the provider (`adapters/provider_names.py`
    registers it by its import path, and a test may register one of its own).

    Optional, read with a default: `EXTRA` (this project's extra for the SDK; default `SDK`),
    `DISTRIBUTION` (the SDK's name on the package index; default `EXTRA`), `KEY_HINT` (words the
    missing-key error adds after the variable), `read_error(sdk, err) -> SdkError | None` (an SDK
    whose errors are not the generated OpenAI/Anthropic ones: `sdk_api.generated_error`), and, for
    the products whose bodies it takes as written, `PRODUCTS`, `product_client(sdk, settings, key,
    product) -> Send`, `passed_body(passing, model)` and `read_passed(product, response) -> Reply`
    (with `native`, the API's own object as JSON)."""

    # The import name of the API's official SDK.
    SDK: str
    # The name, in the SDK, of the class every error it raises derives from (dotted below the SDK).
    ERROR_BASE: str
    # The environment variable the SDK reads its key from, when the operator names none (the only
    # place a key comes from); `serve --help` and docs/providers.md name it.
    KEY_VARIABLE: str

    def client(self, sdk: ModuleType, settings: ProviderSettings, key: str | None) -> Send:
        """The SDK's client for the settings, as the function that sends a body. `key`: the key
        read from the operator's `key-variable` (None: the SDK reads `KEY_VARIABLE` itself). Its
        settings' `max_retries` is 0: `SdkApi` makes the attempts, each bounded from request to
        last byte (`attempts.py`). Raise `ProviderUnavailable` (its words, the provider's name is
        put before them) for what the SDK would only find on the first request (a missing key)."""
        ...

    def request_body(self, payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
        """The API's request body for this payload (what is sent, without the SDK's headers)."""
        ...

    def read_reply(self, response: Any) -> Reply:
        """The SDK's response, in MCP's sampling vocabulary; raise (AttributeError, TypeError,
        KeyError, IndexError, ValueError) for one that cannot be read."""
        ...


def provider_module(name: ProviderName) -> ProviderModule:
    """The registered module of provider API `name` (imported now; it imports no SDK)."""
    module: ProviderModule = importlib.import_module(PROVIDER_MODULES[name])  # type: ignore[assignment]
    return module


def setting_name(settings: ProviderSettings, key: str) -> str:
    """How the operator wrote a provider's setting: `--provider-timeout` for the `--provider` flags'
    one provider, `[providers.NAME] timeout` for a named one."""
    return f"[providers.{settings.name}] {key}" if settings.name else f"--provider-{key}"


class ProviderBackend:
    """One configured provider: its settings and API, shared by every call it serves."""

    def __init__(self, settings: ProviderSettings, api: ProviderApi) -> None:
        self.settings = settings
        self.label = settings.label
        self._api = api
        conventions.provider_named(self.label, settings.provider)
        self.who = f"The provider {self.label} (not the host)"

    def speaks(self, product: str | None) -> bool:
        return self._api.speaks(product)

    def model_for(self, hint: str, listed_only: bool = True) -> str:
        """The provider's model for the call's `model`: its default model for agent-default, else
        the name itself, which must be one it lists unless the route named it (`listed_only`
        False); an error naming the provider's models otherwise."""
        settings = self.settings
        if hint == DEFAULT_MODEL:
            if settings.model:
                return settings.model
            raise caller_error(
                "model",
                f"'{DEFAULT_MODEL}' has no model on the provider {self.label} (it has no default-model): "
                "name one of its models",
            )
        if not listed_only or listed(settings, hint):
            return hint
        allowed = ", ".join(settings.allowed())
        raise caller_error(
            "model",
            f"{hint!r} is not a model this server's provider {self.label} may use "
            f"(allowed: {allowed}); a name is never mapped to another",
        )

    def serving(
        self,
        model: str,
        product: str | None = None,
        arguments: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ProviderCall:
        """This provider as the backend of one call, asking for `model` (the route's, or the
        caller's as `model_for` allows it); when its API speaks `product`, the caller's
        `arguments` go as written."""
        passing = None
        if (
            product is not None
            and arguments is not None
            and self.settings.pass_through
            and self._api.speaks(product)
        ):
            passing = Passing(product, arguments, max_tokens=max_tokens)
        return ProviderCall(self, model, passing)

    # The `--provider` flags' one provider serves as a backend itself, asking for the caller's model.

    def source(self, model: str) -> str:
        return f"provider:{self.label}/{self.model_for(model)}"

    def admit(self, payload: CreateMessageRequestParams) -> None:
        self.serving(self.model_for(_hint(payload))).admit(payload)

    async def exchange(
        self, payload: CreateMessageRequestParams, round_no: int, findings: tuple[CallError, ...]
    ) -> HostAnswer:
        return await self.serving(self.model_for(_hint(payload))).exchange(payload, round_no, findings)

    async def create(
        self, payload: CreateMessageRequestParams, model: str, passing: Passing | None
    ) -> HostAnswer:
        """One request to the API (every round of a call is one: the payload holds all a repair
        needs, so nothing is kept); a failure raised as the error the caller reads."""
        try:
            reply = await self._api.create(payload, model, passing)
        except CallError:
            raise
        except Exception as err:
            failure = self._api.failure(err)
            if failure is None:
                raise
            status = f"HTTP {failure.status}" if failure.status is not None else "no HTTP answer"
            path, reason = f"provider {self.label}", f"{status}: {failure.message()}"
            if failure.passes_on:
                brief = f"{status}: {failure.what}"  # without the provider's own words
                raise ProviderFailed(path, reason, failure.retry_after, brief) from None
            raise host_error(path, reason) from None
        source = f"provider:{self.label}/{model}"
        log.info("answered by %s", source)
        return HostAnswer(
            "assistant",
            reply.blocks,
            reply.model or model,
            reply.stop_reason,
            source,
            reply.usage,
            native=reply.native,
            response_id=reply.response_id or _native_id(reply.native),
        )

    def check(self, payload: CreateMessageRequestParams, model: str, passing: Passing | None) -> None:
        # The request body, written once before the exchange: a part the API has no shape for is
        # refused now, naming it, with nothing sent (the exchange writes it again to send it).
        self._api.body(payload, model, passing)


class ProviderCall:
    """A provider as the backend of one call: the model it is asked for, and, when its API speaks
    the call's product, the caller's body that goes through as written."""

    def __init__(self, provider: ProviderBackend, model: str, passing: Passing | None) -> None:
        self.provider = provider
        self.model = model
        self.passing = passing
        self.who = provider.who
        self.label = provider.label

    def source(self, model: str) -> str:
        return f"provider:{self.label}/{self.model}"

    def admit(self, payload: CreateMessageRequestParams) -> None:
        self.provider.check(payload, self.model, self._passing(payload, 0))

    async def exchange(
        self, payload: CreateMessageRequestParams, round_no: int, findings: tuple[CallError, ...]
    ) -> HostAnswer:
        return await self.provider.create(payload, self.model, self._passing(payload, round_no))

    def _passing(self, payload: CreateMessageRequestParams, round_no: int) -> Passing | None:
        """The caller's body with this round's repairs: the last turns of the payload, two a repair."""
        passing = self.passing
        if passing is None or not round_no:
            return passing
        return passing._replace(repairs=tuple(payload.messages[-REPAIR_TURNS * round_no :]))


def _hint(payload: CreateMessageRequestParams) -> str:
    prefs = payload.model_preferences
    if prefs is not None and prefs.hints and prefs.hints[0].name:
        return prefs.hints[0].name
    return DEFAULT_MODEL


def status_words(status: int | None, key_variable: str, settings: ProviderSettings | None = None) -> str:
    """What an HTTP status from a provider means to the operator (shared by every API)."""
    if status == 401:
        return f"the API key was refused (check {key_variable})"
    if status == 403:
        return "the key may not use this model or endpoint"
    if status == 404:
        if settings is not None and settings.name:
            where = setting_name(settings, "base-url")
            return f"the model or endpoint is unknown to the provider (check the model and {where})"
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
    """The provider's own message in an error body (`{"error": {"message"}}` for every API, or a
    bare string), if it has one."""
    inner = body.get("error", body) if isinstance(body, dict) else body
    message = inner.get("message") if isinstance(inner, dict) else inner
    return message if isinstance(message, str) and message.strip() else None


def first_line(err: Exception) -> str:
    return (str(err).splitlines() or [type(err).__name__])[0]


def _native_id(native: dict[str, Any] | None) -> str | None:
    """The id of a provider's own response object (`id`; Gemini's `responseId`), if it has one."""
    if native is None:
        return None
    found = native.get("id", native.get("responseId"))
    return found if isinstance(found, str) else None
