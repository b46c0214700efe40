"""Issue 22 item 5: every parameter the official SDKs define is known. For each tool, every
top-level key of the SDK's own create-params type (`openai` chat `CompletionCreateParams`,
Responses `ResponseCreateParams`, `anthropic` `MessageCreateParams`, and `google-genai`
`GenerateContentConfig` as it lands in the request body) is listed, is never an "unknown
parameter", and is decided: honoured (read), accepted and ignored (a hint, named in
docs/decisions.md) or refused with a reason. An SDK upgrade that adds a key fails here until
someone decides. Anthropic's `output_config` is honoured as structured output (both eras)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import message_create_params
from google.genai import types as genai_types
from mcp_types import CreateMessageResult, TextContent
from openai.types.chat import completion_create_params
from openai.types.responses import response_create_params

from agent_as_model.adapters.dialects import DIALECTS, Dialect
from agent_as_model.errors import CallError
from tests.scripted_host import ScriptedHost, connect

DECISIONS = (Path(__file__).parent.parent / "docs" / "decisions.md").read_text()
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

SDK_TYPES = {
    "chat_complete": completion_create_params.CompletionCreateParamsBase,
    "responses_create": response_create_params.ResponseCreateParamsBase,
    "messages_create": message_create_params.MessageCreateParamsBase,
}

# GenerateContentConfig fields the SDK never sends in a Gemini API body, and why.
GEMINI_NOT_SENT = {
    "http_options": "the SDK's own HTTP settings",
    "should_return_http_response": "the SDK's own switch to return the raw HTTP response",
    "automatic_function_calling": "the SDK runs Python functions itself; the body carries the tools",
    "automatic_continuation": "the SDK's own loop over continuation tokens",
    "model_armor_config": "the SDK refuses it outside Vertex AI: the Gemini API body never has it",
    "generation_output_config": "the SDK refuses it outside Vertex AI: the Gemini API body never has it",
}
# GenerateContentConfig fields the SDK puts at the top of the body, not in generationConfig.
GEMINI_TOP_LEVEL = {
    "system_instruction",
    "tools",
    "tool_config",
    "safety_settings",
    "cached_content",
    "labels",
    "service_tier",
    "store",
    "continuation_token",
}


def keys_of(typed: Any) -> set[str]:
    keys: set[str] = set()
    for klass in typed.__mro__:
        keys |= set(getattr(klass, "__annotations__", {}))
    return keys


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def parse_error(dialect: Dialect, args: dict[str, Any]) -> CallError | None:
    try:
        dialect.parse(args)
    except CallError as err:
        return err
    return None


def base(tool: str) -> dict[str, Any]:
    example = DIALECTS[tool].EXAMPLE
    assert example is not None
    return dict(example)


def decided(dialect: Dialect, key: str) -> str:
    """How the tool decided the key: a hint is ignored, a refusal refuses, anything else is read."""
    if key in dialect.body.hints:
        return "ignored"
    if key in dialect.body.refused:
        return "refused"
    return "honoured"


@pytest.mark.parametrize("tool", sorted(SDK_TYPES))
def test_every_sdk_parameter_is_known_and_decided(tool: str) -> None:
    dialect = DIALECTS[tool]
    listed = dialect.INPUT_SCHEMA["properties"]
    for key in sorted(keys_of(SDK_TYPES[tool])):
        assert key in listed, f"{tool}: the SDK's {key!r} is not listed: decide how it is taken"
        err = parse_error(dialect, {**base(tool), key: None})
        assert err is None or "unknown parameter" not in err.reason, (tool, key, err)
        how = decided(dialect, key)
        if how == "ignored":
            assert f"`{key}`" in DECISIONS, f"{tool}: the hint {key!r} is not named in docs/decisions.md"
        elif how == "refused":
            reasons = [dialect.body.refused[key](value) for value in (True, 2, "x", {"a": 1}, [1])]
            assert any(reasons), f"{tool}: {key!r} is refused with no reason"


@pytest.mark.parametrize(
    ("tool", "key", "value"),
    [
        ("chat_complete", "prompt_cache_retention", "24h"),
        ("chat_complete", "prompt_cache_key", "k"),
        ("chat_complete", "safety_identifier", "s"),
        ("chat_complete", "service_tier", "auto"),
        ("responses_create", "prompt_cache_retention", "in_memory"),
        ("responses_create", "prompt_cache_key", "k"),
        ("responses_create", "safety_identifier", "s"),
        ("responses_create", "service_tier", "flex"),
        ("messages_create", "cache_control", {"type": "ephemeral"}),
        ("messages_create", "service_tier", "auto"),
    ],
)
def test_the_named_hints_are_accepted_and_ignored(tool: str, key: str, value: Any) -> None:
    dialect = DIALECTS[tool]
    plain = dialect.parse(base(tool))
    hinted = dialect.parse({**base(tool), key: value})
    assert hinted._replace(echo=plain.echo) == plain  # nothing of the request changed
    wrong = parse_error(dialect, {**base(tool), key: 12345 if isinstance(value, str) else "x"})
    assert wrong is not None and wrong.path == key  # still type-checked


def test_moderation_is_refused_with_a_reason() -> None:
    for tool in ("chat_complete", "responses_create"):
        err = parse_error(DIALECTS[tool], {**base(tool), "moderation": {"input": {"mode": "block"}}})
        assert err is not None and err.path == "moderation" and "OpenAI's service" in err.reason


def test_every_generate_content_config_field_lands_somewhere_known() -> None:
    dialect = DIALECTS["gemini_generate_content"]
    listed = dialect.INPUT_SCHEMA["properties"]
    for field in sorted(genai_types.GenerateContentConfig.model_fields):
        if field in GEMINI_NOT_SENT:
            continue
        if field in GEMINI_TOP_LEVEL:
            for key in (camel(field), field):  # the body's camelCase, and the SDK's snake_case
                assert key in listed, f"{key!r} is not listed: decide how it is taken"
                err = parse_error(dialect, {**base(dialect.NAME), key: None})
                assert err is None or "unknown parameter" not in err.reason, (key, err)
            continue
        key = camel(field)
        err = parse_error(dialect, {**base(dialect.NAME), "generationConfig": {key: None}})
        assert err is None or "unknown" not in err.reason, f"generationConfig.{key}: {err}"


def test_gemini_continuation_tokens_are_refused_and_service_settings_ignored() -> None:
    dialect = DIALECTS["gemini_generate_content"]
    err = parse_error(dialect, {**base(dialect.NAME), "continuationToken": "t"})
    assert err is not None and err.path == "continuationToken" and "keeps none" in err.reason
    plain = dialect.parse(base(dialect.NAME))
    assert dialect.parse({**base(dialect.NAME), "serviceTier": "flex", "store": False}) == plain
    for key in ("serviceTier", "store", "service_tier"):
        assert f"`{key}`" in DECISIONS


# -- Anthropic `output_config`: its structured-output API -------------------------------------


def test_output_config_format_is_the_output_contract() -> None:
    dialect = DIALECTS["messages_create"]
    request = dialect.parse(
        {
            **base("messages_create"),
            "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}, "effort": "low"},
        }
    )
    assert request.output is not None
    assert request.output.schema == SCHEMA and request.output.path == "output_config.format.schema"
    effort_only = dialect.parse({**base("messages_create"), "output_config": {"effort": "high"}})
    assert effort_only.output is None


@pytest.mark.parametrize(
    ("config", "path", "says"),
    [
        ({"format": {"type": "text"}}, "output_config.format.type", "expected 'json_schema'"),
        ({"format": {"type": "json_schema"}}, "output_config.format.schema", "is required"),
        ({"format": {"type": "json_schema", "schema": {"type": "array"}}}, "output_config.format.schema", ""),
        ({"fmt": {}}, "output_config.fmt", "unknown"),
        ({"effort": 3}, "output_config.effort", "expected a string"),
    ],
)
def test_a_bad_output_config_names_its_path(config: dict[str, Any], path: str, says: str) -> None:
    err = parse_error(DIALECTS["messages_create"], {**base("messages_create"), "output_config": config})
    assert err is not None and err.path == path and says in err.reason, err


def test_output_config_with_output_schema_is_one_contract_too_many() -> None:
    args = {
        **base("messages_create"),
        "output_schema": SCHEMA,
        "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
    }
    err = parse_error(DIALECTS["messages_create"], args)
    assert err is not None and err.path == "output_config.format.schema" and "give one" in err.reason


@pytest.mark.anyio
@pytest.mark.parametrize("host_tools", [False, True])
async def test_output_config_is_honoured_over_the_wire(era: str, host_tools: bool) -> None:
    from tests.agent_loop import tool_answer

    if host_tools:
        host = ScriptedHost(tool_answer("", ("t1", "structured_output", {"city": "Oslo"})))
    else:
        host = ScriptedHost(
            CreateMessageResult(
                role="assistant", content=TextContent(type="text", text='{"city": "Oslo"}'), model="m"
            )
        )
    body = {
        "messages": [{"role": "user", "content": "Where?"}],
        "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
        "cache_control": {"type": "ephemeral"},
    }
    async with connect(era, host, tools=host_tools) as client:
        result = await client.call_tool("messages_create", body)
        bad = await client.call_tool("messages_create", {**body, "output_config": {"format": {"type": "x"}}})
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    assert result.content[0].text == '{"city": "Oslo"}'  # type: ignore[union-attr]
    assert result.structured_content == {"city": "Oslo"}
    wire = host.wire(0)
    if host_tools:
        assert [t["name"] for t in wire["tools"]] == ["structured_output"]
        assert wire["tools"][0]["inputSchema"] == SCHEMA
    else:
        assert re.search(r"validate against this JSON Schema", wire["systemPrompt"])
    bad_text = bad.content[0].text  # type: ignore[union-attr]
    assert bad.is_error and bad_text.startswith("messages_create: output_config.format.type: expected")
    assert host.asked == 1
