"""A notebook with no code cells (a plan written in markdown, hunt session 23) in a folder that
is a task by itself: the run starts from the task's own solutions and says why, instead of
refusing; elsewhere the error still says what to add."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from mlestar_jupyter.api import start_notebook
from mlestar_jupyter.notebook import NoCodeCellsError

ROOT = Path(__file__).parents[1]
BREAST_CANCER = ROOT / "example_notebooks" / "tasks" / "breast-cancer"


def _plan(path: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Plan\n1. read the data\n2. fit a forest")]
    nbformat.write(nb, path)
    return path


def test_a_notebook_of_markdown_in_a_task_folder_leaves_the_run_to_the_task(tmp_path: Path) -> None:
    task = tmp_path / "bc"
    shutil.copytree(BREAST_CANCER, task)
    nb, why = start_notebook(_plan(task / "plan.ipynb"), task)
    assert nb is None and "plan.ipynb has no code cells: the run starts from the task's own" in why


def test_elsewhere_a_notebook_without_code_is_refused_saying_what_to_add(tmp_path: Path) -> None:
    with pytest.raises(NoCodeCellsError, match="add at least one code cell"):
        start_notebook(_plan(tmp_path / "plan.ipynb"), tmp_path)
