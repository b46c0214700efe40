"""Print the trace of one call as an operator's tracing backend shows it (docs/telemetry.md): the
installed command with `serve --otel` exports to an OTLP receiver this script starts on
127.0.0.1, a legacy host answers a `chat_complete` with an output schema wrongly once (a repair
round) and then rightly, and the spans received are printed as a tree with their durations and
attributes. `python -m tests.telemetry_trace` from a checkout with `make install` done."""

from __future__ import annotations

import anyio

from tests.helpers import server_params
from tests.otlp_receiver import Received, Span, receiving
from tests.test_telemetry_export import _otlp_environment, _repaired_call

SHOWN = (
    "gen_ai.operation.name",
    "gen_ai.provider.name",
    "gen_ai.request.model",
    "gen_ai.request.max_tokens",
    "gen_ai.output.type",
    "gen_ai.response.model",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "agent_as_model.usage.source",
    "agent_as_model.round",
    "agent_as_model.round.repair",
    "agent_as_model.route",
    "agent_as_model.backend",
    "agent_as_model.repairs",
    "mcp.method.name",
    "mcp.protocol.version",
    "gen_ai.tool.name",
)


def tree(received: Received) -> list[str]:
    spans = sorted(received.spans, key=lambda s: s.start)
    (root,) = [s for s in spans if s.name.startswith("tools/call")]
    lines: list[str] = []

    def show(span: Span, depth: int) -> None:
        took = (span.end - span.start) / 1e6
        kind = {2: "SERVER", 3: "CLIENT"}.get(span.kind, "INTERNAL")
        lines.append(f"{'    ' * depth}{span.name}  [{kind}, {took:.1f} ms]")
        for key in SHOWN:
            if key in span.attributes:
                lines.append(f"{'    ' * depth}    {key} = {span.attributes[key]!r}")
        for event in span.events:
            lines.append(f"{'    ' * depth}    event: {event}")
        for child in spans:
            if child.parent_id == span.span_id:
                show(child, depth + 1)

    show(root, 0)
    return lines


async def main() -> None:
    with receiving() as received:
        await _repaired_call(server_params("serve", "--otel", env=_otlp_environment(received)))
        received.wait_for("tools/call chat_complete")
        received.wait_for("chat agent-default", 2)
        print("\n".join(tree(received)))


if __name__ == "__main__":
    anyio.run(main)
