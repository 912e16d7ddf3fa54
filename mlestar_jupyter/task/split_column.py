"""One table holding the training rows and the rows to predict, told apart by a column
(``split`` = ``train`` / ``test``), as some datasets and course notebooks keep them.

Found by task folders of other authors (hunt O): ``data.csv`` with a ``split`` column and the
target left empty in the test rows, beside a README, was refused: "no training data found: add
train.csv".  :func:`split_table` finds such a table, its split column and the target (the
columns every training row fills and no test row does); :func:`split_frames` cuts it into the
training table and the rows to predict (the run writes them as ``train.csv`` and ``test.csv``:
``importer.table_parts``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .text_format import TEXT_TABLE_EXT, read_args

SPLIT_COLUMNS = ("split", "set", "subset", "dataset", "partition", "sample", "fold", "data_split")
TRAIN_VALUES = ("train", "training", "trn", "learn")
TEST_VALUES = ("test", "testing", "tst", "holdout", "predict", "submission")
MAX_BYTES = 512 * 2**20  # a bigger table is not read whole to look for a split column


@dataclass(frozen=True)
class SplitTable:
    """The table (its name in the input folder), its split column and that column's two values,
    and the target columns (filled in the training rows, empty in every test row)."""

    table: str
    column: str
    train_value: str
    test_value: str
    targets: tuple[str, ...]

    @property
    def notice(self) -> str:
        """What a reader tells the user it made of the table."""
        return (
            f"{self.table} holds the training rows ({self.column} = {self.train_value!r}) and "
            f"the rows to predict ({self.column} = {self.test_value!r}, "
            f"{', '.join(self.targets)} empty): the run reads them as train.csv and test.csv"
        )


def split_table(input_dir: Path) -> SplitTable | None:
    """The one text table of ``input_dir`` when a column of it (named as a split: ``split``,
    ``set``, ...) holds only a training and a test value and some columns are empty in every
    test row; else ``None``."""
    if not input_dir.is_dir():
        return None
    tables = [
        p
        for p in sorted(input_dir.iterdir())
        if p.is_file() and p.name.lower().endswith(TEXT_TABLE_EXT) and not p.name.startswith(".")
    ]
    if len(tables) != 1 or tables[0].stat().st_size > MAX_BYTES:
        return None
    path = tables[0]
    try:
        args = read_args(path)
        head = pd.read_csv(path, nrows=0, **args)  # type: ignore[call-overload]
        if not any(str(c).strip().lower() in SPLIT_COLUMNS for c in head.columns):
            return None
        frame = pd.read_csv(path, **args)  # type: ignore[call-overload]
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    for column in frame.columns:
        if str(column).strip().lower() not in SPLIT_COLUMNS:
            continue
        values = frame[column].astype(str).str.strip()
        kinds = {v.lower() for v in values.unique()}
        train = [v for v in values.unique() if v.lower() in TRAIN_VALUES]
        test = [v for v in values.unique() if v.lower() in TEST_VALUES]
        if len(kinds) != 2 or len(train) != 1 or len(test) != 1:
            continue
        rows = frame[values == test[0]]
        fitted = frame[values == train[0]]
        targets = tuple(
            str(c)
            for c in frame.columns
            if c != column and rows[c].isna().all() and fitted[c].notna().any()
        )
        if targets:
            return SplitTable(path.name, str(column), train[0], test[0], targets)
    return None


def split_frames(input_dir: Path, split: SplitTable) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The training rows and the rows to predict of the table, without the split column (and
    the rows to predict without the empty target columns), in the table's order."""
    path = input_dir / split.table
    frame = pd.read_csv(path, **read_args(path))  # type: ignore[call-overload]
    values = frame[split.column].astype(str).str.strip()
    train = frame[values == split.train_value].drop(columns=[split.column])
    test = frame[values == split.test_value].drop(columns=[split.column, *split.targets])
    for target in split.targets:  # classes read as 1.0, 2.0 (the test rows' blanks): 1, 2
        column = train[target]
        if pd.api.types.is_float_dtype(column) and column.notna().all():
            if (column == column.round()).all():
                train[target] = column.astype("int64")
    return train.reset_index(drop=True), test.reset_index(drop=True)


__all__ = ["SplitTable", "split_frames", "split_table"]
