"""benchmarks/README.md's table of what each cache, ContextVar and late import buys stays the list
of them: every module-level `BoundedCache` and `ContextVar` of the package has its row and every
row its cache or ContextVar; every other module-level cache (a function kept by `functools.cache`,
`lru_cache` or `cached_property`, a module-level dict or list that functions fill as a memo) has its
row and every row its cache; and every import inside a function, `importlib.import_module` among
them, is named by a row of the late imports (its module and what it imports), each row by at least
one such import."""

from __future__ import annotations

import ast

from tests.helpers import ROOT

PACKAGE = ROOT / "agent_as_model"
README = ROOT / "benchmarks" / "README.md"
SECTION = "## What each cache, ContextVar and late import buys"
CACHES, CONTEXT_VARS, LATE_IMPORTS = "### Bounded caches", "### ContextVars", "### Imports inside functions"
OTHER_CACHES = "### Other module-level caches"

# The decorators that keep a function's results.
CACHING = {"cache", "lru_cache", "cached_property"}
# How a function fills a module-level dict or list it keeps things in.
FILLING = {"setdefault", "append", "extend", "insert", "update", "add"}
# Module-level dicts and lists that functions fill which are no memo of any call: the detector
# finds them, and each says here why it has no row.
NOT_MEMOS = {
    ("commands/cli.py", "_COMMANDS"): "the parser's subcommands by name, recorded when the parser is built",
    ("commands/cli.py", "_HTTP_ONLY"): "the HTTP-only options of `serve`, recorded when the parser is built",
    ("telemetry/conventions.py", "_APIS"): "each configured provider's API, recorded as the operator's "
    "providers are configured: the configuration, not a memo of any call",
}


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


def _decorator_name(decorator: ast.expr) -> str | None:
    """`cache` for `@functools.cache`, `@cache`, `@functools.lru_cache(maxsize=8)`..."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)


def _cached_functions() -> set[tuple[str, str]]:
    """(module, name) of each module-level function, and `Class.name` of each method of a
    module-level class, whose results a caching decorator keeps."""
    found = set()
    for where, tree in _modules():
        for node in tree.body:
            defined = [(node.name, node)] if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else []
            if isinstance(node, ast.ClassDef):
                defined = [(f"{node.name}.{f.name}", f) for f in node.body if isinstance(f, ast.FunctionDef)]
            for name, function in defined:
                if any(_decorator_name(d) in CACHING for d in function.decorator_list):
                    found.add((where, name))
    return found


def _empty(value: ast.expr | None) -> bool:
    """`{}`, `[]`, `dict()` or `list()`."""
    if isinstance(value, ast.Dict | ast.List):
        return not (value.keys if isinstance(value, ast.Dict) else value.elts)
    return (
        isinstance(value, ast.Call)
        and getattr(value.func, "id", None) in {"dict", "list"}
        and not (value.args or value.keywords)
    )


def _filled_module_names() -> set[tuple[str, str]]:
    """(module, name) of each module-level name bound to an empty dict or list that a function of
    its module fills: assigns to an item of it, or calls one of `FILLING` on it."""
    found = set()
    for where, tree in _modules():
        empty = set()
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and _empty(node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                empty.update(target.id for target in targets if isinstance(target, ast.Name))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                    filled = node.value
                elif (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in FILLING
                ):
                    filled = node.func.value
                else:
                    continue
                if isinstance(filled, ast.Name) and filled.id in empty:
                    found.add((where, filled.id))
    return found


def _listed(subsection: str) -> set[tuple[str, str]]:
    return {(where, name) for row in _rows(subsection) for name in _named(row[0]) for where in _named(row[1])}


def _late_imports() -> set[tuple[str, str]]:
    """(module, what it imports) of every import inside a function of the package: the module of
    `import x.y`, `x.y.z` for `from x.y import z` (z may be a module or a name in one), and
    `importlib.import_module` for a call of it (what it imports is named only when it runs)."""
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
                elif isinstance(node, ast.Call) and ast.unparse(node.func) in {
                    "importlib.import_module",
                    "import_module",
                }:
                    found.add((where, "importlib.import_module"))
    return found


def _covers(name: str, module: str) -> bool:
    """Whether a name in the table (`jsonschema`, `agent_as_model.calls`) names what is imported."""
    return any(module == n or module.startswith(f"{n}.") for n in (name, f"agent_as_model.{name}"))


def test_every_bounded_cache_has_its_row_and_every_row_its_cache() -> None:
    assert _listed(CACHES) == _made_at_module_level("BoundedCache")


def test_every_context_var_has_its_row_and_every_row_its_context_var() -> None:
    assert _listed(CONTEXT_VARS) == _made_at_module_level("ContextVar")


def test_every_other_module_level_cache_has_its_row_and_every_row_its_cache() -> None:
    found = _cached_functions() | (_filled_module_names() - set(NOT_MEMOS))
    assert _listed(OTHER_CACHES) == found


def test_the_module_level_names_filled_that_are_no_memo_are_still_there() -> None:
    assert set(NOT_MEMOS) <= _filled_module_names(), "an exception names what the detector no longer finds"


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
    for subsection in (CACHES, OTHER_CACHES, CONTEXT_VARS, LATE_IMPORTS):
        for row in _rows(subsection):
            for where in _named(row[1]):
                assert (PACKAGE / where).is_file(), f"{subsection}: no module {where}"
