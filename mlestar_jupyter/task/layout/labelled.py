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

import json
import os
from dataclasses import replace
from pathlib import Path

import pandas as pd

from ..errors import TaskFormatError
from ..model import Task
from ..text_format import TEXT_TABLE_EXT, read_args
from .links import link_entries
from .model import EXCEL_TABLE_EXT, JSON_LINES_EXT, DataLayout
from .tables import read_table, shard_files


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
    counts = _current(source, target, stamp)  # a resumed run keeps its copy, unread
    if counts is None:
        counts = _copy_labelled(task.input_dir, source, target, folder, layout, labels)
        if counts is None:
            return None
        _write_stamp(stamp, source, counts)
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
    try:
        frame = _read(source)
    except (OSError, ValueError, KeyError, ImportError):
        return None  # the layout's own errors say what is wrong
    if frame is None or any(c not in frame for c in labels):
        return None
    missing = frame[labels].isna().any(axis=1)
    if not missing.any() or missing.all():
        return None
    try:
        _mirror(input_dir, folder, Path(str(layout.train_table)))
        _write(frame[~missing], source, target)
    except OSError as e:
        raise TaskFormatError(
            folder,
            f"cannot write the copy of {layout.train_table} without its {int(missing.sum())} "
            f"unlabelled rows here ({e}): free space on that disk or pass another --out, or "
            "remove those rows from the table yourself",
        ) from None
    return int(missing.sum()), len(frame)


def _read(path: Path) -> pd.DataFrame | None:
    """The whole table, text tables with every cell as text (``None``: a format not handled)."""
    name = path.name.lower()
    if path.is_dir():
        return read_table(path, as_text=True) if shard_files(path) else None
    if name.endswith((*TEXT_TABLE_EXT, ".txt")):
        return read_table(path, as_text=True)
    if name.endswith((".parquet", ".feather", *JSON_LINES_EXT, *EXCEL_TABLE_EXT)):
        return read_table(path)
    return None


def _write(frame: pd.DataFrame, source: Path, target: Path) -> None:
    """``frame`` written to ``target`` as ``source`` is written (a folder of parts becomes one
    part), through a temporary file."""
    name = source.name.lower()
    if source.is_dir():
        if target.is_symlink() or target.is_file():
            target.unlink()
        target.mkdir(parents=True, exist_ok=True)
        target = target / "part-00000.csv"
        name = target.name
    tmp = target.with_name(f".{target.name}.tmp{''.join(target.suffixes)}")
    if name.endswith(".parquet"):
        frame.to_parquet(tmp, index=False)
    elif name.endswith(".feather"):
        frame.reset_index(drop=True).to_feather(tmp)
    elif name.endswith(JSON_LINES_EXT):
        frame.to_json(tmp, orient="records", lines=True, force_ascii=False)
    elif name.endswith(EXCEL_TABLE_EXT):
        frame.to_excel(tmp, index=False)
    else:
        sep = "," if source.is_dir() else read_args(source).get("sep", ",")
        frame.to_csv(tmp, index=False, sep=sep)
    if target.is_symlink():
        target.unlink()
    os.replace(tmp, target)


def _mirror(source: Path, folder: Path, keep: Path) -> None:
    """``folder`` made to hold a link to every entry of ``source`` but the table at ``keep``
    (relative), whose parent folders are made as real folders mirrored the same way."""
    head, rest = keep.parts[0], keep.parts[1:]
    link_entries(source, folder, leave_out={head})
    if rest:
        sub = folder / head
        if sub.is_symlink():
            sub.unlink()
        _mirror(source / head, sub, Path(*rest))


def _signature(source: Path) -> dict[str, int]:
    """The source table's size and modification time (a folder of parts: its newest part)."""
    parts = shard_files(source) if source.is_dir() else [source]
    stats = [p.stat() for p in parts]
    return {"size": sum(s.st_size for s in stats), "mtime_ns": max(s.st_mtime_ns for s in stats)}


def _write_stamp(stamp: Path, source: Path, counts: tuple[int, int]) -> None:
    """Record which ``source`` the copy was written from and how many rows it left out."""
    left_out, rows = counts
    body = {**_signature(source), "left_out": left_out, "rows": rows}
    try:
        stamp.write_text(json.dumps(body))
    except OSError:
        pass  # without it a resumed run writes the copy again


def _current(source: Path, target: Path, stamp: Path) -> tuple[int, int] | None:
    """How many rows the copy at ``target`` left out, of how many, when it was written from
    ``source`` as it is now (``stamp`` says which); ``None`` otherwise.  A resumed run keeps
    that copy, so the data its kernels read does not change under it."""
    try:
        said = json.loads(stamp.read_text())
        if not target.exists() or {k: said.get(k) for k in ("size", "mtime_ns")} != _signature(
            source
        ):
            return None
        return int(said["left_out"]), int(said["rows"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


__all__ = ["labelled_only"]
