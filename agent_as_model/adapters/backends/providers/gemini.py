"""A Gemini provider through the official `google-genai` SDK's generateContent, both ways.

- `systemPrompt`: `systemInstruction`;
- text / image and audio / `tool_use` / `tool_result` blocks: `text` / `inlineData` / `functionCall
  {id, name, args}` / `functionResponse {id, name, response: {output | error}}` parts, in contents
  of role `user` and `model`;
- `tools`: `[{functionDeclarations: [{name, description, parametersJsonSchema}]}]` (the JSON Schema
  as it is);
- `toolChoice` auto / none / required: `toolConfig.functionCallingConfig.mode` AUTO / NONE / ANY;
  required with one tool (how MCP carries a named choice): ANY with `allowedFunctionNames`;
- `stopSequences`, `temperature`, `maxTokens`: `generationConfig` `stopSequences`, `temperature`,
  `maxOutputTokens`.

Back: the first candidate's text parts (not its thoughts) as one text block, each `functionCall` as
a `tool_use` block (its id, or one made of its place when the API gave none), `finishReason` STOP
-> `endTurn` (`toolUse` when it called), MAX_TOKENS -> `maxTokens` (others as they are), and
`modelVersion` as the model.

The body is the REST request the SDK sends (camelCase), with the model beside it; the SDK is handed
it as its own types, so what reaches the API is what the SDK writes of them. Its key: the
operator's `key-variable`, else GEMINI_API_KEY, always handed to the SDK (which would otherwise
prefer GOOGLE_API_KEY).

A generateContent call passed through (`PRODUCTS`) is posted as the caller wrote it, with the model
in the path, and the API's own JSON object comes back as it is, read for the server's own needs as
above.
"""

from __future__ import annotations

import json
import os
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
from agent_as_model.adapters.backends.provider_types import Reply, SdkError, Send
from agent_as_model.adapters.provider_settings import ProviderSettings
from agent_as_model.neutral import Usage
from agent_as_model.records import Record

SDK = "google.genai"
EXTRA = "gemini"
DISTRIBUTION = "google-genai"
ERROR_BASE = "errors.APIError"
KEY_VARIABLE = "GEMINI_API_KEY"

# The API's version, in its path: the one generateContent is published under, for every endpoint
# alike (the SDK's own default may differ when a base URL is given).
API_VERSION = "v1beta"
STOP_REASONS = {"STOP": "endTurn", "MAX_TOKENS": "maxTokens"}
MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY"}
# The REST body's keys that are the SDK's `GenerateContentConfig` as they are; `generationConfig`'s
# own keys join them (the SDK writes them back there).
_CONFIG_KEYS = ("systemInstruction", "tools", "toolConfig", "safetySettings", "cachedContent", "labels")


def client(sdk: ModuleType, settings: ProviderSettings, key: str | None) -> Send:
    types = sdk.types
    models = _sdk_client(sdk, settings, key).aio.models

    async def send(body: dict[str, Any]) -> Any:
        return await models.generate_content(**sdk_call(types, body))

    return send


def _sdk_client(sdk: ModuleType, settings: ProviderSettings, key: str | None) -> Any:
    """The SDK's client for the settings: its base URL, the API's version, the key, the timeout."""
    key = key or os.environ.get(KEY_VARIABLE) or None
    if key is None:
        raise ProviderUnavailable(f"no API key (set {KEY_VARIABLE})")
    types = sdk.types
    options = types.HttpOptions(
        base_url=settings.base_url,
        api_version=API_VERSION,
        timeout=int(settings.timeout * 1000),  # milliseconds
        retry_options=types.HttpRetryOptions(attempts=1),  # the attempts are the server's own
    )
    return sdk.Client(api_key=key, vertexai=False, http_options=options)


def sdk_call(types: ModuleType, body: dict[str, Any]) -> dict[str, Any]:
    """A REST generateContent body (with its model) as the SDK's `generate_content` takes it."""
    config = {key: body[key] for key in _CONFIG_KEYS if key in body}
    config.update(body.get("generationConfig") or {})
    # The server reads the calls itself: the SDK must not run or answer any on its own.
    config["automaticFunctionCalling"] = {"disable": True}
    if body.get("extra_headers"):  # the round's trace context (`traceparent`), as the other SDKs send it
        config["httpOptions"] = {"headers": body["extra_headers"]}
    return {
        "model": body["model"],
        "contents": [types.Content.model_validate(content) for content in body.get("contents", [])],
        "config": types.GenerateContentConfig.model_validate(config),
    }


def read_error(sdk: ModuleType, err: Exception) -> SdkError | None:
    if isinstance(err, sdk.errors.APIError):
        headers = getattr(getattr(err, "response", None), "headers", None)
        return SdkError("status", err.code, {"error": {"message": err.message}}, headers)
    name = type(err).__name__  # the SDK's transport's own (httpx or aiohttp), raised through it
    if "Timeout" in name:
        return SdkError("timeout")
    if "Connect" in name or "Connection" in name or "RemoteProtocol" in name:
        return SdkError("connection")
    return None


