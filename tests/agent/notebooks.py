"""Notebooks and the task folder the no-kernel notebook tests share."""

from __future__ import annotations

from pathlib import Path

import nbformat

from mlestar_jupyter.notebook import SolutionNotebook

ROOT = Path(__file__).parents[2]
BREAST_CANCER = ROOT / "example_notebooks" / "tasks" / "breast-cancer"


def code_notebook(*cells: str) -> SolutionNotebook:
    """A notebook of code cells holding ``cells``, as a user's notebook is read."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    return SolutionNotebook(nb)
