"""The parts a ``Task`` is made of, below both the ``Task`` and the readers that find them.

``DataFile`` names one input file and its role; ``TaskFields`` is what a reader of a task folder
returns (the ``Task`` constructor's keyword arguments), so readers never need the ``Task`` class.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

from ..metrics import Direction

Modality = Literal["tabular", "text", "image", "audio", "time_series", "other"]
TaskType = Literal["classification", "regression", "other"]
SourceFormat = Literal["tam_bench", "mlebench", "description", "notebook"]
FileRole = Literal["train", "test", "sample_submission", "extra"]


@dataclass(frozen=True)
class DataFile:
    """One file (or folder) of the task's input, relative to ``Task.input_dir``."""

    path: str
    role: FileRole
    description: str = ""


class TaskFields(TypedDict):
    """A ``Task``'s fields as a reader found them in a task folder."""

    id: str
    root: Path
    input_dir: Path
    goal: str
    metric_name: str
    direction: Direction
    task_type: TaskType
    modality: Modality
    target_cols: tuple[str, ...]
    id_col: str | None
    files: tuple[DataFile, ...]
    description: NotRequired[str]
    output_format: NotRequired[str]
    special_instructions: NotRequired[tuple[str, ...]]
    source_format: NotRequired[SourceFormat]
    answers_path: NotRequired[Path | None]
    positive_label: NotRequired[str | None]
    notices: NotRequired[tuple[str, ...]]
    extra: NotRequired[dict[str, Any]]
