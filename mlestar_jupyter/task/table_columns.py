"""The columns of a task's tables, whatever their format: a table's header, its first column
when that is a key, the columns only the training table has.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .errors import LayoutError
from .fields import DataFile
from .infer import table_header
from .other_tables import (
    arff_attributes,
    is_delimited_text_table,
    is_svmlight,
    records_frame,
    text_table_frame,
)
from .text_format import TEXT_TABLE_EXT, read_args


def first_column_if_key(path: Path, header: list[str]) -> str | None:
    """The table's first column when its values are distinct whole numbers or words (a key,
    ``patient``; not sentences, as a text task's first column), else ``None``."""
    if not header:
        return None
    try:
        if path.name.lower().endswith(TEXT_TABLE_EXT):
            values = pd.read_csv(path, usecols=[0], **read_args(path)).iloc[:, 0]
        elif is_delimited_text_table(path):  # test.txt separated by tabs or spaces
            values = text_table_frame(path).iloc[:, 0]
        else:  # a workbook, parquet, feather or JSON-lines table
            from .layout.tables import read_table

            values = read_table(path, columns=[header[0]]).iloc[:, 0]
    except (LayoutError, OSError, ValueError, ImportError):
        return None
    whole = pd.api.types.is_integer_dtype(values) or (
        not pd.api.types.is_numeric_dtype(values)
        # codes, not sentences: a column of review texts is unique too, and no key
        and values.astype(str).str.contains(r"\s").mean() <= 0.1
    )
    return header[0] if whole and values.notna().all() and values.is_unique else None


def columns_only_training_has(input_dir: Path, files: list[DataFile]) -> list[str]:
    """The columns of the one training table that the one test table lacks (a table of labels
    beside a table of the files to predict: ``filename,digit`` and ``filename``; or a
    ``train.xlsx`` / ``train.parquet`` / ``train.jsonl`` / ``train.json`` beside its test table);
    empty unless both are tables."""
    from .layout.model import TABLE_EXT  # (the layout package imports the task model)

    train = [f.path for f in files if f.role == "train"]
    test = [f.path for f in files if f.role == "test"]
    if len(train) != 1 or len(test) != 1:
        return []
    paths = tuple(_first_shard(input_dir / p) for p in (train[0], test[0]))
    if all(is_svmlight(p) for p in paths):  # LIBSVM rows: a label, then the features
        return ["label"]
    if not all(
        p.is_file()
        and (p.name.lower().endswith((*TABLE_EXT, ".json", ".arff")) or is_delimited_text_table(p))
        for p in paths
    ):
        return []
    seen, ahead = table_columns(paths[0]), table_columns(paths[1])
    if not ahead:
        return []
    lacked = [c for c in seen if c not in ahead]
    return lacked or _columns_left_empty(paths[1], [c for c in seen if c in ahead])


def _columns_left_empty(test: Path, shared: list[str]) -> list[str]:
    """The columns of ``shared`` (those the training table has too) that the test table holds
    with no value in any row: a test table written with the target column kept and emptied
    (``Sale Price`` blank), which is the target as much as a column the test table lacks (hunt
    O: such a folder with a README and no sample was refused, "names no 'Target:' line")."""
    from .layout.tables import read_table

    if not shared:
        return []
    try:
        frame = read_table(test, columns=shared)
    except (LayoutError, OSError, ValueError, ImportError):
        return []
    if len(frame) == 0:
        return []
    return [str(c) for c in frame.columns if frame[c].isna().all()]


def _first_shard(path: Path) -> Path:
    """``path``, or the first part of the table it is a folder of (``train/part-00000.csv``, as
    Spark writes one: a README beside such folders named no target, "sample_submission.csv
    missing and the description names no 'Target: <column>' line")."""
    from .layout.tables import shard_files  # (the layout package imports the task model)

    return next(iter(shard_files(path)), path) if path.is_dir() else path


def table_columns(path: Path) -> list[str]:
    """The column names of a table: a text table's header row, else the columns of the first
    rows of a workbook, parquet, feather or JSON-lines file, or the keys of a JSON list of
    records (none when it cannot be read)."""
    if path.name.lower().endswith(TEXT_TABLE_EXT):
        return table_header(path)
    if is_svmlight(path):  # LIBSVM rows name no columns (no line of them is an id)
        return []
    from .layout.tables import read_table

    try:
        if path.name.lower().endswith(".arff"):  # OpenML's tables, written as CSV for the run
            return [n for n, _ in arff_attributes(path) or []]
        if path.name.lower().endswith(".json"):  # records, written as CSV for the run
            return [str(c) for c in records_frame(path).columns]
        if is_delimited_text_table(path):  # train.txt separated by tabs: likewise
            return [str(c) for c in text_table_frame(path, nrows=5).columns]
        return [str(c) for c in read_table(path, nrows=5).columns]
    except (LayoutError, OSError, ValueError, ImportError):
        return []


__all__ = ["columns_only_training_has", "first_column_if_key", "table_columns"]
