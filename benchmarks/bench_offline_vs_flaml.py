"""Offline MLE-STAR vs FLAML vs a tuned HistGradientBoosting, same wall-clock budget per task.

    python benchmarks/bench_offline_vs_flaml.py --pack PACK_DIR [--budget 120,300]
        [--only ours,flaml,hgb,sklearn] [--tasks a,b] [--out bench_out/offline_vs_flaml]
        [--markdown results.md] [--snapshot] [--report-only]

PACK_DIR is a task pack from ``mlestar bench prepare`` (one TAM-Bench folder per task, answers in
``answers/<task>/answers.csv`` beside them; ``--set tabular-extra`` builds the mid-size tables
of issue 21).  For each task and each budget (``--budget 120,300`` runs both, side by side):

- **ours**: ``mlestar run TASK --backend offline --time-limit BUDGET`` as a subprocess; its
  ``final/submission.csv`` is graded and its journal read (``run_journal.py``): candidates,
  time-outs, any strategy retried after a time-out, and the card the best candidate came from.
  ``--snapshot`` runs it from ``git archive HEAD`` (the committed code, not a shared work tree
  that others are editing) and names that commit.
- **flaml**: ``flaml.AutoML`` with ``time_budget=BUDGET`` on the task's table (date-like text
  columns parsed to datetimes, which FLAML expands itself).  Other modalities get a generic
  featurization first, charged to the budget: TF-IDF (text), pixels (image), log-spectrum band
  statistics (audio), resampled values + summary statistics (series).  RMSLE tasks are fitted
  on ``log1p(y)`` with RMSE.
- **hgb**: a HistGradientBoosting random search that stops when BUDGET is spent
  (``tuned_hgb.py``: dates expanded, categories as codes, early stopping on a validation split,
  ``log1p`` target for RMSLE); not for text.
- **sklearn**: HistGradientBoosting with library defaults on the same features (ordinal-encoded
  columns for tables), or TF-IDF + logistic / ridge regression for text; no budget.

Submissions are graded on the held-out answers with the evaluator's ``grade_submission`` (the
same grader for all).  Prints one row per task and budget, the win rate of ours against each,
and writes the commit, the date, the CPU count and the load average before and after each row.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # the repo, installed or not
sys.path.insert(0, str(HERE))  # run_journal, tuned_hgb

from run_journal import JournalFacts, read_journal  # noqa: E402
from tuned_hgb import date_columns, tune_hgb  # noqa: E402

from mlestar_jupyter.metrics import get_metric  # noqa: E402
from mlestar_jupyter.task import Task, load_task  # noqa: E402

try:
    from mlestar_jupyter.task.layout import DataLayout, MediaSource, inspect_task
except ImportError:  # before the move out of offline/
    from mlestar_jupyter.offline.layout import (  # type: ignore[no-redef]
        DataLayout,
        MediaSource,
        inspect_task,
    )

CONTENDERS = ("ours", "flaml", "hgb", "sklearn")
LABELS = {"ours": "ours", "flaml": "FLAML", "hgb": "tuned HGB", "sklearn": "sklearn default"}
FLAML_METRICS = {
    "accuracy": "accuracy",
    "roc_auc": "roc_auc",
    "log_loss": "log_loss",
    "f1": "f1",
    "f1_macro": "macro_f1",
    "rmse": "rmse",
    "mse": "mse",
    "mae": "mae",
    "r2": "r2",
}


@dataclass
class Outcome:
    """One contender on one task at one budget."""

    score: float | None = None
    seconds: float = 0.0
    note: str = ""
    journal: dict[str, Any] | None = None  # ours: run_journal.JournalFacts.to_json()


@dataclass
class Row:
    task: str
    modality: str
    metric: str
    higher: bool
    budget: float = 0.0
    task_type: str = ""
    load_before: float | None = None  # 1-minute load average when the row started / ended
    load_after: float | None = None
    results: dict[str, Outcome] = field(default_factory=dict)


@dataclass
class Provenance:
    """What the results file names: the code, the date, the machine and its load."""

    commit: str
    dirty: int  # files under mlestar_jupyter/ that differ from the commit (0 with --snapshot)
    snapshot: bool
    started: str
    finished: str = ""
    cpus: int = 0
    load_start: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_end: tuple[float, float, float] = (0.0, 0.0, 0.0)
    omp_threads: str = ""
    budgets: list[float] = field(default_factory=list)


def git_output(*args: str) -> str:
    """``git ARGS`` in the repository: its output, or "" when git fails (not a clone, no git)."""
    r = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def provenance(budgets: list[float], snapshot: bool) -> Provenance:
    dirty = git_output("status", "--porcelain", "--", "mlestar_jupyter")
    return Provenance(
        commit=git_output("rev-parse", "HEAD") or "unknown",
        dirty=0 if snapshot else len(dirty.splitlines()),
        snapshot=snapshot,
        started=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        cpus=os.cpu_count() or 0,
        load_start=os.getloadavg(),
        omp_threads=os.environ.get("OMP_NUM_THREADS", ""),
        budgets=budgets,
    )


def snapshot_source(out: Path, commit: str) -> Path:
    """The committed tree (``git archive``) unpacked under ``out``: the code ``ours`` runs."""
    dest = out / f"src-{commit[:12]}"
    if not (dest / "mlestar_jupyter").is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "archive", commit], cwd=ROOT, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


# --------------------------------------------------------------------------- grading
def grade(task: Task, submission: Path) -> float | None:
    """The submission's test score (None when missing or invalid)."""
    if not submission.is_file():
        return None
    from mlestar_jupyter.evaluator.grading import grade_submission

    report = grade_submission(task, submission)
    return report.score if report.valid_submission else None


