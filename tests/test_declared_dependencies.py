"""Issue 49 item 6: a package the server imports is declared in pyproject.toml, not left to arrive
with another. Every top-level import of the package is mapped to the distribution that provides
it; each must be a dependency or an extra of ours, or one of the few below that come versioned
with a package we declare."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Imported directly, and released with (and pinned or bounded by) a package that is declared:
# declaring them again would only restate that package's own requirement.
WITH_THEIR_OWNER = {
    "mcp-types": "mcp (pinned to its own release)",
    "pydantic": "mcp (its models are pydantic's)",
    "referencing": "jsonschema (its reference resolution)",
    "jsonschema-specifications": "jsonschema (its meta-schemas)",
}


def declared() -> set[str]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    project: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = [*project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        requirements += extra
    return {_normal(re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0]) for requirement in requirements}


def imported() -> set[str]:
    """The top-level modules that the package imports from outside the standard library; within a
    namespace package that several distributions share (`opentelemetry`), the module imported
    (`opentelemetry.sdk.trace`), since the namespace alone names none of them."""
    found: set[str] = set()
    for path in (ROOT / "agent_as_model").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found.update(_named(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(_named(node.module))
                if node.module in NAMESPACES:  # `from opentelemetry import trace`
                    found.update(f"{node.module}.{alias.name}" for alias in node.names)
                    found.discard(node.module)
    return {
        name
        for name in found
        if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] != "agent_as_model"
    }


# Namespace packages several distributions install into: a module's own distribution is found by
# the file it is (`owner`).
NAMESPACES = frozenset({"opentelemetry"})


def _named(module: str) -> str:
    return module if module.split(".")[0] in NAMESPACES else module.split(".")[0]


def owner(module: str) -> list[str]:
    """The distribution whose files hold `module` (a module of a namespace package)."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, f"{module} is not installed"
    where = Path(spec.origin).resolve()
    for distribution in importlib.metadata.distributions():
        for file in distribution.files or ():
            if Path(str(distribution.locate_file(file))).resolve() == where:
                return [distribution.metadata["Name"]]
    raise AssertionError(f"no installed distribution holds {module}")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_imported_package_is_declared() -> None:
    providers = importlib.metadata.packages_distributions()
    missing = {}
    for module in sorted(imported()):
        found = owner(module) if "." in module else providers.get(module, [module])
        for distribution in found:
            name = _normal(distribution)
            if name not in declared() and name not in WITH_THEIR_OWNER:
                missing[module] = name
    assert missing == {}


def test_the_transport_packages_are_declared() -> None:
    assert {"h11", "starlette", "pydantic-core"} <= declared()
