"""The cursor properties of `registry_cursors.py`, for every registered dialect that declares its
writing: gemini_generate_content's and any dialect registered later with the built-in ones."""

from __future__ import annotations

import pytest

from property_tests.registry_cursors import (
    chains_hold,
    changes_are_refused,
    history_tools,
    one_shot_mints,
    one_shot_tools,
)


@pytest.mark.parametrize("tool", history_tools())
def test_a_chain_returns_the_cursors_a_caller_recomputes_on_both_eras(tool: str) -> None:
    chains_hold(tool)()


@pytest.mark.parametrize("tool", history_tools())
def test_a_changed_history_is_refused_naming_expected_and_received(tool: str) -> None:
    changes_are_refused(tool)()


@pytest.mark.parametrize("tool", one_shot_tools())
def test_a_tool_without_history_mints_and_refuses_its_own_cursor(tool: str) -> None:
    one_shot_mints(tool)()


def test_every_registered_dialect_is_driven() -> None:
    from agent_as_model.adapters.dialects import DIALECTS

    assert sorted(history_tools() + one_shot_tools()) == sorted(DIALECTS)
