"""The keys of a `generateContent` body, as the google-genai SDK names them (camelCase here: the
objects are read in either spelling, `objects.py`): what each object of the body holds, which of
its keys are hints (type-checked and ignored) and which are refused, with the reason, and the
top-level parameters with their snake_case spellings. The conversation reader, the config view,
the schema conversion, the tool readers and the listed schema read these tables.
"""

from __future__ import annotations

from typing import Any

from agent_as_model.adapters.dialects import media, options
from agent_as_model.neutral import DEFAULT_MODEL


def _unless(harmless: object, reason: str) -> options.Refusal:
    """A refusal of every value but the one that changes nothing (`false`)."""
    return lambda v: None if v == harmless and type(v) is type(harmless) else reason


ROLES = {"user": "user", "model": "assistant"}
CONTENT_KEYS = ("role", "parts")
PART_DATA = ("text", "functionCall", "functionResponse")
# The SDK's Part fields beyond its data (a `model_dump()` of a Part holds them all, mostly null).
# Hints, type-checked and ignored: the part's own metadata (`partMetadata`), and settings of how
# the model reads media or speaks text, which mean nothing for the text parts taken here.
PART_HINTS = {
    "partMetadata": "object",
    "mediaResolution": "object",
    "mediaProcessing": "string",
    "documentMetadata": "object",
    "spreadsheetMetadata": "object",
    "audioMetadata": "object",
    "speechMetadata": "object",
}
PART_REFUSED: dict[str, options.Refusal] = {
    "audioTranscription": lambda v: (
        "a transcription belongs to audio, which the host's model cannot take: put its text in a text part"
    ),
}
PART_KEYS = (
    *PART_DATA,
    "inlineData",
    "fileData",
    "thought",
    "thoughtSignature",
    *PART_HINTS,
    *PART_REFUSED,
)
NOT_TEXT = ("videoMetadata",)  # refused as non-text parts
# Inline media: images and audio the checks of adapters/dialects/media.py know.
INLINE_TYPES = (*media.IMAGE_TYPES, *media.AUDIO_TYPES)
BLOB_KEYS = ("mimeType", "data", "displayName")
SERVER_SIDE = ("executableCode", "codeExecutionResult", "toolCall", "toolResponse")
_STREAMED = "cannot be honoured: the host's model is given whole calls and whole responses"
# FunctionCall: `partialArgs` and `willContinue: true` are a call streamed in pieces (Vertex AI).
CALL_REFUSED: dict[str, options.Refusal] = {
    "partialArgs": lambda v: None if v == [] else f"a call's arguments streamed in pieces {_STREAMED}",
    "willContinue": _unless(False, f"a call streamed in pieces {_STREAMED}"),
}
CALL_KEYS = ("id", "name", "args", *CALL_REFUSED)
# FunctionResponse: `willContinue: true` makes a NON_BLOCKING function a generator of responses
# (Live API); `scheduling` applies only to such functions and is ignored otherwise, as here.
RESPONSE_HINTS = {"scheduling": "string"}
RESPONSE_REFUSED: dict[str, options.Refusal] = {
    "willContinue": _unless(False, f"a function that goes on responding {_STREAMED}"),
}
# The SDK's FunctionResponsePart: `inlineData` taken; its media hints accepted and ignored.
RESPONSE_PART_HINTS = {
    "mediaProcessing": "string",
    "mediaResolution": "object",
    "videoMetadata": "object",
    "documentMetadata": "object",
    "spreadsheetMetadata": "object",
    "audioMetadata": "object",
}
RESPONSE_PART_KEYS = ("inlineData", "fileData", *RESPONSE_PART_HINTS)
RESPONSE_KEYS = ("id", "name", "response", "parts", *RESPONSE_HINTS, *RESPONSE_REFUSED)
DECLARATION_KEYS = (
    "name",
    "description",
    "parameters",
    "parametersJsonSchema",
    "response",
    "responseJsonSchema",
    "behavior",
)
# Gemini's built-in tools: they run on Google's side and cannot be forwarded to a host's model.
_BUILT_IN_TOOLS = (
    "googleSearch",
    "googleSearchRetrieval",
    "codeExecution",
    "retrieval",
    "urlContext",
    "computerUse",
    "fileSearch",
    "googleMaps",
    "enterpriseWebSearch",
    "mcpServers",
    "parallelAiSearch",
    "exaAiSearch",
)
TOOL_KEYS = ("functionDeclarations", *_BUILT_IN_TOOLS)
TOOL_FORMS = "{functionDeclarations: [{name, description, parameters or parametersJsonSchema}]}"
CHOICE_FORMS = "toolConfig {functionCallingConfig: {mode: AUTO|ANY|NONE|VALIDATED, allowedFunctionNames}}"
MODES = ("AUTO", "ANY", "NONE", "VALIDATED", "MODE_UNSPECIFIED")
SCHEMA_TYPES = ("STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL")
SCHEMA_KEYS = (
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "propertyOrdering",
    "items",
    "anyOf",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "default",
    "minProperties",
    "maxProperties",
    "additionalProperties",
    "defs",
    "ref",
)

