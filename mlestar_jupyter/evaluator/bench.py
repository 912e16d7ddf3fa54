"""What a bench run records: each agent run's outcome and the graded report of the whole run.

Below both ``runner.py`` (which fills them) and ``report.py`` (which draws them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from .grading import GradeReport
from .summary import BenchSummary

__all__ = ["AgentOutcome", "BenchReport", "RunAgent", "TaskResult"]


@dataclass(frozen=True)
class AgentOutcome:
    """What one agent run left: its submission and notebook (when made), time, and error."""

    submission_path: Path | None
    solution_notebook_path: Path | None
    seconds: float
    error: str | None = None


RunAgent = Callable[[Path, Path, str, float], AgentOutcome]


class TaskResult(BaseModel):
    """One task of a bench run: where it ran, how long, and its grade."""

    task_dir: str
    out_dir: str
    agent_seconds: float
    agent_error: str | None = None
    grade: GradeReport


class BenchReport(BaseModel):
    """A whole bench run."""

    agent: str
    time_limit: float
    started_at: str
    seconds: float
    tasks: list[TaskResult]
    summary: BenchSummary
