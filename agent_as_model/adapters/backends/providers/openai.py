"""An OpenAI-compatible provider (OpenAI, Ollama, vLLM, LM Studio, a llama.cpp server, a hosted
router) through the official `openai` SDK's Chat Completions, both ways.

- `systemPrompt`: a leading `system` message;
- a user turn's text blocks: a `user` message (blocks joined by a newline); its `tool_result`
  blocks: one `tool` message each (`tool_call_id`), `isError` as a `[error] ` prefix of the
  content (Chat has no error flag);
- an assistant turn: one `assistant` message, its text as `content`, its `tool_use` blocks as
  `tool_calls` (`id`, `function.name`, `function.arguments` as JSON text);
- `tools`: `[{type: "function", function: {name, description, parameters}}]`;
- `toolChoice` auto / none / required: `tool_choice` "auto" / "none" / "required"; required with
  one tool (how MCP carries a named choice): `{type: "function", function: {name}}`;
- `stopSequences`, `temperature`, `maxTokens`: `stop`, `temperature`, `max_completion_tokens`.

Back: the message's `content` as one text block, each `tool_calls` entry as a `tool_use` block
(its `id`, name, and arguments parsed as JSON), `finish_reason` stop → `endTurn`, length →
`maxTokens`, tool_calls → `toolUse` (others as they are), and the model the API named.
"""

from __future__ import annotations

import json
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

from agent_as_model.adapters.backends.provider_types import Reply, Send, by_keywords
from agent_as_model.adapters.provider_settings import ProviderSettings
from agent_as_model.errors import caller_error
from agent_as_model.neutral import Usage

STOP_REASONS = {"stop": "endTurn", "length": "maxTokens", "tool_calls": "toolUse", "function_call": "toolUse"}
ERROR_PREFIX = "[error] "

SDK = "openai"
ERROR_BASE = "OpenAIError"
KEY_VARIABLE = "OPENAI_API_KEY"
# A local server that needs no key still needs the variable: the SDK refuses to start without it.
KEY_HINT = "; any value for a local server that needs no key"


def client(sdk: ModuleType, settings: ProviderSettings, key: str | None) -> Send:
    # No key: the SDK raises its own error here, which SdkApi turns into a start-up error.
    openai = sdk.AsyncOpenAI(
        api_key=key, base_url=settings.base_url, timeout=settings.timeout, max_retries=settings.max_retries
    )

    async def send(body: dict[str, Any]) -> Any:
        return await openai.chat.completions.create(**body)

    return send


def request_body(payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if payload.system_prompt:
        messages.append({"role": "system", "content": payload.system_prompt})
    for message in payload.messages:
        content = message.content
        blocks = content if isinstance(content, list) else [content]
        if message.role == "assistant":
            messages.append(_assistant(blocks))
        else:
            messages.extend(_user(blocks))
    body: dict[str, Any] = {"model": model, "messages": messages, "max_completion_tokens": payload.max_tokens}
    if payload.temperature is not None:
        body["temperature"] = payload.temperature
    if payload.stop_sequences:
        body["stop"] = list(payload.stop_sequences)
    if payload.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    **({"description": tool.description} if tool.description else {}),
                    "parameters": tool.input_schema,
                },
            }
            for tool in payload.tools
        ]
    if payload.tool_choice is not None and payload.tool_choice.mode is not None:
        mode = payload.tool_choice.mode
        if mode == "required" and payload.tools and len(payload.tools) == 1:
            # A named choice travels in MCP as that one tool, required: name it again here.
            body["tool_choice"] = {"type": "function", "function": {"name": payload.tools[0].name}}
        else:
            body["tool_choice"] = mode
    return body


def _assistant(blocks: list[Any]) -> dict[str, Any]:
    if any(isinstance(b, ImageContent | AudioContent) for b in blocks):
        raise caller_error(
            "messages",
            "an image or audio part in a model turn (a host's media answer passed back) cannot go to "
            "the OpenAI provider: its chat API takes media from users only; use the host (backend: 'host')",
        )
    texts = [b.text for b in blocks if isinstance(b, TextContent)]
    calls = [
        {
            "id": b.id,
            "type": "function",
            "function": {"name": b.name, "arguments": json.dumps(b.input, sort_keys=True)},
        }
        for b in blocks
        if isinstance(b, ToolUseContent)
    ]
    out: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) if texts else None}
    if calls:
        out["tool_calls"] = calls
    return out


