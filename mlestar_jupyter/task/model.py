"""The ``Task``: what to predict, from which files, judged by which metric.

One frozen dataclass, built by one constructor per input format (``Task.from_tam_bench``,
``Task.from_mlebench``, ``Task.from_description``, or ``Task.load`` for any of them; the folder
readers are ``spec_reader``, ``mlebench_reader`` and ``description_reader``, and ``readers``
picks one).  Everything a role needs to write code for the task is here;
``describe()`` renders it for prompts.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..metrics import Direction, Metric, Score, get_metric
from .description_reader import read_description
from .fields import DataFile, Modality, SourceFormat, TaskType
from .mlebench_reader import read_mlebench
from .readers import read_task_folder
from .spec_reader import read_tam_bench

__all__ = ["DataFile", "Modality", "SourceFormat", "Task", "TaskType"]


@dataclass(frozen=True)
class Task:
    """An ML task: a goal, data under ``input_dir``, a metric, and the submission's shape."""

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
    description: str = ""
    output_format: str = ""
    special_instructions: tuple[str, ...] = ()
    source_format: SourceFormat = "description"
    answers_path: Path | None = None
    # the class F1 / precision / recall score and a binary probability is of (task.json's
    # ``positive_label``); None: the default (1, yes, positive; else the last in sorted order)
    positive_label: str | None = None
    notices: tuple[str, ...] = ()  # how names in the task file were matched to input/ (journaled)
    # the submission's probability columns, one per class, where the sample submission's single
    # prediction column cannot hold what the metric grades (log loss of three cultivars beside
    # ``id,cultivar``): they take that column's place (``class_submission``); empty: the sample's
    class_columns: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    # -- derived -----------------------------------------------------------------------------
    @property
    def metric(self) -> Metric:
        """The task's metric (scorer, direction, needs)."""
        return get_metric(self.metric_name)

    @property
    def train_files(self) -> tuple[DataFile, ...]:
        """The input entries holding training data."""
        return tuple(f for f in self.files if f.role == "train")

    @property
    def test_files(self) -> tuple[DataFile, ...]:
        """The input entries holding the data to predict."""
        return tuple(f for f in self.files if f.role == "test")

    @property
    def sample_submission(self) -> DataFile | None:
        """The sample submission's entry, if the task has one."""
        return next((f for f in self.files if f.role == "sample_submission"), None)

    @property
    def sample_submission_path(self) -> Path | None:
        """The sample submission's absolute path, if the task has one."""
        s = self.sample_submission
        return self.input_dir / s.path if s else None

    @property
    def target(self) -> str:
        """The first target column ("" when none is known)."""
        return self.target_cols[0] if self.target_cols else ""

    def score(self, value: float | None) -> Score:
        """A ``Score`` for this task's metric direction."""
        return Score(value, self.direction)

    # -- rendering ---------------------------------------------------------------------------
    def describe(self) -> str:
        """The task as text for a prompt or a notebook's first markdown cell."""
        lines = [f"# Task: {self.id}", "", self.goal.strip(), ""]
        if self.description and self.description.strip() != self.goal.strip():
            lines += [self.description.strip(), ""]
        lines += [
            f"- Task type: {self.task_type}; modality: {self.modality}",
            f"- Metric: {self.metric_name} ({'higher' if self.direction == 'maximize' else 'lower'} is better)",
            f"- Target column(s): {', '.join(self.target_cols) or 'unknown'}",
        ]
        if self.positive_label is not None:
            lines.append(f"- Positive class (scored by the metric): {self.positive_label!r}")
        if self.id_col:
            lines.append(f"- Id column: {self.id_col}")
        lines.append("- Files in ./input:")
        for f in self.files:
            desc = f" — {f.description}" if f.description else ""
            lines.append(f"  - `{f.path}` ({f.role}){desc}")
        if self.output_format:
            lines += [
                "- Submission format (write it to ./final/submission.csv):",
                "```",
                self.output_format.strip(),
                "```",
            ]
        if self.special_instructions:
            lines.append("- Special instructions:")
            lines += [f"  {i + 1}. {s}" for i, s in enumerate(self.special_instructions)]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able record (paths as strings) for the run journal."""
        d = asdict(self)
        for k in ("root", "input_dir", "answers_path"):
            d[k] = str(d[k]) if d[k] is not None else None
        return d

    # -- constructors, one per folder format -----------------------------------------------------
    @classmethod
    def load(cls, path: str | Path) -> Task:
        """Load the task folder at ``path`` (or its ``task.json``) in whichever format it is."""
        return _checked(cls(**read_task_folder(path)))

    @classmethod
    def from_tam_bench(cls, root: Path) -> Task:
        """A folder holding a TAM-Bench ``task.json`` beside ``input/``."""
        return _checked(cls(**read_tam_bench(root)))

    @classmethod
    def from_mlebench(cls, root: Path) -> Task:
        """An MLE-bench competition folder (``description.md`` and the CSVs, or ``prepared/public/``)."""
        return _checked(cls(**read_mlebench(root)))

    @classmethod
    def from_description(cls, root: Path) -> Task:
        """A folder holding ``description.md`` (or ``.txt``) and ``input/``."""
        return _checked(cls(**read_description(root)))


def _checked(task: Task) -> Task:
    """``task`` with one probability column per class where its sample submission's single
    column cannot be graded by its metric (``class_submission.with_class_columns``)."""
    from .class_submission import with_class_columns

    return with_class_columns(task)
