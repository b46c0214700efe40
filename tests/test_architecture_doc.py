"""The state diagram in docs/architecture.md is drawn from the machine's own table."""

from pathlib import Path

from agent_as_model.engine import diagram

DOC = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def test_committed_diagram_matches_the_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert diagram.BEGIN in text and diagram.END in text, "docs/architecture.md lost its diagram markers"
    redraw = "python -m agent_as_model.engine.diagram --write docs/architecture.md"
    assert diagram.replace_block(text) == text, f"docs/architecture.md is stale: run `{redraw}`"


def test_every_transition_is_drawn() -> None:
    drawn = diagram.mermaid()
    for row in diagram.TABLE:
        sources = (row.source,) if isinstance(row.source, str) else row.source
        for source in sources:
            assert f"{source} --> {row.dest}: {row.trigger}" in drawn


def test_the_records_declared_triggers_are_the_tables() -> None:
    import ast
    import inspect

    from agent_as_model.engine import record

    tree = ast.parse(inspect.getsource(record.CallRecord))
    declared = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name not in ("tool", "trigger")
    }
    assert declared == {row.trigger for row in diagram.TABLE}
