"""The command line a newcomer meets first: `python -m agent_as_model` and the demo."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent_as_model import __version__
from agent_as_model.commands.demo import demo_calls, run_demo


def test_python_dash_m_prints_the_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agent_as_model", "--version"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"agent-as-model {__version__}"


@pytest.mark.anyio
async def test_demo_shows_every_tool_on_both_eras(capsys: pytest.CaptureFixture[str]) -> None:
    assert await run_demo() == 0
    out = capsys.readouterr().out
    legacy, modern = out.split("era 2026-07-28")
    calls = demo_calls()
    assert "gemini_generate_content" in [name for name, _ in calls]  # shown from its dialect's example
    for name, _ in calls:
        assert f"- {name}" in legacy and f"- {name}" in modern
    sampled = len(calls) - 1  # list_models needs no model
    assert legacy.count("host ←") == sampled
    assert modern.count("round 1 ←") == sampled and modern.count("round 2 →") == sampled
    assert "isError" not in out
    assert "negotiated protocol version: 2025-11-25" in legacy
    assert "negotiated protocol version: 2026-07-28" in modern
    # The last section: one call per product from a host that cannot sample, each routed by its
    # model to the stand-in provider of its route, through that provider's SDK.
    served = out.split("each call routed by its model to built-in stand-in providers")[1]
    assert served.count("provider openai ← ") == 3  # chat, responses, and generate's agent-default
    assert served.count("provider anthropic ← ") == 1 and served.count("provider gemini ← ") == 1
    assert "/v1beta/models/gemini-2.5-flash:generateContent" in served
    assert "result ←   stand-in answer to: Explain MCP sampling in one line." in served
    for backend in (
        "openai/gpt-4.1",
        "anthropic/claude-sonnet-4-5",
        "gemini/gemini-2.5-flash",
        "openai/stand-in-model",
    ):
        assert f'"backend": "provider:{backend}"' in served
    assert '"passed_over": [{"backend": "host", "why": "the host did not declare sampling"}]' in served
    assert "demo-key-for-the-stand-in" not in out
