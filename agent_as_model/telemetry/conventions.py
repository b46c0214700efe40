"""The names this server's telemetry uses: the OpenTelemetry GenAI and MCP semantic conventions'
(status: development, followed in their latest form, as `OTEL_SEMCONV_STABILITY_OPT_IN=
gen_ai_latest_experimental` asks of an instrumentation), and the few of its own, under
`agent_as_model.` (docs/telemetry.md lists them all)."""

from __future__ import annotations

# What `gen_ai.provider.name` says when the MCP host's own model answered (through sampling or a
# 2026-07-28 round): the conventions list no value for it, and a custom value may be used. A
# provider's rounds say the provider's registered name (`openai`, `anthropic`).
HOST_PROVIDER = "mcp.host"
CHAT = "chat"

# The GenAI conventions' attributes.
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
MAX_TOKENS = "gen_ai.request.max_tokens"
TEMPERATURE = "gen_ai.request.temperature"
STOP_SEQUENCES = "gen_ai.request.stop_sequences"
CHOICE_COUNT = "gen_ai.request.choice.count"
OUTPUT_TYPE = "gen_ai.output.type"
CONVERSATION = "gen_ai.conversation.id"
RESPONSE_ID = "gen_ai.response.id"
RESPONSE_MODEL = "gen_ai.response.model"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
TOKEN_TYPE = "gen_ai.token.type"
TOOL_NAME = "gen_ai.tool.name"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
ERROR_TYPE = "error.type"
# The MCP conventions' attributes (on mcp.server.operation.duration).
MCP_METHOD = "mcp.method.name"
MCP_PROTOCOL = "mcp.protocol.version"

# This server's own attributes.
ROUND = "agent_as_model.round"  # 0 for the call's first ask, one more per repair round
REPAIR = "agent_as_model.round.repair"  # the round asks again with a validation error
SUSPENDED = "agent_as_model.round.suspended"  # 2026-07-28: the round ended the request, to be answered
USAGE_SOURCE = "agent_as_model.usage.source"  # provider | host | estimated
ROUTE = "agent_as_model.route"  # the way the router chose to reach a model
BACKEND = "agent_as_model.backend"  # who answered: host, or provider:<name>/<model>
REPAIRS = "agent_as_model.repairs"  # repair rounds the call took
REFUSAL_REASON = "agent_as_model.refusal.reason"
REFUSAL_PATH = "agent_as_model.refusal.path"  # the JSON path the error names (on spans only)
ANSWERED_ROUND = "agent_as_model.answered_round"  # a 2026-07-28 retry: the round its answer is to
STORE_OPERATION = "agent_as_model.store.operation"
FALLBACK_FROM = "agent_as_model.fallback.from"
FALLBACK_TO = "agent_as_model.fallback.to"
CALLER = "agent_as_model.caller"  # who called, as the HTTP door named it (docs/deploy.md)
CALLER_LIMIT = "agent_as_model.caller.limit"  # requests-per-minute | concurrent-calls | tokens-per-day
CALLER_OUTCOME = "agent_as_model.caller.outcome"  # admitted | refused
TOKENS_ESTIMATED = "agent_as_model.tokens.estimated"  # whether nobody counted them
# The limits' gauge names the caller a limit applies to; this one stands for every caller the
# configuration does not name (the defaults).
OTHER_CALLERS = "*"

# Span events.
RETRY_EVENT = "agent_as_model.provider.retry"  # a provider attempt failed and another follows
FALLBACK_EVENT = "agent_as_model.fallback"  # the host declined and the provider is asked instead
ATTEMPT = "agent_as_model.attempt"  # the attempt that failed, from 1
WAIT = "agent_as_model.retry.wait"  # seconds waited before the next attempt

# Why a call was refused (`agent_as_model.refusals`): a bounded set, by the way out it took.
REFUSED = {
    "caller": "invalid_request",  # the caller's arguments; nothing was sent
    "capability": "missing_capability",  # the host did not declare sampling (-32021)
    "host": "host_violation",  # the host's (or provider's) answer broke the contract
    "fault": "internal_error",  # the server's own bug
}

# Metric names and their buckets (the conventions' advice for each histogram).
OPERATION_DURATION = "gen_ai.client.operation.duration"
DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92)
TOKEN_USAGE = "gen_ai.client.token.usage"
TOKEN_BUCKETS = (
    1,
    4,
    16,
    64,
    256,
    1024,
    4096,
    16384,
    65536,
    262144,
    1048576,
    4194304,
    16777216,
    67108864,
)
SERVER_DURATION = "mcp.server.operation.duration"
SERVER_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
IN_FLIGHT = "agent_as_model.calls.in_flight"
REFUSALS = "agent_as_model.refusals"
STORE_OPERATIONS = "agent_as_model.store.operations"
FALLBACKS = "agent_as_model.fallbacks"
CALLER_CALLS = "agent_as_model.caller.calls"
CALLER_TOKENS = "agent_as_model.caller.tokens"
CALLER_LIMITS = "agent_as_model.caller.limits"


# The conventions' registered `gen_ai.provider.name` of each provider API (a provider's kind).
REGISTERED = {"openai": "openai", "anthropic": "anthropic", "gemini": "gcp.gemini"}
# Each configured provider's API, by the name the operator gave it (`[providers.local]` of kind
# openai): a backend's source names the provider by its configured name only.
_APIS: dict[str, str] = {}


def provider_named(name: str, api: str) -> None:
    """A provider configured as `name`, speaking `api`: its rounds report the API's registered name."""
    _APIS[name] = api


def provider_and_model(source: str, asked: str) -> tuple[str, str]:
    """`gen_ai.provider.name` and the model a round asks for, from what the backend says of itself
    (spec section 9: `host`, or `provider:<name>/<model>`): a provider's API's registered name
    (its configured name is `agent_as_model.backend`'s)."""
    if source.startswith("provider:"):
        name, _, model = source[len("provider:") :].partition("/")
        api = _APIS.get(name, name)
        return REGISTERED.get(api, api), model or asked
    return HOST_PROVIDER, asked
