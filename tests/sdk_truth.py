"""The official SDKs as the truth about the products' shapes: every Responses object the server
renders is validated as `openai.types.responses.Response` (wired in by conftest.py for the whole
suite), and `response_of` reads a `responses_create` result through the SDK type."""

from __future__ import annotations

from typing import Any

from openai.types.responses import Response

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.products import responses

checked: list[str] = []  # the ids of the Responses objects validated so far in this process
failures: list[str] = []  # what did not validate, for the test that produced it


def validate(rendered: dict[str, Any]) -> Response:
    """Validate a rendered Response object; `output_text` must be the text of its message items."""
    response = Response.model_validate(rendered)
    texts = [
        part["text"]
        for item in rendered["output"]
        if item["type"] == "message"
        for part in item["content"]
        if part["type"] == "output_text"
    ]
    if response.output_text != "".join(texts):
        raise AssertionError(f"output_text {response.output_text!r} is not the message text {texts!r}")
    return response


def response_of(result: Any) -> Response:
    """A `responses_create` tool result read as the SDK's Response (its text and structuredContent)."""
    assert not result.is_error, result.content[0].text
    response = Response.model_validate_json(result.content[0].text)
    assert response.model_dump(mode="json", exclude_unset=True) == result.structured_content
    return response


def install() -> Any:
    """Register the responses dialect with a renderer that validates each object it makes; returns
    the original declaration so it can be put back."""
    original = DIALECTS[responses.NAME]

    def render(completion: Any, request: Any, cursor: str | None) -> Any:
        output = original.render(completion, request, cursor)
        try:
            validate(output)
            checked.append(output["id"])
        except Exception as err:  # recorded, and failed by the test's teardown
            failures.append(f"{type(err).__name__}: {err}")
        return output

    DIALECTS[responses.NAME] = original._replace(render=render)
    return original
