"""What a submission's values must be: the task's classes, probabilities, or numbers.

A submission can have the right columns and ids and still be worthless: probabilities in a label
column, encoded class indices where the task wants class names, negative values for RMSLE.
``ValueSpec`` says what every prediction column must hold, from the metric's kind and the task's
training target; ``check_values`` returns ``None`` when the values fit, else one message naming
the column, an offending value (with its id) and what was expected.

Both checks use it: the agent's final step (``agent.submission``, built with
``ValueSpec.for_task`` from the training data alone) and the grader
(``submission.check_submission``, whose spec also knows the answers' labels).

- ``label``: every value is one of the classes of the training target (as text, so ``red soil``
  stays text; ``3.0`` matches the class ``3``).
- ``proba_single``: numbers in [0, 1] (one probability per column, e.g. the positive class).
- ``proba_columns``: one column per class: numbers in [0, 1] whose rows sum to 1.
- ``regression``: finite numbers, >= 0 where the metric takes logs (RMSLE, MSLE).
- ``ranked``: up to k classes of the training target per cell, most likely first, separated by
  spaces (MAP@k).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from ..metrics import get_metric, ranked_labels
from ..task import Task
from ..task.layout.tables import read_args

Mode = Literal["label", "proba_single", "proba_columns", "regression", "ranked"]

SUM_TOLERANCE = 0.01  # how far a row of per-class probabilities may sum from 1
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet")
_SHOWN = 12  # classes named in a message


def norm_label(v: object) -> str:
    """A label as text: stripped, with integral floats written as ints (``"1.0"`` -> ``"1"``)."""
    s = str(v).strip()
    if re.fullmatch(r"[+-]?\d+\.0*", s):
        return s.split(".")[0].lstrip("+") or "0"
    return s


def label_key(s: str) -> tuple[int, float, str]:
    """Sort key: numeric labels by value first, then text labels alphabetically."""
    try:
        return (0, float(s), s)
    except ValueError:
        return (1, 0.0, s)


@dataclass(frozen=True)
class ValueSpec:
    """What the values of a submission's prediction columns must be."""

    metric_name: str
    mode: Mode
    pred_cols: tuple[str, ...]
    # label and ranked modes: each column's classes (normalised text); a column left out is
    # not checked
    classes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    nonnegative: bool = False  # regression: the metric takes logs (RMSLE, MSLE)
    k: int | None = None  # ranked: the classes a cell lists (at most)

    @classmethod
    def for_task(cls, task: Task, columns: Sequence[str], *, from_sample: bool = True) -> ValueSpec:
        """The spec for ``task`` whose submission has ``columns``, from its training data.

        Reads the training table's header and, for a label metric, only its target column(s).
        ``from_sample``: ``columns`` is a sample submission's header, whose first column is the id
        when the task names none; otherwise the columns were built from the task (its id when it
        has one, then its prediction columns) and nothing is guessed.
        """
        metric = get_metric(task.metric_name)
        cols = [str(c) for c in columns]
        if task.id_col in cols:
            id_col: str | None = task.id_col
        else:
            id_col = cols[0] if from_sample and len(cols) > 1 else None
        pred = tuple(c for c in cols if c != id_col)
        table = train_table(task, (*pred, *task.target_cols))
        header = table_header(table) if table else []
        if metric.kind == "regression" or task.task_type == "regression":
            return cls(metric.name, "regression", pred, nonnegative=metric.nonnegative)
        if metric.kind == "probability":
            per_class = len(pred) > 1 and not set(pred) <= set(header)
            return cls(metric.name, "proba_columns" if per_class else "proba_single", pred)
        sources = {
            c: c if c in header else task.target
            for c in pred
            if c in header or (len(pred) == 1 and task.target in header)
        }
        classes: dict[str, tuple[str, ...]] = {}
        if table is not None and sources:
            found = read_classes(table, sorted(set(sources.values())))
            classes = {c: found[src] for c, src in sources.items() if found.get(src)}
        if metric.kind == "ranked":
            return cls(metric.name, "ranked", pred, classes, k=metric.k)
        return cls(metric.name, "label", pred, classes)

    def with_classes(self, extra: Mapping[str, Iterable[str]]) -> ValueSpec:
        """This spec with more classes allowed per column (the grader adds the answers' labels)."""
        merged = {
            c: sort_labels({*self.classes.get(c, ()), *(norm_label(v) for v in extra.get(c, ()))})
            for c in {*self.classes, *extra}
        }
        return ValueSpec(
            self.metric_name, self.mode, self.pred_cols, merged, self.nonnegative, self.k
        )

    def describe(self) -> str:
        """What the prediction columns must hold, as one sentence for a prompt."""
        cols = ", ".join(f"`{c}`" for c in self.pred_cols)
        if self.mode == "regression":
            sign = " and >= 0 (the metric takes logs)" if self.nonnegative else ""
            return f"{cols}: finite numbers{sign}."
        if self.mode == "proba_single":
            return f"{cols}: probabilities, numbers in [0, 1] (the metric is {self.metric_name})."
        if self.mode == "proba_columns":
            return f"{cols}: one probability column per class; numbers in [0, 1], each row summing to 1."
        if self.mode == "ranked":
            listed = next((self.classes[c] for c in self.pred_cols if self.classes.get(c)), ())
            of = f" ({_shown(listed)})" if listed else ""
            return (
                f"{cols}: the {self.k} most likely classes of the training target{of}, most likely "
                f"first, separated by spaces in one cell (e.g. the top {self.k} of "
                f"classes_[argsort(-probabilities)]); the metric is {self.metric_name}."
            )
        parts = []
        for c in self.pred_cols:
            known = self.classes.get(c)
            if known:
                kind = "text" if any(label_key(v)[0] for v in known) else "numbers"
                parts.append(
                    f"`{c}` holds the predicted class itself, one of the training classes "
                    f"({_shown(known)}) written as {kind}: not probabilities, not encoded indices "
                    "(invert a LabelEncoder with inverse_transform, or take classes_[argmax])."
                )
            else:
                parts.append(f"`{c}` holds the predicted class label, not a probability.")
        return " ".join(parts)


