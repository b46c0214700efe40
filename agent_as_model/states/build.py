"""validated -> payload_ready: who serves the call, then the one sampling/createMessage payload.

The call's router (`adapters/backends/router.py`) chooses from the parsed request (its `backend`,
`model` and `tools`), what the host declared and the operator's provider; a call that asked for
what this server cannot give (`backend: "provider"` with none configured, a model the provider
may not use) is refused there, with its path, before anything is sent. Routing is the first
thing build does rather than a step of its own: a state the call only passes through costs every
request a turn of the driver (benchmarks/README.md, "The call machine"). A proven 2026-07-28
retry routes and plans in its own row (`states/resume.py`), and builds no payload.

The payload is the same on both eras: the legacy era sends it as a request, the modern era puts
it in an InputRequiredResult.

The sampling parameters MCP has no field for (`Request.hints`) travel in the request's `metadata`
under `neutral.HINTS_KEY` (spec section 14): MCP's pass-through to the host's model provider.

What the host declared decides how tools and structured output travel (spec sections 3, 4):
with `sampling.tools` the caller's tools go as MCP tools and an output contract as one required
tool; without it the contract goes into the system prompt, and the tools are what the operator
chose (`serve --host-without-tools`): dropped (the result's `_meta` says so, and a
choice that demands a call is refused before anything is sent), emulated in the system prompt
(`states/emulation.py`), or refused. That decision is recorded in the call's `HostPlan`, so
interpreting the answer reads the same plan.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcp_types import (
    AudioContent,
    ContentBlock,
    CreateMessageRequestParams,
    ImageContent,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    SamplingMessageContentBlock,
    TextContent,
    Tool,
    ToolChoice,
    ToolResultContent,
    ToolUseContent,
)

from agent_as_model.adapters.tools import wire
from agent_as_model.adapters.tools.definitions import read_key
from agent_as_model.adapters.tools.describe import host_description
from agent_as_model.adapters.tools.names import NameMap
from agent_as_model.caches import BoundedCache
from agent_as_model.errors import MissingCapability, MissingToolsCapability
from agent_as_model.neutral import (
    HINTS_KEY,
    Block,
    Media,
    OutputContract,
    Request,
    Text,
    ToolResult,
    ToolSpec,
    ToolUse,
    Turn,
    has_tool_blocks,
)
from agent_as_model.states import emulation
from agent_as_model.states.call import NO_PLAN, CallRecord, HostPlan, Structured, WithoutTools
from agent_as_model.states.validate import check_conversation

if TYPE_CHECKING:
    from agent_as_model.adapters.backends.base import Route
    from agent_as_model.neutral import ChoiceMode

log = logging.getLogger("agent_as_model")

# What the host's model is told when the caller allows one tool call at most (`parallel_tool_calls:
# false`, `disable_parallel_tool_use: true`).
ONE_CALL = "Make at most one tool call in this answer."

# The one tool that carries structured output when the host takes tools (spec section 3).
STRUCTURED_TOOL = "structured_output"
STRUCTURED_DESCRIPTION = (
    "Give your final answer by calling this tool: its input is the answer, and it must match the schema."
)


# What the tools of a kept reading (`definitions.read_tools`) become for the host: the names the
# host sees, both ways, and the MCP tools. A pure function of the definitions, so it is kept by what
# they were read from, bounded as the readings are; worked out once, not on every round of every
# call that repeats them (what that saves: benchmarks/README.md, "What each cache, ContextVar and
# late import buys").
FORWARD_CACHE_SIZE = 1024
FORWARD_CACHE_BYTES = 16 * 1024 * 1024
_FORWARDS = BoundedCache(FORWARD_CACHE_BYTES, FORWARD_CACHE_SIZE)
Forward = tuple[dict[str, str], frozenset[str], list[Tool]]  # host -> caller names, offered, tools


def _kept_forward(request: Request, tool_blocks: bool) -> Forward | None:
    """The kept forward of the request's tools, when the host takes them as they are: all offered
    (no named choice, which sends one alone), nothing else named (no tool turns, whose names join
    the map; no contract, which sends its own tool). None otherwise: then it is worked out."""
    choice = request.tool_choice
    if tool_blocks or request.output is not None or (choice is not None and choice.name is not None):
        return None
    key = read_key(request.tools)
    if key is None:
        return None
    found: Forward | None = _FORWARDS.get(key)
    if found is None:
        from_host = dict(NameMap.for_names(t.name for t in request.tools).from_host_map())
        to_host = {caller: host for host, caller in from_host.items()}
        found = (from_host, frozenset(from_host), _host_tools(request.tools, to_host))
        _FORWARDS.put(key, found, 2 * len(key[1]))  # as its reading is counted
        # And a place for their wire form, made by a 2026-07-28 round one (adapters/tools/wire.py).
        wire.reserve(found[2], 2 * len(key[1]))
    return found


def forget_forwards() -> None:
    """Empty the kept forwards and their wire forms (tests)."""
    _FORWARDS.clear()
    wire.forget()


def build_payload_for(record: CallRecord) -> None:
    request = record.request
    route = record.route = record.router.route(request)
    # Asked by both the checks and the plan: one pass over the conversation, not two.
    tool_blocks = has_tool_blocks_in(request)
    check_conversation(request, tool_blocks)
    # After the arguments' checks and before anything is sent: a call served by a host that
    # cannot sample gets a clear -32021, on both eras alike.
    check_sampling(route)
    # Interpret reads the plan. A route that takes tools (the host's sampling.tools, or a provider)
    # never meets the operator's rule for hosts without them.
    plan = record.plan = plan_for(request, route.support.tools, record.limits.host_without_tools, tool_blocks)
    record.payload = build_payload(request, plan)
    route.backend.admit(record.payload)  # a payload its backend cannot send: nothing is sent


def has_tool_blocks_in(request: Request) -> bool:
    """Whether the conversation holds tool calls or results (a plain one holds none)."""
    return not request.plain and has_tool_blocks(request.turns)


def check_sampling(route: Route) -> None:
    """A route whose host cannot sample: -32021, before anything is sent."""
    if not route.support.declared:
        raise MissingCapability({"sampling": {}})


_TEXT_ONLY = {False: HostPlan(host_tools=False), True: HostPlan(host_tools=True)}


def plan_for(request: Request, host_takes_tools: bool, without_tools: str, tool_blocks: bool) -> HostPlan:
    """`tool_blocks`: whether the conversation holds tool calls or results (`has_tool_blocks`)."""
    if not request.tools and request.output is None and not tool_blocks:
        return _TEXT_ONLY[host_takes_tools]  # the common call: nothing to map, one shared plan
    structured: Structured | None = None
    if request.output is not None:
        structured = "tool" if host_takes_tools else "prompt"
    if not host_takes_tools:
        handling = _without_tools(request, without_tools) if request.tools else None
        return HostPlan(host_tools=False, structured=structured, without_tools=handling)
    forward = _kept_forward(request, tool_blocks) if request.tools else None
    if forward is not None:  # shared: a plan's names are only read
        return HostPlan(host_tools=True, structured=structured, names=forward[0], offered=forward[1])
    names = NameMap.for_names(_tool_names(request))
    from_host = dict(names.from_host_map())
    if structured == "tool":  # the payload offers the one structured-output tool
        from_host[STRUCTURED_TOOL] = STRUCTURED_TOOL
        offered = frozenset((STRUCTURED_TOOL,))
    else:  # the caller's tools, as `build_payload` forwards them
        to_host = {caller: host for host, caller in from_host.items()}
        offered = frozenset(to_host[t.name] for t in _offered(request)[0])
    return HostPlan(host_tools=True, structured=structured, names=from_host, offered=offered)


def _without_tools(request: Request, rule: str) -> WithoutTools:
    """The operator's rule (`serve --host-without-tools`) for a call whose tools this host cannot
    take; raises -32021 where the call cannot be served honestly without them."""
    if rule == "emulate":
        return "emulated"
    if rule == "refuse":
        raise MissingToolsCapability(
            "tools",
            "this server refuses tools on such hosts (its operator chose --host-without-tools refuse)",
        )
    choice = request.tool_choice
    if choice is not None and choice.mode == "required":
        # Dropping the tools would answer a demand for a call with text that says all went well.
        wanted = f"tool {ascii(choice.name)}" if choice.name is not None else "a tool"
        raise MissingToolsCapability(choice.path, f"demands a call of {wanted}")
    log.warning(
        "%s: the host did not declare sampling.tools: %d tool definition(s) dropped, "
        "asking for a plain-text completion (the result's _meta says so)",
        request.tool,
        len(request.tools),
    )
    return "dropped"


def build_payload(request: Request, plan: HostPlan | None = None) -> CreateMessageRequestParams:
    plan = plan or NO_PLAN
    to_host = {caller: host for host, caller in plan.names.items()} if plan.names else {}
    as_text = not plan.host_tools
    emulated = plan.without_tools == "emulated"
    names = emulation.names_by_id(request.turns) if emulated and not request.plain else {}
    messages: list[SamplingMessage] = []
    if request.plain:
        # Every turn one text (the reader said so): what the loop below makes of each, in one
        # comprehension, without its per-turn checks.
        messages = [
            SamplingMessage(role=role, content=TextContent(type="text", text=blocks[0][0]))  # the Text's text
            for role, blocks, _ in request.turns
        ]
    for turn in () if request.plain else request.turns:
        role, turn_blocks, _ = turn
        if len(turn_blocks) == 1 and type(first := turn_blocks[0]) is Text:
            # The common turn, one text: what `_block` makes of it, without a list per turn.
            text = TextContent(type="text", text=first.text)
            messages.append(SamplingMessage(role=role, content=text))
            continue
        blocks: list[SamplingMessageContentBlock] = []
        if emulated and has_tool_blocks((turn,)):
            blocks = _emulated_blocks(turn, names)
        else:
            for b in turn.blocks:
                if as_text and type(b) is ToolResult and b.parts:
                    # A tool result rendered as text for a host without sampling.tools: its media
                    # travel as their own content right after that text (docs/decisions.md).
                    blocks.append(TextContent(type="text", text=tool_turn_text(b)))
                    blocks += _result_media(b)
                else:
                    blocks.append(_block(b, to_host, as_text))
        messages.append(SamplingMessage(role=turn.role, content=blocks[0] if len(blocks) == 1 else blocks))
    system = request.system
    tools: list[Tool] | None = None
    choice: ToolChoice | None = None
    if plan.structured == "tool":
        assert request.output is not None
        tools = [
            Tool(
                name=STRUCTURED_TOOL,
                description=STRUCTURED_DESCRIPTION,
                input_schema=dict(request.output.schema),
            )
        ]
        choice = ToolChoice(mode="required")
    elif plan.structured == "prompt":
        assert request.output is not None
        system = _join(system, contract_prompt(request.output))
    elif plan.host_tools and request.tools:
        tools, choice = _forwarded_tools(request, to_host, _kept_tools(request, plan))
        if request.single_call is not None and (choice is None or choice.mode != "none"):
            # MCP sampling has no one-call switch: the model is told, and the answer is kept to it
            # (interpret.py), as the emulation tells it in its own prompt.
            system = _join(system, ONE_CALL)
    elif emulated:
        system = _join(system, emulation.tools_prompt(request))
    optional: dict[str, Any] = {}  # only what is set: each keyword costs pydantic a validation
    if system is not None:
        optional["system_prompt"] = system
    if request.temperature is not None:
        optional["temperature"] = request.temperature
    if request.stop:
        optional["stop_sequences"] = list(request.stop)
    if tools is not None:
        optional["tools"] = tools
    if choice is not None:
        optional["tool_choice"] = choice
    if request.hints:  # the parameters MCP has no field for, to the host's model provider
        optional["metadata"] = {HINTS_KEY: dict(request.hints)}
    return CreateMessageRequestParams(
        messages=messages,
        max_tokens=request.max_tokens,
        model_preferences=ModelPreferences(hints=[ModelHint(name=request.model)]),
        **optional,
    )


def _emulated_blocks(turn: Turn, names: Mapping[str, str]) -> list[SamplingMessageContentBlock]:
    """A tool turn as the emulation's own text, so the model sees its earlier calls in the form
    it is asked to answer in, and each result under its call's id and tool; a result's media
    travel as their own content right after that result's line."""
    if not any(type(b) is ToolResult and b.parts for b in turn.blocks):
        return [TextContent(type="text", text=t) for t in emulation.turn_texts(turn.blocks, names)]
    blocks: list[SamplingMessageContentBlock] = []
    for b in turn.blocks:  # a turn of results: it holds only results
        blocks += [TextContent(type="text", text=t) for t in emulation.turn_texts((b,), names)]
        if type(b) is ToolResult:
            blocks += _result_media(b)
    return blocks


