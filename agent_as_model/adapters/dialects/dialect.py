"""What a dialect declares: everything the rest of the server needs to know about one product.

A dialect module builds one `Dialect` and the registry (`dialects/__init__.py`) lists it. Every
other room asks the declaration, never a product name:

- the listing (`NAME`, `DESCRIPTION`, `INPUT_SCHEMA`): a dialect module declares its product's
  own keys and description; the registry lists it through `extensions.listed`, which adds the
  shared keys and the era sentence;
- the shared parse path (`parse.parse_request`) reads the body from `body` (through its `view`, for a
  product whose parameters nest) and the dialect's own `read_conversation`;
- tool definitions, `tool_choice`, the listed fragments and `export-tools` come from `tools`;
- `serve --record --redact` redacts the arguments in `body.text_arguments`, knowing the
  shapes by the shared keys and the dialect's `redaction`;
- cursors refuse a `cur_` cursor where `body.has_history` is false;
- the result is the dialect's `render`, or with `result: "object"` its `render_object`;
- `agent-as-model demo` sends its `EXAMPLE`;
- `agent-as-model fuzz` and the property tests write requests and read results through `writing`;
- with `serve --store`, the engine keeps its responses as its `storage` says.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects.options import StopParameter
from agent_as_model.adapters.dialects.storage import Storage
from agent_as_model.adapters.dialects.turns import Turns
from agent_as_model.adapters.dialects.writing import Writing
from agent_as_model.adapters.tools.definitions import ToolShape
from agent_as_model.neutral import EMPTY, Completion, Request
from agent_as_model.records import Record

if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    from agent_as_model.adapters.dialects.hints import Fate
    from agent_as_model.adapters.dialects.options import NativeOutput, Refusal
    from agent_as_model.errors import CallError

    # Reads the conversation keys of a body into `turns` (system pieces, turns, tool calls/results).
    ConversationReader = Callable[[Mapping[str, Any], Turns], None]
    # A product whose parameters nest in a config object (or come in two spellings) gives the shared
    # readers the flat arguments they read (`temperature`, `tools`, `tool_choice`, the stop and
    # max-tokens names of its `Body`, ...), and for each key it moved, the JSON path the caller wrote:
    # an error about a moved key names that path. With a list, a nested parameter only the host
    # cannot honour is refused into it (for the router) instead of raised.
    ArgumentView = Callable[
        [Mapping[str, Any], "list[CallError] | None"], "tuple[Mapping[str, Any], Mapping[str, str]]"
    ]
    # Shapes a completion into the tool result: text, or a JSON object (text and structuredContent).
    # `cursor` is the next session cursor when cursors are on, else None.
    Renderer = Callable[[Completion, Request, "str | None"], "str | dict[str, Any]"]
    # The product's object holding several independent completions (`n` choices, candidates), in order.
    ChoicesRenderer = Callable[["Sequence[Completion]", Request, "str | None"], "dict[str, Any]"]
    # What the product's own API would have said beside the result (spec section 9): the model and
    # the stop reason in the product's words, under the product's key. Travels in the result's
    # `_meta`; the rendered result itself stays as the spec says.
    Describer = Callable[[Completion], dict[str, Any]]


class Body(Record):
    """The shape of a tool's arguments beyond the conversation reader: what the shared parse
    path reads of the product. What only one product does is its own code, reached through a
    callable (`native_output`, `view`) or done by its conversation reader (`Turns.calls_are_items`).

    `plain` are the keys of the common body (the conversation and its limits): a body with no
    other key skips every other reader, the hot path. `hints` are product parameters accepted and
    type-checked that MCP sampling has no field for; `fates` says what becomes of each of them,
    and of those nested in a parameter object (hints.py: sent to the host as a hint, not applied,
    or kept as given; a warning names every one not enforced); `refused` ones change meaning and
    are refused unless harmless (options.py has the reasons). `request_object` is the persona's
    request object (spec section 5): the tool's parameters, each with its default.
    """

    conversation: str  # the key that carries the conversation, named when it is empty
    turn_noun: str  # "a user or assistant <noun>" in that error
    plain: frozenset[str]
    request_object: Mapping[str, Any]
    text_arguments: tuple[str, ...]  # the arguments that carry caller text (redacted by --redact)
    has_history: bool = True  # False: a `cur_` cursor has nothing to be verified against
    max_temperature: float = 2.0  # the product's range: OpenAI's and Gemini's 2, Anthropic's 1
    max_tokens_alias: str | None = None  # the product's own name for max_tokens
    stop: StopParameter | None = None
    native_output: NativeOutput | None = None  # the product's own way to ask for JSON
    # The boolean parameter whose `false` allows one tool call only (chat's and responses').
    parallel_calls: str | None = None
    hints: Mapping[str, str] = EMPTY  # name -> the JSON type it takes
    # name as the shared readers see it (through the `view`; dotted when nested) -> its fate
    fates: Mapping[str, Fate] = EMPTY
    refused: Mapping[str, Refusal] = EMPTY
    view: ArgumentView | None = None  # None: the shared readers read the arguments as given
    # The parameters the product's response object echoes exactly as sent (`Request.echo`).
    echo: tuple[str, ...] = ()
    # The product's parameter that asks for several completions (chat `n`; for a product whose
    # parameters nest, its flat name in the `view`). None: one completion only.
    choices: str | None = None


class Redaction(Record):
    """What `serve --record --redact` must know of a product's shapes beyond the shared ones.

    `result_keys`: the top-level keys of the result object the dialect renders, so that object is
    read as the server's shape (not as structured output, all of whose strings are text).
    `echoed`: the keys beside those that the object holds when the caller sent them (the
    parameters it echoes). `structural`: keys whose string values the server or the product writes
    (ids, enum words, the model), kept. `free`: keys whose values are the caller's or the model's
    own objects (function arguments and responses), every string in them redacted whatever its key.
    """

    result_keys: frozenset[str] = frozenset()
    echoed: frozenset[str] = frozenset()
    structural: frozenset[str] = frozenset()
    free: frozenset[str] = frozenset()


class Dialect(Record):
    NAME: str
    DESCRIPTION: str
    INPUT_SCHEMA: dict[str, Any]
    body: Body
    read_conversation: ConversationReader
    render: Renderer
    tools: ToolShape | None = None  # None: the tool takes no tool definitions
    # A small request body that shows the tool at work (`agent-as-model demo` sends it).
    EXAMPLE: Mapping[str, Any] | None = None
    describe: Describer | None = None  # None: the result carries no product metadata
    redaction: Redaction | None = None  # None: the shared keys of `--redact` describe it
    # The product's own response object, for `result: "object"` (spec section 10): a dialect
    # whose `render` already makes it gives the same renderer. None: the tool has no object shape
    # (a raw prompt), and `result: "object"` is refused.
    render_object: Renderer | None = None
    # With `body.choices`: the object of several completions (`render_object` is this with one).
    render_choices: ChoicesRenderer | None = None
    # How a caller writes a request from a neutral conversation and reads the result back
    # (writing.py): the fuzzer and the property tests drive the dialect through it. None: it is
    # served, but not fuzzed nor property-tested.
    writing: Writing | None = None
    # A product whose API keeps responses (`store`, `previous_response_id`: only Responses): what
    # a server started with `--store` reads and keeps around its calls. None: nothing is stored.
    storage: Storage | None = None
    # Whether the product's result has a shape for images and audio in the model's answer
    # (Gemini's `inlineData` parts). False: a host answering with media is an error
    # naming what it sent.
    answers_media: bool = False
    # The product's API, by the name a provider module lists in its `PRODUCTS`: a provider that
    # speaks it takes the call's body as written (docs/providers.md, "Same-product pass-through").
    # None: no provider API speaks it (a raw prompt).
    PRODUCT: str | None = None
