"""A copy of a task's input folder with one table rewritten: every other entry a link to the
user's, the rewritten table in the user's own format, and a stamp beside the copy saying which
version of the user's table it was written from, so that a resumed run keeps the copy (and the
data its kernels read does not change under it).

Used by :mod:`.labelled` (the training table without its unlabelled rows) and
:mod:`.labelled_test` (the test table without its answers).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..text_format import FEATHER_EXT, TEXT_TABLE_EXT, read_args
from .links import link_entries
from .model import EXCEL_TABLE_EXT, JSON_LINES_EXT
from .tables import read_table, shard_files

_SIGNATURE = ("size", "mtime_ns")


def read_whole(path: Path, columns: list[str] | None = None) -> pd.DataFrame | None:
    """The table at ``path`` (only its ``columns`` when given), text tables with every cell as
    text so that ids such as ``007`` and dates keep their spelling; ``None`` for a format that
    cannot be written back, or a table that cannot be read (a column missing among them: the
    layout's own checks say what is wrong)."""
    name = path.name.lower()
    try:
        if path.is_dir():
            return read_table(path, columns, as_text=True) if shard_files(path) else None
        if name.endswith((*TEXT_TABLE_EXT, ".txt")):
            return read_table(path, columns, as_text=True)
        if name.endswith((".parquet", *FEATHER_EXT, *JSON_LINES_EXT, *EXCEL_TABLE_EXT)):
            return read_table(path, columns)
    except (OSError, ValueError, KeyError, ImportError):
        return None
    return None


def write_like(frame: pd.DataFrame, source: Path, target: Path) -> None:
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
    elif name.endswith(FEATHER_EXT):
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


def mirror(source: Path, folder: Path, keep: Path) -> None:
    """``folder`` made to hold a link to every entry of ``source`` but the table at ``keep``
    (relative), whose parent folders are made as real folders mirrored the same way."""
    head, rest = keep.parts[0], keep.parts[1:]
    link_entries(source, folder, leave_out={head})
    if rest:
        sub = folder / head
        if sub.is_symlink():
            sub.unlink()
        mirror(source / head, sub, Path(*rest))


def write_stamp(stamp: Path, source: Path, said: Mapping[str, Any]) -> None:
    """Record at ``stamp`` which ``source`` the copy was written from, with what the copy's
    writer ``said`` about it (JSON values); a stamp that cannot be written is left out (a
    resumed run then writes the copy again)."""
    try:
        stamp.write_text(json.dumps({**_signature(source), **said}))
    except OSError:
        pass


def stamped(stamp: Path, source: Path, target: Path) -> dict[str, Any] | None:
    """What ``write_stamp`` recorded at ``stamp`` when the copy at ``target`` exists and was
    written from ``source`` as it is now; ``None`` otherwise (no stamp, an unreadable one, or
    ``source`` changed since)."""
    try:
        said = json.loads(stamp.read_text())
        if not isinstance(said, dict) or not target.exists():
            return None
        if {k: said.get(k) for k in _SIGNATURE} != _signature(source):
            return None
    except (OSError, ValueError):
        return None
    return said


def _signature(source: Path) -> dict[str, int]:
    """The source table's size and modification time (a folder of parts: its newest part)."""
    parts = shard_files(source) if source.is_dir() else [source]
    stats = [p.stat() for p in parts]
    return {"size": sum(s.st_size for s in stats), "mtime_ns": max(s.st_mtime_ns for s in stats)}


__all__ = ["mirror", "read_whole", "stamped", "write_like", "write_stamp"]
