"""One probability column per class where the sample submission has a single prediction column.

An outsider's folder: three wine cultivars, "Metric: log loss" in its README, and a sample
submission ``id,cultivar``.  Log loss of three classes grades a probability for each class, which
one column cannot hold: the notebooks wrote one class's probability in it, the grader took that
for a binary log loss, and nobody was told.  As Kaggle's multi-class log-loss competitions ask
(and as a task without a sample already gets: ``layout.tables.class_probability_columns``), the
submission then has one probability column per class, named by the class (``id,0,1,2``), in the
place of the sample's single column.  The task's notices say so (a run journals them as
warnings, the command line prints them), its output format shows the new header, and the run's
checks and the grader judge that header (``class_header``).  Two classes keep the one column:
the positive class's probability.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .errors import LayoutError
from .model import Task

_SHOWN = 8  # columns named in the notice


def sample_class_columns(task: Task) -> tuple[str, ...]:
    """The classes of the training target, as the submission's columns, when ``task``'s sample
    submission has one prediction column and its metric grades probabilities of more than two
    classes; empty otherwise (the sample's shape stands)."""
    from ..metrics import UnknownMetricError, get_metric
    from .layout.tables import class_order, label_values, read_head, table_for

    path = task.sample_submission_path
    if path is None or not path.is_file() or path.suffix.lower() not in (".csv", ".tsv"):
        return ()
    if task.task_type != "classification" or len(task.target_cols) != 1:
        return ()
    try:
        if get_metric(task.metric_name).kind != "probability":
            return ()
    except UnknownMetricError:
        return ()
    try:
        header = [str(c) for c in read_head(path, n=1).columns]
    except LayoutError:
        return ()
    if len(_prediction_columns(task, header)) != 1:
        return ()
    train = table_for(task, "train")
    try:
        labels = label_values(task.input_dir / train, task.target) if train else []
    except (OSError, ValueError, KeyError, LayoutError):
        return ()
    return class_order(labels) if len(labels) > 2 else ()


def class_header(task: Task, header: Sequence[str]) -> list[str]:
    """The submission's header, given the sample submission's ``header``: its single prediction
    column replaced by ``task.class_columns`` (``id,cultivar`` -> ``id,0,1,2``); the header as
    it is when the task has none."""
    columns = [str(c) for c in header]
    pred = _prediction_columns(task, columns)
    if not task.class_columns or len(pred) != 1:
        return columns
    at = columns.index(pred[0])
    return [*columns[:at], *task.class_columns, *columns[at + 1 :]]


def with_class_columns(task: Task) -> Task:
    """``task`` with its ``class_columns`` (``sample_class_columns``), a notice saying why its
    sample's single column was replaced (``class_notices``), and its output format showing the
    new header; ``task`` itself when its sample's shape stands."""
    classes = sample_class_columns(task)
    if not classes or task.sample_submission_path is None:
        return task
    from .layout.tables import read_head
    from .text_format import read_args

    path = task.sample_submission_path
    sample = read_head(path, n=3)
    task = replace(task, class_columns=classes)
    new = class_header(task, [str(c) for c in sample.columns])
    args = read_args(path)
    sep, point = str(args.get("sep", ",")), str(args.get("decimal", "."))
    share = f"{1 / len(classes):.4g}".replace(".", point)
    rows = [
        sep.join(str(row[c]) if c not in classes else share for c in new)
        for _, row in sample.reindex(columns=new).iterrows()
    ]
    return replace(
        task,
        notices=(*task.notices, *class_notices(task)),
        output_format="\n".join([sep.join(new), *rows, "..."]),
    )


def class_notices(task: Task) -> tuple[str, ...]:
    """What the user is told of ``task.class_columns``: the sample submission's one column
    replaced by one probability column per class, and why (empty when the task has none).  A
    caller that replaces a loaded task's notices keeps these."""
    path = task.sample_submission_path
    if not task.class_columns or path is None:
        return ()
    from .layout.tables import read_head

    header = [str(c) for c in read_head(path, n=1).columns]
    column = ", ".join(repr(c) for c in _prediction_columns(task, header))
    new = class_header(task, header)
    shown = new if len(new) <= _SHOWN else [*new[: _SHOWN - 1], "..."]
    return (
        f"{path.name} has one prediction column, {column}, but {task.metric_name} of "
        f"{len(task.class_columns)} classes grades a probability for each class, which one "
        "column cannot hold: the submission has one probability column per class instead, "
        f"named by the class ({','.join(shown)}), each row summing to 1, as Kaggle's "
        "multi-class log-loss competitions ask; for one column of predicted classes, name a "
        "metric of labels (e.g. accuracy)",
    )


def _prediction_columns(task: Task, header: Sequence[str]) -> list[str]:
    """The prediction columns of a sample submission's ``header``: all but the id (the first
    column when the id has another name), as ``layout.tables.submission_columns`` reads them."""
    cols = [c for c in header if c != task.id_col]
    if len(cols) == len(header) and len(header) > 1:
        cols = list(header[1:])
    return cols


__all__ = ["class_header", "class_notices", "sample_class_columns", "with_class_columns"]
