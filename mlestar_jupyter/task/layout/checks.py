"""What is wrong with a table task's data before a run spends its budget on it.

Found by task folders written by other people: a training table with a header only, a test
table with no rows, a target column with empty cells (or only empty cells).  Every candidate of
such a run failed (``Input contains NaN``, ``n_samples=0``) and the run ended with "no solution
produced a valid submission" or a constant.  :func:`data_problems` says what is wrong and what
to do, so the run can refuse to start.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..errors import TaskError
from ..model import Task
from ..text_format import FEATHER_EXT
from .model import DataLayout
from .tables import read_table

_SHOWN = 5  # rows named in a message


@dataclass(frozen=True)
class DataChecks:
    """What the start of a run says of a table task's data: ``problems`` that stop it,
    ``notes`` said as warnings."""

    problems: list[str]
    notes: list[str]


def check_data(task: Task, layout: DataLayout) -> DataChecks:
    """:func:`data_problems` and :func:`data_notes` of the task, its label column read once."""
    labels = _label_values(task, layout)
    return DataChecks(_problems(task, layout, labels), _notes(task, layout, labels))


def data_problems(task: Task, layout: DataLayout) -> list[str]:
    """Problems of the training and test tables of a table task (empty: none); other layouts
    (media folders, arrays, series files) are not checked here."""
    return _problems(task, layout, _label_values(task, layout))


def _label_values(task: Task, layout: DataLayout) -> pd.DataFrame | None:
    """The training table's label column(s), ``None`` when there are none or the table cannot
    be read (the layout's own errors say so)."""
    if layout.train_table is None or layout.label_col is None and not layout.target_cols:
        return None
    labels = [layout.label_col] if layout.label_col else list(layout.target_cols)
    try:
        return read_table(task.input_dir / layout.train_table, columns=labels)
    except (OSError, ValueError, KeyError):
        return None


def _problems(task: Task, layout: DataLayout, values: pd.DataFrame | None) -> list[str]:
    """:func:`data_problems`, given the training table's label column(s) ``values``."""
    if values is None or layout.train_table is None:
        return []
    problems = []
    train = task.input_dir / layout.train_table
    labels = [layout.label_col] if layout.label_col else list(layout.target_cols)
    if values.empty:
        problems.append(
            f"{train.name}: the training table has no rows (only a header): add the labelled rows"
        )
    else:
        missing = values[values.isna().any(axis=1)]
        named = ", ".join(f"'{c}'" for c in labels)
        if len(missing) == len(values):
            problems.append(
                f"{train.name}: every row's {named} is empty: the target column has no values; "
                "check that task.json's target_col names the column that holds the labels"
            )
        elif len(missing):
            lines = ", ".join(str(int(i) + 2) for i in missing.index[:_SHOWN])  # in the file
            problems.append(
                f"{train.name}: {len(missing)} of {len(values)} rows have no {named} (lines {lines}"
                f"{' ...' if len(missing) > _SHOWN else ''}): remove them, e.g. "
                f"df.dropna(subset=[{named}]).to_csv(...), or fill them in"
            )
    if task.task_type == "classification" and layout.submission_kind == "multi_target":
        # several labels, each a column: fitted as a regression of each (its probability)
        text = [c for c in labels if c in values and values[c].dtype.kind not in "biuf"]
        if text:
            problems.append(
                f"{train.name}: the labels {', '.join(repr(c) for c in text)} hold text; a task "
                "with several label columns (multi-label) needs each as 0/1 (1: the row has "
                "the label); write them so, or name one target column in task.json"
            )
    if layout.test_table and layout.test_table != layout.train_table:
        test = task.input_dir / layout.test_table
        try:
            rows = len(read_table(test, columns=None, nrows=1))
        except (OSError, ValueError):
            rows = 1
        if rows == 0:
            problems.append(f"{test.name}: the test table has no rows: add the rows to predict")
    return problems


def macro_average_note(metric_name: str, classes: int) -> str | None:
    """What a run says when ``metric_name`` is one of the per-class metrics and the target has
    more than two classes (``None`` otherwise): F1 of three wine cultivars has no positive
    class, so it is graded as the classes' macro average."""
    from ...metrics import UnknownMetricError, get_metric

    try:  # a metric of one class against the rest (F1, F-beta, precision, recall, Jaccard)
        per_class = get_metric(metric_name).positive_class
    except UnknownMetricError:
        per_class = False
    if not per_class or classes <= 2:
        return None
    return (
        f"{metric_name} of {classes} classes is graded as their macro average (the mean over the "
        "classes)"
        + ("; the metric f1_weighted weighs each class by its rows" if metric_name == "f1" else "")
    )


def data_notes(task: Task, layout: DataLayout) -> list[str]:
    """What a table task's data means for its grading, said once at the start of a run (empty:
    nothing to say): a row index saved as a column, left out of the features; rows in groups;
    columns only one of the tables has; class labels written in more than one way; a per-class
    metric over more than two classes."""
    return _notes(task, layout, _label_values(task, layout))


def _notes(task: Task, layout: DataLayout, labels: pd.DataFrame | None) -> list[str]:
    """:func:`data_notes`, given the training table's label column(s) ``labels``."""
    notes = [
        f"{layout.train_table}: column {c!r} is a row index saved with the table (pandas writes "
        "one under a blank header unless to_csv is given index=False): it is left out of the "
        "features, as where a row sat in the file says nothing of its target"
        for c in layout.index_cols
    ]
    if layout.group_col:
        notes.append(
            f"{layout.train_table}: its rows come in groups of one {layout.group_col!r} and the "
            "test rows' are new ones: candidates are validated on whole groups held out (rows "
            "of one group alike would make a shuffled split look better than the test), never "
            f"k-folded, and {layout.group_col!r} is no feature"
        )
    notes += _columns_one_table_has(task, layout)
    if layout.ids_keep_extension:
        notes.append(_file_ids_note(task, layout))
    notes += [f"{file}: not read: {why}" for file, why in layout.unjoined_tables]
    if (
        task.task_type != "classification"
        or layout.train_table is None
        or not layout.label_col
        or labels is None
        or layout.label_col not in labels
    ):
        return notes
    variants = _written_two_ways(labels[layout.label_col])
    if variants:
        shown = "; ".join(" / ".join(repr(v) for v in group) for group in variants[:3])
        notes.append(
            f"{layout.train_table}: {len(variants)} label(s) of {layout.label_col!r} are written "
            f"in more than one way ({shown}): a model learns each spelling as a class of its "
            "own, while grading reads a label without its surrounding spaces (case counts); if "
            "they are one class, write them one way (df[col].str.strip(), and .str.lower() for "
            "case)"
        )
    note = macro_average_note(task.metric_name, int(labels[layout.label_col].nunique()))
    return [*notes, note] if note else notes


def _file_ids_note(task: Task, layout: DataLayout) -> str:
    """What is said when the submission's ids are the test files' names with their extension
    (``DataLayout.ids_keep_extension``), with the first test file's as an example."""
    media = layout.test_media
    folder = task.input_dir / (media.folder or "") if media is not None else None
    first = (
        min((p.name for p in folder.iterdir() if p.is_file()), default=None)
        if folder is not None and media is not None and media.folder and folder.is_dir()
        else None
    )
    example = f" ({first}, not {first.rsplit('.', 1)[0]})" if first and "." in first else ""
    return (
        f"the submission's ids are the test files' names with their extension{example}, as "
        "the task's description shows them; without such a description they are the names "
        "without the extension"
    )


def _columns_one_table_has(task: Task, layout: DataLayout) -> list[str]:
    """What is said of the columns only the training table or only the test table has (a
    feature measured later, a batch code added to the test rows): neither is used."""
    if (
        layout.train_table is None
        or not layout.test_table
        or layout.test_table == layout.train_table
    ):
        return []
    notes = []
    ids = {str(c).lower() for c in (layout.id_col, layout.test_id_col, *layout.index_cols) if c}
    dropped = [c for c in layout.drop_cols if c.lower() not in ids]  # the id spelled otherwise
    if dropped:
        notes.append(
            f"{layout.train_table}: column(s) {', '.join(map(repr, dropped[:6]))} are "
            f"not in {layout.test_table}: they are left out of the features (the rows to predict "
            "do not have them)"
        )
    paths = (task.input_dir / layout.train_table, task.input_dir / layout.test_table)
    if any(p.name.lower().endswith((".parquet", *FEATHER_EXT)) for p in paths):
        return notes  # a head of a parquet or feather file reads all of it: not for a note
    try:
        train, test = (read_table(p, nrows=1).columns for p in paths)
    except (OSError, ValueError, TaskError):
        return notes
    extra = [str(c) for c in test if c not in train and str(c).lower() not in ids]
    if extra:
        notes.append(
            f"{layout.test_table}: column(s) {', '.join(map(repr, extra[:6]))} are not in "
            f"{layout.train_table}: nothing is learnt from them, so they are not used"
        )
    return notes


def _written_two_ways(y: pd.Series) -> list[list[str]]:
    """The text labels of ``y`` that differ only in surrounding spaces or case (``'Class A'``,
    ``'class a'``, ``'Class A '``), each group as written, most rows first."""
    text = y.dropna()
    if text.empty or pd.api.types.is_numeric_dtype(text):
        return []
    counts = text.astype(str).value_counts()
    groups: dict[str, list[str]] = {}
    for value in counts.index:
        groups.setdefault(value.strip().casefold(), []).append(value)
    return [g for g in groups.values() if len(g) > 1]


__all__ = ["DataChecks", "check_data", "data_notes", "data_problems", "macro_average_note"]
