"""The harness's own validation score: one split per run, every candidate measured on it.

A candidate's printed ``Final Validation Performance`` is a claim; this module checks it.

* ``make_split`` picks the run's validation rows once (positions in the training table), so
  every candidate of a run is scored on the same rows; ``ValidationSplit.write`` puts them in
  a candidate's working folder as ``./val_index.csv`` (one column, ``row``).
* A candidate writes ``./val_predictions.csv``: ``row`` and the prediction in the submission's
  format (the sample submission's columns without its id).  On a small table (at most
  ``kfold_rows`` labelled rows) it may instead hold every labelled row, each predicted by a model
  that did not see it (k-fold): one hold-out of a few dozen rows is too noisy to choose by, and
  the harness then scores all rows.  ``ValidationScorer.check`` scores
  it with the evaluator's own grading code (``evaluator.grading.grade_frame``, which calls the
  metric of ``metrics.py``) and compares it with the printed value.
* Without a prediction file only the printed value exists; it must be plausible for the metric
  (finite, inside its range, for accuracy a multiple of 1/n when the candidate used the run's
  rows), else the score is not trusted and the candidate cannot become the best.

``ScoreCheck.status`` says what happened: ``measured`` (the file was scored and agrees with the
printed value, or nothing was printed), ``mismatch`` (it disagrees; the measured value wins),
``printed`` (no file; the printed value passed the checks), ``untrusted`` (no usable score:
an implausible printed value, or predictions for rows that are not the run's validation rows),
``none`` (nothing printed, no file).
"""

from __future__ import annotations

import hashlib
import logging
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..metrics import Metric, get_metric
from ..task import Task, TaskError

log = logging.getLogger("mlestar.agent")

VAL_INDEX_FILE = "val_index.csv"
"""The run's validation rows, written by the harness into each candidate's working folder."""
VAL_PREDICTIONS_FILE = "val_predictions.csv"
"""Where a candidate writes its validation predictions (relative to its working folder)."""
ROW_COL = "row"
"""The column of both files holding a row's position (0-based) in the training table."""

VALIDATION_SHARE = 0.2  # of the labelled rows (of at most max_train_rows of them) held out
ABS_TOLERANCE = 1e-4  # printed and measured agree within this (prints are often rounded)...
REL_TOLERANCE = 1e-3  # ...or this share of the measured value (the larger of the two)

Status = Literal["measured", "mismatch", "printed", "untrusted", "none"]


@dataclass(frozen=True)
class ValidationSplit:
    """The run's validation rows: positions (sorted) in ``table`` of the task's input folder."""

    table: str  # the training table, relative to the input folder
    rows: tuple[int, ...]
    n_labelled: int  # rows of the training table
    seed: int
    answers: tuple[tuple[str, tuple[str, ...]], ...]  # (submission column, its truth per row)
    # every labelled row's truth, when the table is small enough to validate by k-fold on all
    # of them (out-of-fold predictions); None: the hold-out rows only
    every_row: tuple[tuple[str, tuple[str, ...]], ...] | None = None

    @property
    def digest(self) -> str:
        """A short digest of the rows, to tell in a journal that two runs used the same split."""
        return hashlib.sha256(",".join(map(str, self.rows)).encode()).hexdigest()[:16]

    def write(self, folder: Path) -> Path:
        """Write ``folder/val_index.csv`` (column ``row``) and return its path."""
        path = Path(folder) / VAL_INDEX_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({ROW_COL: list(self.rows)}).to_csv(path, index=False)
        return path

    def answers_frame(self, every_row: bool = False) -> pd.DataFrame:
        """The validation rows' true values as strings, like the evaluator's answers file
        (``every_row``: those of all labelled rows, for out-of-fold predictions)."""
        rows, answers = self.rows, self.answers
        if every_row and self.every_row is not None:
            rows, answers = tuple(range(self.n_labelled)), self.every_row
        data: dict[str, Any] = {ROW_COL: [str(r) for r in rows]}
        data.update({col: list(values) for col, values in answers})
        return pd.DataFrame(data)

    def describe(self) -> dict[str, Any]:
        """What the journal records about the split (not the labels)."""
        return {
            "file": VAL_INDEX_FILE,
            "table": self.table,
            "rows": len(self.rows),
            "n_labelled": self.n_labelled,
            "seed": self.seed,
            "digest": self.digest,
            "columns": [c for c, _ in self.answers],
            "kfold": self.every_row is not None,
        }