def _user(blocks: list[Any]) -> list[dict[str, Any]]:
    # Tool messages must follow the assistant message that made the calls, so they come first.
    out: list[dict[str, Any]] = []
    for b in blocks:
        if isinstance(b, ToolResultContent):
            if any(not isinstance(part, TextContent) for part in b.content):
                raise caller_error(
                    "messages",
                    f"the tool result {b.tool_use_id!r} holds an image or audio part, which the OpenAI "
                    "provider cannot take (its tool messages are text only); use the host (backend: 'host')",
                )
            text = "\n".join(part.text for part in b.content if isinstance(part, TextContent))
            if b.is_error:
                text = ERROR_PREFIX + text
            out.append({"role": "tool", "tool_call_id": b.tool_use_id, "content": text})
    if any(isinstance(b, ImageContent | AudioContent) for b in blocks):
        # Media in its place among the texts: OpenAI's own content parts.
        parts = [_part(b) for b in blocks if isinstance(b, TextContent | ImageContent | AudioContent)]
        out.append({"role": "user", "content": parts})
        return out
    texts = [b.text for b in blocks if isinstance(b, TextContent)]
    if texts:
        out.append({"role": "user", "content": "\n".join(texts)})
    return out


# Every audio type the dialects take (adapters/dialects/media.AUDIO_TYPES), as OpenAI's format.
_AUDIO_FORMATS = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}


def _part(block: TextContent | ImageContent | AudioContent) -> dict[str, Any]:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageContent):
        return {"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}}
    return {
        "type": "input_audio",
        "input_audio": {"data": block.data, "format": _AUDIO_FORMATS[block.mime_type]},
    }


def read_reply(response: Any) -> Reply:
    choice = response.choices[0]
    message = choice.message
    blocks: list[Any] = []
    if message.content:
        if not isinstance(message.content, str):
            raise ValueError("choices[0].message.content is not text")
        blocks.append(TextContent(type="text", text=message.content))
    for call in message.tool_calls or ():
        arguments = json.loads(call.function.arguments or "{}")
        if not isinstance(arguments, dict):
            raise ValueError(f"tool call {call.id}: arguments are not a JSON object")
        blocks.append(ToolUseContent(type="tool_use", id=call.id, name=call.function.name, input=arguments))
    if not blocks:
        blocks.append(TextContent(type="text", text=""))
    reason = choice.finish_reason
    model = response.model
    if not isinstance(model, str):
        raise ValueError("model is missing")
    stop = STOP_REASONS.get(reason, reason) if reason else None
    ident = response.id if isinstance(response.id, str) else None
    return Reply(tuple(blocks), model, stop, _usage(response), response_id=ident)


def _usage(response: Any) -> Usage | None:
    usage = getattr(response, "usage", None)
    prompt, completion = getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)
    if type(prompt) is not int or type(completion) is not int:
        return None
    return Usage(prompt, completion, "provider")


# Same-product pass-through: the products whose bodies this API takes as written (docs/providers.md).
PRODUCTS = ("chat", "responses")


def product_client(sdk: ModuleType, settings: ProviderSettings, key: str | None, product: str) -> Send:
    openai = sdk.AsyncOpenAI(
        api_key=key, base_url=settings.base_url, timeout=settings.timeout, max_retries=settings.max_retries
    )
    # A body as the caller wrote it may hold a field this SDK release has no keyword for.
    return by_keywords(openai.chat.completions.create if product == "chat" else openai.responses.create)


def passed_body(passing: Any, model: str) -> dict[str, Any]:
    """The caller's body as written, asking for `model`. The Responses tool also takes the shared
    `max_tokens` (the server's alias of `max_output_tokens`, which the API has no other name for):
    it goes under the API's name."""
    body = {**passing.arguments, "model": model}
    if passing.product == "responses" and "max_tokens" in body:
        limit = body.pop("max_tokens")
        if body.get("max_output_tokens") is None:
            body["max_output_tokens"] = limit
    return body


def read_passed(product: str, response: Any) -> Reply:
    native = response.model_dump(mode="json", exclude_unset=True)
    if product == "chat":
        return read_reply(response)._replace(native=native)
    return _read_response(response)._replace(native=native)


def _read_response(response: Any) -> Reply:
    """A Responses object in MCP's sampling vocabulary: its message texts and function calls."""
    blocks: list[Any] = []
    for item in response.output or ():
        if item.type == "message":
            text = "".join(part.text for part in item.content if part.type == "output_text")
            if text:
                blocks.append(TextContent(type="text", text=text))
        elif item.type == "function_call":
            arguments = json.loads(item.arguments or "{}")
            if not isinstance(arguments, dict):
                raise ValueError(f"function call {item.call_id}: arguments are not a JSON object")
            blocks.append(ToolUseContent(type="tool_use", id=item.call_id, name=item.name, input=arguments))
    if not blocks:
        blocks.append(TextContent(type="text", text=""))
    if response.status == "incomplete":
        reason = "maxTokens"
    else:
        reason = "toolUse" if any(isinstance(b, ToolUseContent) for b in blocks) else "endTurn"
    usage = getattr(response, "usage", None)
    given, wrote = getattr(usage, "input_tokens", None), getattr(usage, "output_tokens", None)
    counted = Usage(given, wrote, "provider") if type(given) is int and type(wrote) is int else None
    model = response.model
    if not isinstance(model, str):
        raise ValueError("model is missing")
    return Reply(tuple(blocks), model, reason, counted)
