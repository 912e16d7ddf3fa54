"""How a regression's target is best fitted: as it is, or on ``log(1 + y)``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..metrics import get_metric
from ..task import Task, TaskError
from ..task.layout import DataLayout
from ..task.layout.tables import read_table


def log_target_mode(task: Task, layout: DataLayout) -> str:
    """ "default" on log(1 + y) for RMSLE / MSLE, "first" (the first strategy of the train block)
    for RMSE / MSE on a positive target with a long right tail (skewness > 1), else "" (as it is)."""
    metric = get_metric(task.metric_name).name
    single = layout.submission_kind != "multi_target" and layout.label_col
    if layout.is_classification or not single:
        return ""
    if metric in ("rmsle", "msle"):
        return "default"
    if metric in ("rmse", "mse") and layout.train_table:
        y = _target_sample(task.input_dir / layout.train_table, single)
        if len(y) >= 20 and y.min() >= 0 and y.skew() > 1:
            return "first"
    return ""


def _target_sample(path: Path, column: str, n: int = 20_000) -> pd.Series:
    """Up to ``n`` numeric values of the training table's ``column`` (empty when unreadable)."""
    try:
        values = read_table(path, columns=[column], nrows=n)[column]
    except (OSError, ValueError, KeyError, TaskError):
        return pd.Series(dtype=float)
    return pd.to_numeric(values, errors="coerce").dropna()
