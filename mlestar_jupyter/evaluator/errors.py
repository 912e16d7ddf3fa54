"""Errors of the evaluator layer.  Each message says what to do.

    EvaluatorError
     ├── SourceMissing      a pack task's source package is not installed (names the install script)
     ├── LeaderboardError   a leaderboard file is missing or has no usable score column
     ├── GradingError       answers or sample submission of a task cannot be read
     ├── TaskFieldError     (ValueError) a task.json field the evaluator reads is unusable
     ├── UnknownPackName    (ValueError) no pack task or task set of that name
     └── ReferenceFailed    (RuntimeError) a pack reference model made an invalid submission

An *invalid submission* is not an error: it is a normal outcome, reported in ``GradeReport``.
"""

from __future__ import annotations

INSTALL_HINT = "run `bash scripts/install_bench_deps.sh` (apt-get + pip) and prepare again"


class EvaluatorError(Exception):
    """Base of every evaluator error."""


class SourceMissing(EvaluatorError):
    """The package that ships a pack task's data is not installed."""

    def __init__(self, task: str, what: str) -> None:
        self.task = task
        self.what = what
        super().__init__(f"task {task!r} skipped: {what} is not installed; {INSTALL_HINT}")

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.task, self.what))


class LeaderboardError(EvaluatorError):
    """A leaderboard cannot be used for ranking."""


class GradingError(EvaluatorError):
    """The task's own grading material (answers, sample submission) is missing or unreadable."""


class TaskFieldError(EvaluatorError, ValueError):
    """A ``task.json`` field the evaluator reads holds an unusable value (the message names the
    field and what to write)."""


class UnknownPackName(EvaluatorError, ValueError):
    """A task or task-set name the pack does not have (``mlestar bench prepare --list`` lists
    them)."""


class ReferenceFailed(EvaluatorError, RuntimeError):
    """A reference model of the pack's ladder made an invalid submission while a task was being
    prepared: a bug of the pack, not of the user's setup."""