@dataclass(frozen=True)
class ScoreCheck:
    """One candidate's score, as the harness sees it."""

    status: Status
    score: float | None  # the score to use: measured, else a plausible printed one, else None
    printed: float | None = None
    measured: float | None = None
    message: str = ""  # for the journal and the debugger; empty when all is well

    @property
    def trusted(self) -> bool:
        return self.score is not None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# --------------------------------------------------------------------------- the split
def _labels(task: Task, layout: Any) -> tuple[str, list[tuple[str, str]], pd.DataFrame] | None:
    """The training table's label columns, as text, for a tabular or text task: the table's
    name, (submission column, label column) pairs and the frame; ``None`` when there are none."""
    table = getattr(layout, "train_table", None)
    if layout is None or table is None or layout.modality not in ("tabular", "text"):
        return None
    sub_cols = tuple(layout.target_cols)
    if layout.submission_kind == "multi_target":
        pairs = [(c, c) for c in sub_cols]
    elif layout.label_col:
        pairs = [(layout.label_col, layout.label_col)]  # proba columns: the truth is the label
        if layout.submission_kind == "single" and sub_cols:
            pairs = [(sub_cols[0], layout.label_col)]
    else:
        return None
    path = task.input_dir / table
    cols = sorted({src for _, src in pairs})
    from ..task.layout.tables import read_table

    try:
        df = read_table(path, columns=cols, as_text=True)
    except (OSError, ValueError, TaskError) as e:
        log.info("no harness validation split (%s unreadable: %s)", table, e)
        return None
    return table, pairs, df


