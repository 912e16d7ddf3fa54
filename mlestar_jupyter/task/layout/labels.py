"""Which column holds the label, and the submission's shape: one value per row, one probability
column per class, or several targets."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import LayoutError
from ..model import Task
from .model import SubmissionKind
from .tables import label_values


def class_columns(columns: Sequence[str], labels: Iterable[str]) -> tuple[str, ...] | None:
    """The class each of ``columns`` stands for, when they are one column per class, else ``None``.

    A column matches a class by its name (``cat``), ignoring case, or after a prefix shared by
    every column (``class_0`` for class ``0``, ``Class_cat``, ``proba_cat``).  Every training label
    must have its column; a column whose class never occurs in training keeps its own name.
    """
    labels = [str(v) for v in labels]
    if len(columns) < 2 or not labels:
        return None
    by_lower = {v.lower(): v for v in labels}
    shared = os.path.commonprefix([c.lower() for c in columns])
    cut = max((i + 1 for i, ch in enumerate(shared) if not ch.isalnum()), default=0)
    for strip in sorted({0, cut}):
        names = [c[strip:] for c in columns]
        found = [by_lower.get(n.lower()) for n in names]
        hit = {f for f in found if f is not None}
        if len(hit) == len(found) - found.count(None) and set(by_lower.values()) <= hit:
            return tuple(f if f is not None else n for f, n in zip(found, names, strict=True))
    return None


def proba_kind(task_type: str, sub_cols: Sequence[str], labels: Iterable[str]) -> dict[str, Any]:
    """``submission_kind`` / ``class_names`` for a classification task whose sample wants class columns."""
    classes = class_columns(sub_cols, labels) if task_type == "classification" else None
    return {"submission_kind": "proba_columns", "class_names": classes} if classes else {}


def label_column(
    task: Task,
    head: pd.DataFrame,
    test_head: pd.DataFrame,
    sub_cols: tuple[str, ...],
    train_path: Path,
) -> tuple[str | None, SubmissionKind, tuple[str, ...]]:
    """(label column, submission kind, class names) of a table task."""
    targets = list(sub_cols)
    if len(targets) > 1 and all(t in head.columns for t in targets):
        return None, "multi_target", ()
    only_train = [c for c in head.columns if c not in test_head.columns and c != task.id_col]
    named = [c for c in (*task.target_cols, *targets) if c in head.columns]
    if len(targets) > 1 and task.task_type == "classification":
        # One probability column per class: find the column holding the class names.
        for c in dict.fromkeys(named + only_train):
            classes = class_columns(targets, label_values(train_path, c))
            if classes:
                return c, "proba_columns", classes
    if named:
        return named[0], "single", ()
    if task.target_cols and task.sample_submission is None:  # named by task.json alone
        raise LayoutError(
            f"{train_path}: has no column {', '.join(repr(c) for c in task.target_cols)}, the "
            "target task.json names (columns: "
            f"{', '.join(str(c) for c in head.columns[:12])}); set 'target_col' to the column "
            "that holds the labels"
            + (
                f" (the one only the training table has is {only_train[0]!r})"
                if len(only_train) == 1
                else ""
            )
        )
    if len(only_train) == 1:
        return only_train[0], "single", ()
    raise LayoutError(
        f"cannot tell which training column holds the target {targets}: set 'target_col' in task.json "
        f"(training-only columns: {only_train})"
    )
