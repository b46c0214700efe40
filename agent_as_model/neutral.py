"""The neutral conversation: the one currency between the rooms.

Dialect adapters turn a product-shaped request into a `Request` and a `Completion` back into
their product's result shape; the states turn a `Request` into the MCP sampling payload and the
host's answer into a `Completion`. Nothing here knows a dialect or an era.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from agent_as_model.records import Record

if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    from typing import Literal

    Role = Literal["user", "assistant"]
    ChoiceMode = Literal["auto", "required", "none"]
    ChainForm = Literal["start", "continue", "anchor"]
    # Why the host's model stopped, in MCP's words (the sampling result's `stopReason`); a dialect
    # says it in its product's own words. "other" stands for any value MCP leaves open.
    StopReason = Literal["endTurn", "stopSequence", "maxTokens", "toolUse", "other"]
    # Who counted a usage's tokens: the provider's API, the host (in its result's `_meta`), or this
    # server's estimate (docs/decisions.md gives the rule).
    UsageSource = Literal["provider", "host", "estimated"]

# The empty default of a mapping field of these values and the declarations: one shared value that
# cannot be changed (a named tuple has no default factory).
EMPTY: Mapping[str, Any] = MappingProxyType({})

# Every value here is a named tuple (a `Record`, records.py): immutable like a frozen dataclass,
# at about the cost of a plain tuple, both to make and to define (a frozen dataclass sets each
# field through `object.__setattr__`; benchmarks/README.md has the figures). Being tuples, they
# compare equal to a plain tuple of the same items; nothing relies on comparing them, and a block
# is told apart by its type (`type(b) is Text`, `isinstance`). Change one with `_replace`.


class Text(Record):
    text: str


class ToolUse(Record):
    id: str
    name: str
    input: dict[str, object]


class ToolResult(Record):
    tool_use_id: str
    content: str  # the result's texts, joined
    is_error: bool = False
    # Set only when the result carries images or audio: its texts and media in their
    # order (each Media is also in `Request.media`, so the bounds count it).
    parts: tuple[Text | Media, ...] = ()


class Media(Record):
    """An inline image or audio clip: its checked MIME type, its base64 data exactly
    as the caller sent it (validated strictly), and the sha256 hex of the decoded bytes (what a
    cursor's transcript records of it, docs/cursors.md); its decoded size and where the caller
    wrote it, for the bounds checked once the server's limits apply (states/validate.py)."""

    kind: Literal["image", "audio"]
    mime_type: str
    data: str
    digest: str
    size: int = 0
    path: str = ""


Block = Text | ToolUse | ToolResult | Media
# Which backend may answer (spec section 8): routing, not part of the request object of section 5.
# What a completion tool returns (spec section 10): its text result (`text`, seed-exact) or the
# product's own response object (`object`). Each tuple spells its alias's values at run time
# (tests/test_startup.py checks they are the same).
if TYPE_CHECKING:
    BackendChoice = Literal["host", "provider", "auto"]
    ResultShape = Literal["text", "object"]
BACKEND_CHOICES: tuple[BackendChoice, ...] = ("host", "provider", "auto")
RESULT_SHAPES: tuple[ResultShape, ...] = ("text", "object")
# The model alias every caller may name: the host's own model (or a provider's configured one).
DEFAULT_MODEL = "agent-default"
# The key of the sampling request's `metadata` (MCP's pass-through to the host's model provider)
# under which the sampling parameters MCP has no field for travel, by their neutral names
# (`Request.hints`; adapters/dialects/hints.py, docs/decisions.md).
HINTS_KEY = "agent-as-model/hints"


def has_tool_blocks(turns: tuple[Turn, ...]) -> bool:
    """Whether a conversation carries any tool call or tool result (most carry only text)."""
    for turn in turns:
        for block in turn.blocks:
            if type(block) is not Text and type(block) is not Media:
                return True
    return False


class ToolSpec(Record):
    """A tool the caller offers the host's model, under the caller's own name."""

    name: str
    description: str | None
    input_schema: dict[str, object]


class ToolChoice(Record):
    """How the model may use the tools. `name` set: that one tool, forwarded alone as required."""

    mode: ChoiceMode
    name: str | None = None
    # Set: at most one tool call in the answer, and this is the JSON path of the choice's own
    # switch that said so (Anthropic's `disable_parallel_tool_use`; OpenAI's top-level
    # `parallel_tool_calls` goes to `Request.single_call` directly).
    single_call: str | None = None
    path: str = "tool_choice"  # where the caller wrote it, for the error when an answer breaks it


class OutputContract(Record):
    """Structured output the completion must satisfy (spec section 3).

    `schema` is a JSON Schema with root type object (`{"type": "object"}` for chat's
    `response_format: json_object`). `path` is the parameter the contract came from, so errors
    name what the caller wrote.
    """

    schema: dict[str, object]
    path: str = "output_schema"


class Turn(Record):
    role: Role
    blocks: tuple[Block, ...]
    path: str = ""  # where the caller wrote it, for error messages


class Persona(Record):
    """A per-call contract (spec section 5). Its input_schema is checked while the arguments
    are read; its output_schema is checked against the completion text after the answer."""

    name: str
    output_schema: dict[str, object] | None = None


class Chain(Record):
    """Cursors on (spec section 6): the `previous_response_id` as given, and the history the
    caller passed back as transcript entries (`{"role", "content"}`, tool results with
    `"tool_call_id"`), which the previous cursor is verified against and the next one minted over."""

    previous: str
    form: ChainForm
    history: tuple[dict[str, str], ...]
    # For a product whose tool calls are items of their own (`Turns.calls_are_items`): the text
    # of a trailing assistant message. Call items passed back right after it join it into one
    # entry, so an answer of calls alone is minted that way.
    calls_join: str | None = None


class Hinted(Record):
    """One of `Request.warnings` that names a parameter sent to the host as a hint: its place
    among them and the parameter's path. Its words are the host's; when another backend answered
    through the neutral conversation, which has no place for it, the result says so instead
    (`states/commit.py`)."""

    at: int
    path: str


class Request(Record):
    """What the caller asked for, in neutral form, after validation. Never changed once made."""

    tool: str
    system: str | None
    turns: tuple[Turn, ...]
    model: str
    max_tokens: int
    temperature: float | None = None
    max_tokens_path: str = "max_tokens"  # where the caller wrote the limit (its product's own name)
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice | None = None
    output: OutputContract | None = None
    stop: tuple[str, ...] = ()
    repair_attempts: int = 0
    persona: Persona | None = None
    chain: Chain | None = None
    # Set: the answer may call at most one tool, and this names the parameter that said so
    # (OpenAI `parallel_tool_calls: false`, Anthropic `tool_choice.disable_parallel_tool_use:
    # true`). The host's model is told (in the system prompt) and the answer is kept to it.
    single_call: str | None = None
    backend: BackendChoice = "auto"
    # None: the caller did not say, and the server's default (`serve --result`) applies.
    result: ResultShape | None = None
    # The parameters a product's response object echoes exactly as the caller sent them
    # (Responses' `instructions`, `text`, `tools`, ...): the dialect's `Body.echo`, those given.
    echo: Mapping[str, Any] = EMPTY
    # The sampling parameters the host cannot be made to obey, by their neutral names (`top_p`,
    # `seed`, `reasoning`, ...): sent in the sampling request's metadata under `HINTS_KEY`.
    hints: Mapping[str, Any] = EMPTY
    # What the result's metadata names as accepted and not enforced: each parameter the host may
    # not apply or that is not applied here, and another model's reasoning left out of the turns.
    warnings: tuple[str, ...] = ()
    # Which of the warnings are of parameters sent to the host as hints (`Hinted`).
    hinted: tuple[Hinted, ...] = ()
    # How many independent completions (chat `n`, Gemini `candidateCount`), and where the caller
    # wrote it. Each is asked, checked and repaired on its own (spec section 10).
    n: int = 1
    n_path: str = "n"
    # Every inline image and audio part of the conversation, in order: empty for the
    # common text-only call, so the media bounds cost it nothing.
    media: tuple[Media, ...] = ()
    # The sha256 hex of each part fetched from a URL (`serve --fetch-media`), in order: what a
    # 2026-07-28 round binds, so a retry that fetched other bytes is asked again.
    fetched: tuple[str, ...] = ()
    # Every turn is one text block, as the reader made it (no tool calls, results or media): the
    # steps after it then skip their per-turn checks for those (`has_tool_blocks`, the payload's
    # per-turn cases). False says nothing: the steps look at each turn.
    plain: bool = False
    # The product's API the call is written for (`Dialect.PRODUCT`): a provider whose API speaks
    # it takes the caller's body as written (`own`, the tool's arguments as given). None: the
    # call has no product of its own (a raw prompt).
    product: str | None = None
    own: Mapping[str, Any] = EMPTY
    # The call continues a response of its product's own API by that API's id (a Responses
    # `previous_response_id` that names no cursor and that no store of this server resolved):
    # a provider whose API speaks the product is handed the id with the body, since that API
    # may hold the response; any other backend gets the conversation as passed (a new chain).
    own_previous: bool = False
    # Refusals of parameters only the host cannot honour (errors.CallError), made unless a
    # provider whose API speaks `product` answers: the router applies them.
    host_only: tuple[Any, ...] = ()


# The tool arguments that are the server's own, not the product's: a body passed through to a
# provider leaves them out (the dialect registry adds them to every tool: `extensions.properties`,
# checked equal by tests/test_passthrough.py). `model` is replaced by the model the provider is asked for.
SERVER_KEYS = frozenset(
    ("model", "backend", "result", "output_schema", "repair_attempts", "persona", "previous_response_id")
)


class Usage(Record):
    """The tokens one completion took, and who counted them (never zeros passed off as counts)."""

    input_tokens: int
    output_tokens: int
    source: UsageSource


class Completion(Record):
    """What the host's model answered, after interpretation. Never changed once made."""

    text: str
    tool_calls: tuple[ToolUse, ...] = ()
    structured: dict[str, object] | None = None  # the validated output, when a contract asked for one
    model: str | None = None  # the model the host named in its answer
    stop_reason: StopReason | None = None  # None: the host did not say
    usage: Usage | None = None  # None: the answer carried no counts (commit estimates them)
    # Set only when the answer held images or audio, for a product that can show them
    # (`Dialect.answers_media`): the answer's texts and media in their order; `text` is then
    # the texts alone, joined.
    parts: tuple[Text | Media, ...] = ()
