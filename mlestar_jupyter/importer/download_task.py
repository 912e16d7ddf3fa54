"""A competition's tables as downloaded, with nothing saying what the task is.

``train.csv``, ``test.csv`` and ``sample_submission.csv`` in a folder (Kaggle's "Download All"):
a run without a notebook refused it ("no description.md: write one") and refused ``--metric``
and ``--target`` too ("they correct what is read from a notebook"), so the most common folder
an outsider has could not be run from the command line (hunt, session 26).

:func:`download_task` makes the task in the run's folder instead, as a dataset's held-out task
is made: a ``task.json`` beside an ``input/`` of links to the downloaded files.  The sample
submission names the id and the columns to predict; the metric is the user's (``--metric``),
else one that fits the sample (a probability per class: log loss; a probability of one class:
ROC AUC; labels: accuracy; numbers: RMSE), said in a notice that names ``--metric``.  The
user's folder is not written to.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..metrics import get_metric, is_classification_metric
from ..task.column_names import find_column
from ..task.errors import TaskFormatError
from ..task.infer import (
    complete_files,
    find_kaggle_description,
    has_mlebench_files,
    metric_from_text,
    submission_columns,
    table_header,
)
from ..task.layout.links import link_entries
from ..task.layout.tables import read_table
from ..task.page_text import description_text
from ..task.task_folder import has_task_description
from .target_values import GivenMetricError, given_metric, looks_like_classes


class DownloadTaskError(TaskFormatError):
    """A downloaded folder that cannot become a task as it is (the message says what to do)."""


@dataclass(frozen=True)
class DownloadTask:
    """The task folder :func:`download_task` wrote and what it inferred (to journal)."""

    root: Path
    notices: tuple[str, ...]


def is_bare_download(folder: str | Path) -> bool:
    """Whether ``folder`` holds a competition's training table and sample submission but
    nothing that describes the task (no task.json or description, and no README naming the
    metric)."""
    root = Path(folder).expanduser().resolve()
    return (
        root.is_dir()
        and has_mlebench_files(root)
        and not has_task_description(root)
        and not _described_metric(root)
    )


def _described_metric(root: Path) -> bool:
    """Whether the download's own text (a README.md or ``data_description.txt`` beside its
    tables: ``find_kaggle_description``) names the metric: the folder is then read as a
    competition folder that describes itself (hunt F, session 28: a README saying "F1 score of
    the positive class" was passed over, accuracy assumed, and a folder of class-named image
    folders was refused)."""
    found = find_kaggle_description(root)
    if found is None:
        return False
    try:
        metric_from_text(found, description_text(found))
    except (TaskFormatError, OSError):
        return False
    return True


def download_task(
    folder: Path, out: Path, *, target: str | None = None, metric: str | None = None
) -> DownloadTask:
    """Write the task of the downloaded ``folder`` to ``out`` (a new folder): see the module
    docstring.  ``target`` picks one of the sample's columns to predict."""
    folder = Path(folder).expanduser().resolve()
    files = complete_files(folder, [])
    by_role = {f.role: f.path for f in files}
    sample, train, test = (by_role.get(r) for r in ("sample_submission", "train", "test"))
    if sample is None or train is None:
        raise DownloadTaskError(
            folder, "needs a training table and a sample submission (the rows to predict)"
        )
    id_col, targets = submission_columns(folder / sample)
    train_cols = table_header(folder / train) if (folder / train).is_file() else []
    if target is not None:
        named = [c for c in [find_column(target.strip(), targets)] if c is not None]
        if not named:
            raise DownloadTaskError(
                folder / sample,
                f"has no column {target!r} (--target): it names what is predicted, "
                f"{', '.join(targets)}",
            )
        targets = named
    notices = [
        f"{folder.name}: no task.json or description.md: the task is read from its tables: "
        f"training table {train}, rows to predict {test or sample}, id {id_col!r}, "
        f"predicting {', '.join(map(repr, targets))} (the sample submission's columns)"
    ]
    labels = _training_target(folder / train, targets, train_cols)
    name, why = _metric(metric, folder / sample, targets, train_cols, labels)
    if why:
        notices.append(why)
    m = get_metric(name)
    task_type = "classification" if is_classification_metric(m.name) else "regression"
    if out.exists():
        raise DownloadTaskError(
            out, "already exists: pass another --out, or continue that run with 'mlestar resume'"
        )
    link_entries(folder, out / "input")
    spec = {
        "id": folder.name,
        "task_type": task_type,
        "goal_description": (
            f"Predict {', '.join(map(repr, targets))} for each row of {test or 'the test rows'}, "
            f"trained on {train} (a competition's tables without their description)."
        ),
        "metric": {"metric_name": m.name, "direction": m.direction},
        "target_col": targets[0] if len(targets) == 1 else targets,
        "id_col": id_col,
        "data_information": {
            "data_type": "Tabular",
            "train": {"data_location": train, "data_description": "the labelled rows"},
            "test": {"data_location": test or "", "data_description": "the rows to predict"},
        },
        "output_format": (folder / sample).read_text(encoding="utf-8", errors="replace")[:300],
    }
    (out / "task.json").write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    return DownloadTask(out, tuple(notices))


def _training_target(train: Path, targets: list[str], train_cols: list[str]) -> pd.Series | None:
    """The training table's column of the (one) target, when it has one (named as the sample
    names it, or spelled otherwise: the digit recognizer's ``label`` for the sample's ``Label``)."""
    if len(targets) != 1:
        return None
    column = find_column(targets[0], train_cols, loose=True)
    if column is None:
        return None
    try:
        return read_table(train, [column])[column]
    except (OSError, ValueError, TypeError):
        return None


def _metric(
    given: str | None,
    sample: Path,
    targets: list[str],
    train_cols: list[str],
    labels: pd.Series | None,
) -> tuple[str, str]:
    """The metric's name and, when it was not given, a notice of why it was chosen."""
    if given is not None:
        try:
            return given_metric(given, labels).name, ""
        except GivenMetricError as e:
            raise DownloadTaskError(sample, str(e)) from None
    values = _sample_values(sample, targets)
    per_class = len(targets) > 1 and not any(
        find_column(t, train_cols, loose=True) for t in targets
    )
    fractions = values is not None and bool(((values > 0) & (values < 1)).any())
    if per_class:
        name, why = "log_loss", "one probability column per class"
    elif labels is not None and looks_like_classes(labels.dropna()):
        name, why = (
            ("roc_auc", "a probability of one class")
            if fractions and labels.nunique() == 2
            else ("accuracy", f"labels of {labels.nunique()} classes")
        )
    else:
        name, why = "rmse", "numbers"
    return name, (
        f"no description says how the task is graded: {name} is assumed (the sample submission "
        f"holds {why}); pass --metric NAME to grade by the competition's own metric"
    )


def _sample_values(sample: Path, targets: list[str]) -> pd.Series | None:
    """The sample submission's values of the target columns as numbers (``None``: text)."""
    try:
        frame = read_table(sample, nrows=200)
    except (OSError, ValueError):
        return None
    values = pd.to_numeric(frame[targets].stack(), errors="coerce")
    return values if values.notna().all() else None


__all__ = ["DownloadTask", "DownloadTaskError", "download_task", "is_bare_download"]
