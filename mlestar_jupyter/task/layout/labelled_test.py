"""A task folder whose test table holds its answers: the run grades the final submission on them
and the search never sees them.

Found by folders written the way teachers and dataset hubs write them: a course's ``train.csv``
and ``test.csv`` that both carry the label ("fit on the first, report the score on the second"),
or a Hugging Face download whose ``test`` split is labelled.  The run used to treat the test
rows as rows to predict and leave their labels in the table the generated code reads: nothing
was graded, and every kernel could read the answers.  :func:`held_out_test_answers` makes the
choice a dataset given as one table gets (``importer.dataset_task``): the run reads a copy of
the input folder whose test table has no target, the answers are written outside that copy,
and the run grades its final submission on them (``agent.heldout``, ``mlestar show``).

A test column that only holds a placeholder (GLUE's ``-1`` for every row, one value never seen
in training) is no answer: the copy drops it all the same, and nothing is graded.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import TaskFormatError
from ..model import Task
from .model import DataLayout
from .rewritten_copy import mirror, read_whole, stamped, write_like, write_stamp

MIN_ROWS = 10  # fewer test rows than this grade nothing worth saying


def held_out_test_answers(
    task: Task, layout: DataLayout, folder: Path, answers: Path
) -> Task | None:
    """``task`` reading its data from ``folder``, a copy of its input folder whose test table
    has no target, graded on the answers written to ``answers`` (a CSV file outside ``folder``);
    ``None`` when the task has answers of its own, its test table has no target column, the
    training table or the sample submission is also the test table, the task is not one of
    tables or texts, or the table's format cannot be written back.  A
    test column of placeholders is dropped from the copy and nothing is graded."""
    labels = [layout.label_col] if layout.label_col else list(layout.target_cols)
    test_table = layout.test_table
    if task.answers_path is not None or not labels or not test_table:
        return None
    if test_table in (layout.train_table, layout.sample_submission):
        return None  # one table for both, or the media's list of test files (their sample)
    if layout.modality not in ("tabular", "text"):
        return None
    source = task.input_dir / test_table
    target = folder / test_table
    stamp = folder.with_name(f"{folder.name}.json")
    said = _said(stamped(stamp, source, target), answers)  # a resumed run keeps its copy
    if said is None:
        said = _copy_without_labels(task, layout, labels, source, target, folder, answers)
        if said is None:
            return None
        write_stamp(stamp, source, {"rows": said[0], "graded": said[1]})
    rows, graded = said
    named = ", ".join(repr(c) for c in labels)
    if not graded:
        note = (
            f"{test_table}: its {named} column holds one placeholder value for every row, no "
            "answers: the run reads a copy of the table without it, and nothing is graded; "
            "your file is unchanged"
        )
        return replace(task, input_dir=folder, notices=(*task.notices, note))
    note = (
        f"{test_table}: every one of its {rows} rows has its {named}: those are held out as "
        "answers the search never sees (the run reads a copy of the table without them, your "
        "file is unchanged), and the final submission is graded on them"
    )
    holdout = {"of": f"the labelled test table {test_table}", "rows": rows}
    return replace(
        task,
        input_dir=folder,
        answers_path=answers,
        extra={**task.extra, "holdout": holdout},
        notices=(*task.notices, note),
    )


def _copy_without_labels(
    task: Task,
    layout: DataLayout,
    labels: list[str],
    source: Path,
    target: Path,
    folder: Path,
    answers: Path,
) -> tuple[int, bool] | None:
    """Write the copy at ``folder`` whose test table (``target``) lacks the ``labels`` columns,
    and the answers; how many test rows there are and whether they were graded (``None``: the
    test table has no such column, or cannot be read or written here)."""
    frame = read_whole(source)  # (None: the layout's own errors say what is wrong)
    if frame is None or any(c not in frame for c in labels) or len(frame) == 0:
        return None
    values = frame[labels]
    if values.isna().all().all():
        return None  # an empty column to fill in: the rows to predict, as written
    if values.isna().any().any():
        return None  # partly labelled: which rows are the answers is not guessed
    graded = len(frame) >= MIN_ROWS and not _placeholders(task, layout, values)
    id_col = layout.test_id_col or layout.id_col
    try:
        mirror(task.input_dir, folder, Path(str(layout.test_table)))
        write_like(frame.drop(columns=labels), source, target)
        if graded:
            answers.parent.mkdir(parents=True, exist_ok=True)
            keep = (
                [id_col] if id_col and id_col in frame and id_col not in labels else []
            ) + labels
            frame[keep].to_csv(answers, index=False)
    except OSError as e:
        raise TaskFormatError(
            folder,
            f"cannot write the copy of {layout.test_table} without its answers here ({e}): "
            "free space on that disk or pass another --out, or remove the "
            f"{', '.join(labels)} column(s) from the test table yourself",
        ) from None
    return len(frame), graded


def _placeholders(task: Task, layout: DataLayout, values: pd.DataFrame) -> bool:
    """Whether the test table's target columns hold a placeholder, not answers: one value in
    every row, which for classes is no class of the training rows (GLUE's ``-1``; only the
    training table's target column is read)."""
    if any(values[c].nunique(dropna=True) > 1 for c in values):
        return False
    if layout.task_type != "classification" or not layout.train_table or not layout.label_col:
        return True
    train = read_whole(task.input_dir / layout.train_table, [layout.label_col])
    if train is None or layout.label_col not in train:
        return True  # (a table without that column: None)
    seen = {str(v) for v in train[layout.label_col].dropna().unique()}
    return str(values[layout.label_col].iloc[0]) not in seen


def _said(said: dict[str, Any] | None, answers: Path) -> tuple[int, bool] | None:
    """The stamped copy's rows and whether it is graded (``None``: no current copy, or its
    answers are gone)."""
    try:
        if said is None:
            return None
        rows, graded = int(said["rows"]), bool(said["graded"])
    except (KeyError, TypeError, ValueError):
        return None
    return None if graded and not answers.is_file() else (rows, graded)


__all__ = ["held_out_test_answers"]