def make_split(
    task: Task, layout: Any, *, seed: int, max_rows: int | None, kfold_rows: int = 0
) -> ValidationSplit | None:
    """The run's validation rows for a task whose labels are in a training table (tabular and
    text tasks); ``None`` for others (their candidates keep their own split and are checked on
    their printed score only).  Like the offline templates: at most ``max_rows`` rows are drawn
    first, and 20% of those are held out, stratified by class when every class has two rows.
    With at most ``kfold_rows`` labelled rows, out-of-fold predictions of every row are scored
    too (``ValidationSplit.every_row``)."""
    from sklearn.model_selection import train_test_split

    labels = _labels(task, layout)
    if labels is None:
        return None
    table, pairs, df = labels
    n = len(df)
    if n < 5:
        return None
    y = df[pairs[0][1]].fillna("")
    classify = layout.task_type == "classification" and layout.submission_kind != "multi_target"

    def strata(rows: np.ndarray, held: float | int = VALIDATION_SHARE) -> Any:
        """By class when sklearn can: every class has two rows and both parts room for each
        class (234 rows of 52 classes hold out 47: a plain split)."""
        if not classify:
            return None
        part = y.iloc[rows]
        counts = part.value_counts()
        k = held * len(rows) if isinstance(held, float) else held
        room = min(int(k), len(rows) - int(np.ceil(k)))
        return part if counts.min() >= 2 and room >= len(counts) else None

    def split(rows: np.ndarray, every_row: bool = False) -> ValidationSplit:
        """The split holding out ``rows`` (sorted positions), out-of-fold of every row too."""

        def answers(at: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
            return tuple(
                (dst, tuple(df[src].iloc[at].fillna("").astype(str))) for dst, src in pairs
            )

        every = answers(slice(None)) if every_row else None
        return ValidationSplit(table, tuple(int(r) for r in rows), n, seed, answers(rows), every)

    if layout.forecast_col:  # the latest rows, as the test rows come after them all; no folds
        return split(_latest_rows(task.input_dir / table, layout.forecast_col, n, max_rows))
    if layout.group_col:  # whole groups held out, as the test rows are new groups; no folds
        return split(_rows_of_groups(task.input_dir / table, layout.group_col, seed, max_rows))
    pool = np.arange(n)
    if max_rows and n > max_rows:
        pool, _ = train_test_split(
            pool, train_size=max_rows, random_state=seed, stratify=strata(pool, max_rows)
        )
    _, val = train_test_split(
        pool, test_size=VALIDATION_SHARE, random_state=seed, stratify=strata(pool)
    )
    return split(np.sort(np.asarray(val, dtype=int)), every_row=0 < n <= kfold_rows)


def _rows_of_groups(path: Path, group_col: str, seed: int, max_rows: int | None) -> np.ndarray:
    """The positions (sorted) of whole groups of ``group_col``, drawn by ``seed`` until they
    hold ``VALIDATION_SHARE`` of the rows (of about ``max_rows`` rows at most)."""
    from ..task.layout.tables import read_table

    groups = read_table(path, columns=[group_col], as_text=True)[group_col].fillna("")
    n = min(len(groups), max_rows) if max_rows else len(groups)
    order = np.random.default_rng(seed).permutation(groups.unique())
    sizes = groups.value_counts()
    held, count = [], 0
    for g in order:
        if count >= VALIDATION_SHARE * n:
            break
        held.append(g)
        count += int(sizes[g])
    return np.sort(np.flatnonzero(groups.isin(held).to_numpy()))


def _latest_rows(path: Path, date_col: str, n: int, max_rows: int | None) -> np.ndarray:
    """The positions (sorted) of the latest ``VALIDATION_SHARE`` of the training table's rows
    by ``date_col`` (of its latest ``max_rows``: what a forecast is validated on)."""
    from ..task.layout.columns import local_times
    from ..task.layout.tables import read_table

    when = local_times(read_table(path, columns=[date_col])[date_col])
    order = np.argsort(when.fillna(when.min()).to_numpy(), kind="stable")[:n]
    pool = order[-max_rows:] if max_rows and n > max_rows else order
    held = max(1, int(round(VALIDATION_SHARE * len(pool))))
    return np.sort(pool[-held:])


# --------------------------------------------------------------------------- plausibility
def value_range(metric: Metric) -> tuple[float, float]:
    """Every value ``metric`` can take: its ``bounds``, else ``[0, inf)`` for an error or a
    loss (RMSE, MAE, log loss...), else at most 1 for R² (D², explained variance), else the
    whole line."""
    if metric.bounds is not None:
        return float(metric.bounds[0]), float(metric.bounds[1])
    if metric.name in ("r2", "d2_absolute_error", "explained_variance"):  # 1 - a share: <= 1
        return -math.inf, 1.0
    if metric.direction == "minimize":
        return 0.0, math.inf
    return -math.inf, math.inf


def implausible(metric: Metric, value: float, n: int | None = None) -> str | None:
    """Why ``value`` cannot be a validation ``metric`` (``None``: it can).  ``n`` is the number
    of validation rows when known (accuracy is then a multiple of 1/n)."""
    if not math.isfinite(value):
        return f"{value} is not a finite number"
    lo, hi = value_range(metric)
    if not lo <= value <= hi:
        return f"{value} is outside the range of {metric.name} ([{lo:g}, {hi:g}])"
    if metric.name == "accuracy" and n and not _a_fraction_of(value, n):
        nearest = round(value * n) / n
        return (
            f"{value!r} is not a possible accuracy on {n} validation rows "
            f"(it must be a multiple of 1/{n}, printed in full or rounded; the nearest is {nearest:.6g})"
        )
    return None


def _a_fraction_of(value: float, n: int) -> bool:
    """``value`` is k/n for some k: exactly, in single precision, or rounded to 1-8 decimals
    (so 0.8333 passes for 5/6, and 0.9999999997, which no rounding of 1.0 gives, does not)."""
    for k in {math.floor(value * n), math.ceil(value * n)}:
        exact = k / n
        if abs(value - exact) <= 1e-12 or value == float(np.float32(exact)):
            return True
        if any(value == round(exact, d) for d in range(1, 9)):
            return True
    return False


def agree(printed: float, measured: float) -> bool:
    """Printed and measured are the same score (allowing for a rounded print)."""
    return abs(printed - measured) <= max(ABS_TOLERANCE, REL_TOLERANCE * abs(measured))


# --------------------------------------------------------------------------- the scorer
class ValidationScorer:
    """Checks candidates' scores for one run (``split`` may be ``None``: printed scores only)."""

    def __init__(self, task: Task, split: ValidationSplit | None) -> None:
        self.task = task
        self.split = split
        self.metric = get_metric(task.metric_name)
        self._specs: dict[bool, Any] = {}  # grading spec, by whether every row is scored

    @property
    def has_rows(self) -> bool:
        """Whether the run holds validation rows out (a table too small to split has none:
        only printed scores are read, and no prediction files can be measured or blended)."""
        return self.split is not None

    def prepare(self, workdir: Path) -> None:
        """Before a run: write the split into ``workdir`` and remove an old prediction file."""
        workdir = Path(workdir)
        (workdir / VAL_PREDICTIONS_FILE).unlink(missing_ok=True)
        if self.split is not None:
            self.split.write(workdir)

    def check(self, workdir: Path | None, printed: float | None, source: str = "") -> ScoreCheck:
        """The score of the candidate that ran in ``workdir`` (``source``: its code, to tell
        whether it read the run's rows)."""
        pred = Path(workdir) / VAL_PREDICTIONS_FILE if workdir is not None else None
        if pred is not None and pred.is_file() and self.split is not None:
            measured, problem, other_rows = self.measure(pred)
            if measured is not None:
                return self._compare(printed, measured)
            if other_rows:
                return ScoreCheck(
                    "untrusted",
                    None,
                    printed,
                    message=f"score not trusted: {problem}. Validate on the rows listed in ./{VAL_INDEX_FILE} (the run's validation split, the same for every solution) and write their predictions to ./{VAL_PREDICTIONS_FILE}.",
                )
            return self._printed_only(
                printed, source, note=f"./{VAL_PREDICTIONS_FILE} could not be scored: {problem}"
            )
        return self._printed_only(printed, source)

    def measure(self, path: Path) -> tuple[float | None, str, bool]:
        """``(score, problem, other_rows)`` for a prediction file: the score, or why there is
        none and whether that is because it holds other rows than the run's validation rows."""
        from ..evaluator.grading import grade_frame
        from ..evaluator.submission import GradingSpec, norm_label, read_csv_str

        assert self.split is not None
        try:
            sub = read_csv_str(path)
        except (OSError, ValueError) as e:
            return None, f"it is not a readable CSV ({e})", False
        if ROW_COL not in sub.columns:
            return None, f"it has no {ROW_COL!r} column (columns: {list(sub.columns)[:8]})", False
        got = set(sub[ROW_COL].dropna().map(norm_label))
        want = {str(r) for r in self.split.rows}
        every = self.split.every_row is not None and got == {
            str(r) for r in range(self.split.n_labelled)
        }
        if got != want and not every:
            shared = len(got & want)
            also = (
                f" (or, out of fold, all {self.split.n_labelled} labelled rows)"
                if self.split.every_row is not None
                else ""
            )
            return (
                None,
                f"its {len(got)} rows are not the run's {len(want)} validation rows{also} ({shared} in common)",
                True,
            )
        answers = self.split.answers_frame(every_row=every)
        try:
            if every not in self._specs:
                sample = pd.DataFrame(columns=[ROW_COL, *(c for c, _ in self.split.answers)])
                if len(self.split.answers) == 1 and self.split.answers[0][0] not in tuple(
                    sub.columns
                ):
                    # probability columns: the sample submission's columns are the classes
                    sample = pd.DataFrame(
                        columns=[ROW_COL, *self._prediction_columns(list(sub.columns))]
                    )
                self._specs[every] = GradingSpec.build(self.task, sample, answers)
            score, reason = grade_frame(sub, self._specs[every], answers)
        except Exception as e:  # noqa: BLE001 - a file the grader cannot read is the candidate's fault
            return None, f"{type(e).__name__}: {e}", False
        return score, reason or "", False

    def _prediction_columns(self, written: list[str]) -> list[str]:
        """The sample submission's prediction columns (without its id column); without a
        sample, the class columns the predictions were ``written`` with, for a metric of class
        probabilities (hunt U: a one-vs-one AUC of three classes named in task.json was never
        measured, "missing columns: cultivar; unexpected columns: 0, 1, 2")."""
        path = self.task.sample_submission_path
        if path is None or not path.is_file():
            if self.metric.needs_proba and self.task.task_type == "classification":
                return [c for c in written if c != ROW_COL]
            return [c for c, _ in self.split.answers] if self.split else []
        from ..task.class_submission import class_header
        from ..task.layout.tables import read_args

        # one column per class where the sample's one cannot hold them (``class_submission``)
        cols = class_header(self.task, pd.read_csv(path, nrows=0, **read_args(path)).columns)
        id_col = self.task.id_col if self.task.id_col in cols else cols[0]
        return [c for c in cols if c != id_col]

    def _compare(self, printed: float | None, measured: float) -> ScoreCheck:
        if printed is None or agree(printed, measured):
            return ScoreCheck("measured", measured, printed, measured)
        return ScoreCheck(
            "mismatch",
            measured,
            printed,
            measured,
            message=(
                f"The printed 'Final Validation Performance: {printed:.10g}' is not the "
                f"{self.metric.name} of the validation predictions in ./{VAL_PREDICTIONS_FILE}, "
                f"which the harness measured as {measured:.6g}; the measured value is used. "
                f"Print the metric computed on the validation rows' predictions "
                f"(not a probability, a constant or a score on the training rows)."
            ),
        )

    def _printed_only(self, printed: float | None, source: str, note: str = "") -> ScoreCheck:
        if printed is None:
            return ScoreCheck("none", None, message=note)
        n = len(self.split.rows) if self.split and VAL_INDEX_FILE in source else None
        problem = implausible(self.metric, printed, n)
        if problem:
            why = f"score not trusted: {problem}" + (f" ({note})" if note else "")
            return ScoreCheck(
                "untrusted",
                None,
                printed,
                message=f"{why}. Compute the task's metric ({self.metric.name}) on the validation rows and write their predictions to ./{VAL_PREDICTIONS_FILE} so the harness can measure it.",
            )
        return ScoreCheck("printed", printed, printed, message=note)


def labelled_rows(task: Task) -> int | None:
    """How many labelled rows the task's training table has (``None``: no table to count)."""
    try:
        from ..task.layout import inspect_task

        labels = _labels(task, inspect_task(task))
    except Exception as e:  # noqa: BLE001 - an unusual layout: nothing to count
        log.info("training rows not counted: %s", e)
        return None
    return len(labels[2]) if labels is not None else None


def scorer_for(
    task: Task, *, seed: int, max_rows: int | None, kfold_rows: int = 0
) -> ValidationScorer:
    """The run's scorer: the harness split when the task's layout allows one (``kfold_rows``:
    see ``make_split``)."""
    split = None
    try:
        from ..task.layout import inspect_task

        split = make_split(
            task, inspect_task(task), seed=seed, max_rows=max_rows, kfold_rows=kfold_rows
        )
    except Exception as e:  # noqa: BLE001 - an unusual layout keeps printed scores only
        log.info("no harness validation split: %s", e)
    return ValidationScorer(task, split)


__all__ = [
    "ROW_COL",
    "VAL_INDEX_FILE",
    "VAL_PREDICTIONS_FILE",
    "ScoreCheck",
    "ValidationScorer",
    "ValidationSplit",
    "agree",
    "implausible",
    "labelled_rows",
    "make_split",
    "scorer_for",
    "value_range",
]
