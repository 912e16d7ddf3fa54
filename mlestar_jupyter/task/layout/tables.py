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
    """The sample submission's prediction columns (its header, id left out), else the task's targets.

    The sample decides the submission's shape: a task.json may name the label column (``cultivar``)
    while the sample wants one probability column per class (``class_0, class_1, ...``).
    """
    path = task.sample_submission_path
    if path is None or not path.is_file() or path.suffix.lower() not in (".csv", ".tsv"):
        return task.target_cols
    header = [str(c) for c in read_head(path, n=1).columns]
    cols = [c for c in header if c != task.id_col]
    if len(cols) == len(header) and len(header) > 1:  # the id has another name: it comes first
        cols = header[1:]
    return tuple(cols) or task.target_cols


def label_values(path: Path, col: str) -> list[str]:
    """Every distinct value (as text) of one column of a table (CSV, TSV or parquet)."""
    if path.suffix == ".parquet":
        values = pd.read_parquet(path, columns=[col])[col]
    else:
        values = pd.read_csv(path, usecols=[col], sep="\t" if path.suffix == ".tsv" else ",")[col]
    return [str(v) for v in values.dropna().astype(str).unique()]
