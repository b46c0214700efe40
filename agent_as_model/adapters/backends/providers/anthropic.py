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

from types import ModuleType
from typing import Any

from mcp_types import (
    AudioContent,
    CreateMessageRequestParams,
    ImageContent,
    TextContent,
    ToolResultContent,
    ToolUseContent,
)

from agent_as_model.adapters.backends.base import ProviderUnavailable
from agent_as_model.adapters.backends.provider_types import Reply, Send, by_keywords
from agent_as_model.adapters.provider_settings import ProviderSettings
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Usage

STOP_REASONS = {
    "end_turn": "endTurn",
    "max_tokens": "maxTokens",
    "stop_sequence": "stopSequence",
    "tool_use": "toolUse",
}
CHOICES = {"auto": {"type": "auto"}, "none": {"type": "none"}, "required": {"type": "any"}}

SDK = "anthropic"
ERROR_BASE = "AnthropicError"
KEY_VARIABLE = "ANTHROPIC_API_KEY"


def client(sdk: ModuleType, settings: ProviderSettings, key: str | None) -> Send:
    anthropic = sdk.AsyncAnthropic(
        api_key=key, base_url=settings.base_url, timeout=settings.timeout, max_retries=settings.max_retries
    )
    # Unlike OpenAI's, this SDK builds a client without credentials and fails only on the first
    # request (a TypeError): find it now, as a start-up error.
    if anthropic.api_key is None and anthropic.auth_token is None:
        raise ProviderUnavailable(f"no API key (set {KEY_VARIABLE}, or ANTHROPIC_AUTH_TOKEN)")
    # Recent SDKs have no `temperature` keyword (nor `top_p`, `top_k`); the API fields still
    # travel, as the SDK's documented extra body fields (docs/providers.md).
    return by_keywords(anthropic.messages.create)


def request_body(payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
    messages = []
    for message in payload.messages:
        content = message.content
        blocks = content if isinstance(content, list) else [content]
        if message.role == "assistant" and any(isinstance(b, ImageContent | AudioContent) for b in blocks):
            raise caller_error(
                "messages",
                "an image or audio part in a model turn (a host's media answer passed back) cannot go "
                "to the Anthropic provider: its Messages API takes media from users only; use the host "
                "(backend: 'host')",
            )
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
    if isinstance(block, ImageContent):  # Anthropic's own base64 image block
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": block.mime_type, "data": block.data},
        }
    if isinstance(block, AudioContent):
        raise caller_error(
            "messages",
            "an audio part cannot go to the Anthropic provider (its Messages API takes no audio); "
            "use the host (backend: 'host') or an OpenAI provider",
        )
    if isinstance(block, ToolUseContent):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResultContent):
        content: str | list[dict[str, Any]]
        if any(not isinstance(part, TextContent) for part in block.content):
            # Images in a tool result: Anthropic's tool_result takes text and image blocks.
            content = [_block(part) for part in block.content]
        else:
            content = "\n".join(part.text for part in block.content if isinstance(part, TextContent))
        out: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.tool_use_id, "content": content}
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
    stop = STOP_REASONS.get(reason, reason) if reason else None
    ident = response.id if isinstance(response.id, str) else None
    return Reply(tuple(blocks), model, stop, _usage(response), response_id=ident)


def _usage(response: Any) -> Usage | None:
    usage = getattr(response, "usage", None)
    given, made = getattr(usage, "input_tokens", None), getattr(usage, "output_tokens", None)
    if type(given) is not int or type(made) is not int:
        return None
    return Usage(given, made, "provider")


# Same-product pass-through: the products whose bodies this API takes as written (docs/providers.md).
PRODUCTS = ("messages",)


def product_client(sdk: ModuleType, settings: ProviderSettings, key: str | None, product: str) -> Send:
    return client(sdk, settings, key)


def passed_body(passing: Any, model: str) -> dict[str, Any]:
    """The caller's body as written, asking for `model`; the API requires `max_tokens`, which the
    tool lets a caller leave out: then the server's limit is sent."""
    body = {**passing.arguments, "model": model}
    if body.get("max_tokens") is None and passing.max_tokens is not None:
        body["max_tokens"] = passing.max_tokens
    return body


def read_passed(product: str, response: Any) -> Reply:
    return read_reply(response)._replace(native=response.model_dump(mode="json", exclude_unset=True))
