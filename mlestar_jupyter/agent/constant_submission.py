"""A submission that predicts the same thing for every test row, told apart from a real one.

A run can end ``done`` with a valid file whose every row holds one label (or one probability
row, or one number) when no model learnt anything from the features it was given: a column of
sentences read as one category per row, features that are all ids, a target the features do not
describe.  The file passes every format check, so without this the user saw a finished run and a
score no better than guessing the commonest class.  :func:`same_prediction` says so, and the
final phase journals it as a ``warning`` (the prior-only ``baseline`` rung is constant by design
and says so itself).
"""

from __future__ import annotations

from pathlib import Path

from ..task import Task
from ..task.layout.tables import read_submission

MIN_ROWS = 10  # fewer test rows can share one prediction by chance


def same_prediction(task: Task, path: Path) -> str | None:
    """``None`` unless every row of the submission at ``path`` predicts the same (each target
    column holds one value, over at least ``MIN_ROWS`` rows); then that prediction in words."""
    try:
        sub = read_submission(task, path, as_text=True)
    except (OSError, ValueError):
        return None  # (the format checks have read it; nothing to add here)
    cols = [c for c in sub.columns if c != task.id_col] if task.id_col else list(sub.columns)
    cols = [c for c in cols if c in task.target_cols] or cols
    if len(sub) < MIN_ROWS or not cols:
        return None
    if any(sub[c].nunique(dropna=False) > 1 for c in cols):
        return None
    first = sub.iloc[0]
    shown = ", ".join(f"{c} = {first[c]}" for c in cols[:4]) + (" ..." if len(cols) > 4 else "")
    return (
        f"every one of the {len(sub)} test rows gets the same prediction ({shown}): the solution "
        "learnt nothing from the features it was given. Look at what reaches the model in "
        "final/solution.ipynb (a column of sentences read as one category per row, features that "
        "are only ids, a join that left every feature missing) and say what the columns are in "
        "the task's description."
    )