def _result_media(result: ToolResult) -> list[SamplingMessageContentBlock]:
    return [_media(p) for p in result.parts if type(p) is Media]


def contract_prompt(contract: OutputContract) -> str:
    schema = json.dumps(contract.schema, sort_keys=True)
    return (
        "Answer with one JSON object and nothing else (no prose; a ```json fenced block is fine). "
        f"It must validate against this JSON Schema:\n{schema}"
    )


def _offered(request: Request) -> tuple[tuple[ToolSpec, ...], ChoiceMode | None]:
    """The caller's tools the payload offers, and the choice mode it sends."""
    offered = request.tools
    choice = request.tool_choice
    mode = choice.mode if choice is not None else None
    if choice is not None and choice.name is not None:
        # MCP has no per-name choice: the named tool goes alone, and the model must call it.
        offered = tuple(t for t in offered if t.name == choice.name)
        mode = "required"
    return offered, mode


def _forwarded_tools(
    request: Request, to_host: dict[str, str], kept: list[Tool] | None = None
) -> tuple[list[Tool], ToolChoice | None]:
    offered, mode = _offered(request)
    tools = list(kept) if kept is not None else _host_tools(offered, to_host)
    return tools, ToolChoice(mode=mode) if mode is not None else None


def _kept_tools(request: Request, plan: HostPlan) -> list[Tool] | None:
    """The MCP tools kept with the forward this plan was made from (`_kept_forward`: every tool
    offered, as `_offered` gives them then), or None."""
    key = read_key(request.tools)
    forward: Forward | None = _FORWARDS.get(key) if key is not None else None
    return forward[2] if forward is not None and forward[0] is plan.names else None


