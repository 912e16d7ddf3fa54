"""The roles of the files around a training table given in parts, shared by the description
reader and the task-file reader: ``X_train`` / ``y_train`` / ``X_test`` tables
(``features_labels``), or one table with a split column (``split_column``).

The two readers re-roled the files differently (hunt U, session 36): the description reader
made every file but the features' tables ``extra``, a sample submission too, so the task lost
the submission's header ("sample_submission.csv missing ..."); the task-file reader kept it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .features_labels import FeaturesLabels, features_and_labels
from .fields import DataFile, FileRole
from .split_column import SplitTable, split_table


@dataclass(frozen=True)
class TrainingParts:
    """The files with their roles, the columns the training rows hold and the rows to predict
    lack (the labels' table's, the split table's empty ones), and what was read."""

    files: list[DataFile]
    targets: list[str]
    split: FeaturesLabels | None = None
    one_table: SplitTable | None = None

    @property
    def notices(self) -> list[str]:
        """What a reader tells the user it made of the parts."""
        return [part.notice for part in (self.split, self.one_table) if part is not None]


def training_parts(
    input_dir: Path, files: list[DataFile], named: frozenset[str] = frozenset()
) -> TrainingParts:
    """``files`` (of ``input_dir``) re-roled around the training table's parts: the features'
    tables ``train`` and ``test``, the labels' table and the tables found as train/test by
    their names ``extra`` (the run joins them); a sample submission and the other roles kept.
    Else a table with a split column is the training table.  A training table the task file
    ``named`` keeps its role (no parts are looked for)."""
    if any(f.role == "train" and f.path in named for f in files):
        return TrainingParts(files, [])
    split = features_and_labels(input_dir)
    if split is not None:  # X_train.csv, y_train.csv, X_test.csv (the run joins them)
        roles: dict[str, FileRole] = {split.x_train: "train", split.x_test: "test"}
        files = [
            DataFile(f.path, roles.get(f.path, "extra"), f.description)
            if f.role in ("train", "test", "extra")
            else f
            for f in files
        ]
        return TrainingParts(files, list(split.targets), split=split)
    one_table = None if any(f.role == "train" for f in files) else split_table(input_dir)
    if one_table is None:
        return TrainingParts(files, [])
    # data.csv with split = train / test (the run cuts it in two)
    files = [
        DataFile(f.path, "train", f.description) if f.path == one_table.table else f for f in files
    ]
    return TrainingParts(files, list(one_table.targets), one_table=one_table)


__all__ = ["TrainingParts", "training_parts"]
