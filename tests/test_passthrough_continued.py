"""A Responses conversation continued through pass-through: the provider's own object comes back
with the provider's own id, so the next call names that id in `previous_response_id`. Without a
store here, the id goes with the body to a provider whose API speaks Responses (that API may hold
the response); any other backend gets the conversation as passed, with the warning that says so.
With a store, the passed-through response is kept under this server's id and a call continuing it
passes the whole conversation as input. Chat's `previous_response_id` is this server's cursor, not
the product's: it never reaches the provider. Both eras, in-process and once over stdio."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from agent_as_model.adapters.store import StoreSettings, open_store
from agent_as_model.commands.standin_provider import StandInProvider, openai_reply, responses_reply
from agent_as_model.server import build_server
from agent_as_model.states.commit import NOT_KEPT_HERE
from tests.gateway_harness import config_text, gateway_of, meta_of, providers, write_config
from tests.helpers import server_params
from tests.scripted_host import ScriptedHost, connect

pytestmark = pytest.mark.anyio
__all__ = ["providers"]  # the fixture

STORE_KEY = "a-key-for-the-stored-responses-0123456789"


def _server(tmp_path: Path, stand_ins: dict[str, StandInProvider], store: Any = None) -> Any:
    return build_server(gateway=gateway_of(write_config(tmp_path, config_text(stand_ins))), store=store)


async def test_the_providers_response_id_goes_with_the_body(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    stand_in = providers["a"]
    stand_in.script += [responses_reply("first", model="gpt-4.1"), responses_reply("second", model="gpt-4.1")]
    host = ScriptedHost("from the host")
    later = {"model": "gpt-4.1", "input": "and then?", "previous_response_id": "resp_standin"}
    async with connect(era, host, server=_server(tmp_path, providers)) as client:
        first = await client.call_tool("responses_create", {"model": "gpt-4.1", "input": "hi"})
        second = await client.call_tool("responses_create", later)
        # The host cannot see the provider's response: it gets this input alone, and is told so.
        hosted = await client.call_tool("responses_create", {**later, "backend": "host"})
    assert not first.is_error and not second.is_error, (first.content[0].text, second.content[0].text)
    assert first.structured_content is not None and first.structured_content["id"] == "resp_standin"
    assert stand_in.seen[-1].body == later
    assert second.structured_content == responses_reply("second", model="gpt-4.1")
    meta = meta_of(second)
    assert meta["passed_through"] is True and "warnings" not in meta
    assert len(stand_in.seen) == 2  # the host's call was not sent to the provider
    assert not hosted.is_error, hosted.content[0].text
    assert "passed_through" not in meta_of(hosted)
    (warning,) = meta_of(hosted)["warnings"]
    assert "resp_standin" in warning and "Pass the earlier turns" in warning


async def test_chats_previous_response_id_is_the_servers_cursor_and_never_passed(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    stand_in = providers["a"]
    stand_in.script.append(openai_reply("answer", model="gpt-4.1"))
    body = {
        "model": "gpt-4.1",
        "messages": [{"role": "user", "content": "hi"}],
        "previous_response_id": "resp_standin",
    }
    async with connect(era, server=_server(tmp_path, providers)) as client:
        result = await client.call_tool("chat_complete", body)
    assert not result.is_error, result.content[0].text
    assert "passed_through" not in meta_of(result)
    assert "previous_response_id" not in stand_in.seen[-1].body
    assert stand_in.seen[-1].body["messages"] == [{"role": "user", "content": "hi"}]


async def test_store_true_without_a_store_says_the_provider_keeps_it(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    providers["a"].script.append(responses_reply("kept there", model="gpt-4.1"))
    async with connect(era, server=_server(tmp_path, providers)) as client:
        result = await client.call_tool(
            "responses_create", {"model": "gpt-4.1", "input": "hi", "store": True}
        )
    assert not result.is_error, result.content[0].text
    assert providers["a"].seen[-1].body == {"model": "gpt-4.1", "input": "hi", "store": True}
    assert meta_of(result)["warnings"] == [NOT_KEPT_HERE]


async def test_with_a_store_the_continued_conversation_is_passed_as_input(
    era: str, tmp_path: Path, providers: dict[str, StandInProvider]
) -> None:
    stand_in = providers["a"]
    stand_in.script += [
        {**responses_reply("first", model="gpt-4.1"), "id": "resp_first"},
        {**responses_reply("second", model="gpt-4.1"), "id": "resp_second"},
    ]
    store = open_store(StoreSettings(f"sqlite:{tmp_path / 'responses.db'}"), STORE_KEY)
    async with connect(era, server=_server(tmp_path, providers, store)) as client:
        first = await client.call_tool("responses_create", {"model": "gpt-4.1", "input": "hi"})
        assert first.structured_content is not None
        kept_id = first.structured_content["id"]
        second = await client.call_tool(
            "responses_create", {"model": "gpt-4.1", "input": "and then?", "previous_response_id": kept_id}
        )
    assert kept_id == "resp_first"  # the provider's own id: the response is kept here under it
    assert not second.is_error, second.content[0].text
    assert meta_of(second)["passed_through"] is True
    assert second.structured_content is not None
    assert second.structured_content["id"] == "resp_second"
    assert second.structured_content["previous_response_id"] == "resp_first"
    sent = stand_in.seen[-1].body
    assert "previous_response_id" not in sent
    said = [(item.get("role"), str(item.get("content"))) for item in sent["input"]]
    assert said[0] == ("user", "hi") and said[-1] == ("user", "and then?")
    assert any(role == "assistant" and "first" in text for role, text in said)


@pytest.mark.stdio
async def test_continued_over_stdio(era: str, tmp_path: Path, providers: dict[str, StandInProvider]) -> None:
    config = write_config(tmp_path, config_text(providers))
    later = {"model": "gpt-4.1", "input": "and then?", "previous_response_id": "resp_standin"}
    providers["a"].script.append(responses_reply("second", model="gpt-4.1"))
    async with Client(
        server_params("serve", "--config", str(config), env=dict(os.environ)), mode=era
    ) as client:
        result = await client.call_tool("responses_create", later)
    assert not result.is_error, result.content[0].text
    assert providers["a"].seen[-1].body == later
    assert meta_of(result)["passed_through"] is True and "warnings" not in meta_of(result)
