"""The package's shape: a product that outgrows a file becomes a package, and the products stay
independent of each other as units, files and packages alike (the import-linter contract
"Dialects do not import each other", read from pyproject.toml and checked here on the package's
own import graph with a forbidden import added); no module of the package is over 700 lines."""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest
from importlinter.contracts.independence import IndependenceContract

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agent_as_model"
PRODUCTS = "agent_as_model.adapters.dialects.products"
MOST_LINES = 700


def _contract() -> IndependenceContract:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (spec,) = [
        c
        for c in pyproject["tool"]["importlinter"]["contracts"]
        if c["name"] == "Dialects do not import each other"
    ]
    return IndependenceContract(
        name=spec["name"],
        session_options={"root_packages": ["agent_as_model"]},
        contract_options={"modules": spec["modules"]},
    )


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    # Imports under TYPE_CHECKING and inside functions count, as they do for lint-imports.
    return grimp.build_graph("agent_as_model", exclude_type_checking_imports=False)


def _kept(graph: grimp.ImportGraph, *added: tuple[str, str]) -> bool:
    """Whether the contract holds with these imports added to the graph (taken out again after)."""
    pairs = [(f"{PRODUCTS}.{importer}", f"{PRODUCTS}.{imported}") for importer, imported in added]
    for importer, imported in pairs:
        assert not graph.direct_import_exists(importer=importer, imported=imported)
        graph.add_import(importer=importer, imported=imported)
    try:
        return bool(_contract().check(graph, verbose=False).kept)
    finally:
        for importer, imported in pairs:
            graph.remove_import(importer=importer, imported=imported)


def test_the_products_are_independent(graph: grimp.ImportGraph) -> None:
    assert _kept(graph)


def test_the_products_that_are_packages_are_packages(graph: grimp.ImportGraph) -> None:
    assert {"gemini", "responses"} <= {m.rsplit(".", 1)[1] for m in graph.find_children(PRODUCTS)}
    assert graph.find_children(f"{PRODUCTS}.gemini") and graph.find_children(f"{PRODUCTS}.responses")


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("gemini.render", "responses.request"),  # a package's module, another package's module
        ("responses.storage", "gemini"),  # a package's module, another package
        ("chat", "gemini.schema"),  # a one-file product, a package's module
        ("gemini.request", "messages"),  # a package's module, a one-file product
    ],
)
def test_a_product_importing_another_product_breaks_the_contract(
    graph: grimp.ImportGraph, importer: str, imported: str
) -> None:
    assert not _kept(graph, (importer, imported))


def test_a_product_package_s_modules_import_each_other(graph: grimp.ImportGraph) -> None:
    assert graph.direct_import_exists(
        importer=f"{PRODUCTS}.gemini.request", imported=f"{PRODUCTS}.gemini.keys"
    )
    assert graph.direct_import_exists(
        importer=f"{PRODUCTS}.responses", imported=f"{PRODUCTS}.responses.storage"
    )
    assert _kept(graph, ("gemini.render", "gemini.keys"), ("responses.writing", "responses.request"))


def test_no_module_is_over_the_line_bound() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert sizes, "no module found"
    over = {path: lines for path, lines in sizes.items() if lines > MOST_LINES}
    assert not over, f"modules over {MOST_LINES} lines (split them by concern): {over}"
