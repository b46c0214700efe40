"""An Anthropic provider through the official `anthropic` SDK's Messages API, both ways.

- `systemPrompt`: `system`;
- text / `tool_use` / `tool_result` blocks: `text` / `tool_use {id, name, input}` /
  `tool_result {tool_use_id, content, is_error}` blocks, in messages of the same roles;
- `tools`: `[{name, description, input_schema}]`;
- `toolChoice` auto / none / required: `tool_choice` `{type: "auto"}` / `{type: "none"}` /
  `{type: "any"}`; required with one tool (how MCP carries a named choice): `{type: "tool", name}`;
- `stopSequences`, `temperature`, `maxTokens`: `stop_sequences`, `temperature`, `max_tokens`.

Back: text and `tool_use` blocks as MCP blocks (ids kept), `stop_reason` end_turn → `endTurn`,
max_tokens → `maxTokens`, stop_sequence → `stopSequence`, tool_use → `toolUse` (others as they
are), and the model the API named.
"""

from __future__ import annotations

import inspect
from typing import Any

from mcp_types import (
    CreateMessageRequestParams,
    TextContent,
    ToolResultContent,
    ToolUseContent,
)

from agent_as_model.adapters.backends.base import ProviderUnavailable
from agent_as_model.adapters.backends.provider import (
    Failure,
    ProviderSettings,
    Reply,
    status_words,
    unreadable,
)

STOP_REASONS = {
    "end_turn": "endTurn",
    "max_tokens": "maxTokens",
    "stop_sequence": "stopSequence",
    "tool_use": "toolUse",
}
CHOICES = {"auto": {"type": "auto"}, "none": {"type": "none"}, "required": {"type": "any"}}


# The environment variable the official SDK reads its key from (the only place a key comes from).
KEY_VARIABLE = "ANTHROPIC_API_KEY"


class AnthropicApi:
    def __init__(self, settings: ProviderSettings) -> None:
        try:
            import anthropic
        except ImportError:
            raise ProviderUnavailable(
                "--provider anthropic needs the anthropic SDK: install this project with its anthropic extra "
                "(pip install '/path/to/checkout[anthropic]'), or pip install anthropic beside it"
            ) from None
        self._sdk = anthropic
        try:
            # The SDK reads ANTHROPIC_API_KEY itself; its own timeout and retries (with backoff) apply.
            self._client = anthropic.AsyncAnthropic(
                base_url=settings.base_url, timeout=settings.timeout, max_retries=settings.max_retries
            )
        except anthropic.AnthropicError as err:
            raise ProviderUnavailable(f"--provider anthropic: {_first_line(err)}") from None
        # Unlike OpenAI's, this SDK builds a client without credentials and fails only on the first
        # request (a TypeError): find it now, as a start-up error.
        if self._client.api_key is None and self._client.auth_token is None:
            raise ProviderUnavailable(
                f"--provider anthropic: no API key (set {KEY_VARIABLE}, or ANTHROPIC_AUTH_TOKEN)"
            )
        # Recent SDKs have no `temperature` keyword; the API field still travels, as the SDK's
        # documented extra body field (docs/providers.md).
        self._temperature_keyword = (
            "temperature" in inspect.signature(self._client.messages.create).parameters
        )

    def body(self, payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
        return request_body(payload, model)

    async def create(self, payload: CreateMessageRequestParams, model: str) -> Reply:
        body = request_body(payload, model)
        if "temperature" in body and not self._temperature_keyword:
            body["extra_body"] = {"temperature": body.pop("temperature")}
        try:
            response = await self._client.messages.create(**body)
        except ValueError as err:  # the SDK lets a body that is not JSON through as a decode error
            raise _Unreadable(f"not JSON: {err}") from None
        try:
            return read_reply(response)
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as err:
            raise _Unreadable(str(err)) from None

    def failure(self, err: Exception) -> Failure | None:
        sdk = self._sdk
        if isinstance(err, _Unreadable):
            return unreadable(err.detail)
        if isinstance(err, sdk.APITimeoutError):
            return Failure(None, "no answer within --provider-timeout, still after the configured retries")
        if isinstance(err, sdk.APIConnectionError):
            return Failure(None, "could not connect (is the server at --provider-base-url running?)")
        if isinstance(err, sdk.APIResponseValidationError):
            return Failure(err.status_code, "its answer could not be read")
        if isinstance(err, sdk.APIStatusError):
            return Failure(err.status_code, status_words(err.status_code, KEY_VARIABLE))
        if isinstance(err, sdk.AnthropicError):
            return Failure(None, _first_line(err))
        return None


class _Unreadable(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def request_body(payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
    messages = []
    for message in payload.messages:
        content = message.content
        blocks = content if isinstance(content, list) else [content]
        messages.append({"role": message.role, "content": [_block(b) for b in blocks]})
    body: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": payload.max_tokens}
    if payload.system_prompt:
        body["system"] = payload.system_prompt
    if payload.temperature is not None:
        body["temperature"] = payload.temperature
    if payload.stop_sequences:
        body["stop_sequences"] = list(payload.stop_sequences)
    if payload.tools:
        body["tools"] = [
            {
                "name": tool.name,
                **({"description": tool.description} if tool.description else {}),
                "input_schema": tool.input_schema,
            }
            for tool in payload.tools
        ]
    if payload.tool_choice is not None and payload.tool_choice.mode is not None:
        mode = payload.tool_choice.mode
        if mode == "required" and payload.tools and len(payload.tools) == 1:
            # A named choice travels in MCP as that one tool, required: name it again here.
            body["tool_choice"] = {"type": "tool", "name": payload.tools[0].name}
        else:
            body["tool_choice"] = CHOICES[mode]
    return body


def _block(block: Any) -> dict[str, Any]:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolUseContent):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResultContent):
        text = "\n".join(part.text for part in block.content if isinstance(part, TextContent))
        out: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.tool_use_id, "content": text}
        if block.is_error:
            out["is_error"] = True
        return out
    raise TypeError(f"not a block the payload carries: {type(block).__name__}")


def read_reply(response: Any) -> Reply:
    blocks: list[Any] = []
    for block in response.content:
        if block.type == "text":
            blocks.append(TextContent(type="text", text=block.text))
        elif block.type == "tool_use":
            if not isinstance(block.input, dict):
                raise ValueError(f"tool_use {block.id}: input is not an object")
            blocks.append(ToolUseContent(type="tool_use", id=block.id, name=block.name, input=block.input))
        else:
            raise ValueError(f"content block of type {block.type!r} is not text or tool_use")
    if not blocks:
        blocks.append(TextContent(type="text", text=""))
    model = response.model
    if not isinstance(model, str):
        raise ValueError("model is missing")
    reason = response.stop_reason
    return Reply(tuple(blocks), model, STOP_REASONS.get(reason, reason) if reason else None)


def _first_line(err: Exception) -> str:
    return (str(err).splitlines() or [type(err).__name__])[0]


Api = AnthropicApi  # the name `backends.connect` builds this provider's API by
