"""A text task kept as one ``.txt`` file per document: the run reads a copy of its input folder
with the documents gathered into ``train.csv`` / ``test.csv`` (``id``, ``text``, the target).

Found by task folders written by other people (hunt I): ``train/<id>.txt`` and ``test/<id>.txt``
beside ``labels.csv`` (``id,label``), or ``train/pos/*.txt`` and ``train/neg/*.txt`` (the class
as the folder's name, as aclImdb keeps them), stopped at "no training table (train.csv) found"
(the labels table then named no feature at all).  :func:`documents_as_tables` writes the two
tables in a folder of the run's own, beside links to every entry of ``input/``; the user's
files are unchanged.  A resumed run makes the copy again (it is small: the text once)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from ..task import Task
from ..task.fields import DataFile
from ..task.text_format import TEXT_TABLE_EXT, read_args
from .linked_copy import linked_copy

DOCUMENT_EXT = (".txt",)
TEXT_COLUMN = "text"


def documents_as_tables(task: Task, folder: Path) -> Task | None:
    """``task`` reading ``train.csv`` / ``test.csv`` written in ``folder`` from its ``.txt``
    documents, or ``None`` when its input holds no such documents (or a ``train.csv`` already,
    or no labels for them).  The labels come from a table naming the documents (``labels.csv``:
    the id and the target) or from the folders they are in (``train/pos/``); the documents to
    predict are ``test/``'s, or those the sample submission names."""
    inp = task.input_dir
    train_dir = _folder_of(task, "train") or _one_folder_of_documents(inp)
    if train_dir is None or (inp / "train.csv").exists():
        return None
    # a folder per class names no column: ``label``, unless the task names its target
    id_col, target = task.id_col or "id", (task.target_cols or ("label",))[0]
    train_docs = _documents(inp / train_dir)
    table, labels = _labels(task, id_col, target)
    labels = labels or _class_folders(inp / train_dir, train_docs)
    if not labels:
        return None
    test_dir = _folder_of(task, "test")
    test_docs = _documents(inp / test_dir) if test_dir else {}
    test_ids = sorted(test_docs) or _sample_ids(task, id_col)
    if not test_ids:
        return None
    pool = {
        **_documents(inp, nested_only=True),
        **train_docs,
    }  # ids a labels table names, wherever they are
    train = [(i, _read(pool[i]), y) for i, y in labels.items() if i in pool]
    test_pool = test_docs or _documents(inp, nested_only=True)
    test = [(i, _read(test_pool[i])) for i in test_ids if i in test_pool]
    if not train or not test:
        return None
    linked_copy(
        inp,
        folder,
        {
            "train.csv": pd.DataFrame(train, columns=[id_col, TEXT_COLUMN, target]),
            "test.csv": pd.DataFrame(test, columns=[id_col, TEXT_COLUMN]),
        },
    )
    # the documents' folders are in the two tables now: a solution reads those, not them
    gathered = {train_dir, *([test_dir] if test_dir else []), *([table] if table else [])}
    files = [f for f in task.files if f.role not in ("train", "test") and f.path not in gathered]
    files += [DataFile("train.csv", "train"), DataFile("test.csv", "test")]
    note = (
        f"input/ holds one .txt file per document ({len(train)} to learn from, {len(test)} to "
        f"predict): the run reads them gathered into train.csv and test.csv ({id_col}, "
        f"{TEXT_COLUMN}{', ' + target}; in {folder}); your files are unchanged"
    )
    return replace(
        task,
        input_dir=folder,
        files=tuple(files),
        modality="text",
        target_cols=task.target_cols or (target,),
        id_col=id_col,
        notices=(*task.notices, note),
    )


def _folder_of(task: Task, role: str) -> str | None:
    """The task's folder of ``role`` (``train/``, ``test/``) that holds mostly documents."""
    for f in task.files:
        path = task.input_dir / f.path
        if f.role == role and path.is_dir() and _mostly_documents(path):
            return f.path
    return None


def _one_folder_of_documents(inp: Path) -> str | None:
    """The one folder of ``inp`` that holds mostly documents (``docs/``, its training and test
    documents together: the labels table and the sample submission tell them apart)."""
    found = [d.name for d in sorted(inp.iterdir()) if d.is_dir() and _mostly_documents(d)]
    return found[0] if len(found) == 1 else None


def _mostly_documents(folder: Path) -> bool:
    files = [p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")]
    return bool(files) and sum(p.suffix.lower() in DOCUMENT_EXT for p in files) >= 0.9 * len(files)


def _documents(folder: Path, *, nested_only: bool = False) -> dict[str, Path]:
    """The documents under ``folder`` by their name without the extension (with
    ``nested_only``, as for ``input/`` itself, only those in its subfolders: not a README)."""
    return {
        p.stem: p
        for p in sorted(folder.rglob("*"))
        if p.is_file()
        and p.suffix.lower() in DOCUMENT_EXT
        and not (nested_only and p.parent == folder)
    }


def _labels(task: Task, id_col: str, target: str) -> tuple[str | None, dict[str, str]]:
    """The table of the input that gives the documents' labels (``labels.csv``: ``id,label``)
    and those labels, keyed by the id as text; the sample submission is no such table."""
    sample = task.sample_submission.path if task.sample_submission else None
    for p in sorted(task.input_dir.iterdir()):
        if not p.is_file() or p.name == sample or not p.name.lower().endswith(TEXT_TABLE_EXT):
            continue
        try:
            table = pd.read_csv(p, dtype=str, **read_args(p))
        except (OSError, ValueError):
            continue
        if id_col in table.columns and target in table.columns:
            table = table.dropna(subset=[target])
            ids = table[id_col].str.replace(r"\.txt$", "", regex=True)
            return p.name, dict(zip(ids, table[target], strict=True))
    return None, {}


def _class_folders(train_dir: Path, docs: dict[str, Path]) -> dict[str, str]:
    """The labels of documents kept one folder per class (``train/pos/1.txt``): the folder's
    name; none when the documents lie in ``train/`` itself."""
    labels = {i: p.parent.name for i, p in docs.items() if p.parent != train_dir}
    return labels if len(labels) == len(docs) and len(set(labels.values())) > 1 else {}


def _sample_ids(task: Task, id_col: str) -> list[str]:
    """The ids the sample submission lists (the documents to predict when there is no test/)."""
    if task.sample_submission is None:
        return []
    path = task.input_dir / task.sample_submission.path
    try:
        sample = pd.read_csv(path, dtype=str, **read_args(path))
    except (OSError, ValueError):
        return []
    return list(sample[id_col].str.replace(r"\.txt$", "", regex=True)) if id_col in sample else []


def _read(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8", errors="replace").split())


__all__ = ["DOCUMENT_EXT", "documents_as_tables"]
