"""Every module that a catalog card's rendered notebook imports can be imported here.

A card whose packages are missing is skipped by the catalog at run time; the cards shipped in the
package must never be: their packages are runtime dependencies, so this test renders every card
for every task it fits and imports what the notebook imports, in the installed environment.
"""

from __future__ import annotations

import ast
import importlib

import pytest

from mlestar_jupyter.agent.policy import ModelCard
from mlestar_jupyter.offline import load_catalog


def _imported_modules(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_every_shipped_card_is_available() -> None:
    missing = {c.name: c.requires for c in load_catalog().cards.values() if not c.available}
    assert not missing, f"shipped cards whose packages are not installed: {missing}"


@pytest.mark.parametrize("card", sorted(load_catalog().cards))
def test_rendered_card_imports_resolve(card: str, policies) -> None:  # type: ignore[no-untyped-def]
    rendered = 0
    for policy in policies.values():
        spec = policy.catalog[card]
        if not spec.fits(policy.task.modality, policy.task.task_type):
            continue
        nb = policy.init_solution(ModelCard(name=card, description="", template=card))
        source = nb.source
        for module in sorted(_imported_modules(source)):
            importlib.import_module(module)  # raises ModuleNotFoundError naming the package
        rendered += 1
    assert rendered, f"card {card} fits none of the test tasks; add a task for it in tasks.py"
