"""Whether a folder is a task folder (it describes its task, or holds a competition's tables),
and where the data of a task described beside its tables lies.
"""

from __future__ import annotations

from pathlib import Path

from .fields import DataFile
from .infer import (
    complete_files,
    find_description,
    has_mlebench_files,
    has_series_files,
    has_training_arrays,
)
from .spec_file import TASK_FILES, task_file


def holds_tables(folder: Path) -> bool:
    """Whether ``folder`` itself holds a table (data kept beside description.md, or in a
    ``data/`` folder): a text table, parquet, a workbook or JSON lines."""
    from .layout.model import TABLE_EXT  # (the layout package imports the task model)

    return any(p.is_file() and p.name.lower().endswith(TABLE_EXT) for p in folder.iterdir())


def data_subfolder(root: Path) -> Path | None:
    """The folder beside a description that holds the task's tables: ``data/`` (or
    ``dataset/``, ``datasets/``), or the one folder inside it that does (``data/wine/``: hunt J's
    notebooks kept their data so, and the folder was refused with "input/: missing")."""
    for name in ("data", "dataset", "datasets"):
        folder = root / name
        if not folder.is_dir():
            continue
        if holds_tables(folder):
            return folder
        inner = [p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))]
        if len(inner) == 1 and holds_tables(inner[0]):
            return inner[0]
        paired = [p for p in inner if _holds_train_and_test(p)]
        if len(paired) == 1:  # data/raw/ (train, test) beside data/processed/ (a cleaned part)
            return paired[0]
    return None


def _holds_train_and_test(folder: Path) -> bool:
    """Whether ``folder`` holds a training and a test table (``train.csv``, ``test.csv``): of
    a cookiecutter project's ``data/raw/`` and ``data/processed/``, the one to read (hunt O:
    such a project was "not a task folder")."""
    roles = {f.role for f in complete_files(folder, [])}
    return {"train", "test"} <= roles and holds_tables(folder)


def has_training_data(input_dir: Path, files: list[DataFile]) -> bool:
    """Whether the input holds training data: a training file or folder, ``.npy`` arrays or
    ``.ts`` files."""
    return (
        any(f.role == "train" for f in files)
        or has_training_arrays(input_dir)
        or has_series_files(input_dir)
    )


def is_task_folder(path: str | Path) -> bool:
    """Whether ``path`` is (or holds) a task folder of a format ``read_task_folder`` reads; a
    folder that is not may still be a notebook's folder (``importer.notebook_task``)."""
    root = Path(path).expanduser().resolve()
    return has_task_description(root) or (root.is_dir() and has_mlebench_files(root))


def has_task_description(path: str | Path) -> bool:
    """Whether the folder describes its task (task.json, MLE-bench's ``prepared/public`` or a
    description file), not only holds a competition's tables (train, test, sample submission:
    a Kaggle download, which a notebook beside it can describe instead)."""
    root = Path(path).expanduser().resolve()
    if root.is_file():
        return root.name in TASK_FILES
    return root.is_dir() and (
        task_file(root) is not None
        or (root / "prepared" / "public").is_dir()
        or find_description(root) is not None
    )


__all__ = [
    "data_subfolder",
    "has_task_description",
    "has_training_data",
    "holds_tables",
    "is_task_folder",
]
