"""Which reader reads a task folder: TAM-Bench ``task.json`` (``spec_reader``), an MLE-bench
competition (``mlebench_reader``), or a plain description (``description_reader``).

Each reader returns the ``TaskFields`` it found (the ``Task`` builds itself from them, see
``model.py``).  A folder that cannot make a task fails, once, with a ``TaskFormatError``
naming the file and the fix (a folder no reader reads: what it holds instead, from
``folder_survey``).
"""

from __future__ import annotations

from pathlib import Path

from .description_reader import read_description
from .errors import TaskFormatError
from .fields import TaskFields
from .folder_survey import what_is_there
from .infer import README_NAMES, complete_files, file_named, find_description, has_mlebench_files
from .mlebench_reader import read_mlebench
from .spec_file import TASK_FILES, task_file
from .spec_reader import read_tam_bench
from .task_folder import data_subfolder, has_training_data, holds_tables


def read_task_folder(path: str | Path) -> TaskFields:
    """The fields of the task folder at ``path``, in whichever format it is."""
    root = Path(path).expanduser().resolve()
    if not root.exists():
        raise TaskFormatError(
            root,
            "no such folder; pass the task folder (the one holding task.json or description.md)",
        )
    if root.is_file():
        if root.name not in TASK_FILES:
            raise TaskFormatError(
                root, "expected a task folder, got a file; pass the folder that holds it"
            )
        root = root.parent
    if task_file(root) is not None:
        return read_tam_bench(root)
    if (root / "prepared" / "public").is_dir() or has_mlebench_files(root):
        return read_mlebench(root)
    if find_description(root) is not None:
        return read_description(root)
    readme = file_named(root, *README_NAMES)  # README.md, Readme.md, README.txt, README ...
    if readme is not None and (
        holds_tables(root)
        or data_subfolder(root) is not None
        or has_training_data(root, complete_files(root, []))
    ):
        # a project's README beside its tables, or beside a train/ folder of files (images in
        # class folders, one .txt per document) or .npy arrays: the task's description (a
        # notebook run in such a folder still reads its task from the notebook:
        # ``is_task_folder`` is unchanged)
        return read_description(root, readme)
    raise TaskFormatError(
        root,
        "not a task folder: add task.json (TAM-Bench schema) beside input/, or description.md beside input/ "
        "(or MLE-bench style train.csv/test.csv/sample_submission.csv); or start from a notebook "
        "in it (--notebook NB, or the toolbar button): the task is then read from the notebook"
        + what_is_there(root),
    )


__all__ = ["read_task_folder"]