# --------------------------------------------------------------------------- data for the baselines
def _table(
    task: Task, layout: DataLayout
) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame, pd.Series]:
    inp = task.input_dir
    train = pd.read_csv(inp / str(layout.train_table))
    test = pd.read_csv(inp / str(layout.test_table))
    drop = [c for c in (layout.id_col, layout.label_col, *layout.drop_cols) if c]
    X = train.drop(columns=drop)
    ids = test[layout.id_col] if layout.id_col else pd.Series(np.arange(len(test)))
    return X, train[str(layout.label_col)], test[X.columns], ids


def _write(task: Task, layout: DataLayout, ids: pd.Series, values: np.ndarray, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    cols = list(layout.target_cols)
    pred = pd.DataFrame(
        np.asarray(values).reshape(len(ids), -1), columns=cols, index=np.asarray(ids)
    )
    if task.sample_submission_path and layout.id_col:
        sub = pd.read_csv(task.sample_submission_path)[[layout.id_col]].join(pred, on=layout.id_col)
    else:
        sub = pred.reset_index(names=layout.id_col or "id")
    sub.to_csv(path, index=False)
    return path


def _submission_values(task: Task, layout: DataLayout, model, X_test) -> np.ndarray:  # type: ignore[no-untyped-def]
    if not layout.is_classification:
        return np.asarray(model.predict(X_test))
    proba = model.predict_proba(X_test)
    classes = np.asarray(model.classes_)
    if layout.submission_kind == "proba_columns":
        where = {str(c): i for i, c in enumerate(classes)}
        return proba[:, [where[c] for c in layout.target_cols]]
    if get_metric(task.metric_name).needs_proba:
        return proba[:, 1]
    return classes[np.argmax(proba, axis=1)]


def _text_features(X: pd.DataFrame, X_test: pd.DataFrame, layout: DataLayout):  # type: ignore[no-untyped-def]
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_features=100_000, sublinear_tf=True)
    col = str(layout.text_col)
    return vec.fit_transform(X[col].fillna("").astype(str)), vec.transform(
        X_test[col].fillna("").astype(str)
    )