# --------------------------------------------------------------------------- training data
def train_table(task: Task, columns: Iterable[str]) -> Path | None:
    """The training table holding any of ``columns`` (the train file first), or ``None``."""
    wanted = set(columns)
    files = [f for f in task.files if f.role == "train"] + [
        f for f in task.files if f.role == "extra"
    ]
    for f in files:
        p = task.input_dir / f.path
        if p.is_file() and p.suffix.lower() in TABLE_SUFFIXES and wanted & set(table_header(p)):
            return p
    return None


def table_header(path: Path) -> list[str]:
    """A table's column names (empty when it cannot be read)."""
    try:
        if path.suffix.lower() == ".parquet":
            import pyarrow.parquet as pq

            return [str(c) for c in pq.read_schema(path).names]
        return [str(c) for c in pd.read_csv(path, nrows=0, **read_args(path)).columns]
    except (OSError, ValueError, ImportError):
        return []


def read_classes(path: Path, columns: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The distinct values (normalised text, sorted) of ``columns`` of a training table."""
    try:
        if path.suffix.lower() == ".parquet":
            df = pd.read_parquet(path, columns=list(columns))
        else:
            df = pd.read_csv(path, usecols=list(columns), dtype=str, **read_args(path))
    except (OSError, ValueError, ImportError):
        return {}
    return {c: sort_labels(norm_label(v) for v in df[c].dropna().unique()) for c in columns}


def sort_labels(labels: Iterable[str]) -> tuple[str, ...]:
    """Distinct labels in ``label_key`` order."""
    return tuple(sorted(set(labels), key=label_key))


# --------------------------------------------------------------------------- the check
def check_values(sub: pd.DataFrame, spec: ValueSpec, ids: pd.Series | None = None) -> str | None:
    """``None`` when every prediction value fits ``spec``, else the first problem.

    ``sub`` holds every cell as text (``read_csv_str``); ``ids`` names rows in messages (row
    numbers when ``None``).
    """
    sid = (
        pd.Series([str(i) for i in range(len(sub))])
        if ids is None
        else ids.astype(str).reset_index(drop=True)
    )
    for c in spec.pred_cols:
        col = sub[c].reset_index(drop=True)
        na = col.isna()
        if na.any():
            return f"column {c!r} has {int(na.sum())} missing values, first at id {_first(sid, na)}"
        if spec.mode == "ranked":
            problem = _ranked_problem(c, col, spec, sid)
        elif spec.mode == "label":
            problem = _label_problem(c, col, spec.classes.get(c, ()), sid)
        else:
            problem = _number_problem(c, col, spec, sid)
        if problem:
            return problem
    if spec.mode == "proba_columns" and len(spec.pred_cols) > 1:
        p = np.column_stack([pd.to_numeric(sub[c]).to_numpy(float) for c in spec.pred_cols])
        sums = p.sum(axis=1)
        off = np.abs(sums - 1) > SUM_TOLERANCE
        if off.any():
            i = int(np.argmax(off))
            return (
                f"columns {', '.join(spec.pred_cols)} hold one probability per class, so each row "
                f"must sum to 1, but {int(off.sum())} rows do not, first: id {sid.iloc[i]} sums to "
                f"{sums[i]:.6g}; divide each row by its sum"
            )
    return None


def _label_problem(c: str, col: pd.Series, classes: Sequence[str], sid: pd.Series) -> str | None:
    if not classes:
        return None
    bad = ~col.map(norm_label).isin(set(classes))
    if not bad.any():
        return None
    values = col[bad]
    first = values.iloc[0]
    msg = (
        f"column {c!r} has {int(bad.sum())} values that are not classes of the training target, "
        f"first: {first!r} at id {_first(sid, bad)}; expected one of {_shown(classes)}"
    )
    return msg + _label_hint(values, classes)


def _ranked_problem(c: str, col: pd.Series, spec: ValueSpec, sid: pd.Series) -> str | None:
    """A ranked cell lists known classes, at least one of them (more than k: only k count)."""
    tokens = col.astype(str).map(ranked_labels)
    empty = tokens.map(len) == 0
    if empty.any():
        return (
            f"column {c!r} has {int(empty.sum())} empty predictions, first at id "
            f"{_first(sid, empty)}; write the {spec.k} most likely classes separated by spaces"
        )
    classes = set(spec.classes.get(c, ()))
    if not classes:
        return None
    bad = tokens.map(lambda ts: any(norm_label(t) not in classes for t in ts))
    if not bad.any():
        return None
    first = col[bad].iloc[0]
    unknown = next(t for t in ranked_labels(str(first)) if norm_label(t) not in classes)
    return (
        f"column {c!r} has {int(bad.sum())} predictions naming a class the training target does "
        f"not have, first: {unknown!r} in {first!r} at id {_first(sid, bad)}; expected "
        f"{spec.k} of {_shown(sort_labels(classes))} separated by spaces"
        + (
            " (a class with a space in its name cannot be ranked)"
            if " " in "".join(classes)
            else ""
        )
    )


def _label_hint(values: pd.Series, classes: Sequence[str]) -> str:
    """Why the values may be wrong, when they look like something else than class labels."""
    num = pd.to_numeric(values, errors="coerce")
    lower = {v.lower(): v for v in classes}
    first = norm_label(values.iloc[0])
    if num.notna().all():
        fractional = ((num % 1) != 0).any()
        if fractional and num.between(0, 1).all():
            return (
                " (these look like probabilities: write the predicted class, e.g. classes_[argmax])"
            )
        text_classes = any(label_key(v)[0] for v in classes)
        if text_classes and not fractional:
            return (
                " (these look like encoded class indices: map them back to the class names, e.g. "
                "LabelEncoder.inverse_transform)"
            )
    elif first.lower() in lower:
        return f" (the case differs: write {lower[first.lower()]!r})"
    return ""


def _number_problem(c: str, col: pd.Series, spec: ValueSpec, sid: pd.Series) -> str | None:
    num = pd.to_numeric(col, errors="coerce")
    bad = num.isna()
    if bad.any():
        return f"column {c!r} must be numeric: {int(bad.sum())} non-numeric values, first: {col[bad].iloc[0]!r} at id {_first(sid, bad)}"
    inf = ~np.isfinite(num.to_numpy(dtype=float))
    if inf.any():
        return f"column {c!r} has {int(inf.sum())} infinite values, first at id {_first(sid, inf)}"
    if spec.mode in ("proba_single", "proba_columns"):
        out = (num < 0) | (num > 1)
        if out.any():
            return (
                f"column {c!r} holds probabilities ({spec.metric_name}) but has {int(out.sum())} "
                f"values outside [0, 1], first: {col[out].iloc[0]!r} at id {_first(sid, out)}; "
                "expected a probability from predict_proba"
            )
    if spec.nonnegative:
        neg = num < 0
        if neg.any():
            return (
                f"column {c!r} must be >= 0 for {spec.metric_name} (it takes logs), but has "
                f"{int(neg.sum())} negative values, first: {col[neg].iloc[0]!r} at id "
                f"{_first(sid, neg)}; clip predictions at 0"
            )
    return None


def _first(ids: pd.Series, mask: pd.Series | np.ndarray) -> str:
    hit = ids[np.asarray(mask)]
    return str(hit.iloc[0]) if len(hit) else "?"


def _shown(classes: Sequence[str]) -> str:
    head = ", ".join(repr(v) if label_key(v)[0] else v for v in classes[:_SHOWN])
    return head + (f", ... ({len(classes)} classes)" if len(classes) > _SHOWN else "")
