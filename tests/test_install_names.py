"""No doc or message installs the other program. The name `agent-as-model` on
the package index belongs to another project (the reference server), so `uvx agent-as-model` and
`pip install agent-as-model[...]` run that one, not this. Only the README's warning that says so
and the fuzz doc's lines about that very reference implementation may name them."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import ROOT

# An install or run of the name from the package index: `uvx [options] agent-as-model`, a uvx
# host command whose arguments start with it, and `pip install` of the name (quoted or not).
WRONG = re.compile(
    r"""\buvx\b(?:\s+--?[\w-]+(?:[ =][^\s-]\S*)?)*\s+agent-as-model\b"""
    r"""|"command":\s*"uvx\""""
    r"""|\bpip\s+install\s+['"]?agent-as-model\b"""
)
# (file, what the allowed line says) for the lines that name the reference on purpose.
ALLOWED = (
    ("README.md", "belongs to another\nproject, the reference server"),  # the warning
    ("docs/fuzzing.md", "agent-as-model==0.2.0"),  # fuzzing the reference implementation
)


def scanned() -> list[Path]:
    return sorted(
        [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "agent_as_model").rglob("*.py")]
    )


def allowed(relative: str, text: str, start: int) -> bool:
    """Whether the match at `start` lies in a passage of ALLOWED (the line, and the line before)."""
    line_start = text.rfind("\n", 0, text.rfind("\n", 0, start)) + 1
    line_end = text.find("\n", start)
    passage = text[line_start : line_end if line_end != -1 else len(text)]
    return any(name == relative and marker in passage for name, marker in ALLOWED)


def test_no_doc_or_message_installs_the_other_program() -> None:
    found = []
    for path in scanned():
        relative = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        for match in WRONG.finditer(text):
            if not allowed(relative, text, match.start()):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{relative}:{line}: {match.group(0)!r}")
    assert not found, "installs the package index's agent-as-model, not this project:\n" + "\n".join(found)


def test_the_scan_sees_what_it_must_refuse() -> None:
    for wrong in (
        "uvx agent-as-model serve",
        "uvx --with openai agent-as-model serve",
        '"command": "uvx",',
        "pip install 'agent-as-model[openai]'",
        "pip install agent-as-model",
    ):
        assert WRONG.search(wrong), wrong
    for right in (
        "~/.agent-as-model/bin/pip install '/path/to/checkout[openai]'",
        "uv tool install --with openai /path/to/checkout",
        "~/.agent-as-model/bin/agent-as-model serve",
    ):
        assert not WRONG.search(right), right
