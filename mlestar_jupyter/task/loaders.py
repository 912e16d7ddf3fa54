"""Build a ``Task`` from a folder: TAM-Bench ``task.json``, MLE-bench competition, or plain description.

The functions here are the ``Task`` constructors under the names callers have long used; the
readers of each format are ``spec_reader``, ``mlebench_reader`` and ``description_reader``
(``readers`` picks one); what they infer is in ``infer.py``.
"""

from __future__ import annotations

from pathlib import Path

from .infer import answers_folder
from .model import Task
from .task_folder import has_task_description, is_task_folder

__all__ = [
    "answers_folder",
    "from_description",
    "from_mlebench",
    "from_tam_bench",
    "has_task_description",
    "is_task_folder",
    "load_task",
]


def load_task(path: str | Path) -> Task:
    """Load the task folder at ``path`` in whichever format it is."""
    return Task.load(path)


def from_tam_bench(root: Path) -> Task:
    """A folder holding a TAM-Bench ``task.json`` beside ``input/``."""
    return Task.from_tam_bench(root)


def from_mlebench(root: Path) -> Task:
    """An MLE-bench competition folder (``description.md`` and the CSVs, or ``prepared/public/``)."""
    return Task.from_mlebench(root)


def from_description(root: Path) -> Task:
    """A folder holding ``description.md`` (or ``.txt``) and ``input/``."""
    return Task.from_description(root)