def request_body(payload: CreateMessageRequestParams, model: str) -> dict[str, Any]:
    names: dict[str, str] = {}  # a call's id -> its tool, for the response that answers it
    contents = []
    for message in payload.messages:
        content = message.content
        blocks = content if isinstance(content, list) else [content]
        role = "model" if message.role == "assistant" else "user"
        contents.append({"role": role, "parts": [_part(b, names) for b in blocks]})
    body: dict[str, Any] = {"model": model, "contents": contents}
    if payload.system_prompt:
        body["systemInstruction"] = {"parts": [{"text": payload.system_prompt}]}
    generation: dict[str, Any] = {"maxOutputTokens": payload.max_tokens}
    if payload.temperature is not None:
        generation["temperature"] = payload.temperature
    if payload.stop_sequences:
        generation["stopSequences"] = list(payload.stop_sequences)
    body["generationConfig"] = generation
    if payload.tools:
        body["tools"] = [
            {
                "functionDeclarations": [
                    {
                        "name": tool.name,
                        **({"description": tool.description} if tool.description else {}),
                        "parametersJsonSchema": tool.input_schema,
                    }
                    for tool in payload.tools
                ]
            }
        ]
    if payload.tool_choice is not None and payload.tool_choice.mode is not None:
        calling: dict[str, Any] = {"mode": MODES[payload.tool_choice.mode]}
        if payload.tool_choice.mode == "required" and payload.tools and len(payload.tools) == 1:
            # A named choice travels in MCP as that one tool, required: name it again here.
            calling["allowedFunctionNames"] = [payload.tools[0].name]
        body["toolConfig"] = {"functionCallingConfig": calling}
    return body


def _part(block: Any, names: dict[str, str]) -> dict[str, Any]:
    if isinstance(block, TextContent):
        return {"text": block.text}
    if isinstance(block, ImageContent | AudioContent):
        return {"inlineData": {"mimeType": block.mime_type, "data": block.data}}
    if isinstance(block, ToolUseContent):
        names[block.id] = block.name
        return {"functionCall": {"id": block.id, "name": block.name, "args": block.input}}
    if isinstance(block, ToolResultContent):
        text = "\n".join(part.text for part in block.content if isinstance(part, TextContent))
        media = [part for part in block.content if isinstance(part, ImageContent | AudioContent)]
        response: dict[str, Any] = {"error" if block.is_error else "output": text}
        out: dict[str, Any] = {
            "id": block.tool_use_id,
            "name": names.get(block.tool_use_id, block.tool_use_id),
            "response": response,
        }
        if media:  # images in a tool result: the response's own parts
            out["parts"] = [{"inlineData": {"mimeType": m.mime_type, "data": m.data}} for m in media]
        return {"functionResponse": out}
    raise TypeError(f"not a block the payload carries: {type(block).__name__}")


def read_reply(response: Any) -> Reply:
    candidates = response.candidates
    if not candidates:
        raise ValueError("the answer has no candidates")
    first = candidates[0]
    texts: list[str] = []
    calls: list[Any] = []
    for index, part in enumerate((first.content.parts if first.content is not None else None) or ()):
        if part.thought:
            continue  # the model's own reasoning, not its answer
        if part.text is not None:
            texts.append(part.text)
        elif part.function_call is not None:
            call = part.function_call
            arguments = call.args or {}
            if not isinstance(arguments, dict):
                raise ValueError(f"functionCall {call.name}: args are not an object")
            calls.append(
                ToolUseContent(
                    type="tool_use", id=call.id or f"call_{index}", name=call.name, input=arguments
                )
            )
        else:
            raise ValueError(f"part {index} is not text or a functionCall")
    blocks: list[Any] = [TextContent(type="text", text="".join(texts))] if texts or not calls else []
    blocks += calls
    reason = first.finish_reason.value if first.finish_reason is not None else None
    stop = "toolUse" if calls else STOP_REASONS.get(reason, reason) if reason else None
    model = response.model_version
    if not isinstance(model, str):
        raise ValueError("modelVersion is missing")
    ident = response.response_id if isinstance(response.response_id, str) else None
    return Reply(tuple(blocks), model, stop, _usage(response), response_id=ident)


def _usage(response: Any) -> Usage | None:
    usage = response.usage_metadata
    given = getattr(usage, "prompt_token_count", None)
    made = getattr(usage, "candidates_token_count", None)
    if type(given) is not int or type(made) is not int:
        return None
    return Usage(given, made, "provider")


# Same-product pass-through: the products whose bodies this API takes as written (docs/providers.md).
PRODUCTS = ("generateContent",)


def product_client(sdk: ModuleType, settings: ProviderSettings, key: str | None, product: str) -> Send:
    """The caller's generateContent body, posted as it is through the SDK's own client (its base
    URL, API version, key header, timeout and errors). Not through `models.generate_content`: that
    takes the SDK's types and writes the body again from them, which drops the keys its types
    lack and spells the rest its own way, so the API would not get what the caller wrote."""
    sdk_client = _sdk_client(sdk, settings, key)
    api = sdk_client.aio._api_client  # the raw-body request the SDK's own methods end in
    path_of = sdk._transformers.t_model  # `models/NAME` as the SDK writes it, checked as it checks it
    types = sdk.types

    async def send(body: dict[str, Any]) -> Any:
        body = dict(body)  # the SDK removes keys from the dict it is given; the attempts reuse it
        model = body.pop("model")
        headers = body.pop("extra_headers", None)
        # The round's trace context (`traceparent`) travels as the neutral path sends it.
        options = types.HttpOptions(headers=headers) if headers else None
        path = f"{path_of(api, model)}:generateContent"
        response = await api.async_request("post", path, body, options)
        return Answered(json.loads(response.body) if response.body else {}, types)

    return send


class Answered(Record):
    """The API's own response object, as JSON, with the SDK's types that read it."""

    native: dict[str, Any]
    types: ModuleType


def passed_body(passing: Any, model: str) -> dict[str, Any]:
    """The caller's body as written, asking for `model` (which goes in the request's path)."""
    return {**passing.arguments, "model": model}


def read_passed(product: str, response: Answered) -> Reply:
    if not isinstance(response.native, dict):
        raise ValueError("the answer is not a JSON object")
    read = read_reply(response.types.GenerateContentResponse.model_validate(response.native))
    return read._replace(native=response.native)
