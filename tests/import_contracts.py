"""An import-linter contract the built-in ones leave out: no import circle among modules at all.

`acyclic_siblings` (pyproject.toml) finds circles between the children of each package, each
child taken with everything under it. A circle through a package's own `__init__` is not
between its children, so it slips past: `pkg/__init__.py` importing `pkg.child` (even inside a
function) while `pkg/child.py` imports a name from `pkg`. `acyclic_modules` takes every module
of the packages it names alone, `__init__` included, and fails on any circle among them. The
graph is grimp's, as for every contract: imports under `TYPE_CHECKING` and inside functions are
in it, and this contract refuses to run where they were left out.

`make lint` runs it through `lint-imports` (`contract_types` in pyproject.toml);
tests/test_import_contracts.py shows both contracts failing on circles made for them.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from importlinter import Contract, ContractCheck, fields, output

# How import-linter reads its `exclude_type_checking_imports` option.
_TRUE = ("True", "true")


class AcyclicModulesContract(Contract):
    """Fails when any module of `containers` (a package and every module under it) can reach
    itself again through imports among them."""

    type_name = "acyclic_modules"
    containers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        if str(self.session_options.get("exclude_type_checking_imports")) in _TRUE:
            raise ValueError(
                "acyclic_modules counts imports under TYPE_CHECKING: "
                "remove exclude_type_checking_imports from the import-linter settings"
            )
        circles: dict[frozenset[str], list[str]] = {}
        for container in self.containers:  # type: ignore[attr-defined]
            modules = {container, *graph.find_descendants(container)}
            for importer in sorted(modules):
                for imported in sorted(graph.find_modules_directly_imported_by(importer) & modules):
                    back = graph.find_shortest_chain(importer=imported, imported=importer, as_packages=False)
                    if back is not None:
                        circle = [importer, *back]
                        circles.setdefault(frozenset(circle), circle)
        found = [self._described(graph, circle) for circle in circles.values()]
        return ContractCheck(kept=not found, metadata={"circles": sorted(found)})

    @staticmethod
    def _described(graph: Any, circle: list[str]) -> list[str]:
        """Each hop of a circle as `importer -> imported (lines N, M)`."""
        hops = []
        for importer, imported in pairwise(circle):
            lines = sorted(
                d["line_number"] for d in graph.get_import_details(importer=importer, imported=imported)
            )
            where = ", ".join(map(str, lines))
            hops.append(f"{importer} -> {imported} (line{'s' if len(lines) > 1 else ''} {where})")
        return hops

    def render_broken_contract(self, check: ContractCheck) -> None:
        for hops in check.metadata["circles"]:
            output.print_error("An import circle:")
            for hop in hops:
                output.print_error(f"- {hop}", bold=False)
            output.new_line()
