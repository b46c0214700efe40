"""The lint's no-circle contracts (pyproject.toml, run by `lint-imports` in `make lint`) fail on an
import circle wherever it is: between sibling modules, through a package's own `__init__`,
through an import under `TYPE_CHECKING` or inside a function. Each case is a small package
written here and linted with the very contracts pyproject.toml names for agent_as_model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).parent / "lint-imports"
PACKAGE = "circles"
ACYCLIC = ("acyclic_siblings", "acyclic_modules")

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")


def _settings() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        settings: dict[str, object] = tomllib.load(file)["tool"]["importlinter"]
    return settings


def _no_circle_contracts() -> list[dict[str, object]]:
    contracts = _settings()["contracts"]
    assert isinstance(contracts, list)
    return [contract for contract in contracts if contract["type"] in ACYCLIC]


def _toml(value: object) -> str:
    return json.dumps(value)  # strings, numbers and lists of strings are spelt alike in both


def _lint(tmp_path: Path, files: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`lint-imports` over a package made of `files`, with the no-circle contracts of
    pyproject.toml pointed at it (the same contract types, depth and options)."""
    for name, text in files.items():
        path = tmp_path / PACKAGE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    lines = ["[tool.importlinter]", f"root_package = {_toml(PACKAGE)}"]
    lines.append(f"contract_types = {_toml(_settings()['contract_types'])}")
    for contract in _no_circle_contracts():
        lines.append("[[tool.importlinter.contracts]]")
        for key, value in contract.items():
            if isinstance(value, list):
                value = [item.replace("agent_as_model", PACKAGE) for item in value]
            lines.append(f"{key} = {_toml(value)}")
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # where the contract of tests/import_contracts.py is
    return subprocess.run(
        [str(LINT), "--no-cache"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )


def _verdicts(done: subprocess.CompletedProcess[str]) -> list[str]:
    names = [str(contract["name"]) for contract in _no_circle_contracts()]
    found = [line.rsplit(" ", 1) for line in done.stdout.splitlines() if line.endswith((" KEPT", " BROKEN"))]
    return [verdict for name, verdict in found if name in names]


def test_the_contracts_cover_the_whole_package_at_every_depth() -> None:
    contracts = {contract["type"]: contract for contract in _no_circle_contracts()}
    assert set(contracts) == set(ACYCLIC)
    assert contracts["acyclic_siblings"]["ancestors"] == ["agent_as_model"]
    assert contracts["acyclic_modules"]["containers"] == ["agent_as_model"]
    assert "skip_descendants" not in contracts["acyclic_siblings"]
    assert "ignore_imports" not in contracts["acyclic_siblings"]
    packages = [p.parent for p in (ROOT / "agent_as_model").rglob("__init__.py")]
    deepest = max(len(p.relative_to(ROOT / "agent_as_model").parts) for p in packages)
    depth = contracts["acyclic_siblings"]["depth"]
    assert isinstance(depth, int) and depth >= deepest, "the contract must reach the deepest package"
    assert "exclude_type_checking_imports" not in _settings()


def test_a_package_without_a_circle_keeps_both(tmp_path: Path) -> None:
    done = _lint(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from circles import b\n",
            "b.py": "X = 1\n",
            "sub/__init__.py": "from circles.sub import c\n",
            "sub/c.py": "from circles import a\n",
        },
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert _verdicts(done) == ["KEPT", "KEPT"]


def test_a_circle_through_type_checking_and_a_function_breaks_both(tmp_path: Path) -> None:
    done = _lint(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from circles import b\n",
            "b.py": "def late():\n    from circles import a\n\n    return a\n",
        },
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert _verdicts(done) == ["BROKEN", "BROKEN"]
    assert "circles.a -> circles.b (line 4)" in done.stdout
    assert "circles.b -> circles.a (line 2)" in done.stdout


def test_a_circle_between_nested_packages_breaks_both(tmp_path: Path) -> None:
    done = _lint(
        tmp_path,
        {
            "__init__.py": "",
            "outer/__init__.py": "",
            "outer/inner/__init__.py": "",
            "outer/inner/deep/__init__.py": "",
            "outer/inner/deep/one.py": "def f():\n    from circles.outer.inner.deep import two\n",
            "outer/inner/deep/two.py": "from circles.outer.inner.deep import one\n",
        },
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert _verdicts(done) == ["BROKEN", "BROKEN"]


def test_a_circle_through_a_package_init_breaks_the_module_contract(tmp_path: Path) -> None:
    # Not a circle between siblings (acyclic_siblings keeps it): the package's own __init__ and
    # its child import each other.
    done = _lint(
        tmp_path,
        {
            "__init__.py": "",
            "pkg/__init__.py": "NAME = 'pkg'\n\n\ndef child():\n    from circles.pkg import child\n",
            "pkg/child.py": (
                "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from circles.pkg import NAME\n"
            ),
        },
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert _verdicts(done) == ["KEPT", "BROKEN"]
    assert "circles.pkg -> circles.pkg.child (line 5)" in done.stdout


def test_the_module_contract_refuses_to_leave_type_checking_imports_out(tmp_path: Path) -> None:
    done = _lint(tmp_path, {"__init__.py": "", "a.py": "X = 1\n"})
    assert done.returncode == 0, done.stdout + done.stderr
    text = (tmp_path / "pyproject.toml").read_text()
    head, rest = text.split("\n", 1)
    (tmp_path / "pyproject.toml").write_text(f'{head}\nexclude_type_checking_imports = "True"\n{rest}')
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([str(LINT), "--no-cache"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode != 0
    assert "acyclic_modules counts imports under TYPE_CHECKING" in done.stdout + done.stderr


# The modules that import the provider modules by the registry's strings (`importlib.import_module`
# over PROVIDER_MODULES): grimp cannot see those imports, so they are added to its graph here.
def _registry_edges() -> list[tuple[str, str]]:
    from agent_as_model.adapters.provider_names import PROVIDER_MODULES

    package = ROOT / "agent_as_model"
    edges = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text()
        if "PROVIDER_MODULES" in text and "import_module(" in text:
            parts = path.relative_to(ROOT).with_suffix("").parts
            importer = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            edges.extend((importer, module) for module in PROVIDER_MODULES.values())
    return edges


def _circles_with(edges: list[tuple[str, str]]) -> list[list[str]]:
    """The import circles of the package once `edges` are added to grimp's graph (imports under
    TYPE_CHECKING and inside functions counted, as the lint counts them)."""
    import grimp

    graph = grimp.build_graph("agent_as_model", exclude_type_checking_imports=False)
    for importer, imported in edges:
        graph.add_import(importer=importer, imported=imported)
    circles = []
    for importer, imported in edges:
        back = graph.find_shortest_chain(importer=imported, imported=importer)
        if back is not None:
            circles.append([importer, *back])
    return circles


def test_no_circle_counting_the_provider_registrys_import_strings() -> None:
    edges = _registry_edges()
    importers = {importer for importer, _ in edges}
    # Both places that import the registered modules by name are seen.
    assert {
        "agent_as_model.adapters.provider_names",
        "agent_as_model.adapters.backends.provider",
    } <= importers
    assert _circles_with(edges) == []


def test_the_registry_check_finds_a_circle_made_for_it() -> None:
    made = ("agent_as_model.adapters.backends.providers.openai", "agent_as_model.adapters.backends.provider")
    circles = _circles_with([*_registry_edges(), made])
    assert any(circle[0] == "agent_as_model.adapters.backends.provider" for circle in circles), circles
