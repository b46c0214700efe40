"""The warnings of parameters sent as hints are true of the backend that answered: when the host
answers they say the parameter went to it in the sampling request's metadata (as before); when a
provider answers through the neutral conversation (a call of another product than its API's, or
one that leans on the server's own features), they say the parameter was not sent to it, naming
it, since its request is built from the conversation and the limits alone. The warnings of
parameters not applied at all stay as they are. Both eras, in-process and once over stdio."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import ErrorData

from agent_as_model.commands.standin_provider import StandInProvider
from agent_as_model.server import build_server
from tests.gateway_harness import config_text, gateway_of, meta_of, providers, write_config
from tests.helpers import server_params
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio
__all__ = ["providers"]  # the fixture

ROUTES = """
[routes]
"agent-default" = ["host"]
"gpt-*" = ["a"]
"claude-*" = ["b"]
"host-then-a" = ["host", "a/a-one"]
"host-then-b" = ["host", "b/claude-x"]
"""
ASK = [{"role": "user", "content": "hello"}]
# A Messages body with two hints (`top_p`, `top_k`) and a parameter not applied (`metadata`); their
# warnings come in the order the product declares them: metadata, top_p, top_k.
MESSAGES = {
    "messages": ASK,
    "max_tokens": 20,
    "top_k": 5,
    "metadata": {"user_id": "u-1"},
    "top_p": 0.5,
}
CHAT = {"messages": ASK, "seed": 7, "user": "u-1"}
HINTS_KEY = "'agent-as-model/hints'"


def _hint_to_host(path: str) -> str:
    return (
        f"{path}: sent to the host as a hint (the sampling request's metadata, {HINTS_KEY}): MCP "
        "sampling cannot make the host's model apply it"
    )


def _not_sent(path: str, provider: str) -> str:
    return (
        f"{path}: not sent to the provider {provider!r}, which answered through the neutral "
        "conversation: it has no place for it"
    )


METADATA = (
    "metadata: accepted, not applied: tags an object the product's service keeps; nothing here keeps it"
)
USER = (
    "user: accepted, not applied: an end-user id for the product's abuse monitoring; a setting of the "
    "product's own service (its accounts, routing, tiers and regions), which does not exist when the "
    "host's model answers"
)


def _server(tmp_path: Path, stand_ins: dict[str, StandInProvider]) -> Any:
    return build_server(gateway=gateway_of(write_config(tmp_path, config_text(stand_ins, routes=ROUTES))))


async def test_the_hosts_answer_keeps_the_hosts_words(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    host = ScriptedHost("from the host")
    async with connect(era, host, server=_server(tmp_path, providers)) as client:
        messages = await client.call_tool("messages_create", MESSAGES)
        chat = await client.call_tool("chat_complete", CHAT)
    assert meta_of(messages)["backend"] == "host"
    assert meta_of(messages)["warnings"] == [METADATA, _hint_to_host("top_p"), _hint_to_host("top_k")]
    assert meta_of(chat)["warnings"] == [USER, _hint_to_host("seed")]
    # The hints did reach the host, in the sampling request's metadata.
    assert host.wire(0)["metadata"]["agent-as-model/hints"] == {"top_k": 5, "top_p": 0.5}


async def test_a_provider_of_another_product_is_named(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    async with connect(era, server=_server(tmp_path, providers)) as client:
        messages = await client.call_tool("messages_create", {**MESSAGES, "model": "gpt-4.1"})
        chat = await client.call_tool("chat_complete", {**CHAT, "model": "claude-x"})
    assert meta_of(messages)["backend"] == "provider:a/gpt-4.1"
    assert meta_of(messages)["warnings"] == [METADATA, _not_sent("top_p", "a"), _not_sent("top_k", "a")]
    assert meta_of(chat)["backend"] == "provider:b/claude-x"
    assert meta_of(chat)["warnings"] == [USER, _not_sent("seed", "b")]
    # Truly not sent: the providers' requests hold none of them.
    sent_a, sent_b = providers["a"].seen[0].body, providers["b"].seen[0].body
    assert not {"top_k", "top_p", "metadata"} & sent_a.keys()
    assert not {"seed", "user"} & sent_b.keys()


async def test_a_same_product_call_through_the_neutral_conversation_is_named_too(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    """`n` completions are the server's to fan out: each goes to the provider as the neutral
    conversation, even one that speaks Chat Completions."""
    async with connect(era, server=_server(tmp_path, providers)) as client:
        fanned = await client.call_tool(
            "chat_complete", {**CHAT, "model": "gpt-4.1", "n": 2, "result": "object"}
        )
    assert not fanned.is_error, fanned.content[0].text
    assert "passed_through" not in meta_of(fanned)
    assert meta_of(fanned)["warnings"] == [USER, _not_sent("seed", "a")]


async def test_a_route_that_falls_back_from_the_host_names_the_provider(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    # No sampling declared: the route's host is passed over, and the provider behind it answers.
    async with connect(era, server=_server(tmp_path, providers)) as client:
        routed = await client.call_tool("messages_create", {**MESSAGES, "model": "host-then-a"})
    meta = meta_of(routed)
    assert meta["passed_over"] == [{"backend": "host", "why": "the host did not declare sampling"}]
    assert meta["backend"] == "provider:a/a-one"
    assert meta["warnings"] == [METADATA, _not_sent("top_p", "a"), _not_sent("top_k", "a")]


async def test_a_host_that_declines_passes_the_call_and_the_words_on(
    tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    host = ScriptedHost(ErrorData(code=-1, message="User rejected sampling"), "the host's own")
    async with connect("legacy", host, server=_server(tmp_path, providers)) as client:
        declined = await client.call_tool("chat_complete", {**CHAT, "model": "host-then-b"})
        hosted = await client.call_tool("chat_complete", {**CHAT, "model": "host-then-b"})
    assert meta_of(declined)["backend"] == "provider:b/claude-x"
    assert meta_of(declined)["warnings"] == [USER, _not_sent("seed", "b")]
    assert meta_of(hosted)["backend"] == "host"
    assert meta_of(hosted)["warnings"] == [USER, _hint_to_host("seed")]


@pytest.mark.stdio
async def test_over_stdio(era: str, tmp_path: Path, providers: dict[str, StandInProvider]) -> None:
    config = write_config(tmp_path, config_text(providers, routes=ROUTES))
    host = ScriptedHost("from the host")
    async with Client(
        server_params("serve", "--config", str(config), env=dict(os.environ)),
        mode=era,
        sampling_callback=host,
    ) as client:
        across = await client.call_tool("messages_create", {**MESSAGES, "model": "gpt-4.1"})
        hosted = await client.call_tool("messages_create", MESSAGES)
    assert meta_of(across)["warnings"] == [METADATA, _not_sent("top_p", "a"), _not_sent("top_k", "a")]
    assert meta_of(hosted)["warnings"] == [METADATA, _hint_to_host("top_p"), _hint_to_host("top_k")]


async def test_reasoning_left_out_is_said_of_the_model_that_answered(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    """Another model's reasoning passed back is left out of the neutral conversation, whoever
    answers it: the warning says so of the answering model, the host's or a provider's."""
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    body = {
        "input": [
            {"role": "user", "content": "hello"},
            reasoning,
            {"role": "assistant", "content": "hi"},
            {"role": "user", "content": "and?"},
        ]
    }
    host = ScriptedHost("from the host")
    gateway = gateway_of(write_config(tmp_path, config_text(providers, routes=ROUTES)))
    async with connect(era, host, server=build_server(gateway=gateway)) as client:
        hosted = await client.call_tool("responses_create", body)
        across = await client.call_tool("responses_create", {**body, "model": "claude-x"})
    for result, backend in ((hosted, "host"), (across, "provider:b/claude-x")):
        assert not result.is_error, result.content[0].text
        meta = meta_of(result)
        assert meta["backend"] == backend
        (warning,) = meta["warnings"]
        assert warning.startswith("input[1]: left out of what the answering model sees: reasoning items")
    assert "rs_1" not in str(providers["b"].seen[-1].body)
