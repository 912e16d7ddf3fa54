"""Cross-checks of a task.json against its data, field by field.

Every ``data_location`` exists under ``input/``; the target is a column of the training table
and not of the test table; the id column is in the sample submission and the test table; the
header of ``output_format`` is the sample submission's; the metric is one the evaluator grades,
its direction the registry's, and it can be computed on the training target's values.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd

from ..metrics import Metric, get_metric
from .data import DataSurvey
from .errors import Problem
from .schema import TaskSpec


def locations(value: str) -> list[str]:
    """The names in a ``data_location`` string (``"train.csv, train_images"``)."""
    return [x.strip() for x in re.split(r"[,;]", value) if x.strip()]


def cross_check(spec: TaskSpec, data: DataSurvey) -> list[Problem]:
    """What in ``spec`` does not check out against ``data`` (empty when all does)."""
    problems: list[Problem] = []
    info = spec.data_information
    for part_name in ("train", "test"):
        part = getattr(info, part_name)
        names = locations(part.data_location)
        field = f"data_information.{part_name}.data_location"
        if not names:
            problems.append(
                Problem(
                    field,
                    f"no {part_name} data found",
                    f"add {part_name}.csv (or a {part_name}/ folder) to the data",
                )
            )
        for n in names:
            if not (data.input_dir / n).exists():
                problems.append(
                    Problem(field, f"names '{n}', which is not in input/", "fix the file name")
                )
    problems += _check_columns(spec, data)
    problems += _check_output_format(spec, data)
    problems += _check_metric(spec, data)
    return problems


def _targets(spec: TaskSpec) -> list[str]:
    return [spec.target_col] if isinstance(spec.target_col, str) else list(spec.target_col)


def _check_columns(spec: TaskSpec, data: DataSurvey) -> list[Problem]:
    out: list[Problem] = []
    targets = _targets(spec)
    if not targets:
        out.append(Problem("target_col", "missing", "pass --target COLUMN"))
    train, test, sample = data.train_table, data.test_table, data.sample_table
    for t in targets:
        if train is not None and t not in train.columns:
            out.append(
                Problem(
                    "target_col",
                    f"'{t}' is not a column of {train.path} ({', '.join(train.columns[:12])})",
                    "pass --target with one of its columns",
                )
            )
        if test is not None and t in test.columns:
            out.append(
                Problem(
                    "target_col",
                    f"'{t}' is a column of {test.path} too, so it cannot be the target",
                    "pass --target with the column only the training table has",
                )
            )
    if spec.id_col:
        for table in (sample, test):
            if table is not None and spec.id_col not in table.columns:
                out.append(
                    Problem(
                        "id_col",
                        f"'{spec.id_col}' is not a column of {table.path}",
                        "pass --id-column with the submission's first column",
                    )
                )
    return out


def _check_output_format(spec: TaskSpec, data: DataSurvey) -> list[Problem]:
    if data.sample is None:
        return [
            Problem(
                "sample_submission",
                "no sample submission in the data (the submission's columns are unknown)",
                "add the competition's sample_submission.csv (header: id column, then the "
                "predicted columns) to the data",
            )
        ]
    if data.sample_table is None:
        return []  # not a table (e.g. a JSON sample): nothing to compare
    header = spec.output_format.strip().splitlines()[0] if spec.output_format.strip() else ""
    cols = [c.strip() for c in header.split(",")]
    if cols != list(data.sample_table.columns):
        return [
            Problem(
                "output_format",
                f"header '{header}' differs from {data.sample}'s "
                f"'{','.join(data.sample_table.columns)}'",
                "take the header from the sample submission",
            )
        ]
    return []


def _check_metric(spec: TaskSpec, data: DataSurvey) -> list[Problem]:
    metric = get_metric(spec.metric.metric_name)  # the schema already refused unknown names
    out: list[Problem] = []
    if spec.metric.direction != metric.direction:
        out.append(
            Problem(
                "metric.direction",
                f"{metric.name} is {metric.direction}d, not {spec.metric.direction}d",
                f"set it to {metric.direction}",
            )
        )
    targets = _targets(spec)
    train = data.train_table
    if train is None or not targets or targets[0] not in train.columns:
        return out
    problem = metric_problem(metric, train.head[targets[0]])
    if problem:
        out.append(Problem("metric", problem, "check the Evaluation page and the target"))
    return out


def metric_problem(metric: Metric, y: pd.Series, *, given: bool = False) -> str | None:
    """Why ``metric`` cannot grade predictions of the target ``y`` (None when it can): it is
    computed on a perfect prediction built from ``y``'s first rows.  A metric of classes for
    many distinct numbers is refused; with ``given`` (the user's ``--metric`` for a target of
    their own table, not a competition's page) whole numbers count too, from 50 distinct values
    and a quarter of the rows (an integer price or count graded by accuracy or kappa)."""
    y = y.dropna()
    if len(y) < 2:
        return None
    name = str(y.name)
    numeric = pd.api.types.is_numeric_dtype(y)
    if metric.kind != "regression":
        # many distinct numbers, or more than a few with fractions: amounts, not classes
        counted = numeric and not pd.api.types.is_bool_dtype(y)
        distinct = y.nunique() if counted else 0
        fractions = counted and bool((y.astype(float) % 1 != 0).any())
        if (
            (fractions and distinct > 20)
            or (pd.api.types.is_float_dtype(y) and distinct > max(20, len(y) // 2))
            or (given and distinct > max(50, len(y) // 4))
        ):
            return (
                f"{metric.name} grades classes, but '{name}' holds {y.nunique()} distinct numbers "
                f"in its first {len(y)} rows (a regression target: pass a metric of numbers, "
                "such as rmse or mae)"
            )
    elif not numeric:
        sample = ", ".join(repr(v) for v in y.astype(str).unique()[:3])
        return f"{metric.name} needs numbers, but '{name}' holds text ({sample})"
    if metric.name == "mape" and (y == 0).any():
        return (
            f"mape divides each error by the target, and {int((y == 0).sum())} of the first "
            f"{len(y)} rows of '{name}' are 0: those rows would decide every score; pass a "
            "metric such as mae or rmse, or leave out the rows whose target is 0"
        )
    classes = np.sort(y.astype(str).unique())
    pred: Any = y
    if metric.needs_proba:
        if len(classes) < 2:
            return None
        onehot = (y.astype(str).to_numpy()[:, None] == classes[None, :]).astype(float)
        pred = onehot[:, 1] if len(classes) == 2 and metric.name == "roc_auc" else onehot
        y = y.astype(str)
    try:
        value = metric(y, pred)
    except Exception as e:  # noqa: BLE001 - any failure means the evaluator could not grade it
        return f"{metric.name} cannot be computed on '{name}' ({type(e).__name__}: {e})"
    if not math.isfinite(value):
        return f"{metric.name} is not finite on '{name}'"
    return None
