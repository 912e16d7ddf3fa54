"""Task folders: TAM-Bench ``task.json``, MLE-bench competitions, or a plain description."""

from .errors import TaskError, TaskFormatError
from .loaders import (
    from_description,
    from_mlebench,
    from_tam_bench,
    has_task_description,
    is_task_folder,
    load_task,
)
from .model import DataFile, Modality, Task, TaskType

__all__ = [
    "DataFile",
    "Modality",
    "Task",
    "TaskError",
    "TaskFormatError",
    "TaskType",
    "from_description",
    "from_mlebench",
    "from_tam_bench",
    "has_task_description",
    "is_task_folder",
    "load_task",
]