# --------------------------------------------------------------------------- generic features (media)
# FLAML and the scikit-learn default take a table.  For media and series tasks they get the
# featurization a practitioner would write in a few lines before calling an AutoML library:
# pixels for images, log-spectrum band statistics for audio, resampled values + summary
# statistics for series.  The time it takes is charged to the contender's budget.
def _media_paths(task: Task, src: MediaSource, table: pd.DataFrame) -> list[Path]:
    if src.table is None or src.column is None or src.class_folders:
        raise ValueError("n/a: media listed by folder, not by a table")
    base = task.input_dir / src.prefix if src.prefix else task.input_dir
    return [
        base / f"{v}{'' if str(v).endswith(src.suffix) else src.suffix}" for v in table[src.column]
    ]


def _image_features(path: Path, side: int = 32) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as im:
        im = im.convert("L")
        if max(im.size) > side:
            im = im.resize((side, side))
        return np.asarray(im, dtype=np.float32).ravel() / 255.0


def _audio_features(path: Path, bands: int = 32) -> np.ndarray:
    from scipy.io import wavfile

    rate, x = wavfile.read(path)
    x = np.asarray(x, dtype=np.float32)
    if x.ndim > 1:
        x = x.mean(axis=1)
    frame, hop = 256, 128
    if len(x) < frame:  # some prompts are (nearly) empty
        x = np.pad(x, (0, frame - len(x)))
    x = x / (np.abs(x).max() + 1e-9)
    starts = np.arange(0, len(x) - frame + 1, hop)
    frames = np.stack([x[s : s + frame] for s in starts]) * np.hanning(frame)
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    pooled = np.stack([b.sum(axis=1) for b in np.array_split(power, bands, axis=1)], axis=1)
    logp = np.log(pooled + 1e-10)
    return np.concatenate([logp.mean(axis=0), logp.std(axis=0), [len(x) / rate]])


def _series_table(path: Path, id_col: str, points: int = 128) -> pd.DataFrame:
    long = pd.read_csv(path)
    value_col = [c for c in long.columns if c != id_col][-1]
    order_col = [c for c in long.columns if c not in (id_col, value_col)]
    if order_col:
        long = long.sort_values([id_col, order_col[0]])
    rows = {}
    for key, g in long.groupby(id_col, sort=False):
        v = g[value_col].to_numpy(dtype=float)
        grid = np.interp(np.linspace(0, len(v) - 1, points), np.arange(len(v)), v)
        stats = [
            v.mean(),
            v.std(),
            v.min(),
            v.max(),
            len(v),
            np.abs(np.diff(v)).mean() if len(v) > 1 else 0.0,
        ]
        rows[key] = np.concatenate([grid, stats])
    return pd.DataFrame.from_dict(rows, orient="index").add_prefix("f")


def _media_table(
    task: Task, layout: DataLayout
) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame, pd.Series]:
    """Train features, labels, test features and test ids for an image, audio or series task."""
    inp = task.input_dir
    train = pd.read_csv(inp / str(layout.train_table))
    label, id_col = str(layout.label_col), str(layout.id_col)
    if layout.modality == "time_series":
        series = sorted(p for p in inp.glob("*.csv") if "series" in p.name)
        tr = next((p for p in series if p.name.startswith("train")), None)
        te = next((p for p in series if p.name.startswith("test")), None)
        if tr is None or te is None or not layout.id_col:
            raise ValueError("n/a: no long-form train/test series files")
        X_all, X_test = _series_table(tr, id_col), _series_table(te, id_col)
        X = X_all.loc[train[id_col].to_numpy()]
        sample = pd.read_csv(task.sample_submission_path) if task.sample_submission_path else None
        ids = sample[id_col] if sample is not None else pd.Series(X_test.index)
        return (
            X.reset_index(drop=True),
            train[label],
            X_test.loc[ids.to_numpy()].reset_index(drop=True),
            ids,
        )
    if layout.train_media is None or layout.test_media is None:
        raise ValueError(f"n/a: no featurizer for {layout.modality} data in this layout")
    featurize = _image_features if layout.modality == "image" else _audio_features
    test = pd.read_csv(inp / str(layout.test_media.table))
    X = np.stack([featurize(p) for p in _media_paths(task, layout.train_media, train)])
    X_test = np.stack([featurize(p) for p in _media_paths(task, layout.test_media, test)])
    ids = test[id_col] if layout.id_col else pd.Series(np.arange(len(test)))
    cols = [f"f{i}" for i in range(X.shape[1])]
    return pd.DataFrame(X, columns=cols), train[label], pd.DataFrame(X_test, columns=cols), ids


