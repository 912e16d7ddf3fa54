"""What a folder that is no task folder holds instead, said in the refusal with the way to a
task folder: an archive to unpack, a SQLite database, a Kaggle dataset's metadata, two tables
that pair, or the tables one folder down.
"""

from __future__ import annotations

import json
from pathlib import Path

from .infer import complete_files, has_mlebench_files, paired_tables
from .table_columns import columns_only_training_has


def _kaggle_metadata(root: Path) -> str:
    """What to write beside a Kaggle dataset's download whose ``dataset-metadata.json`` (the
    metadata the Kaggle CLI writes: a title, an id, licenses, no target or metric) sits beside
    a training and a test table (hunt O: refused as "not a task folder" with nothing said of
    it); ``""`` for other folders.  (A Hugging Face dataset card, a README with YAML front
    matter, is another thing: ``task.dataset_card``.)"""
    path = root / "dataset-metadata.json"
    if not path.is_file():
        return ""
    try:
        meta = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except ValueError:
        meta = {}
    title = meta.get("title") if isinstance(meta, dict) else None
    files = complete_files(root, [])
    lacked = columns_only_training_has(root, files)
    target = lacked[0] if len(lacked) == 1 else "<column>"
    return (
        ". Its dataset-metadata.json is a Kaggle dataset's metadata"
        + (f" ({title!r})" if isinstance(title, str) and title else "")
        + ", which names no target or metric: write description.md beside the tables saying "
        f"what is predicted and how it is graded (e.g. 'Target: {target}' and 'Metric: RMSE')"
    )


def what_is_there(root: Path) -> str:
    """What a folder that is no task folder holds instead, with the way to a task folder: a
    Kaggle download still zipped, or its tables one folder down."""
    if not root.is_dir():
        return ""
    archives = sorted(
        p.name for p in root.iterdir() if p.is_file() and p.name.lower().endswith(_ARCHIVES)
    )
    if archives:
        listed = ", ".join(archives[:3]) + (", ..." if len(archives) > 3 else "")
        one = len(archives) == 1
        return (
            f". It holds {listed}: unpack {'it' if one else 'them'} here, or make a task folder "
            f"with 'mlestar task import PAGE --data {root / archives[0] if one else root} --out "
            "TASK_DIR' (PAGE: the competition's overview page saved as HTML or text)"
        )
    databases = _sqlite_tables(root)
    if databases:
        return databases
    kaggle = _kaggle_metadata(root)
    if kaggle:
        return kaggle
    for folder in (root, root / "input", root / "data"):
        paired = paired_tables(folder, complete_files(folder, [])) if folder.is_dir() else None
        if paired is not None:
            files, extra, _ = paired
            train, test = (next(f.path for f in files if f.role == r) for r in ("train", "test"))
            where = "" if folder == root else f" in {folder.name}/"
            named = " and ".join(map(repr, extra))
            return (
                f". It holds two tables{where} that pair: {train} has every column of {test} and "
                f"{named}. Write description.md beside them saying what is predicted and how it "
                f"is graded (e.g. 'Predict {extra[0]} for the rows of {test}. Metric: RMSE.'), "
                "and the run reads the first as the training table and the other as the rows to "
                "predict"
            )
    for sub in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if has_mlebench_files(sub) or (sub / "train.csv").is_file():
            return (
                f". Its tables are in {sub.name}/: pass that folder, or make a task folder with "
                f"'mlestar task import PAGE --data {sub} --out TASK_DIR'"
            )
    return ""


_ARCHIVES = (".zip", ".7z", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
_SQLITE = (".db", ".sqlite", ".sqlite3")


def _sqlite_tables(root: Path) -> str:
    """The way to a task folder from a SQLite database of tables (``wine.db`` with tables
    ``train`` and ``test``, hunt I), which no reader here reads: the tables exported as CSV,
    with the command that does it; empty when ``root`` holds no such database."""
    import sqlite3

    for db in sorted(p for p in root.iterdir() if p.is_file() and p.suffix.lower() in _SQLITE):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                rows = con.execute("select name from sqlite_master where type='table'").fetchall()
        except sqlite3.Error:
            continue
        tables = sorted(str(r[0]) for r in rows)
        if not tables:
            continue
        first = tables[0]
        return (
            f". It holds the SQLite database {db.name} (tables {', '.join(tables[:6])}"
            f"{', ...' if len(tables) > 6 else ''}), which the run cannot read: export each "
            f'table as CSV beside it (e.g. \'sqlite3 -header -csv {db} "select * from {first}" '
            f"> {root / first}.csv', or pandas.read_sql), naming the training table train.csv "
            "and the rows to predict test.csv"
        )
    return ""


__all__ = ["what_is_there"]
