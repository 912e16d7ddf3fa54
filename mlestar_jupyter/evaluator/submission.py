"""Check a submission's shape against the task's sample submission and answers.

``GradingSpec`` says what a valid submission looks like for one task (columns, ids, value
kinds, label set).  ``check_submission`` returns ``None`` for a valid one, else the exact reason,
e.g. ``"missing 12 ids, first: 1043"``; every reason names what to fix.  The values themselves
are checked by ``values.check_values`` (the same check as the agent's final step).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..metrics import AUC_AVERAGES, get_metric, multiclass_auc, ranked_labels
from ..task import Task
from ..task.layout.tables import read_text_table
from .errors import GradingError
from .values import Mode, ValueSpec, check_values, norm_label
from .values import label_key as _label_key

__all__ = [
    "GradingSpec",
    "Mode",
    "align",
    "check_submission",
    "is_finite",
    "norm_label",
    "read_csv_str",
    "score_aligned",
]


def read_csv_str(path: Path, args: Mapping[str, str] | None = None) -> pd.DataFrame:
    """A CSV with every cell as a string (empty cells NaN), so ids and labels keep their text;
    read with ``args`` (``read_csv`` keywords), else with the separator and decimal mark the
    file is written with (``read_args``: ``;`` and decimal commas too, whose numbers are given
    a decimal point)."""
    return read_text_table(path, args)


def _numeric(values: pd.Series) -> pd.Series:
    return pd.to_numeric(values, errors="coerce")


@dataclass(frozen=True)
class GradingSpec:
    """What a submission for one task must look like, and how it is scored."""

    task_id: str
    metric_name: str
    direction: str
    mode: Mode
    id_col: str | None
    columns: tuple[str, ...]  # the sample submission's columns, id first
    pred_cols: tuple[str, ...]  # the submission's prediction columns
    answer_cols: tuple[str, ...]  # the answers' target columns
    labels: tuple[str, ...] = ()  # known label set (classification)
    positive_label: str | None = None
    values: ValueSpec | None = field(default=None, compare=False)  # what each value must be

    @classmethod
    def build(cls, task: Task, sample: pd.DataFrame, answers: pd.DataFrame) -> GradingSpec:
        """Derive the spec from the task, its sample submission and its answers."""
        metric = get_metric(task.metric_name)
        raw = _raw_spec(task)
        columns = tuple(str(c) for c in sample.columns)
        id_col = (
            task.id_col if task.id_col in columns else (columns[0] if len(columns) > 1 else None)
        )
        pred_cols = tuple(c for c in columns if c != id_col)
        if id_col is not None and id_col not in answers.columns:
            raise GradingError(
                f"{task.answers_path}: answers have no id column {id_col!r}; columns are {list(answers.columns)}"
            )
        if set(pred_cols) <= set(answers.columns):
            answer_cols = pred_cols
            if task.task_type == "regression" or metric.kind == "regression":
                mode: Mode = "regression"
            elif metric.kind == "ranked":
                mode = "ranked"
            elif metric.needs_proba:
                mode = "proba_single"
            else:
                mode = "label"
        elif metric.needs_proba:
            label_col = next((t for t in task.target_cols if t in answers.columns), None)
            others = [c for c in answers.columns if c != id_col]
            if label_col is None and len(others) == 1:
                label_col = others[0]
            if label_col is None:
                raise GradingError(
                    f"{task.answers_path}: cannot tell which answers column holds the labels for probability columns {list(pred_cols)}; set target_col in task.json"
                )
            mode, answer_cols = "proba_columns", (label_col,)
        else:
            missing = [c for c in pred_cols if c not in answers.columns]
            raise GradingError(
                f"{task.answers_path}: answers lack the sample submission's columns {missing}; rebuild the task or fix its answers"
            )
        labels: tuple[str, ...] = ()
        pos: str | None = None
        if mode != "regression":
            given = raw.get("labels")
            values = (
                given
                if given
                else answers[answer_cols[0]].dropna().map(norm_label).unique().tolist()
            )
            labels = tuple(sorted({norm_label(v) for v in values}, key=_label_key))
            if mode == "proba_columns":
                labels = tuple(
                    sorted({*labels, *(norm_label(c) for c in pred_cols)}, key=_label_key)
                )
            named = (  # task.json's positive_label (or positive_class, pos_label)
                task.positive_label
                if task.positive_label is not None
                else raw.get("positive_label")
            )
            pos = norm_label(named) if named is not None else (labels[-1] if labels else None)
        return cls(
            task.id,
            metric.name,
            task.direction,
            mode,
            id_col,
            columns,
            pred_cols,
            answer_cols,
            labels,
            pos,
            _value_spec(task, mode, columns, pred_cols, labels, bool(raw.get("labels"))),
        )


def _value_spec(
    task: Task,
    mode: Mode,
    columns: tuple[str, ...],
    pred_cols: tuple[str, ...],
    labels: tuple[str, ...],
    labels_given: bool,
) -> ValueSpec:
    """What the values must be; a label is a class of the training target or of the answers."""
    metric = get_metric(task.metric_name)
    if mode not in ("label", "ranked"):
        return ValueSpec(metric.name, mode, pred_cols, nonnegative=metric.nonnegative)
    spec = ValueSpec(metric.name, mode, pred_cols, k=metric.k)
    if not labels_given:  # task.json's own label list is the whole set
        from_train = ValueSpec.for_task(task, columns)
        if from_train.mode == mode:
            spec = from_train
    return spec.with_classes({c: labels for c in pred_cols})


def _raw_spec(task: Task) -> dict[str, Any]:
    from ..task.spec_file import raw_spec

    return raw_spec(task.root)


def _first(ids: pd.Series, mask: pd.Series | np.ndarray) -> str:
    hit = ids[np.asarray(mask)]
    return str(hit.iloc[0]) if len(hit) else "?"


def check_submission(sub: pd.DataFrame, spec: GradingSpec, answers: pd.DataFrame) -> str | None:
    """``None`` when ``sub`` is a valid submission, else the reason it is not (all-string frames)."""
    cols = [str(c) for c in sub.columns]
    missing_cols = [c for c in spec.columns if c not in cols]
    extra_cols = [c for c in cols if c not in spec.columns]
    if missing_cols or extra_cols:
        parts = []
        if missing_cols:
            parts.append(f"missing columns: {', '.join(missing_cols)}")
        if extra_cols:
            parts.append(f"unexpected columns: {', '.join(extra_cols)}")
        return "; ".join(parts) + f" (expected {', '.join(spec.columns)})"
    if len(sub) == 0:
        return f"has no rows, expected {len(answers)}"
    if spec.id_col is not None:
        ids = sub[spec.id_col]
        if ids.isna().any():
            return f"{int(ids.isna().sum())} rows have no {spec.id_col}"
        sid = ids.map(norm_label)
        want = answers[spec.id_col].map(norm_label)
        want_set, got_set = set(want), set(sid)
        dup = sid.duplicated()
        problems = []
        if dup.any():
            problems.append(f"{int(dup.sum())} duplicate ids, first: {_first(sid, dup)}")
        miss = want[~want.isin(got_set)]
        if len(miss):
            problems.append(f"missing {len(miss)} ids, first: {miss.iloc[0]}")
        extra = ~sid.isin(want_set)
        if extra.any():
            problems.append(f"{int(extra.sum())} unexpected ids, first: {_first(sid, extra)}")
        if problems:
            if len(sub) != len(answers) and (dup.any() or extra.any()):
                problems.insert(0, f"has {len(sub)} rows, expected {len(answers)}")
            return "; ".join(problems)
    else:
        sid = pd.Series([str(i) for i in range(len(sub))])
        if len(sub) != len(answers):
            return f"has {len(sub)} rows, expected {len(answers)}"
    values = spec.values or ValueSpec(
        spec.metric_name, spec.mode, spec.pred_cols, k=get_metric(spec.metric_name).k
    ).with_classes(
        {c: spec.labels for c in spec.pred_cols} if spec.mode in ("label", "ranked") else {}
    )
    return check_values(sub, values, sid)


def align(sub: pd.DataFrame, spec: GradingSpec, answers: pd.DataFrame) -> pd.DataFrame:
    """The submission's rows in the answers' order (a valid submission only)."""
    if spec.id_col is None:
        return sub.reset_index(drop=True)
    s = sub.assign(_k=sub[spec.id_col].map(norm_label)).set_index("_k")
    keys = answers[spec.id_col].map(norm_label)
    return s.loc[keys.tolist()].reset_index(drop=True)


def score_aligned(sub: pd.DataFrame, spec: GradingSpec, answers: pd.DataFrame) -> float:
    """The metric's value for a valid submission whose rows are in the answers' order."""
    metric = get_metric(spec.metric_name)
    ans = answers.reset_index(drop=True)
    if spec.mode == "regression":
        y = np.column_stack([_numeric(ans[c]).to_numpy(float) for c in spec.answer_cols])
        p = np.column_stack([_numeric(sub[c]).to_numpy(float) for c in spec.pred_cols])
        if y.shape[1] == 1:
            y, p = y[:, 0], p[:, 0]
        return metric(y, p)
    if len(spec.answer_cols) > 1 and spec.mode in ("proba_single", "label"):
        # several label columns (multi-label): each graded alone, then their mean, as Kaggle's
        # "mean column-wise ROC AUC" is (was: the first column alone)
        return float(
            np.mean(
                [
                    score_aligned(sub, replace(spec, pred_cols=(p,), answer_cols=(a,)), answers)
                    for p, a in zip(spec.pred_cols, spec.answer_cols, strict=True)
                ]
            )
        )
    y_lab = ans[spec.answer_cols[0]].map(norm_label)
    if spec.mode == "ranked":
        ranked = sub[spec.pred_cols[0]].map(lambda s: [norm_label(t) for t in ranked_labels(s)])
        return metric(y_lab.to_numpy(), ranked.to_list())
    if spec.mode == "label":
        p_lab = sub[spec.pred_cols[0]].map(norm_label)
        two = len(set(spec.labels) | set(y_lab)) <= 2
        if metric.positive_class and two:  # F1, F-beta, precision, recall, Jaccard: the positive
            return metric(
                (y_lab == spec.positive_label).astype(int),
                (p_lab == spec.positive_label).astype(int),
            )
        if all(_label_key(v)[0] == 0 for v in spec.labels):
            return metric(y_lab.astype(float).to_numpy(), p_lab.astype(float).to_numpy())
        return metric(y_lab.to_numpy(), p_lab.to_numpy())
    if spec.mode == "proba_single":
        y = (y_lab == spec.positive_label).astype(int).to_numpy()
        p = _numeric(sub[spec.pred_cols[0]]).to_numpy(float)
        if metric.name == "log_loss":
            p = np.clip(p, 1e-15, 1 - 1e-15)
            return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
        return metric(y, p)
    # proba_columns: one probability column per class, rows normalised as Kaggle does
    classes = [norm_label(c) for c in spec.pred_cols]
    index = {c: i for i, c in enumerate(classes)}
    unknown = sorted(set(y_lab) - set(index))
    if unknown:
        raise GradingError(f"answers hold labels with no probability column: {unknown[:5]}")
    y = y_lab.map(index).to_numpy(int)
    P = np.column_stack([_numeric(sub[c]).to_numpy(float) for c in spec.pred_cols])
    P = np.clip(P, 1e-15, None)
    P = P / P.sum(axis=1, keepdims=True)
    if metric.name == "log_loss":
        return float(-np.mean(np.log(np.clip(P[np.arange(len(y)), y], 1e-15, 1.0))))
    aucs = (*AUC_AVERAGES, "average_precision", "gini")
    if metric.name in aucs and P.shape[1] == 2:
        # the positive class's column, wherever the sample submission puts it (average
        # precision is not the same of either class: was the second column's)
        column = index.get(spec.positive_label or "", 1)
        return metric((y == column).astype(int), P[:, column])
    if metric.name in (*AUC_AVERAGES, "gini"):  # of every class column, answered or not
        labels = list(range(P.shape[1]))
        auc = multiclass_auc("roc_auc" if metric.name == "gini" else metric.name, y, P, labels)
        return 2 * auc - 1 if metric.name == "gini" else auc
    return metric(y, P)


def is_finite(x: float | None) -> bool:
    """Whether ``x`` is a real, finite number."""
    return x is not None and math.isfinite(x)
