"""A task folder whose training table has rows with no target: the run trains on a copy
without them.

Found by task folders written by other people (hunt 24: "some training rows have not been
labelled yet"): the run refused them and said to ``dropna`` by hand, while a single table
given as a dataset had those rows left out.  :func:`labelled_only` makes the same choice for a
task folder without touching the user's data: a folder in the run's own folder mirrors the
input folder (links to every other entry) and holds the training table without the unlabelled
rows, in the table's own format; cells are copied as text, so ids such as ``007`` and dates keep
their spelling.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import TaskFormatError
from ..model import Task
from .model import DataLayout
from .rewritten_copy import mirror, read_whole, stamped, write_like, write_stamp


def labelled_only(task: Task, layout: DataLayout, folder: Path) -> Task | None:
    """``task`` reading its data from ``folder``, where the training table holds only the rows
    with every target filled in (a notice says how many were left out), or ``None`` when no row
    lacks its target, every row does (the refusal says what to check), the training table is
    also the test table (its unlabelled rows are the ones to predict), or its format cannot be
    written back."""
    labels = [layout.label_col] if layout.label_col else list(layout.target_cols)
    if not layout.train_table or not labels or layout.train_table == layout.test_table:
        return None
    source = task.input_dir / layout.train_table
    target = folder / layout.train_table
    stamp = folder.with_name(f"{folder.name}.json")  # beside the copy: no file of the data
    counts = _counts(stamped(stamp, source, target))  # a resumed run keeps its copy, unread
    if counts is None:
        counts = _copy_labelled(task.input_dir, source, target, folder, layout, labels)
        if counts is None:
            return None
        write_stamp(stamp, source, {"left_out": counts[0], "rows": counts[1]})
    left_out, rows = counts
    named = ", ".join(repr(c) for c in labels)
    note = (
        f"{layout.train_table}: {left_out} of {rows} rows have no {named}: they "
        "are left out of training (nothing to learn from or validate them by); the run reads a "
        f"copy of the table without them ({target}), your file is unchanged"
    )
    return replace(task, input_dir=folder, notices=(*task.notices, note))


def _copy_labelled(
    input_dir: Path,
    source: Path,
    target: Path,
    folder: Path,
    layout: DataLayout,
    labels: list[str],
) -> tuple[int, int] | None:
    """Write the copy of ``input_dir`` at ``folder`` whose training table (``target``) holds
    only ``source``'s labelled rows; how many rows were left out, of how many (``None``: no
    copy is needed or can be made)."""
    frame = read_whole(source)  # (None: the layout's own errors say what is wrong)
    if frame is None or any(c not in frame for c in labels):
        return None
    missing = frame[labels].isna().any(axis=1)
    if not missing.any() or missing.all():
        return None
    try:
        mirror(input_dir, folder, Path(str(layout.train_table)))
        write_like(frame[~missing], source, target)
    except OSError as e:
        raise TaskFormatError(
            folder,
            f"cannot write the copy of {layout.train_table} without its {int(missing.sum())} "
            f"unlabelled rows here ({e}): free space on that disk or pass another --out, or "
            "remove those rows from the table yourself",
        ) from None
    return int(missing.sum()), len(frame)


def _counts(said: dict[str, Any] | None) -> tuple[int, int] | None:
    """How many rows the stamped copy left out, of how many (``None``: no current copy)."""
    try:
        return None if said is None else (int(said["left_out"]), int(said["rows"]))
    except (KeyError, TypeError, ValueError):
        return None


__all__ = ["labelled_only"]
