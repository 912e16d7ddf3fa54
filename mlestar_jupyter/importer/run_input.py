"""What a run reads of a task's input folder: the copy it converts the folder into before any
layout is read, and that copy's layout, for a look at a folder before a run.

A run (``agent.run.prepared_task``) reads a copy of ``input/`` made in its own folder when the
data comes in a form the templates do not read: archives and ARFF, JSON records, tab-separated
``.txt``, ``.npz`` arrays, LIBSVM rows (``readable_input``), numbered parts, a course's
``X_train.csv`` / ``y_train.csv`` / ``X_test.csv`` and one table with a ``split`` column
(``table_parts``), one ``.txt`` file per document (``text_documents``), one CSV file per series
(``series_files``).  :func:`run_input` makes that copy; :func:`inspect_as_run` makes it in a
temporary folder and returns its layout, so a look at the folder (``offline.inspect_task``) says
what the run will see, not "no training table" (hunt of session 32): the user's folder is never
written.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from ..task import Task
from ..task.layout import DataLayout, inspect_task


def run_input(task: Task, folder: Callable[[str], Path]) -> Task:
    """``task`` reading the copy of its input folder a run reads, each conversion's copy made in
    ``folder(name)`` (``readable-input``, ``table-parts``, ``text-tables``, ``series-tables``),
    or ``task`` itself when its folder needs none."""
    from .readable_input import readable_input
    from .series_files import series_as_long_tables
    from .table_parts import parts_as_tables
    from .text_documents import documents_as_tables

    task = readable_input(task, folder("readable-input")) or task
    task = parts_as_tables(task, folder("table-parts")) or task
    task = documents_as_tables(task, folder("text-tables")) or task
    return series_as_long_tables(task, folder("series-tables")) or task


def inspect_as_run(task: Task) -> DataLayout:
    """The layout a run reads for ``task``: ``inspect_task`` of the copy :func:`run_input`
    makes, in a temporary folder removed on return (its file names are the copy's:
    ``train.csv`` for ``X_train.csv`` beside ``y_train.csv``), or of ``task`` itself when its
    folder needs no conversion."""
    with tempfile.TemporaryDirectory(prefix="mlestar-run-input-") as tmp:
        seen = run_input(task, lambda name: Path(tmp) / name)
        return inspect_task(seen)


__all__ = ["inspect_as_run", "run_input"]
