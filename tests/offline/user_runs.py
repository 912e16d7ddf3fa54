"""Run a user's notebook through the whole search (offline backend, real kernels): the block
that hunt J's run tests repeated (``RunConfig``, ``nbformat`` cells, ``RunJournal``,
``Executor``, ``run_mlestar(..., start_notebook=...)``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nbformat

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.run import run_mlestar
from mlestar_jupyter.execution import Executor
from mlestar_jupyter.journal import RunJournal, read_events
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.task import Task, load_task


def user_notebook(cells: Sequence[str]) -> SolutionNotebook:
    """A notebook of untagged code cells, saved without outputs, as a user hands it in."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    return SolutionNotebook(nb)


def code_notebook(*cells: str) -> SolutionNotebook:
    """:func:`user_notebook` of the cells given one by one."""
    return user_notebook(cells)


def run_user_notebook(
    cells: Sequence[str],
    tmp_path: Path,
    task: Task | Path,
    *,
    inner_steps: int = 2,
    wall_seconds: int = 400,
    exec_timeout: int = 60,
) -> tuple[Any, list[tuple[str, dict[str, Any]]]]:
    """Run the search from the user's notebook of ``cells`` on ``task`` (a loaded task or its
    folder), journalled under ``tmp_path / 'run'``; returns the run's outcome and its events
    as ``(type, data)`` pairs."""
    task = task if isinstance(task, Task) else load_task(task)
    cfg = RunConfig(
        inner_steps=inner_steps,
        outer_steps=1,
        parallel_solutions=1,
        ensemble_rounds=0,
        debug_rounds=1,
        budget=Budget(wall_seconds=wall_seconds, exec_timeout=exec_timeout),
    )
    journal = RunJournal.create(tmp_path / "run", {"task_dir": str(task.root)})
    with Executor(timeout=exec_timeout, max_parallel=1, pool_size=1) as ex:
        out = run_mlestar(
            task,
            cfg,
            journal,
            ex,
            lambda i: OfflinePolicy(task, cfg, seed=i),
            start_notebook=user_notebook(cells),
        )
    journal.close()
    return out, [(e.type, e.data) for e in read_events(journal.events_path)]
