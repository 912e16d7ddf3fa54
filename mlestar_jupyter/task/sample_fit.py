"""A file named as a sample submission that is no sample of this task: an old ``submission.csv``
(of another task, or written under another header) lying beside the tables.

Found by task folders of other authors (hunt of session 32): ``submission.csv`` with
``PassengerId,Survived`` beside wine tables and a README saying "Target: quality" was taken as
the sample submission, and the task's target became ``Survived``.  :func:`set_aside_unfit_sample`
leaves a sample found by its name (``infer.complete_files``) an extra file when its columns fit
neither the test table's id nor the target (a column of the training table, or one the
description or task.json names), with a notice saying so; one with as many rows as the test
table is kept (one column per class of anonymous test rows fits no column by name).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .errors import TaskFormatError
from .fields import DataFile
from .infer import submission_columns, table_header
from .text_format import TEXT_TABLE_EXT


def set_aside_unfit_sample(
    input_dir: Path, files: list[DataFile], targets: Sequence[str] = ()
) -> tuple[list[DataFile], str]:
    """``files`` with their sample submission made an extra file when it fits neither the id
    nor the target(s) ``targets`` (else the training table's columns), and the notice saying
    so; ``files`` and ``""`` when it fits, or there is no sample, training or test text table."""
    roles = {f.role: f.path for f in reversed(files)}
    sample, train, test = (roles.get(r) for r in ("sample_submission", "train", "test"))
    if not sample or not train or not test:
        return files, ""
    paths = [input_dir / p for p in (sample, train, test)]
    if not all(p.is_file() and p.name.lower().endswith(TEXT_TABLE_EXT) for p in paths):
        return files, ""
    try:
        id_col, sample_targets = submission_columns(paths[0])
        train_cols, test_cols = table_header(paths[1]), table_header(paths[2])
    except (TaskFormatError, OSError, ValueError):
        return files, ""
    known = {c.lower() for c in (*targets, *train_cols)}
    if (id_col and id_col.lower() in {c.lower() for c in test_cols}) or any(
        c.lower() in known for c in sample_targets
    ):
        return files, ""
    if _rows(paths[0]) == _rows(paths[2]):
        return files, ""
    header = ",".join([*([id_col] if id_col else []), *sample_targets])
    said = (
        f"{sample} ('{header}') is not read as the sample submission: its columns are neither "
        f"{test}'s id nor the target ({', '.join(targets) if targets else 'a column of ' + train})"
        f"; it is left an extra file (name the sample in task.json, or rename it, if it is one)"
    )
    return [DataFile(f.path, "extra") if f.path == sample else f for f in files], said


def _rows(path: Path) -> int:
    """The lines of a text table (gzipped ones count as unknown, -1)."""
    if path.name.lower().endswith(".gz"):
        return -1
    try:
        with path.open("rb") as fh:
            return sum(1 for _ in fh)
    except OSError:
        return -1


__all__ = ["set_aside_unfit_sample"]
