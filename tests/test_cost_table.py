"""benchmarks/README.md's table of what each cache, ContextVar and late import buys stays the list
of them: every module-level `BoundedCache` and `ContextVar` of the package has its row and every
row its cache or ContextVar, and every import inside a function is named by a row of the late
imports (its module and what it imports), each row by at least one such import."""

from __future__ import annotations

import ast

from tests.helpers import ROOT

PACKAGE = ROOT / "agent_as_model"
README = ROOT / "benchmarks" / "README.md"
SECTION = "## What each cache, ContextVar and late import buys"
CACHES, CONTEXT_VARS, LATE_IMPORTS = "### Bounded caches", "### ContextVars", "### Imports inside functions"


def _rows(subsection: str) -> list[list[str]]:
    text = README.read_text()
    section = text[text.index(SECTION) :]
    section = section[: section.find("\n## ", 1)] if "\n## " in section[1:] else section
    part = section[section.index(subsection) + len(subsection) :]
    part = part[: part.find("\n### ")] if "\n### " in part else part
    rows = [line for line in part.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in rows[1:]]  # no header


def _named(cell: str) -> list[str]:
    """The names written in backticks in a cell."""
    return cell.split("`")[1::2]


def _modules() -> list[tuple[str, ast.Module]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    return [(str(path.relative_to(PACKAGE)), ast.parse(path.read_text())) for path in paths]


def _made_at_module_level(kind: str) -> set[tuple[str, str]]:
    """(module, name) of each module-level assignment of a call to `kind`."""
    found = set()
    for where, tree in _modules():
        for node in tree.body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if isinstance(value, ast.Call) and getattr(value.func, "id", None) == kind:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found.update((where, target.id) for target in targets if isinstance(target, ast.Name))
    return found


def _listed(subsection: str) -> set[tuple[str, str]]:
    return {(where, name) for row in _rows(subsection) for name in _named(row[0]) for where in _named(row[1])}


def _late_imports() -> set[tuple[str, str]]:
    """(module, what it imports) of every import inside a function of the package: the module of
    `import x.y`, and `x.y.z` for `from x.y import z` (z may be a module or a name in one)."""
    found = set()
    for where, tree in _modules():
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    found.update((where, alias.name) for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module is not None:
                    found.update((where, f"{node.module}.{alias.name}") for alias in node.names)
    return found


def _covers(name: str, module: str) -> bool:
    """Whether a name in the table (`jsonschema`, `agent_as_model.calls`) names what is imported."""
    return any(module == n or module.startswith(f"{n}.") for n in (name, f"agent_as_model.{name}"))


def test_every_bounded_cache_has_its_row_and_every_row_its_cache() -> None:
    assert _listed(CACHES) == _made_at_module_level("BoundedCache")


def test_every_context_var_has_its_row_and_every_row_its_context_var() -> None:
    assert _listed(CONTEXT_VARS) == _made_at_module_level("ContextVar")


def test_every_import_inside_a_function_is_named_by_a_row_and_every_row_names_one() -> None:
    rows = [(_named(row[0]), _named(row[1])) for row in _rows(LATE_IMPORTS)]
    imports = _late_imports()
    unnamed = {
        (where, module)
        for where, module in imports
        if not any(where in places and any(_covers(n, module) for n in names) for names, places in rows)
    }
    assert not unnamed, f"imports inside functions with no row in {README.name}: {sorted(unnamed)}"
    stale = [
        (names, places)
        for names, places in rows
        if not any(where in places and any(_covers(n, module) for n in names) for where, module in imports)
    ]
    assert not stale, f"rows naming no import inside a function: {stale}"


def test_the_rows_name_real_modules() -> None:
    for subsection in (CACHES, CONTEXT_VARS, LATE_IMPORTS):
        for row in _rows(subsection):
            for where in _named(row[1]):
                assert (PACKAGE / where).is_file(), f"{subsection}: no module {where}"
