"""The corpus (tests/corpus/): request bodies written by the official SDKs, each served
faithfully, served with its unenforced parameters named (a hint), or refused with the true
reason, as its entry says; through the real server on both eras, in-process and over real stdio
with the installed command; every object validated as the SDK's own type. The corpus covers
every parameter of each create call and every block, item and part type the SDKs define, and
docs/parameters.md is what its generator makes of the declarations today."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic.types as anthropic_types
import pytest
from google.genai import types as genai_types
from openai.types.chat import chat_completion_content_part_param
from openai.types.responses import response_input_content_param, response_input_item_param

from agent_as_model.adapters.dialects import DIALECTS
from agent_as_model.limits import DEFAULT_LIMITS
from agent_as_model.server import build_server
from tests.corpus import parameters, run, sdk
from tests.corpus.entries import ENTRIES
from tests.helpers import COMMAND

ROOT = Path(__file__).resolve().parent.parent


def _report(outcomes: list[run.Outcome]) -> str:
    return "\n".join(
        f"{o.entry.name} [{o.entry.expect} -> {o.observed}]: {'; '.join(o.problems)}"
        for o in outcomes
        if o.problems
    )


@pytest.mark.anyio
async def test_every_entry_comes_back_as_it_must_in_process(era: str) -> None:
    host = run.Host()
    server = build_server(limits=DEFAULT_LIMITS._replace(result="object"))
    async with run.connected(era, server, host) as client:
        outcomes = await run.run(client, host)
    assert not _report(outcomes), _report(outcomes)
    counted = run.counts(outcomes)
    assert counted["as expected"] == len(ENTRIES)
    assert counted["faithful"] and counted["hinted"] and counted["refused"]  # each outcome is met


@pytest.mark.stdio
@pytest.mark.anyio
async def test_every_entry_comes_back_as_it_must_over_stdio(era: str) -> None:
    host = run.Host()
    async with run.connected(era, run.stdio(str(COMMAND)), host) as client:
        outcomes = await run.run(client, host)
    assert not _report(outcomes), _report(outcomes)


@pytest.mark.anyio
async def test_the_runner_sees_an_entry_that_misses_its_mark(era: str) -> None:
    """The runner is not blind: an entry whose expectation is wrong comes back with problems."""
    faithful = next(e for e in ENTRIES if e.expect == "faithful" and e.check is None)
    hinted = next(e for e in ENTRIES if e.expect == "hinted")
    refused = next(e for e in ENTRIES if e.expect == "refused")
    wrong = [
        faithful._replace(expect="refused", named=("messages",)),
        hinted._replace(expect="faithful"),
        hinted._replace(named=("no_such_parameter",)),
        refused._replace(expect="faithful"),
        refused._replace(says="words it does not say"),
    ]
    host = run.Host()
    server = build_server(limits=DEFAULT_LIMITS._replace(result="object"))
    async with run.connected(era, server, host) as client:
        outcomes = await run.run(client, host, wrong)
    assert all(o.problems for o in outcomes), _report(outcomes)


# -- what the corpus covers -------------------------------------------------------------------------


def _bodies(tool: str) -> list[dict[str, Any]]:
    return [entry.body() for entry in ENTRIES if entry.tool == tool]


def _walk(value: Any) -> list[Any]:
    """Every object inside a body (the body too)."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


@pytest.mark.parametrize("tool", ["chat_complete", "messages_create", "responses_create"])
def test_every_parameter_of_the_create_call_is_in_some_entry(tool: str) -> None:
    given = {key for body in _bodies(tool) for key in body}
    sent_as_headers = {key for (named, key) in parameters.HEADERS if named == tool}
    missing = [key for key in sdk.create_keys(tool) if key not in given and key not in sent_as_headers]
    assert not missing, f"{tool}: no entry of the corpus gives {missing}"


def test_every_path_of_a_gemini_body_is_in_some_entry() -> None:
    given: set[str] = set()
    for body in _bodies("gemini_generate_content"):
        given.update(body)
        given.update(f"generationConfig.{key}" for key in body.get("generationConfig", {}))
    missing = [path for path, vertex in sdk.gemini_paths().items() if not vertex and path not in given]
    assert not missing, f"no entry of the corpus gives {missing}"


@pytest.mark.parametrize(
    ("tool", "union"),
    [
        ("chat_complete", chat_completion_content_part_param.ChatCompletionContentPartParam),
        ("messages_create", anthropic_types.ContentBlockParam),
        ("responses_create", response_input_item_param.ResponseInputItemParam),
        ("responses_create", response_input_content_param.ResponseInputContentParam),
    ],
)
def test_every_block_item_and_part_type_is_in_some_entry(tool: str, union: Any) -> None:
    types = {obj.get("type") for body in _bodies(tool) for obj in _walk(body)}
    missing = [kind for kind in sdk.type_literals(union) if kind not in types]
    assert not missing, f"{tool}: no entry of the corpus passes {missing}"


def test_every_field_of_a_gemini_part_is_in_some_entry() -> None:
    written = {
        sdk.camel(key)
        for body in _bodies("gemini_generate_content")
        for content in body["contents"]
        if isinstance(content, dict)
        for part in content["parts"]
        for key in part
    }
    # The SDK's own name of the field, as its body writes it.
    missing = [f for f in genai_types.Part.model_fields if sdk.camel(f) not in written]
    assert not missing, f"no entry of the corpus passes a part with {missing}"


def test_the_parameters_page_is_current() -> None:
    page = (ROOT / "docs" / "parameters.md").read_text(encoding="utf-8")
    assert page == parameters.page(), "docs/parameters.md is stale: run make docs"


def test_the_readme_links_the_parameters_page() -> None:
    assert "docs/parameters.md" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("tool", ["chat_complete", "messages_create", "responses_create"])
def test_every_parameter_the_dialect_accepts_or_refuses_has_a_row(tool: str) -> None:
    """Not only the SDK's typed keys: `stream`, and what an SDK's create-params type no longer
    lists (Messages' `temperature`, `top_p`, `top_k`), have their rows too."""
    body = DIALECTS[tool].body
    listed = {key for key, _ in parameters.rows(tool)}
    declared = {*body.refused, *body.hints, *(name for name in body.fates if "." not in name)}
    assert "stream" in listed and declared <= listed, sorted(declared - listed)
    if tool == "messages_create":
        assert {"temperature", "top_p", "top_k"} <= listed