def _features(task: Task, layout: DataLayout) -> tuple[object, pd.Series, object, pd.Series]:
    """The table a tabular AutoML library gets for this task (any modality)."""
    if layout.submission_kind == "multi_target":
        raise ValueError("n/a: single-target tasks only")
    if layout.modality in ("image", "audio", "time_series"):
        return _media_table(task, layout)
    X, y, X_test, ids = _table(task, layout)
    if layout.modality == "text":
        X, X_test = _text_features(X, X_test, layout)
    return X, y, X_test, ids


LOG_TARGET_METRICS = {"rmsle"}  # fit log1p(y) with RMSE, predict expm1: what a practitioner does


# --------------------------------------------------------------------------- contenders
def run_ours(
    task_dir: Path,
    budget: float,
    out: Path,
    higher: bool,
    src: Path | None = None,
    seed: int | None = None,
) -> Outcome:
    """``mlestar run`` with the offline backend, graded from its run folder; its journal read.
    With ``seed`` the run gets ``--seed SEED`` (validation split and models) and its own folder."""
    run_dir = out / "ours" / (task_dir.name if seed is None else f"{task_dir.name}-seed{seed}")
    cmd = [
        sys.executable,
        "-m",
        "mlestar_jupyter",
        "run",
        str(task_dir),
        "--backend",
        "offline",
        "--time-limit",
        str(int(budget)),
        "--out",
        str(run_dir),
        "--no-progress",
        *([] if seed is None else ["--seed", str(seed)]),
    ]
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), env.get("PYTHONPATH")]))
    t0 = time.time()
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=budget * 1.5 + 300, env=env, cwd=src
    )
    seconds = time.time() - t0
    sub = run_dir / "final" / "submission.csv"
    score = grade(load_task(task_dir), sub)
    note = (
        ""
        if score is not None
        else f"exit {proc.returncode}: {(proc.stderr or proc.stdout)[-300:]}"
    )
    return Outcome(score, seconds, note, read_journal(run_dir, higher).to_json())


class _Decoded:
    """A fitted model on label codes, answering with the original class labels."""

    def __init__(self, model, classes: np.ndarray | None) -> None:  # type: ignore[no-untyped-def]
        self.model, self.classes_ = model, classes

    def predict(self, X):  # type: ignore[no-untyped-def]
        return self.model.predict(X)

    def predict_proba(self, X):  # type: ignore[no-untyped-def]
        return self.model.predict_proba(X)


class _Fixed:
    """Probabilities computed already, served through the ``predict_proba`` interface."""

    def __init__(self, proba: np.ndarray, classes: np.ndarray) -> None:
        self.proba, self.classes_ = proba, classes

    def predict_proba(self, X) -> np.ndarray:  # type: ignore[no-untyped-def]
        return self.proba


