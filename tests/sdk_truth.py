"""The official SDKs as the truth about the products' shapes: every response object the server
renders is validated as the SDK's own type (wired in by conftest.py for the whole suite): the
Responses object as `openai.types.responses.Response`, and with `result: "object"` the Chat
Completions object as `openai.types.chat.ChatCompletion` and the Messages object as
`anthropic.types.Message`. `response_of` reads a `responses_create` result through the SDK type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anthropic.types import Message
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.adapters.dialects.products import chat, messages, responses

checked: list[str] = []  # the ids of the objects validated so far in this process
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


def validate_chat(rendered: dict[str, Any]) -> ChatCompletion:
    completion = ChatCompletion.model_validate(rendered)
    if completion.model_dump(mode="json", exclude_unset=True) != rendered:
        raise AssertionError(f"the SDK's ChatCompletion does not read back as rendered: {rendered}")
    return completion


def validate_message(rendered: dict[str, Any]) -> Message:
    message = Message.model_validate(rendered)
    if message.model_dump(mode="json", exclude_unset=True) != rendered:
        raise AssertionError(f"the SDK's Message does not read back as rendered: {rendered}")
    return message


# Each product's name, the renderer attribute that makes its object, and how that object is checked.
_CHECKS: dict[str, tuple[tuple[str, ...], Callable[[dict[str, Any]], Any], str]] = {
    responses.NAME: (("render", "render_object"), validate, "id"),
    chat.NAME: (("render_object",), validate_chat, "id"),
    messages.NAME: (("render_object",), validate_message, "id"),
}


def response_of(result: Any) -> Response:
    """A `responses_create` tool result read as the SDK's Response (its text and structuredContent)."""
    assert not result.is_error, result.content[0].text
    response = Response.model_validate_json(result.content[0].text)
    assert response.model_dump(mode="json", exclude_unset=True) == result.structured_content
    return response


def install() -> dict[str, Any]:
    """Register the dialects with renderers that validate each object they make; returns the
    original declarations so they can be put back."""
    originals = {name: DIALECTS[name] for name in _CHECKS}
    for name, (attributes, check, key) in _CHECKS.items():
        original = originals[name]
        # One wrapper a renderer: a dialect whose `render` is its `render_object` keeps them one
        # (the result's commit tells a product's own object by that identity).
        made: dict[int, Any] = {}
        wrapped = {}
        for attribute in attributes:
            render = getattr(original, attribute)
            if id(render) not in made:
                made[id(render)] = _checking(render, check, key)
            wrapped[attribute] = made[id(render)]
        DIALECTS[name] = original._replace(**wrapped)
    return originals


def uninstall(originals: dict[str, Any]) -> None:
    DIALECTS.update(originals)


def _checking(render: Any, check: Callable[[dict[str, Any]], Any], key: str) -> Any:
    def rendered(completion: Any, request: Any, cursor: str | None) -> Any:
        output = render(completion, request, cursor)
        try:
            check(output)
            checked.append(output[key])
        except Exception as err:  # recorded, and failed by the test's teardown
            failures.append(f"{type(err).__name__}: {err}")
        return output

    return rendered
