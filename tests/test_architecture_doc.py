"""docs/architecture.md is checked against the code: the state diagram against the machine's table,
the import layers against pyproject's import-linter contract."""

from pathlib import Path

import pytest

from agent_as_model.engine import diagram

DOC = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def test_committed_diagram_matches_the_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert diagram.BEGIN in text and diagram.END in text, "docs/architecture.md lost its diagram markers"
    redraw = "python -m agent_as_model.engine.diagram --write docs/architecture.md"
    assert diagram.replace_block(text) == text, f"docs/architecture.md is stale: run `{redraw}`"


def test_every_transition_is_drawn() -> None:
    drawn = diagram.mermaid()
    for row in diagram.TABLE.transitions:
        for source in diagram.sources(row):
            assert f"{source} --> {row.dest}: {row.trigger}" in drawn


def test_a_new_record_starts_where_the_machine_does() -> None:
    from agent_as_model.adapters.backends.base import Route, SamplingSupport
    from agent_as_model.adapters.backends.sampling import LegacySampling
    from agent_as_model.adapters.dialects import DIALECTS
    from agent_as_model.states.call import CallRecord

    route = Route(LegacySampling(None, None), SamplingSupport(declared=True))  # type: ignore[arg-type]
    record = CallRecord(DIALECTS["generate"], {}, route)
    assert record.state == diagram.INITIAL


def test_import_layers_section_lists_the_contract() -> None:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    pyproject = tomllib.loads((DOC.parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in pyproject["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    section = DOC.read_text(encoding="utf-8").split("## Import layers", 1)[1]
    listed = section.split("```\n", 2)[1].splitlines()
    assert listed == contract["layers"], "docs/architecture.md 'Import layers' differs from the contract"