def run_flaml(task: Task, layout: DataLayout, budget: float, out: Path) -> Outcome:
    from flaml import AutoML

    t0 = time.time()
    try:
        X, y, X_test, ids = _features(task, layout)
    except ValueError as e:
        return Outcome(note=str(e))
    if isinstance(X, pd.DataFrame) and layout.modality == "tabular":
        X, X_test = X.copy(), X_test.copy()
        for c in date_columns(X):  # FLAML expands datetime columns (year, month, ...) itself
            X[c] = pd.to_datetime(X[c], errors="coerce", utc=True).dt.tz_localize(None)
            X_test[c] = pd.to_datetime(X_test[c], errors="coerce", utc=True).dt.tz_localize(None)
        for c in X.select_dtypes(exclude=["number", "bool", "datetime"]).columns:
            X[c] = X[c].astype("category")  # FLAML wants category dtype
            known = X[c].cat.categories
            X_test[c] = pd.Categorical(X_test[c].where(X_test[c].isin(known)), categories=known)
    automl = AutoML()
    metric = FLAML_METRICS.get(task.metric_name, "auto")
    log_target = task.metric_name in LOG_TARGET_METRICS
    if log_target:
        y, metric = np.log1p(np.asarray(y, dtype=float)), "rmse"
    classes = None
    if layout.is_classification:  # some of FLAML's learners want labels 0..k-1
        classes, y = np.unique(np.asarray(y), return_inverse=True)
    automl.fit(
        X,
        y,
        task="classification" if layout.is_classification else "regression",
        metric=metric,
        time_budget=max(10.0, budget - (time.time() - t0)),  # featurizing counts against the budget
        seed=0,
        verbose=0,
        n_jobs=-1,
    )
    values = _submission_values(task, layout, _Decoded(automl, classes), X_test)
    if log_target:
        values = np.expm1(values)
    seconds = time.time() - t0
    sub = _write(task, layout, ids, values, out / "flaml" / task.id / "submission.csv")
    return Outcome(grade(task, sub), seconds, f"best: {automl.best_estimator}")


def run_hgb(task: Task, layout: DataLayout, budget: float, out: Path) -> Outcome:
    """The tuned HistGradientBoosting random search, stopped by the budget."""
    t0 = time.time()
    if layout.modality == "text":
        return Outcome(note="n/a: text (the sklearn contender is TF-IDF + linear)")
    try:
        X, y, X_test, ids = _features(task, layout)
    except ValueError as e:
        return Outcome(note=str(e))
    assert isinstance(X, pd.DataFrame) and isinstance(X_test, pd.DataFrame)
    metric = get_metric(task.metric_name)
    result = tune_hgb(
        X,
        y,
        X_test,
        classification=layout.is_classification,
        score=metric.fn,
        higher_is_better=metric.higher_is_better,
        proba=metric.needs_proba,
        log_target=task.metric_name in LOG_TARGET_METRICS,
        budget=budget - (time.time() - t0),
    )
    if layout.is_classification:
        assert result.classes is not None
        values = _submission_values(task, layout, _Fixed(result.values, result.classes), X_test)
    else:
        values = result.values
    sub = _write(task, layout, ids, values, out / "hgb" / task.id / "submission.csv")
    params = ", ".join(f"{k}={v:.3g}" for k, v in result.best_params.items()) or "defaults"
    return Outcome(grade(task, sub), time.time() - t0, f"tuned: {result.tried} fits; {params}")


def run_sklearn(task: Task, layout: DataLayout, out: Path) -> Outcome:
    from sklearn.compose import make_column_selector, make_column_transformer
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    t0 = time.time()
    try:
        X, y, X_test, ids = _features(task, layout)
    except ValueError as e:
        return Outcome(note=str(e))
    gbm = (
        HistGradientBoostingClassifier()
        if layout.is_classification
        else HistGradientBoostingRegressor()
    )
    if layout.modality == "text":
        model = LogisticRegression(max_iter=2000) if layout.is_classification else Ridge()
    elif layout.modality == "tabular":
        encode = make_column_transformer(
            (
                OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
                make_column_selector(dtype_exclude=["number", "bool"]),
            ),
            remainder="passthrough",
        )
        X = X.astype({c: str for c in X.select_dtypes(exclude=["number", "bool"]).columns})
        X_test = X_test.astype(
            {c: str for c in X_test.select_dtypes(exclude=["number", "bool"]).columns}
        )
        model = make_pipeline(encode, gbm)
    else:
        model = gbm
    log_target = task.metric_name in LOG_TARGET_METRICS
    model.fit(X, np.log1p(np.asarray(y, dtype=float)) if log_target else y)
    values = _submission_values(task, layout, model, X_test)
    if log_target:
        values = np.expm1(values)
    sub = _write(task, layout, ids, values, out / "sklearn" / task.id / "submission.csv")
    return Outcome(grade(task, sub), time.time() - t0)


