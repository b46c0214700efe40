"""How a caller writes `generate`'s one prompt (its `Writing`): a single user message."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_as_model.adapters.dialects.writing import Said, Unit, Writing, read_text_result, refuse

if TYPE_CHECKING:  # only for annotations: importing random costs start-up time
    import random


def write(units: Sequence[Unit], vary: random.Random | None = None) -> dict[str, Any]:
    if len(units) != 1 or not isinstance(units[0], Said) or units[0].role != "user":
        raise refuse("anything but one user message: a prompt has no history")
    return {"prompt": units[0].text}


WRITING = Writing(write, read_text_result, roles=("user",), leading_system=False, tool_turns=False)
