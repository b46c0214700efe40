"""`GET /metrics` (`serve --http --metrics`, docs/telemetry.md): this worker's metrics as Prometheus
text, written by the Prometheus client's own writer from the reader `telemetry.setup` configured.
It sits behind the bearer token like every path but `/healthz` (`middleware.BearerAuth`). Under
several workers each scrape is answered by one of them, with that worker's figures."""

from __future__ import annotations

from typing import Any

from starlette.responses import PlainTextResponse, Response


async def metrics(request: Any) -> Any:
    from agent_as_model.telemetry import setup

    page = setup.prometheus_text()
    if page is None:  # the SDK was disabled (OTEL_SDK_DISABLED) or could not be configured
        return PlainTextResponse("metrics are off in this process (see its log)\n", status_code=503)
    body, content_type = page
    return Response(body, media_type=content_type)
