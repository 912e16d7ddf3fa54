"""A series task kept as one CSV file per series (``series/<series_id>.csv`` of ``t,value``
rows) beside a table of labels and a table of the ids to predict: the run reads a copy of its
input folder with the series gathered into ``train_series.csv`` / ``test_series.csv``, held long
(the id on every row of its series), which the series layout reads.

Found by task folders written by other people (hunt I, ``s1_csv_per_series``): the run trained
a tabular model on the ids alone (a constant submission, accuracy 0.49 for 0.51 by the majority
class).  :func:`series_as_long_tables` writes the two tables in a folder of the run's own,
beside links to every entry of ``input/``; the user's files are unchanged."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from ..task import Task
from ..task.fields import DataFile
from ..task.text_format import read_args
from .linked_copy import linked_copy

SERIES_TABLES = ("train_series.csv", "test_series.csv")


def series_as_long_tables(task: Task, folder: Path) -> Task | None:
    """``task`` reading ``train_series.csv`` / ``test_series.csv`` written in ``folder`` from its
    folder of one CSV per series, or ``None`` when it has no such folder (its files named by the
    ids of the training table and of the test table), or the two tables exist already."""
    inp, id_col = task.input_dir, task.id_col
    train = next((f.path for f in task.files if f.role == "train"), None)
    test = next((f.path for f in task.files if f.role == "test"), None)
    if not id_col or not train or not test or any((inp / n).exists() for n in SERIES_TABLES):
        return None
    train_ids, test_ids = _ids(inp / train, id_col), _ids(inp / test, id_col)
    if not train_ids or not test_ids:
        return None
    found = _series_folder(inp, [*train_ids, *test_ids])
    if found is None:
        return None
    name, files = found
    tables = zip(SERIES_TABLES, (train_ids, test_ids), strict=True)
    linked_copy(inp, folder, {table: _long(files, ids, id_col) for table, ids in tables})
    kept = [f for f in task.files if f.path != name]
    note = (
        f"{name}/ holds one CSV file per series ({len(train_ids)} to learn from, {len(test_ids)} "
        f"to predict): the run reads them gathered into {' and '.join(SERIES_TABLES)} (one row "
        f"per step, {id_col!r} on each; in {folder}); your files are unchanged"
    )
    return replace(
        task,
        input_dir=folder,
        files=(*kept, *(DataFile(t, "extra") for t in SERIES_TABLES)),
        modality="time_series",
        notices=(*task.notices, note),
    )


def _ids(path: Path, id_col: str) -> list[str]:
    """The ids a CSV table lists in ``id_col`` (empty: not a CSV, or no such column)."""
    if path.suffix.lower() not in (".csv", ".tsv") or not path.is_file():
        return []
    try:
        table = pd.read_csv(path, dtype=str, **read_args(path))
    except (OSError, ValueError):
        return []
    return list(table[id_col].dropna()) if id_col in table.columns else []


def _series_folder(inp: Path, ids: list[str]) -> tuple[str, dict[str, Path]] | None:
    """The folder of ``inp`` holding a CSV file named by each id (``<id>.csv``), and the files
    by id; ``None`` when no folder has them all."""
    for d in sorted(p for p in inp.iterdir() if p.is_dir() and not p.name.startswith(".")):
        files = {p.stem: p for p in d.glob("*.csv")}
        if files and all(i in files for i in ids):
            return d.name, {i: files[i] for i in ids}
    return None


def _long(files: dict[str, Path], ids: list[str], id_col: str) -> pd.DataFrame:
    """The series of ``ids``, one after another, each row with its series' id first."""
    parts = []
    for i in ids:
        part = pd.read_csv(files[i], **read_args(files[i]))
        part.insert(0, id_col, i)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


__all__ = ["SERIES_TABLES", "series_as_long_tables"]
