"""Every parameter the official SDKs define is known. For each tool, every
top-level key of the SDK's own create-params type (`openai` chat `CompletionCreateParams`,
Responses `ResponseCreateParams`, `anthropic` `MessageCreateParams`, and `google-genai`
`GenerateContentConfig` as it lands in the request body) is listed, is never an "unknown
parameter", and is decided: honoured (read), accepted and ignored (a hint, named in
docs/decisions.md) or refused with a reason. An SDK upgrade that adds a key fails here until
someone decides. Anthropic's `output_config` is honoured as structured output (both eras)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from anthropic import types as anthropic_types
from google.genai import types as genai_types
from mcp_types import CreateMessageResult, TextContent

from agent_as_model.adapters.dialects import DIALECTS, Dialect
from agent_as_model.adapters.dialects.parse import parse_request
from agent_as_model.errors import CallError
from tests.corpus.sdk import CREATE_PARAMS, GEMINI_NOT_SENT, create_keys, gemini_keys
from tests.scripted_host import ScriptedHost, connect

DECISIONS = (Path(__file__).parent.parent / "docs" / "decisions.md").read_text()
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def parse_error(dialect: Dialect, args: dict[str, Any]) -> CallError | None:
    try:
        parse_request(dialect, args)
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


@pytest.mark.parametrize("tool", sorted(CREATE_PARAMS))
def test_every_sdk_parameter_is_known_and_decided(tool: str) -> None:
    dialect = DIALECTS[tool]
    listed = dialect.INPUT_SCHEMA["properties"]
    for key in create_keys(tool):
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
def test_the_named_hints_are_accepted_and_named(tool: str, key: str, value: Any) -> None:
    dialect = DIALECTS[tool]
    plain = parse_request(dialect, base(tool))
    hinted = parse_request(dialect, {**base(tool), key: value})
    # Nothing else of the request changed (`own` is the arguments as given, for a provider that
    # speaks the product: tests/test_passthrough.py).
    assert hinted._replace(echo=plain.echo, warnings=(), own=plain.own) == plain
    assert [w.split(": ")[0] for w in hinted.warnings] == [key]  # not applied, and the result says so
    wrong = parse_error(dialect, {**base(tool), key: 12345 if isinstance(value, str) else "x"})
    assert wrong is not None and wrong.path == key  # still type-checked


def test_moderation_is_refused_with_a_reason() -> None:
    for tool in ("chat_complete", "responses_create"):
        # Refused unless a provider that speaks the product answers: the router applies it.
        request = parse_request(DIALECTS[tool], {**base(tool), "moderation": {"input": {"mode": "block"}}})
        (err,) = request.host_only
        assert err.path == "moderation" and "OpenAI's service" in err.reason


def gemini_error(path: str, value: Any) -> CallError | None:
    dialect = DIALECTS["gemini_generate_content"]
    head, _, key = path.partition(".")
    sent = {head: {key: value}} if key else {head: value}
    return parse_error(dialect, {**base(dialect.NAME), **sent})


def test_every_generate_content_config_field_lands_somewhere_known() -> None:
    listed = DIALECTS["gemini_generate_content"].INPUT_SCHEMA["properties"]
    for field in sorted(genai_types.GenerateContentConfig.model_fields):
        sent = gemini_keys(field)
        if field in GEMINI_NOT_SENT:
            assert sent == [], f"the SDK now sends {field!r} in the body: decide how it is taken"
            continue
        assert sent, f"{field!r} is sent nowhere: add it to GEMINI_NOT_SENT with why"
        for path, value in sent:
            assert value is not None
            if "." not in path:  # top level: listed in both spellings, the SDK's snake_case too
                for key in (path, re.sub("([A-Z])", lambda m: "_" + m[1].lower(), path)):
                    assert key in listed, f"{key!r} is not listed: decide how it is taken"
                    err = gemini_error(key, value)
                    assert err is None or "unknown" not in err.reason, (key, err)
                continue
            err = gemini_error(path, value)
            assert err is None or "unknown" not in err.reason, f"{path} = {value!r}: {err}"


def test_the_gemini_walk_can_fail_an_unknown_key_with_a_value() -> None:
    for path in ("generationConfig.bogusKey", "bogusKey"):
        err = gemini_error(path, 1)
        assert err is not None and "unknown" in err.reason, (path, err)
    # A null is skipped (a model_dump() writes them all), which is why the walk sends values.
    assert gemini_error("generationConfig.bogusKey", None) is None


def test_gemini_continuation_tokens_are_refused_and_service_settings_ignored() -> None:
    dialect = DIALECTS["gemini_generate_content"]
    # Refused unless a provider that speaks generateContent answers: the router applies it.
    (err,) = parse_request(dialect, {**base(dialect.NAME), "continuationToken": "t"}).host_only
    assert err.path == "continuationToken" and "held on Google's servers" in err.reason
    plain = parse_request(dialect, base(dialect.NAME))
    served = parse_request(dialect, {**base(dialect.NAME), "serviceTier": "flex", "store": False})
    assert served._replace(warnings=(), own=plain.own) == plain
    assert [w.split(": ")[0] for w in served.warnings] == ["serviceTier"]  # store: false is kept
    for key in ("serviceTier", "store", "service_tier"):
        assert f"`{key}`" in DECISIONS


# -- Anthropic `output_config`: its structured-output API -------------------------------------


def test_output_config_format_is_the_output_contract() -> None:
    dialect = DIALECTS["messages_create"]
    request = parse_request(
        dialect,
        {
            **base("messages_create"),
            "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}, "effort": "low"},
        },
    )
    assert request.output is not None
    assert request.output.schema == SCHEMA and request.output.path == "output_config.format.schema"
    effort_only = parse_request(dialect, {**base("messages_create"), "output_config": {"effort": "high"}})
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


def without_cache_control(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_cache_control(v) for v in value]
    return value


@pytest.mark.anyio
async def test_cache_control_in_messages_blocks_is_accepted_and_ignored(era: str) -> None:
    """`cache_control` on text, tool_use and tool_result blocks (and the system and tool
    definitions), as the anthropic SDK's param types allow: the host is asked exactly what it is
    asked without them."""
    from tests.scripted_host import text_answer

    ephemeral = {"type": "ephemeral"}
    system: list[anthropic_types.TextBlockParam] = [
        {"type": "text", "text": "Be brief.", "cache_control": ephemeral}
    ]
    tools: list[anthropic_types.ToolParam] = [
        {"name": "weather", "input_schema": {"type": "object"}, "cache_control": ephemeral}
    ]
    messages: list[anthropic_types.MessageParam] = [
        {"role": "user", "content": [{"type": "text", "text": "Weather?", "cache_control": ephemeral}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking.", "cache_control": ephemeral},
                {"type": "tool_use", "id": "t1", "name": "weather", "input": {}, "cache_control": ephemeral},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "sunny", "cache_control": ephemeral},
                {"type": "text", "text": "And so?", "cache_control": ephemeral},
            ],
        },
    ]
    cached: dict[str, Any] = {"system": system, "tools": tools, "messages": messages, "max_tokens": 50}
    plain = without_cache_control(cached)
    assert plain != cached and "cache_control" not in json.dumps(plain)
    hosts = [ScriptedHost(text_answer("Sunny.")), ScriptedHost(text_answer("Sunny."))]
    results = []
    for host, body in zip(hosts, (cached, plain), strict=True):
        async with connect(era, host, tools=True) as client:
            results.append(await client.call_tool("messages_create", body))
    for result in results:
        assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
        assert result.content[0].text == "Sunny."  # type: ignore[union-attr]
    assert hosts[0].wire(0) == hosts[1].wire(0)
    assert len(hosts[0].wire(0)["messages"]) == 4  # the history reached the host, tool use included