# --------------------------------------------------------------------------- report
def _fmt(o: Outcome | None) -> str:
    if o is None:
        return "-"
    return (
        "failed"
        if o.score is None and not o.note.startswith("n/a")
        else "n/a"
        if o.score is None
        else f"{o.score:.4f}"
    )


def _compare(rows: list[Row], other: str) -> tuple[int, int, int]:
    """(won, tied, lost) of ours against ``other`` over the rows where both ran."""
    won = lost = tied = 0
    for r in rows:
        a, b = r.results.get("ours"), r.results.get(other)
        if a is None or b is None or b.score is None:
            continue
        if a.score is None:
            lost += 1
        elif a.score == b.score:
            tied += 1
        elif (a.score > b.score) == r.higher:
            won += 1
        else:
            lost += 1
    return won, tied, lost


def _wins(rows: list[Row], other: str) -> str:
    won, tied, lost = _compare(rows, other)
    n = won + lost + tied
    text = f"ours vs {other}: {won} won, {tied} tied, {lost} lost" + (
        f" (win rate {won / n:.0%})" if n else ""
    )
    reg = [r for r in rows if r.task_type == "regression"]
    if reg:
        rw, rt, rl = _compare(reg, other)
        text += f"; regression {rw} won, {rt} tied, {rl} lost"
    return text


def _journal_cell(o: Outcome | None) -> str:
    j = (o.journal if o else None) or {}
    if not j:
        return "-"
    retried = len(j.get("retried_after_timeout") or [])
    return (
        f"{j.get('candidates', 0)} / {len(j.get('timed_out') or [])} / "
        f"{'**' + str(retried) + '**' if retried else '0'} / {j.get('best_card') or '-'} "
        f"({j.get('rung') or '-'})"
    )


def _load(x: float | None) -> str:
    return f"{x:.1f}" if x is not None else "-"


def markdown(rows: list[Row], prov: Provenance | None, contenders: list[str]) -> str:
    """Provenance, then one table per budget (best score in bold), win rates and time-outs."""
    lines: list[str] = []
    if prov is not None:
        code = (
            f"`{prov.commit[:12]}`"
            + (" (ours ran from `git archive` of it)" if prov.snapshot else "")
            + (
                f", with {prov.dirty} uncommitted file(s) under mlestar_jupyter/ in the work tree"
                if prov.dirty
                else ""
            )
        )
        lines += [
            f"- commit: {code}",
            f"- date: {prov.started} to {prov.finished or '?'}",
            f"- machine: {prov.cpus} CPUs; OMP_NUM_THREADS={prov.omp_threads or 'unset'}; "
            f"load average (1/5/15 min) {'/'.join(f'{x:.1f}' for x in prov.load_start)} at the "
            f"start, {'/'.join(f'{x:.1f}' for x in prov.load_end)} at the end",
            "",
        ]
    cols = [c for c in CONTENDERS if c in contenders]
    for budget in sorted({r.budget for r in rows}):
        sub = [r for r in rows if r.budget == budget]
        head = " | ".join(LABELS[c] for c in cols)
        lines += [
            f"### Budget {budget:g} s",
            "",
            f"| task | metric | {head} | seconds ({'/'.join(cols)}) | ours: candidates / "
            "timed out / retried after time-out / best card (rung) | load before/after |",
            "|---|---|" + "---|" * len(cols) + "---|---|---|",
        ]
        for r in sub:
            scores = {c: o.score for c, o in r.results.items() if o.score is not None}
            top = (max if r.higher else min)(scores.values()) if scores else None
            cells = []
            for c in cols:
                text = _fmt(r.results.get(c))
                best = scores.get(c) is not None and scores[c] == top
                cells.append(f"**{text}**" if best else text)
            secs = "/".join(f"{r.results[c].seconds:.0f}" if c in r.results else "-" for c in cols)
            arrow = "↑" if r.higher else "↓"
            lines.append(
                f"| {r.task} | {r.metric} {arrow} | {' | '.join(cells)} | {secs} "
                f"| {_journal_cell(r.results.get('ours'))} "
                f"| {_load(r.load_before)}/{_load(r.load_after)} |"
            )
        valid = sum(1 for r in sub if r.results.get("ours") and r.results["ours"].score is not None)
        retried = [
            (r.task, x)
            for r in sub
            for x in ((r.results.get("ours") or Outcome()).journal or {}).get(
                "retried_after_timeout", []
            )
        ]
        lighter = [
            (r.task, x)
            for r in sub
            for x in ((r.results.get("ours") or Outcome()).journal or {}).get(
                "lighter_after_timeout", []
            )
        ]
        lines += [
            "",
            f"Valid submissions (ours): {valid}/{len(sub)}. "
            + (
                f"Strategies retried after a time-out: {len(retried)} (in "
                f"{len({t for t, _ in retried})} of {len(sub)} runs)."
                if retried
                else f"No strategy retried after a time-out in any of the {len(sub)} runs."
            ),
            "",
            *(f"- {_wins(sub, other)}" for other in cols if other != "ours" and "ours" in cols),
            *(f"- retried after time-out, {t}: {x}" for t, x in retried),
            *(f"- a lighter version after a time-out (not a retry), {t}: {x}" for t, x in lighter),
            "",
            "Our runs, from their journals:",
            "",
            *(
                f"- {r.task}: {JournalFacts(**r.results['ours'].journal).summary()}"
                for r in sub
                if r.results.get("ours") and r.results["ours"].journal
            ),
            "",
        ]
    return "\n".join(lines)