def _host_tools(offered: tuple[ToolSpec, ...], to_host: Mapping[str, str]) -> list[Tool]:
    return [
        Tool(name=to_host[t.name], description=host_description(t.description), input_schema=t.input_schema)
        for t in offered
    ]


def _tool_names(request: Request) -> list[str]:
    names = [t.name for t in request.tools]
    for turn in request.turns:
        names.extend(b.name for b in turn.blocks if isinstance(b, ToolUse))
    return names


def _block(
    block: Block, to_host: dict[str, str], as_text: bool
) -> TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent:
    if isinstance(block, Text):
        return TextContent(type="text", text=block.text)
    if isinstance(block, Media):
        # Inline media goes as MCP's own content, in its place, whether or not the host takes
        # tools; the data was checked when the arguments were read.
        return _media(block)
    if as_text:
        # A host without sampling.tools must not be sent tool blocks; the earlier tool turns of
        # the conversation still matter to its answer, so they travel as text (decisions.md).
        return TextContent(type="text", text=tool_turn_text(block))
    if isinstance(block, ToolUse):
        return ToolUseContent(
            type="tool_use", id=block.id, name=to_host.get(block.name, block.name), input=block.input
        )
    if isinstance(block, ToolResult):
        content: list[ContentBlock]
        if block.parts:  # a result with images or audio: MCP's tool_result content holds them
            content = [
                TextContent(type="text", text=p.text) if isinstance(p, Text) else _media(p)
                for p in block.parts
            ]
        else:
            content = [TextContent(type="text", text=block.content)]
        return ToolResultContent(
            type="tool_result",
            tool_use_id=block.tool_use_id,
            content=content,
            is_error=block.is_error or None,
        )
    raise TypeError(f"not a neutral block: {block!r}")


def _media(block: Media) -> ImageContent | AudioContent:
    if block.kind == "image":
        return ImageContent(type="image", data=block.data, mime_type=block.mime_type)
    return AudioContent(type="audio", data=block.data, mime_type=block.mime_type)


def tool_turn_text(block: Block) -> str:
    if isinstance(block, ToolUse):
        return f"[tool call {block.id}: {block.name} {json.dumps(block.input, sort_keys=True)}]"
    if isinstance(block, ToolResult):
        error = " (error)" if block.is_error else ""
        return f"[tool result {block.tool_use_id}{error}: {block.content}]"
    raise TypeError(f"not a tool block: {block!r}")


def _join(first: str | None, second: str) -> str:
    return f"{first}\n\n{second}" if first else second
