"""Notebooks and the task folder the no-kernel notebook tests share."""

from __future__ import annotations

import shutil
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


def task_with(tmp_path: Path, files: dict[str, str]) -> Path:
    """A copy of the breast-cancer task whose ``input/`` also holds ``files`` (path → text),
    as a user keeps a ``utils.py`` beside the notebook; the task's folder."""
    root = tmp_path / "breast-cancer"
    shutil.copytree(BREAST_CANCER, root)
    for name, text in files.items():
        (root / "input" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "input" / name).write_text(text, encoding="utf-8")
    return root
