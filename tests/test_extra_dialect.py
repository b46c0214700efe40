"""The structure's proof: a product defined only here, registered with one line, gets the listing,
argument errors, tool definitions, cursors, redaction and export-tools from the rest of the server
without any other module knowing its name; and, through the `writing` it declares, it is served
over stdio, fuzzed by `agent-as-model fuzz` and property-tested like every registered dialect.

The made-up product "notes" writes a conversation as `lines: [{who: "me"|"bot", say}]` and a
tool as `{tool, about, args}`; its tool_choice object is `{type: "pick", tool}`.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from mcp_types import CreateMessageResultWithTools, ToolUseContent

from agent_as_model import cursors
from agent_as_model.adapters.dialects import (
    Body,
    Dialect,
    common,
    contracts,
    extensions,
    options,
    register,
    unregister,
)
from agent_as_model.adapters.dialects.turns import Turns
from agent_as_model.adapters.dialects.writing import Said, Unit, Writing, read_text_result
from agent_as_model.adapters.tools import definitions, listing
from agent_as_model.adapters.tools.names import host_name
from agent_as_model.commands.cli import main
from agent_as_model.commands.transcripts.exchange import CLIENT_TO_SERVER, Exchange
from agent_as_model.commands.transcripts.redact import Redactor
from agent_as_model.errors import caller_error
from agent_as_model.neutral import ToolChoice, ToolSpec
from tests.scripted_host import ScriptedHost, connect

NAME = "notes_complete"
_ROLES = {"me": "user", "bot": "assistant"}


def _read_conversation(args: Mapping[str, Any], turns: Turns) -> None:
    for i, raw in enumerate(common.require_list(args.get("lines"), "lines", non_empty=True)):
        line = common.require_object(raw, f"lines[{i}]")
        common.reject_unknown(line, ("who", "say"), f"lines[{i}]")
        role = _ROLES.get(line.get("who"))  # type: ignore[arg-type]
        if role is None:
            raise caller_error(f"lines[{i}].who", f"expected 'me' or 'bot', got {line.get('who')!r}")
        turns.text(role, common.require_string(line.get("say"), f"lines[{i}].say"), f"lines[{i}]")  # type: ignore[arg-type]


def _write(units: Sequence[Unit], vary: random.Random | None = None) -> dict[str, Any]:
    """How a caller of "notes" writes a conversation: user and assistant text only."""
    who = {role: name for name, role in _ROLES.items()}
    lines = []
    for unit in units:
        if not isinstance(unit, Said) or unit.role not in who:
            raise ValueError("notes writes user and assistant lines only")
        lines.append({"who": who[unit.role], "say": unit.text})
    return {"lines": lines}


def _read_tool(obj: Mapping[str, Any], path: str) -> tuple[ToolSpec, str]:
    definitions.reject_unknown_key(obj, ("tool", "about", "args"), path, "a tool is {tool, about, args}")
    name = definitions.tool_name(obj.get("tool"), f"{path}.tool")
    about = obj.get("about")
    schema = obj.get("args") or {"type": "object"}
    return ToolSpec(name, about, schema), f"{path}.tool"


def _read_choice(value: Mapping[str, Any], path: str, kind: str) -> tuple[ToolChoice, str]:
    if kind != "pick":
        raise caller_error(f"{path}.type", f"expected 'pick', got {kind!r}")
    return ToolChoice("required", definitions.tool_name(value.get("tool"), f"{path}.tool")), f"{path}.tool"


def _write_tool(name: str, description: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    return {"tool": name, "about": description, "args": schema}


_TOOLS_SCHEMA = listing.tools_schema({"type": "object", "properties": {"tool": listing.NAME}})
_CHOICE_SCHEMA = listing.choice_schema({"type": "object", "properties": {"type": {"const": "pick"}}})
NOTES = Dialect(
    NAME=NAME,
    DESCRIPTION="A made-up product for the structure test: lines of 'me' and 'bot'.",
    INPUT_SCHEMA={
        "type": "object",
        "properties": {
            "lines": {"type": "array"},
            "temperature": common.temperature_schema(2),
            "max_tokens": common.MAX_TOKENS_SCHEMA,
            "tools": _TOOLS_SCHEMA,
            "tool_choice": _CHOICE_SCHEMA,
            **options.hint_schemas(options.hints("user")),
        },
        "required": ["lines"],
        "additionalProperties": False,
    },
    body=Body(
        conversation="lines",
        turn_noun="line",
        plain=frozenset(["lines", "model", "temperature", "max_tokens"]),
        request_object=contracts.request_object_defaults("lines"),
        text_arguments=("lines",),
        hints=options.hints("user"),
    ),
    read_conversation=_read_conversation,
    render=common.text_result,
    EXAMPLE={"lines": [{"who": "me", "say": "Say hello."}]},
    writing=Writing(_write, read_text_result, leading_system=False, tool_turns=False),
    tools=definitions.ToolShape(
        format="notes",
        read_tool=_read_tool,
        read_choice=_read_choice,
        write_tool=_write_tool,
        forms="{tool, about, args}",
        choice_forms="'auto', 'required', 'none' or {type: 'pick', tool}",
        tools_schema=_TOOLS_SCHEMA,
        choice_schema=_CHOICE_SCHEMA,
    ),
)


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    register(NOTES)  # the one line of registration
    try:
        yield
    finally:
        unregister(NAME)


def body(*lines: tuple[str, str], **extra: Any) -> dict[str, Any]:
    return {"lines": [{"who": who, "say": say} for who, say in lines], **extra}


@pytest.mark.anyio
async def test_it_is_listed_with_its_schema_and_the_shared_keys(era: str) -> None:
    async with connect(era) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    properties = listed[NAME].input_schema["properties"]
    # Its own keys, then the shared ones it never listed itself (extensions.py adds them).
    assert list(properties) == [
        *NOTES.INPUT_SCHEMA["properties"],
        "model",
        "backend",
        "result",
        "output_schema",
        "repair_attempts",
        "persona",
        "previous_response_id",
    ]
    assert properties["backend"] == extensions.BACKEND
    # No object shape of its own: `result` says so.
    assert properties["result"] == extensions.RESULT_TEXT_ONLY
    assert listed[NAME].description == f"{NOTES.DESCRIPTION} {extensions.ERA}"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (body(("you", "hi")), "lines[0].who: expected 'me' or 'bot', got 'you'"),
        ({"lines": [], "model": "m"}, "lines: must not be empty"),
        (body(("me", "hi"), user=3), "user: expected a string, got number"),
        (body(("me", "hi"), colour="red"), "colour: unknown parameter 'colour'"),
        (
            body(("me", "hi"), tools=[{"tool": "t", "about": 1, "args": {"type": "object"}, "x": 1}]),
            "tools[0].x",
        ),
        (
            body(("me", "hi"), tool_choice={"type": "pick", "tool": "t"}),
            "tool_choice: a choice naming tool 't'",
        ),
        (body(("me", "hi"), previous_response_id="cur_x"), "previous_response_id: got 'cur_x'"),
        (body(("me", "hi"), backend="nobody"), "backend: must be one of 'host', 'provider', 'auto'"),
        (body(("me", "hi"), output_schema={"type": "array"}), "output_schema"),
    ],
)
async def test_argument_errors_name_the_path_and_send_nothing(
    era: str, arguments: dict[str, Any], message: str
) -> None:
    host = ScriptedHost("never")
    async with connect(era, host) as client:
        bad = await client.call_tool(NAME, arguments)
        assert bad.is_error and host.asked == 0
        text = bad.content[0].text  # type: ignore[union-attr]
        assert text.startswith(f"{NAME}: {message}") and text.endswith("Nothing was sent to the host.")
        good = await client.call_tool(NAME, body(("me", "hi")))  # the next call works
    assert not good.is_error and host.asked == 1


@pytest.mark.anyio
async def test_tool_definitions_and_choice_travel_in_its_own_shape(era: str) -> None:
    hosted = host_name("look.up")  # the name the host's model can take, mapped back in the result

    def call(params: Any) -> CreateMessageResultWithTools:
        return CreateMessageResultWithTools(
            role="assistant",
            content=[ToolUseContent(type="tool_use", id="c1", name=hosted, input={"q": "x"})],
            model="m",
            stop_reason="toolUse",
        )

    host = ScriptedHost(call)
    tool = {"tool": "look.up", "about": "Look it up.", "args": {"type": "object"}}
    async with connect(era, host, tools=True) as client:
        result = await client.call_tool(
            NAME, body(("me", "find x"), tools=[tool], tool_choice={"type": "pick", "tool": "look.up"})
        )
    sent = host.wire()
    assert sent["toolChoice"] == {"mode": "required"}
    assert [(t["name"], t["description"]) for t in sent["tools"]] == [(hosted, "Look it up.")]
    assert not result.is_error
    assert json.loads(result.content[0].text) == {  # type: ignore[union-attr]
        "text": "",
        "tool_calls": [{"id": "c1", "input": {"q": "x"}, "name": "look.up"}],
    }


@pytest.mark.anyio
async def test_cursors_chain_over_its_history(era: str) -> None:
    host = ScriptedHost("first answer", "second answer")
    async with connect(era, host) as client:
        first = await client.call_tool(NAME, body(("me", "one"), previous_response_id=""))
        envelope = json.loads(first.content[0].text)  # type: ignore[union-attr]
        expected = cursors.mint(
            "agent-default",
            NAME,
            [cursors.entry("user", "one"), cursors.entry("assistant", "first answer")],
        )
        assert envelope == {"completion": "first answer", "response_id": expected}
        history = body(("me", "one"), ("bot", "first answer"), ("me", "two"), previous_response_id=expected)
        second = await client.call_tool(NAME, history)
        assert not second.is_error
        tampered = body(("me", "ONE"), ("bot", "first answer"), ("me", "two"), previous_response_id=expected)
        refused = await client.call_tool(NAME, tampered)
    assert refused.is_error and f"received {expected}" in refused.content[0].text  # type: ignore[union-attr]
    assert host.asked == 2


def test_redaction_covers_the_text_it_declares() -> None:
    frame = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": NAME, "arguments": body(("me", "my secret plan"), model="kept-model")},
    }
    context = Exchange().see(CLIENT_TO_SERVER, frame)
    redacted = json.dumps(Redactor().frame(CLIENT_TO_SERVER, frame, context))
    assert "my secret plan" not in redacted
    assert "kept-model" in redacted  # not a text argument of this dialect


def test_redaction_of_a_tool_no_dialect_knows_covers_every_argument() -> None:
    unregister(NAME)
    frame = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": NAME, "arguments": body(("me", "my secret plan"))},
    }
    context = Exchange().see(CLIENT_TO_SERVER, frame)
    assert "my secret plan" not in json.dumps(Redactor().frame(CLIENT_TO_SERVER, frame, context))


@pytest.mark.stdio
def test_export_tools_writes_its_shape(capsys: pytest.CaptureFixture[str]) -> None:
    target = Path(__file__).with_name("export_target_server.py")
    assert main(["export-tools", "--server", f"{sys.executable} {target}", "--format", "notes"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "notes"
    assert document["tools"] and all(set(tool) == {"tool", "about", "args"} for tool in document["tools"])
    specs = definitions.read_tools(document["tools"], "tools", NOTES.tools)  # type: ignore[arg-type]
    assert [spec.name for spec in specs] == [tool["tool"] for tool in document["tools"]]


@pytest.mark.stdio
def test_it_is_served_over_stdio_and_fuzzed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server registers the dialect and nothing else (tests/extra_dialect_server.py); the fuzzer,
    # here, knows it from the same registration: its --tools choices come from the registry.
    root = Path(__file__).resolve().parent.parent
    against = f"{sys.executable} -m tests.extra_dialect_server"
    args = ["fuzz", "--against", against, "--tools", NAME, "--examples", "25", "--seed", "2"]
    monkeypatch.chdir(root)  # `python -m tests.extra_dialect_server` is found from here
    status = main([*args, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0, out
    last, rules = out.strip().splitlines()[-1], out.strip().splitlines()[-2]
    chains, calls, failures = (int(word) for word in last.replace(",", "").split()[::2])
    assert failures == 0 and calls > chains > 0, out
    counts = dict(item.rsplit(" ", 1) for item in rules.removeprefix("calls by rule: ").split(", "))
    # No tool turns and no other history tool: the tamperings that need them are not made.
    expected = {"start", "continue", "branch", "anchor", "tamper (user)", "tamper (assistant)"}
    expected |= {"tamper (reorder)", "tamper (model)"}
    assert set(counts) == expected, out
    assert all(int(n) > 0 for rule, n in counts.items() if rule != "branch"), out


def test_it_is_property_tested_like_every_registered_dialect() -> None:
    # The registry-driven cursor properties, run for this dialect: registered, it is one of the
    # tools they iterate over, written and read through the writing it declares.
    from property_tests.registry_cursors import chains_hold, changes_are_refused, history_tools

    assert NAME in history_tools()
    chains_hold(NAME)()
    changes_are_refused(NAME)()
