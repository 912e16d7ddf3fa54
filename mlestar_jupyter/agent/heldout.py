"""The final submission graded on a dataset's held-out rows.

A task made from one labelled table (``importer.dataset_task``) holds a share of its rows out of
the search; its ``task.json`` says so (``holdout``) and its answers lie outside the task folder.
After the final phase the submission is graded on them with the evaluator's grader and
journaled (``heldout``): how the solution does on rows it was neither fitted nor chosen on,
beside its validation score.  Tasks without ``holdout`` (a competition's, a benchmark's) are
not graded here: their answers, when a pack has them, are the benchmark's business.
"""

from __future__ import annotations

from ..evaluator.grading import grade_submission
from ..journal import RunJournal
from ..task import Task
from .submission import FinalResult


def grade_heldout(journal: RunJournal, task: Task, final: FinalResult) -> None:
    """Journal the final submission's score on the held-out rows of a dataset's task (nothing
    for other tasks)."""
    holdout = task.extra.get("holdout")
    if not isinstance(holdout, dict):
        return
    rows = holdout.get("rows")
    common = dict(
        metric=task.metric_name,
        direction=task.direction,
        rows=rows if isinstance(rows, int) else None,
        held_out_of=str(holdout.get("of") or ""),
        validation_score=final.score,
    )
    if task.answers_path is None or not task.answers_path.is_file():
        journal.emit(
            "heldout",
            key="heldout",
            reason=f"the held-out answers are missing (expected beside {task.root})",
            **common,
        )
        return
    if final.submission is None or not final.submission.is_file():
        journal.emit("heldout", key="heldout", reason="no submission was written", **common)
        return
    report = grade_submission(task, final.submission)
    journal.emit(
        "heldout",
        key="heldout",
        score=report.score,
        valid=report.valid_submission,
        reason=report.invalid_reason or "",
        **common,
    )
