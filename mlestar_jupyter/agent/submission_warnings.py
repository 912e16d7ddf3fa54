"""Valid submission files that still say something went wrong, told to the user.

A submission that predicts the same thing for every test row:

A run can end ``done`` with a valid file whose every row holds one label (or one probability
row, or one number) when no model learnt anything from the features it was given: a column of
sentences read as one category per row, features that are all ids, a target the features do not
describe.  The file passes every format check, so without this the user saw a finished run and a
score no better than guessing the commonest class.  :func:`same_prediction` says so, and the
final phase journals it as a ``warning`` (the prior-only ``baseline`` rung is constant by design
and says so itself).

Class labels handed in for a metric that ranks probabilities (:func:`labels_for_probabilities`):
a Kaggle notebook validates with ``roc_auc_score(y_val, model.predict_proba(X_val)[:, 1])`` and
then writes ``model.predict(test)`` (0 and 1) to its submission.  The file is valid, the search
scored the notebook on its probabilities, and the graded AUC is that of two values only.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..task import Task
from ..task.layout.tables import label_values, read_submission, table_for

MIN_ROWS = 10  # fewer test rows can share one prediction by chance


def final_file_warnings(task: Task, path: Path, *, baseline: bool = False) -> list[tuple[str, str]]:
    """What the final submission at ``path`` says went wrong, as ``(journal key, message)``,
    read once: row numbers written without ``index=False`` (removed from the file:
    :func:`drop_written_index`), one prediction for every row (:func:`same_prediction`; not for
    the prior-only ``baseline``, constant by design), class labels for a probability metric
    (:func:`labels_for_probabilities`)."""
    try:
        sub = read_submission(task, path, as_text=True)
    except (OSError, ValueError, KeyError):
        return []  # (the format checks have read it; nothing to add here)
    said = []
    kept = _without_written_index(task, sub)
    if kept is not None:
        sub = kept
        _write_text_table(task, sub, path)
        said.append(("warn/written-index", _INDEX_REMOVED))
    constant = None if baseline else _same_prediction(task, sub)
    if constant:
        said.append(("warn/constant-submission", constant))
    labels = _labels_for_probabilities(task, sub) if not constant else None
    if labels:
        said.append(("warn/labels-for-probabilities", labels))
    return said


def _write_text_table(task: Task, sub: pd.DataFrame, path: Path) -> None:
    """Write ``sub`` (read as text: each value as the file held it) back to ``path``."""
    from ..task.layout.tables import submission_args

    sub.to_csv(path, index=False, **submission_args(task))


def same_prediction(task: Task, path: Path) -> str | None:
    """``None`` unless every row of the submission at ``path`` predicts the same (each target
    column holds one value, over at least ``MIN_ROWS`` rows); then that prediction in words."""
    try:
        sub = read_submission(task, path, as_text=True)
    except (OSError, ValueError):
        return None  # (the format checks have read it; nothing to add here)
    return _same_prediction(task, sub)


def _same_prediction(task: Task, sub: pd.DataFrame) -> str | None:
    """:func:`same_prediction` of a submission already read."""
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


_INDEX_REMOVED = (
    "the submission's first column was row numbers with no name (written by to_csv without "
    "index=False): removed from final/submission.csv"
)


def drop_written_index(task: Task, path: Path) -> str | None:
    """Remove the row numbers ``df.to_csv(path)`` writes without ``index=False`` (a first column
    with no name, or ``Unnamed: 0``, holding 0, 1, 2 ...) from the submission at ``path`` when
    the task asks for no such column; returns what was done (``None``: nothing)."""
    try:
        sub = read_submission(task, path, as_text=True)
    except (OSError, ValueError):
        return None
    kept = _without_written_index(task, sub)
    if kept is None:
        return None
    _write_text_table(task, kept, path)
    return _INDEX_REMOVED


def _without_written_index(task: Task, sub: pd.DataFrame) -> pd.DataFrame | None:
    """``sub`` without its first column when that column is written row numbers the task asks
    for no column of (see :func:`drop_written_index`); ``None`` when it is not."""
    if sub.shape[1] < 2:
        return None
    first = str(sub.columns[0])
    wanted = {task.id_col, *task.target_cols}
    if (first.strip() and not first.startswith("Unnamed: 0")) or first in wanted:
        return None
    numbers = pd.to_numeric(sub.iloc[:, 0], errors="coerce")
    if not numbers.notna().all() or not (numbers.to_numpy() == range(len(sub))).all():
        return None
    return sub.iloc[:, 1:]


def two_class_probability_task(task: Task) -> set[str] | None:
    """The two training classes (as text) of a task whose metric is computed from
    probabilities and whose submission has one target column; else ``None``."""
    if not task.metric.needs_proba or task.task_type != "classification":
        return None
    train = table_for(task, "train")
    if len(task.target_cols) != 1 or not train:
        return None
    try:
        classes = set(label_values(task.input_dir / train, task.target))
    except (OSError, ValueError, KeyError):
        return None
    return classes if len(classes) == 2 else None


def labels_for_probabilities(task: Task, path: Path) -> str | None:
    """``None`` unless the task's metric ranks probabilities of two classes and the single
    prediction column of the submission at ``path`` holds only the training classes (``0`` and
    ``1``, ``yes`` and ``no``); then what to write instead."""
    if two_class_probability_task(task) is None:
        return None
    try:
        sub = read_submission(task, path, as_text=True)
    except (OSError, ValueError, KeyError):
        return None
    return _labels_for_probabilities(task, sub)


def _labels_for_probabilities(task: Task, sub: pd.DataFrame) -> str | None:
    """:func:`labels_for_probabilities` of a submission already read."""
    classes = two_class_probability_task(task)
    if classes is None:
        return None
    if task.target not in sub.columns or len(sub) < MIN_ROWS:
        return None
    held = set(sub[task.target].dropna().astype(str))
    as_numbers = {c.removesuffix(".0") for c in held}  # 1.0 written for 1
    if not (held <= classes or as_numbers <= classes):
        return None
    return (
        f"the submission's {task.target!r} holds class labels ({', '.join(sorted(held))}), but "
        f"{task.metric.name} is computed from probabilities: labels score as if every prediction "
        "were certain (an AUC of two groups, a log loss that punishes each mistake in full). "
        "Write the probability of the positive class instead (e.g. "
        "model.predict_proba(X_test)[:, 1] in place of model.predict(X_test), without "
        ".astype(int) or rounding)."
    )
