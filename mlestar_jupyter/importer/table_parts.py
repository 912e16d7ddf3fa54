"""A training (or test) table saved in numbered parts beside each other: the run reads a copy of
its input folder with each set of parts gathered into one CSV table.

Found by task folders written by other people (session 31): ``train_1.csv``, ``train_2.csv``,
``train_3.csv`` beside ``test.csv`` (a table too big for one upload, or one per month), and
Hugging Face's ``train-00000-of-00002.parquet``.  The run read the first part alone (a third of
the rows) and said of the others "not read: it holds the target (the answers: a model would copy
them)".  :func:`parts_as_tables` writes ``train.csv`` (``test.csv``) of every part, in the parts'
numeric order (``train_2`` before ``train_10``), in a folder of the run's own beside links to
the other entries of ``input/``; the user's files are unchanged.  Parts whose columns differ are
left alone (they are no parts of one table).  A folder of parts (``train/part-00000.csv``, as
Spark writes one) is read by the layout itself (``task.layout.tables.shard_files``).

A labelled validation split beside the training table (a Hugging Face download's
``validation-00000-of-00001.parquet``; ``valid.csv``, ``dev.csv``), of the training table's
columns, is gathered into ``train.csv`` too: the search draws its own validation rows, and the
split was otherwise left out as "holding the target"."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pandas as pd

from ..task import Task
from ..task.errors import LayoutError
from ..task.features_labels import features_and_labels, test_table, training_table
from ..task.fields import DataFile, FileRole
from ..task.layout.model import TABLE_EXT
from ..task.layout.tables import read_table
from ..task.split_column import split_frames, split_table
from .linked_copy import linked_copy

ROLES = ("train", "test")
# ``train_1.csv``, ``train-2.csv``, ``train.3.csv``, ``train_part1.csv``, ``train 4.csv``,
# ``test-00000-of-00002.parquet``: the role, a separator, the part's number
_PART = re.compile(
    r"^(?P<role>train|training|test|testing)(?:[_\-. ]?(?:part|chunk|shard)?[_\-. ]?)"
    r"(?P<number>\d+)(?:-of-\d+)?(?P<ext>\.[a-z0-9.]+)$",
    re.IGNORECASE,
)
# a validation split: ``validation.csv``, ``valid.parquet``, ``dev.csv``, numbered as above
_VALIDATION = re.compile(
    r"^(?:validation|valid|val|dev)(?:[_\-. ]?(?:part|chunk|shard)?[_\-. ]?(?P<number>\d+)"
    r"(?:-of-\d+)?)?(?P<ext>\.[a-z0-9.]+)$",
    re.IGNORECASE,
)


def numbered_parts(input_dir: Path) -> dict[FileRole, list[Path]]:
    """The parts of the training and of the test table directly in ``input_dir``, by role, in
    their numbers' order: two or more files named as one role's numbered parts, with the same
    columns, where no table is named as the role alone (``train.csv``); the training table's
    parts (or the table itself) then a validation split of its columns, when there is one."""
    if not input_dir.is_dir():
        return {}
    found: dict[FileRole, list[tuple[int, Path]]] = {}
    whole: dict[str, Path] = {}
    validation: list[tuple[int, Path]] = []
    for p in sorted(input_dir.iterdir()):
        name = p.name.lower()
        if not p.is_file() or not name.endswith(TABLE_EXT):
            continue
        v = _VALIDATION.match(p.name)
        if v is not None:
            validation.append((int(v["number"] or 0), p))
            continue
        m = _PART.match(p.name)
        if m is None:
            stem = name.split(".", 1)[0]
            whole.update({r: p for r in ROLES if stem in (r, f"{r}ing")})
            continue
        role: FileRole = "train" if m["role"].lower().startswith("train") else "test"
        found.setdefault(role, []).append((int(m["number"]), p))
    parts = {
        role: [p for _, p in sorted(numbered)]
        for role, numbered in found.items()
        if role not in whole and len(numbered) >= (1 if role == "train" and validation else 2)
    }
    parts = {role: files for role, files in parts.items() if _same_columns(files)}
    train = parts.get("train") or ([whole["train"]] if "train" in whole else [])
    held = [p for _, p in sorted(validation)]
    if train and held and _same_columns([train[0], *held]):
        parts["train"] = [*train, *held]
    elif len(parts.get("train", [])) < 2:
        parts.pop("train", None)
    return parts


def parts_as_tables(task: Task, folder: Path) -> Task | None:
    """``task`` reading ``train.csv`` / ``test.csv`` written in ``folder`` from its tables'
    numbered parts, or ``None`` when its input holds no such parts."""
    inp = task.input_dir
    parts = numbered_parts(inp)
    if not parts:
        return _features_beside_labels(task, folder) or _split_by_column(task, folder)
    tables = {f"{role}.csv": _gathered(files) for role, files in parts.items()}
    gathered = {p.name for files in parts.values() for p in files}
    linked_copy(inp, folder, tables, leave_out=gathered)
    kept = [f for f in task.files if f.path not in gathered]
    made = [DataFile(f"{role}.csv", role) for role in parts]
    said = "; ".join(
        f"{', '.join(p.name for p in files[:3])}{' ...' if len(files) > 3 else ''} -> "
        f"{role}.csv ({len(tables[f'{role}.csv'])} rows)"
        for role, files in parts.items()
    )
    note = (
        f"{inp.name}/ holds tables in numbered parts{_validation_said(parts)}: the run reads them "
        f"gathered ({said}; in "
        f"{folder}); your files are unchanged"
    )
    roles = {f.role for f in made}
    files = [f if f.role not in roles else DataFile(f.path, "extra") for f in kept]
    return replace(task, input_dir=folder, files=(*files, *made), notices=(*task.notices, note))


def _validation_said(parts: dict[FileRole, list[Path]]) -> str:
    """ ", or a validation split with the training table's columns" when one is gathered."""
    held = [p.name for p in parts.get("train", []) if _VALIDATION.match(p.name)]
    return f" or a validation split of the training table's columns ({held[0]})" if held else ""


def _features_beside_labels(task: Task, folder: Path) -> Task | None:
    """``task`` reading ``train.csv`` (``X_train`` with ``y_train``'s labels beside it, row by
    row) and ``test.csv`` (``X_test``) written in ``folder``, or ``None`` when its input holds
    no such split tables (``task.features_labels``: a course assignment's ``X_train.csv``,
    ``y_train.csv``, ``X_test.csv``)."""
    inp = task.input_dir
    split = features_and_labels(inp)
    if split is None:
        return None
    try:
        tables = {"train.csv": training_table(inp, split), "test.csv": test_table(inp, split)}
    except (OSError, ValueError, UnicodeDecodeError):
        return None  # the layout then says which table it cannot read
    gathered = {split.x_train, split.y_train, split.x_test}
    linked_copy(inp, folder, tables, leave_out=gathered)
    kept = [
        f if f.role not in ("train", "test") else DataFile(f.path, "extra")
        for f in task.files
        if f.path not in gathered
    ]
    made = [DataFile("train.csv", "train"), DataFile("test.csv", "test")]
    note = (
        f"input/ holds the training table split in two: the run reads {split.x_train} with "
        f"{split.y_train}'s {', '.join(split.targets)} beside it as train.csv "
        f"({len(tables['train.csv'])} rows) and {split.x_test} as test.csv (in {folder}); your "
        "files are unchanged"
    )
    return replace(task, input_dir=folder, files=(*kept, *made), notices=(*task.notices, note))


def _split_by_column(task: Task, folder: Path) -> Task | None:
    """``task`` reading ``train.csv`` and ``test.csv`` written in ``folder`` from its one table's
    rows of each split (``task.split_column``: ``data.csv`` with ``split`` = train / test), or
    ``None`` when its input holds no such table."""
    inp = task.input_dir
    split = split_table(inp)
    if split is None:
        return None
    try:
        train, test = split_frames(inp, split)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    linked_copy(inp, folder, {"train.csv": train, "test.csv": test}, leave_out={split.table})
    kept = [
        f if f.role not in ("train", "test") else DataFile(f.path, "extra")
        for f in task.files
        if f.path != split.table
    ]
    made = [DataFile("train.csv", "train"), DataFile("test.csv", "test")]
    note = (
        f"input/ holds one table of both splits: the run reads {split.table}'s rows of "
        f"{split.column} = {split.train_value!r} as train.csv ({len(train)} rows) and those of "
        f"{split.column} = {split.test_value!r} as test.csv ({len(test)} rows, without "
        f"{', '.join(split.targets)}) (in {folder}); your files are unchanged"
    )
    return replace(task, input_dir=folder, files=(*kept, *made), notices=(*task.notices, note))


def _same_columns(files: list[Path]) -> bool:
    """Whether every file's first rows have the same columns (parts of one table)."""
    try:
        heads = [list(read_table(p, nrows=2).columns) for p in files]
    except (LayoutError, OSError, ValueError):
        return False
    return all(h == heads[0] for h in heads[1:])


def _gathered(files: list[Path]) -> pd.DataFrame:
    """The parts read one after the other as one table."""
    return pd.concat([read_table(p) for p in files], ignore_index=True)


__all__ = ["numbered_parts", "parts_as_tables"]
