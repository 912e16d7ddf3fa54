"""What a task's target values say: whether they are classes, and whether the metric a user
named (``--metric``) can grade them.  Shared by the readers that build a task from tables alone
(a dataset, a bare competition download)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics import Metric, UnknownMetricError, get_metric
from .checks import metric_problem

MAX_CLASSES_SHARE = 0.05  # an integer target with few distinct values (<= 5 % of rows, <= 20)
_CHECKED_ROWS = 500  # of the target, when a named metric is tried on it


def looks_like_classes(y: pd.Series) -> bool:
    """Whether a target's values are classes: text or booleans, or a few whole numbers."""
    if not pd.api.types.is_numeric_dtype(y) or pd.api.types.is_bool_dtype(y):
        return True
    values = y.dropna()
    whole = bool(np.all(np.asarray(values, dtype=float) % 1 == 0))
    n = values.nunique()
    return whole and n <= 20 and n <= max(2, MAX_CLASSES_SHARE * len(values))


class GivenMetricError(ValueError):
    """The metric the user named is unknown or cannot grade the target; the message says which
    and ends with what to pass instead."""


def given_metric(given: str, y: pd.Series | None) -> Metric:
    """The metric the user named, once it is known and can grade the target ``y`` (its first
    rows; ``None``: no target to try it on).  Raises :class:`GivenMetricError`."""
    try:
        m = get_metric(given)
    except UnknownMetricError as e:
        raise GivenMetricError(f"{e} (--metric)") from None
    problem = metric_problem(m, y.head(_CHECKED_ROWS), given=True) if y is not None else None
    if problem:
        raise GivenMetricError(f"--metric {given}: {problem}")
    return m


__all__ = ["MAX_CLASSES_SHARE", "GivenMetricError", "given_metric", "looks_like_classes"]