CONFIG_HINTS = {
    "topP": "number",
    "topK": "number",
    "seed": "integer",
    "presencePenalty": "number",
    "frequencyPenalty": "number",
    "thinkingConfig": "object",
    "mediaResolution": "string",
    "routingConfig": "object",
    "modelSelectionConfig": "object",
    "enableEnhancedCivicAnswers": "boolean",
}


def _text_modalities(value: object) -> str | None:
    if isinstance(value, list) and all(isinstance(m, str) and m.upper() == "TEXT" for m in value):
        return None
    return "only TEXT can be honoured: the host's model is asked for text only"


_NOT_HONOURED = "cannot be honoured: the host's model is asked for one text completion"
# Each but responseFormat holds for the host alone: the Gemini API produces them (options.HostOnly).
CONFIG_REFUSED: dict[str, options.Refusal] = {
    "responseLogprobs": options.HostOnly(
        _unless(False, "log probabilities cannot be honoured: MCP sampling returns none")
    ),
    "logprobs": options.HostOnly(lambda v: "log probabilities cannot be honoured: MCP sampling returns none"),
    "responseModalities": options.HostOnly(_text_modalities),
    "speechConfig": options.HostOnly(lambda v: f"speech output {_NOT_HONOURED}"),
    "audioTimestamp": options.HostOnly(_unless(False, f"audio timestamps {_NOT_HONOURED}")),
    "enableAffectiveDialog": options.HostOnly(_unless(False, f"affective dialog {_NOT_HONOURED}")),
    "imageConfig": options.HostOnly(lambda v: f"image output {_NOT_HONOURED}"),
    "responseFormat": lambda v: (
        "is not supported here: ask for JSON with responseMimeType "
        "'application/json' and responseSchema or responseJsonSchema"
    ),
    "translationConfig": options.HostOnly(lambda v: f"translation {_NOT_HONOURED}"),
    "audioTranscriptionConfig": options.HostOnly(lambda v: f"audio transcription {_NOT_HONOURED}"),
}
# generationConfig's keys that the shared readers (and `read_output`) read under their own names.
LIFTED_CONFIG = (
    "candidateCount",
    "temperature",
    "maxOutputTokens",
    "stopSequences",
    "responseMimeType",
    "responseSchema",
    "responseJsonSchema",
)
CONFIG_KEYS = (*LIFTED_CONFIG, *CONFIG_HINTS, *CONFIG_REFUSED)

# Top-level parameters: each with the SDK's snake_case spelling beside it.
SPELLINGS = {
    "systemInstruction": "system_instruction",
    "generationConfig": "generation_config",
    "toolConfig": "tool_config",
    "safetySettings": "safety_settings",
    "cachedContent": "cached_content",
}


def _cached(value: object) -> str:
    return "cached contents live on Google's servers and cannot be honoured: pass the text in 'contents'"


def _continued(value: object) -> str:
    return (
        "a continuation token resumes a response held on Google's servers, which the host's model "
        "cannot reach: send the conversation in 'contents'"
    )


# `serviceTier` and `store` are request-level settings of Google's service: accepted and ignored
# (the server stores nothing for this tool).
HINTS = {
    "safetySettings": "array",
    "safety_settings": "array",
    "labels": "object",
    "serviceTier": "string",
    "service_tier": "string",
    "store": "boolean",
}
# Both live on Google's servers: refused for the host only, a Gemini provider takes them as written.
REFUSED: dict[str, options.Refusal] = {
    "cachedContent": options.HostOnly(_cached),
    "cached_content": options.HostOnly(_cached),
    "continuationToken": options.HostOnly(_continued),
    "continuation_token": options.HostOnly(_continued),
}
STOP = options.StopParameter("stopSequences", max_items=5)
# The persona's request object (spec section 5): the parameters, with their defaults.
REQUEST_OBJECT: dict[str, Any] = {
    "contents": None,
    "systemInstruction": None,
    "model": DEFAULT_MODEL,
    "generationConfig": None,
    "tools": None,
    "toolConfig": None,
    "output_schema": None,
    "previous_response_id": None,
}
# The common body: the conversation and the model only. It skips the readers of everything else.
PLAIN = frozenset(["contents", "systemInstruction", "system_instruction", "model"])
