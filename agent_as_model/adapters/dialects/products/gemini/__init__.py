"""Google Gen AI shape (`gemini_generate_content`): a `generateContent` body -> neutral, completion
-> a `GenerateContentResponse` object.

The body is what the official `google-genai` SDK sends: `contents` (role `user` / `model`, parts
`text`, `functionCall {id?, name, args}`, `functionResponse {id?, name, response}`),
`systemInstruction`, `generationConfig`, `tools` (`functionDeclarations`) and `toolConfig`, every
key in either spelling, camelCase or snake_case, as the SDK writes them. One module a concern:
`keys` (what each object holds, hints and refusals), `objects` (an object read in either
spelling), `request` (the conversation), `config` (generationConfig and toolConfig as the shared
readers read them), `schema` (Gemini's Schema as JSON Schema), `tools` (function declarations),
`render` (the GenerateContentResponse), `input_schema` (the listed schema) and `writing` (the
caller's side, for the fuzzer and the property tests). This module builds the `Dialect`.
"""

from __future__ import annotations

from agent_as_model.adapters.dialects.dialect import Body, Dialect, Redaction
from agent_as_model.adapters.dialects.products.gemini.config import FATES, config_view, read_output
from agent_as_model.adapters.dialects.products.gemini.input_schema import (
    CHOICE_SCHEMA,
    INPUT_SCHEMA,
    TOOLS_SCHEMA,
)
from agent_as_model.adapters.dialects.products.gemini.keys import (
    CHOICE_FORMS,
    HINTS,
    PLAIN,
    REFUSED,
    REQUEST_OBJECT,
    STOP,
    TOOL_FORMS,
)
from agent_as_model.adapters.dialects.products.gemini.render import describe, render, render_candidates
from agent_as_model.adapters.dialects.products.gemini.request import read_conversation
from agent_as_model.adapters.dialects.products.gemini.tools import (
    entries,
    group,
    read_choice,
    read_tool,
    write_tool,
)
from agent_as_model.adapters.dialects.products.gemini.writing import WRITING
from agent_as_model.adapters.tools import definitions

NAME = "gemini_generate_content"
DESCRIPTION = (
    "Complete a Gemini generateContent-shaped request (google-genai body) with the host agent's own "
    "model; returns a GenerateContentResponse {candidates: [{content, finishReason}], ...}."
    " contents: user/model parts of text, functionCall, functionResponse; systemInstruction "
    "is the system prompt; generationConfig: temperature, maxOutputTokens, stopSequences, "
    "responseMimeType application/json + responseSchema (validated JSON text). tools/toolConfig go to "
    "a host with sampling.tools, else per --host-without-tools (see _meta). camelCase or snake_case. "
    "Inline media too."
)


DIALECT = Dialect(
    NAME=NAME,
    PRODUCT="generateContent",
    DESCRIPTION=DESCRIPTION,
    INPUT_SCHEMA=INPUT_SCHEMA,
    body=Body(
        conversation="contents",
        turn_noun="content",
        plain=PLAIN,
        request_object=REQUEST_OBJECT,
        text_arguments=("contents", "systemInstruction", "system_instruction"),
        max_tokens_alias="maxOutputTokens",
        stop=STOP,
        native_output=read_output,
        hints=HINTS,
        fates=FATES,
        refused=REFUSED,
        view=config_view,
        choices="candidateCount",
    ),
    read_conversation=read_conversation,
    render=render,
    render_object=render,
    render_choices=render_candidates,
    tools=definitions.ToolShape(
        format="gemini",
        read_tool=read_tool,
        read_choice=read_choice,
        write_tool=write_tool,
        forms=TOOL_FORMS,
        choice_forms=CHOICE_FORMS,
        tools_schema=TOOLS_SCHEMA,
        choice_schema=CHOICE_SCHEMA,
        entries=entries,
        group=group,
    ),
    redaction=Redaction(
        result_keys=frozenset(["candidates", "modelVersion", "responseId", "usageMetadata"]),
        structural=frozenset(["finishReason", "modelVersion", "responseId"]),
        free=frozenset(["args", "response"]),  # functionCall.args, functionResponse.response
    ),
    describe=describe,
    EXAMPLE={
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [{"role": "user", "parts": [{"text": "Name a planet with rings."}]}],
        "generationConfig": {"temperature": 0.2, "maxOutputTokens": 100},
    },
    writing=WRITING,
    answers_media=True,
)
