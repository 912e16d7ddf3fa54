"""The ``Task``: what to predict, from which files, judged by which metric.

One frozen dataclass, built by one constructor per input format (see ``loaders``).  Everything a
role needs to write code for the task is here; ``describe()`` renders it for prompts.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..metrics import Direction, Metric, Score, get_metric

Modality = Literal["tabular", "text", "image", "audio", "time_series", "other"]
TaskType = Literal["classification", "regression", "other"]
SourceFormat = Literal["tam_bench", "mlebench", "description"]


@dataclass(frozen=True)
class DataFile:
    """One file (or folder) of the task's input, relative to ``Task.input_dir``."""

    path: str
    role: Literal["train", "test", "sample_submission", "extra"]
    description: str = ""


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
    notices: tuple[str, ...] = ()  # how names in the task file were matched to input/ (journaled)
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    # -- derived -----------------------------------------------------------------------------
    @property
    def metric(self) -> Metric:
        return get_metric(self.metric_name)

    @property
    def train_files(self) -> tuple[DataFile, ...]:
        return tuple(f for f in self.files if f.role == "train")

    @property
    def test_files(self) -> tuple[DataFile, ...]:
        return tuple(f for f in self.files if f.role == "test")

    @property
    def sample_submission(self) -> DataFile | None:
        return next((f for f in self.files if f.role == "sample_submission"), None)

    @property
    def sample_submission_path(self) -> Path | None:
        s = self.sample_submission
        return self.input_dir / s.path if s else None

    @property
    def target(self) -> str:
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

    @classmethod
    def load(cls, path: str | Path) -> Task:
        """Load a task folder of any supported format (see ``loaders.load_task``)."""
        from .loaders import load_task

        return load_task(path)
