"""Reading a task's tables: the first rows of a file, which file is the train or test table,
the sample submission's columns, a column's distinct values."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import LayoutError
from ..model import Task
from .model import TABLE_EXT


def read_head(path: Path, n: int = 500) -> pd.DataFrame:
    """The first ``n`` rows of a CSV, TSV or parquet file (a ``LayoutError`` when unreadable)."""
    if path.suffix == ".parquet":
        return pd.read_parquet(path).head(n)
    sep = "\t" if path.suffix == ".tsv" else ","
    try:
        return pd.read_csv(path, nrows=n, sep=sep)
    except (OSError, ValueError) as e:
        raise LayoutError(
            f"{path}: cannot be read as a table ({e}); fix the file or remove it from input/"
        ) from None


def table_for(task: Task, role: str) -> str | None:
    """The task's table for ``role`` ("train" or "test"): a file of that role, else ``role*.csv``."""
    files = [f.path for f in task.files if f.role == role and f.path.lower().endswith(TABLE_EXT)]
    if files:
        return files[0]
    for p in sorted(task.input_dir.glob(f"{role}*")):
        if p.is_file() and p.suffix.lower() in TABLE_EXT:
            return p.name
    return None


def submission_columns(task: Task) -> tuple[str, ...]:
    """The sample submission's prediction columns (its header, id left out), else the task's targets
    (without a sample, one probability column per class for a probability metric of more than two
    classes: ``class_probability_columns``).

    The sample decides the submission's shape: a task.json may name the label column (``cultivar``)
    while the sample wants one probability column per class (``class_0, class_1, ...``).
    """
    path = task.sample_submission_path
    if path is None:
        return class_probability_columns(task) or task.target_cols
    if not path.is_file() or path.suffix.lower() not in (".csv", ".tsv"):
        return task.target_cols
    header = [str(c) for c in read_head(path, n=1).columns]
    cols = [c for c in header if c != task.id_col]
    if len(cols) == len(header) and len(header) > 1:  # the id has another name: it comes first
        cols = header[1:]
    return tuple(cols) or task.target_cols


def class_probability_columns(task: Task) -> tuple[str, ...] | None:
    """The classes, as the submission's columns, of a task without a sample submission whose
    metric grades probabilities of more than two classes (log loss of three wine cultivars): one
    column per class, as Kaggle asks, since one column cannot hold them.  ``None`` otherwise
    (two classes: one column, the second class's probability)."""
    from ...metrics import UnknownMetricError, get_metric

    if task.sample_submission is not None or task.task_type != "classification":
        return None
    try:
        if get_metric(task.metric_name).kind != "probability" or len(task.target_cols) != 1:
            return None
    except UnknownMetricError:
        return None
    train = table_for(task, "train")
    try:
        labels = label_values(task.input_dir / train, task.target) if train else []
    except (OSError, ValueError, KeyError):
        return None
    if len(labels) <= 2:
        return None
    numeric = all(_is_number(v) for v in labels)
    return tuple(sorted(labels, key=lambda v: (float(v) if numeric else 0.0, v)))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def label_values(path: Path, col: str) -> list[str]:
    """Every distinct value (as text) of one column of a table (CSV, TSV or parquet)."""
    if path.suffix == ".parquet":
        values = pd.read_parquet(path, columns=[col])[col]
    else:
        values = pd.read_csv(path, usecols=[col], sep="\t" if path.suffix == ".tsv" else ",")[col]
    return [str(v) for v in values.dropna().astype(str).unique()]
