"""Run a rendered notebook's code cells in this process (faster than a kernel for small tests):
in ``workdir``, with ``./input`` linked to the task's input and, for tables, the run's
``./val_index.csv`` as the harness writes it."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.scoring import ValidationScorer, make_split
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task


def scorer(task_root: Path, kfold_rows: int | None = None) -> ValidationScorer:
    """The harness's scorer for the task (its split drawn as a run draws it, seed 0; on a small
    table out-of-fold predictions of every row count too, unless ``kfold_rows`` is 0)."""
    task = load_task(task_root)
    rows = RunConfig().kfold_rows if kfold_rows is None else kfold_rows
    split = make_split(task, inspect_task(task), seed=0, max_rows=30_000, kfold_rows=rows)
    return ValidationScorer(task, split)


def exec_notebook(
    nb: SolutionNotebook, task_root: Path, workdir: Path, harness: ValidationScorer | None = None
) -> tuple[dict[str, Any], str]:
    """Execute ``nb``'s code cells in order; returns the namespace and what they printed."""
    workdir.mkdir(parents=True, exist_ok=True)
    inp = workdir / "input"
    if not inp.exists():
        inp.symlink_to((task_root / "input").resolve(), target_is_directory=True)
    if harness is not None:
        harness.prepare(workdir)
    scope: dict[str, Any] = {"__name__": "__notebook__"}
    out = io.StringIO()
    here = Path.cwd()
    os.chdir(workdir)
    try:
        with contextlib.redirect_stdout(out):
            for cell in nb.nb.cells:
                if cell.cell_type == "code":
                    exec(compile(cell.source, "cell", "exec"), scope)  # noqa: S102 - our own templates
    finally:
        os.chdir(here)
    return scope, out.getvalue()
