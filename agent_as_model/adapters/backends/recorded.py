"""A provider's exchanges, recorded and replayed (`serve --record`, `replay`).

The tap receives each exchange as a JSON-ready dict: {"provider" (its name), "model", "request":
the API body, and "reply" or "failure" (its status, what the error result says, and "said", the
provider's own message that ends it, when there is one)}. The request is the body the SDK sends,
never its headers: the key is not in it. A replay answers each provider from its own exchanges, in
order, with no SDK and no network.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_types import CreateMessageRequestParams, TextContent, ToolUseContent

from agent_as_model.adapters.backends.provider import Failure, Passing, ProviderApi, Reply, unreadable
from agent_as_model.adapters.provider_names import POLICIES, PROVIDER_MODULES, ProviderSettings
from agent_as_model.errors import SAID
from agent_as_model.neutral import Usage

Tap = Callable[[dict[str, Any]], None]
# The body an API sends for a payload (or the caller's body, passed through), as the module writes it.
BodyOf = Callable[[CreateMessageRequestParams, str, "Passing | None"], dict[str, Any]]


def settings_json(settings: ProviderSettings) -> dict[str, Any]:
    """What a recording keeps of the settings, so replay routes calls alike (no key, no URL)."""
    return {
        "provider": settings.provider,
        "model": settings.model,
        "models": list(settings.models),
        "use": settings.use,
        "onHostError": settings.on_host_error,
        **({"name": settings.name} if settings.name else {}),
    }


def settings_from_json(value: dict[str, Any]) -> ProviderSettings:
    provider = value.get("provider")
    use = value.get("use", "when-host-cannot")
    name = value.get("name", "")
    if (
        provider not in PROVIDER_MODULES
        or use not in POLICIES
        or not isinstance(value.get("model"), str)
        or not isinstance(name, str)
    ):
        raise ValueError("not provider settings")
    return ProviderSettings(
        provider=provider,
        model=value["model"],
        models=tuple(str(m) for m in value.get("models") or ()),
        use=use,
        on_host_error=value.get("onHostError") is True,
        name=name,
    )


def reply_json(reply: Reply) -> dict[str, Any]:
    return {
        "blocks": [b.model_dump(by_alias=True, mode="json", exclude_none=True) for b in reply.blocks],
        "model": reply.model,
        "stopReason": reply.stop_reason,
        # The API's own counts, so a replayed reply reports them as the live one did.
        **({} if reply.usage is None else {"usage": _usage_json(reply.usage)}),
        # The API's own object, when the call's body went through as written.
        **({} if reply.native is None else {"native": reply.native}),
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
    native = value.get("native")
    if native is not None and not isinstance(native, dict):
        raise ValueError("native is not an object")
    return Reply(blocks, str(value["model"]), value.get("stopReason"), usage, native)


class TappedApi:
    """A provider's API whose every exchange is also handed to `tap` (`serve --record`)."""

    def __init__(self, inner: ProviderApi, provider: str, tap: Tap) -> None:
        self._inner = inner
        self._provider = provider
        self._tap = tap

    def speaks(self, product: str | None) -> bool:
        return self._inner.speaks(product)

    def body(
        self, payload: CreateMessageRequestParams, model: str, passing: Passing | None = None
    ) -> dict[str, Any]:
        return self._inner.body(payload, model, passing)

    async def create(
        self, payload: CreateMessageRequestParams, model: str, passing: Passing | None = None
    ) -> Reply:
        record: dict[str, Any] = {
            "provider": self._provider,
            "model": model,
            "request": self._inner.body(payload, model, passing),
        }
        try:
            reply = await self._inner.create(payload, model, passing)
        except Exception as err:
            failure = self._inner.failure(err)
            if failure is not None:
                reported: dict[str, Any] = {"status": failure.status, "what": failure.message()}
                if failure.said is not None:  # the provider's own words, which `--redact` covers
                    reported["said"] = failure.said
                self._tap({**record, "failure": reported})
            raise
        self._tap({**record, "reply": reply_json(reply)})
        return reply

    def failure(self, err: Exception) -> Failure | None:
        return self._inner.failure(err)


def _failure(recorded: dict[str, Any]) -> Failure:
    """A recorded failure: `what` is what the error result said, which ends with the provider's
    own words (`said`) when it quoted them."""
    what, said = str(recorded.get("what")), recorded.get("said")
    ending = f"; {SAID}{said}"
    if isinstance(said, str) and what.endswith(ending):
        return Failure(recorded.get("status"), what[: -len(ending)], said)
    return Failure(recorded.get("status"), what)


class _Replayed(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.what)
        self.failure = failure


class ReplayedApi:
    """A provider's API answered from a recording, in order, with no network (`replay`). A
    request that differs from the recorded one (unless the recording is redacted, where texts
    are placeholders) or one past the end of the recording fails, so the divergence shows in the
    tool result the replay compares."""

    def __init__(
        self,
        exchanges: list[dict[str, Any]],
        body_of: BodyOf,
        *,
        compare_requests: bool,
        products: frozenset[str] = frozenset(),
    ) -> None:
        self._exchanges = list(exchanges)
        self._body_of = body_of
        self._compare = compare_requests
        self._products = products

    def speaks(self, product: str | None) -> bool:
        return product in self._products

    def body(
        self, payload: CreateMessageRequestParams, model: str, passing: Passing | None = None
    ) -> dict[str, Any]:
        return self._body_of(payload, model, passing)

    async def create(
        self, payload: CreateMessageRequestParams, model: str, passing: Passing | None = None
    ) -> Reply:
        if not self._exchanges:
            raise _Replayed(Failure(None, "the recording holds no provider answer for this request"))
        recorded = self._exchanges.pop(0)
        if recorded.get("model") != model or (
            self._compare and recorded.get("request") != self._body_of(payload, model, passing)
        ):
            raise _Replayed(Failure(None, "this request differs from the recorded provider request"))
        failure = recorded.get("failure")
        if isinstance(failure, dict):
            raise _Replayed(_failure(failure))
        try:
            return reply_from_json(recorded["reply"])
        except (KeyError, TypeError, ValueError) as err:
            raise _Replayed(unreadable(f"the recorded reply: {err}")) from None

    def failure(self, err: Exception) -> Failure | None:
        return err.failure if isinstance(err, _Replayed) else None
