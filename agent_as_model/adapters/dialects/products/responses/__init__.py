"""OpenAI Responses shape (`responses_create`): request -> neutral, completion -> a Response object.

Input items: messages `{role, content}` (`type: "message"` or no type), `function_call` items
(joining the assistant turn before them) and `function_call_output` items (one user turn of tool
results), spec section 1.2. The result is a Response object whose output holds a message item
and one `function_call` item per tool call the host made. One module a concern: `keys`, `request`
(the input), `tools` (function tools and tool_choice), `render` (the Response object),
`input_schema` (the listed schema), `writing` (the caller's side, for the fuzzer and the property
tests) and `storage` (the responses a server started with `--store` keeps). This module builds
the `Dialect`.
"""

from __future__ import annotations

from agent_as_model.adapters.dialects.dialect import Body, Dialect
from agent_as_model.adapters.dialects.products.responses import storage
from agent_as_model.adapters.dialects.products.responses.input_schema import (
    CHOICE_SCHEMA,
    INPUT_SCHEMA,
    TOOLS_SCHEMA,
)
from agent_as_model.adapters.dialects.products.responses.keys import (
    CHOICE_FORMS,
    HINTS,
    PLAIN,
    REFUSED,
    REQUEST_OBJECT,
    TOOL_FORMS,
)
from agent_as_model.adapters.dialects.products.responses.render import describe, render
from agent_as_model.adapters.dialects.products.responses.request import read_conversation, read_text_format
from agent_as_model.adapters.dialects.products.responses.tools import read_choice, read_tool, write_tool
from agent_as_model.adapters.dialects.products.responses.writing import WRITING
from agent_as_model.adapters.tools import definitions

NAME = "responses_create"
DESCRIPTION = (
    "Complete an OpenAI Responses-shaped request with the host agent's own model; returns a Response "
    "object ({id: 'resp_…', object: 'response', model, output}). input is a string or items: "
    "messages {role, content}, function_call, function_call_output. instructions and system/developer "
    "items become the system prompt. tools/tool_choice go to a host with sampling.tools, else per "
    "--host-without-tools (see _meta); "
    "tool calls come back as function_call items. output_schema or text.format json_schema puts "
    "validated JSON text in output_text. Text and data: URL images."
)


DIALECT = Dialect(
    NAME=NAME,
    DESCRIPTION=DESCRIPTION,
    INPUT_SCHEMA=INPUT_SCHEMA,
    body=Body(
        conversation="input",
        turn_noun="item",
        plain=PLAIN,
        request_object=REQUEST_OBJECT,
        text_arguments=("input", "instructions"),
        max_tokens_alias="max_output_tokens",
        native_output=read_text_format,
        parallel_calls="parallel_tool_calls",
        hints=HINTS,
        refused=REFUSED,
        echo=("instructions", "text", "tools", "max_output_tokens", "max_tokens"),
    ),
    read_conversation=read_conversation,
    render=render,
    render_object=render,
    EXAMPLE={"instructions": "Be brief.", "input": "Name one prime number."},
    describe=describe,
    tools=definitions.ToolShape(
        format="responses",
        read_tool=read_tool,
        read_choice=read_choice,
        write_tool=write_tool,
        forms=TOOL_FORMS,
        choice_forms=CHOICE_FORMS,
        tools_schema=TOOLS_SCHEMA,
        choice_schema=CHOICE_SCHEMA,
    ),
    writing=WRITING,
    storage=storage.STORAGE,
)