def _load_rows(path: Path) -> tuple[list[Row], Provenance | None]:
    raw = json.loads(path.read_text())
    data, prov = (raw["rows"], raw.get("provenance")) if isinstance(raw, dict) else (raw, None)
    rows = []
    for d in data:
        results = {k: Outcome(**v) for k, v in d.pop("results").items()}
        rows.append(Row(**d, results=results))
    if prov:
        prov["load_start"], prov["load_end"] = tuple(prov["load_start"]), tuple(prov["load_end"])
    return rows, Provenance(**prov) if prov else None


def _save(out: Path, rows: list[Row], prov: Provenance) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(
        json.dumps(
            {
                "provenance": asdict(prov),
                "rows": [
                    {**asdict(r), "results": {k: asdict(v) for k, v in r.results.items()}}
                    for r in rows
                ],
            },
            indent=2,
        )
    )


def parse_budgets(text: str) -> list[float]:
    """``"120,300"`` -> ``[120.0, 300.0]`` (each positive)."""
    try:
        budgets = [float(b) for b in text.split(",") if b.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--budget {text!r}: give seconds, comma-separated (e.g. 120,300)"
        ) from None
    if not budgets or min(budgets) <= 0:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: each budget must be > 0 seconds")
    return budgets


def _run_row(
    d: Path, task: Task, layout: DataLayout, budget: float, contenders: list[str], args: Any
) -> Row:
    higher = get_metric(task.metric_name).higher_is_better
    row = Row(task.id, task.modality, task.metric_name, higher, budget, task.task_type)
    row.load_before = os.getloadavg()[0]
    out = args.out / f"b{budget:g}"
    for c in contenders:
        try:
            if c == "ours":
                row.results[c] = run_ours(d, budget, out, higher, args.src)
            elif c == "flaml":
                row.results[c] = run_flaml(task, layout, budget, out)
            elif c == "hgb":
                row.results[c] = run_hgb(task, layout, budget, out)
            elif c == "sklearn":
                row.results[c] = run_sklearn(task, layout, out)
        except Exception as e:  # one contender failing on one task must not end the benchmark
            row.results[c] = Outcome(note=f"error: {type(e).__name__}: {e}"[:300])
    row.load_after = os.getloadavg()[0]
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--pack", type=Path, required=True, help="task pack folder from `mlestar bench prepare`"
    )
    ap.add_argument(
        "--budget",
        type=parse_budgets,
        default=[600.0],
        help="wall-clock seconds per task and contender; several comma-separated (120,300)",
    )
    ap.add_argument(
        "--only", default=",".join(CONTENDERS), help="comma-separated contenders to run"
    )
    ap.add_argument("--tasks", default="", help="comma-separated task folder names (default: all)")
    ap.add_argument("--out", type=Path, default=Path("bench_out/offline_vs_flaml"))
    ap.add_argument("--markdown", type=Path, help="also write the results tables to this file")
    ap.add_argument(
        "--snapshot",
        action="store_true",
        help="run ours from `git archive HEAD` (the committed code), not the work tree",
    )
    ap.add_argument(
        "--report-only", action="store_true", help="re-tabulate OUT/results.json, run nothing"
    )
    args = ap.parse_args(argv)
    contenders = [c.strip() for c in args.only.split(",") if c.strip()]
    unknown = [c for c in contenders if c not in CONTENDERS]
    if unknown:
        ap.error(f"--only: unknown contender(s) {unknown}; choose from {', '.join(CONTENDERS)}")
    if args.report_only:
        rows, prov = _load_rows(args.out / "results.json")
        for r in rows:  # the journals as the current run_journal reads them
            run_dir = args.out / f"b{r.budget:g}" / "ours" / r.task
            if "ours" in r.results and (run_dir / "events.jsonl").is_file():
                r.results["ours"].journal = read_journal(run_dir, r.higher).to_json()
        text = markdown(rows, prov, contenders)
        print(text)
        if args.markdown:
            args.markdown.write_text(text)
        return 0
    os.environ.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
    wanted = {t for t in args.tasks.split(",") if t}
    task_dirs = sorted(
        p
        for p in args.pack.iterdir()
        if (p / "task.json").is_file() and (not wanted or p.name in wanted)
    )
    if not task_dirs:
        print(f"no task folders (with task.json) under {args.pack}", file=sys.stderr)
        return 2
    prov = provenance(args.budget, args.snapshot)
    args.src = snapshot_source(args.out, prov.commit) if args.snapshot else None
    rows: list[Row] = []
    print(f"commit {prov.commit[:12]}, {prov.cpus} CPUs, load {prov.load_start}")
    print(
        f"{'task':22} {'metric':8} {'budget':>6} "
        + " ".join(f"{c:>9}" for c in contenders)
        + f"  seconds ({'/'.join(contenders)})"
    )
    for d in task_dirs:
        task = load_task(d)
        layout = inspect_task(task)
        for budget in args.budget:
            row = _run_row(d, task, layout, budget, contenders, args)
            rows.append(row)
            r = row.results
            secs = "/".join(f"{r[c].seconds:.0f}" if c in r else "-" for c in contenders)
            print(
                f"{task.id[:22]:22} {task.metric_name:8} {budget:6g} "
                + " ".join(f"{_fmt(r.get(c)):>9}" for c in contenders)
                + f"  {secs}  load {_load(row.load_before)}->{_load(row.load_after)}"
            )
            for c, o in r.items():
                if o.note and not o.note.startswith(("n/a", "best", "tuned")):
                    print(f"    {c}: {o.note}")
            if r.get("ours") and r["ours"].journal:
                j = r["ours"].journal
                print(
                    f"    ours: {j['candidates']} candidates, {len(j['timed_out'])} timed out, "
                    f"{len(j['retried_after_timeout'])} retried after time-out, "
                    f"{len(j.get('lighter_after_timeout') or [])} lighter version(s) after one; "
                    f"best {j['best'] or '-'} (card {j['best_card'] or '-'})"
                )
            prov.finished = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
            prov.load_end = os.getloadavg()
            _save(args.out, rows, prov)  # after every row: a killed run keeps what it measured
    print()
    for budget in args.budget:
        sub = [r for r in rows if r.budget == budget]
        for other in contenders:
            if other != "ours" and "ours" in contenders:
                print(f"budget {budget:g}: {_wins(sub, other)}")
    if args.markdown:
        args.markdown.write_text(markdown(rows, prov, contenders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
