"""Offline MLE-STAR vs FLAML vs a plain scikit-learn default, same wall-clock budget per task.

    python benchmarks/bench_offline_vs_flaml.py --pack PACK_DIR [--budget 600] [--only ours,flaml,sklearn]
                                                 [--tasks a,b] [--out bench_out/offline_vs_flaml]
                                                 [--markdown results.md] [--report-only]

PACK_DIR is a task pack from ``mlestar bench prepare`` (one TAM-Bench folder per task, answers in
``answers/<task>/answers.csv`` beside them).  For each task:

- **ours**: ``mlestar run TASK --backend offline --time-limit BUDGET`` as a subprocess; its
  ``final/submission.csv`` is graded.
- **flaml**: ``flaml.AutoML`` with ``time_budget=BUDGET`` on the task's table.  Other modalities
  get a generic featurization first, charged to the budget: TF-IDF (text), pixels (image),
  log-spectrum band statistics (audio), resampled values + summary statistics (series).  RMSLE
  tasks are fitted on ``log1p(y)`` with RMSE.
- **sklearn**: HistGradientBoosting with library defaults on the same features (ordinal-encoded
  columns for tables), or TF-IDF + logistic / ridge regression for text.

Submissions are graded on the held-out answers with the evaluator's ``grade_submission`` (the
same grader for all three).  Prints one row per task and the win rate of ours against each.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo, installed or not

from mlestar_jupyter.metrics import get_metric
from mlestar_jupyter.task import Task, load_task
from mlestar_jupyter.task.layout import DataLayout, MediaSource, inspect_task

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
    """One contender on one task."""

    score: float | None = None
    seconds: float = 0.0
    note: str = ""


@dataclass
class Row:
    task: str
    modality: str
    metric: str
    higher: bool
    results: dict[str, Outcome] = field(default_factory=dict)


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
def run_ours(task_dir: Path, budget: float, out: Path) -> Outcome:
    """``mlestar run`` with the offline backend, graded from its run folder."""
    run_dir = out / "ours" / task_dir.name
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
    ]
    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=budget * 1.5 + 300)
    seconds = time.time() - t0
    sub = run_dir / "final" / "submission.csv"
    score = grade(load_task(task_dir), sub)
    note = (
        ""
        if score is not None
        else f"exit {proc.returncode}: {(proc.stderr or proc.stdout)[-300:]}"
    )
    return Outcome(score, seconds, note)


class _Decoded:
    """A fitted model on label codes, answering with the original class labels."""

    def __init__(self, model, classes: np.ndarray | None) -> None:  # type: ignore[no-untyped-def]
        self.model, self.classes_ = model, classes

    def predict(self, X):  # type: ignore[no-untyped-def]
        return self.model.predict(X)

    def predict_proba(self, X):  # type: ignore[no-untyped-def]
        return self.model.predict_proba(X)


def run_flaml(task: Task, layout: DataLayout, budget: float, out: Path) -> Outcome:
    from flaml import AutoML

    t0 = time.time()
    try:
        X, y, X_test, ids = _features(task, layout)
    except ValueError as e:
        return Outcome(note=str(e))
    if isinstance(X, pd.DataFrame) and layout.modality == "tabular":
        X, X_test = X.copy(), X_test.copy()
        for c in X.select_dtypes(exclude=["number", "bool"]).columns:  # FLAML wants category dtype
            X[c], X_test[c] = (
                X[c].astype("category"),
                pd.Categorical(X_test[c], categories=X[c].astype("category").cat.categories),
            )
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


def _wins(rows: list[Row], other: str) -> str:
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
    n = won + lost + tied
    return f"ours vs {other}: {won} won, {tied} tied, {lost} lost" + (
        f" (win rate {won / n:.0%})" if n else ""
    )


def _rung(out: Path, task_id: str, task_dir_name: str) -> str:
    """The fall-back rung of our run's ``final`` event ("best", "previous", ..., "baseline")."""
    for name in (task_dir_name, task_id):
        events = out / "ours" / name / "events.jsonl"
        if events.is_file():
            for line in reversed(events.read_text().splitlines()):
                ev = json.loads(line)
                if ev.get("type") == "final":
                    return str(ev["data"].get("rung") or "?")
    return "-"


def markdown(rows: list[Row], out: Path, budget: float) -> str:
    """The results as a Markdown table (best score per task in bold) plus the win rates."""
    lines = [
        "| task | modality | metric | ours | FLAML | sklearn default | our rung | seconds (ours/FLAML/sklearn) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        scores = {c: o.score for c, o in r.results.items() if o.score is not None}
        top = (max if r.higher else min)(scores.values()) if scores else None
        cells = []
        for c in ("ours", "flaml", "sklearn"):
            text = _fmt(r.results.get(c))
            cells.append(f"**{text}**" if scores.get(c) is not None and scores[c] == top else text)
        secs = "/".join(
            f"{r.results[c].seconds:.0f}" if c in r.results else "-"
            for c in ("ours", "flaml", "sklearn")
        )
        arrow = "↑" if r.higher else "↓"
        lines.append(
            f"| {r.task} | {r.modality} | {r.metric} {arrow} | {' | '.join(cells)} "
            f"| {_rung(out, r.task, r.task)} | {secs} |"
        )
    valid = sum(1 for r in rows if r.results.get("ours") and r.results["ours"].score is not None)
    lines += [
        "",
        f"Budget {budget:g} s per task and contender. "
        f"Valid submissions (ours): {valid}/{len(rows)}.",
        "",
        *(f"- {_wins(rows, other)}" for other in ("flaml", "sklearn")),
    ]
    return "\n".join(lines) + "\n"


def _load_rows(path: Path) -> list[Row]:
    rows = []
    for d in json.loads(path.read_text()):
        results = {k: Outcome(**v) for k, v in d.pop("results").items()}
        rows.append(Row(**d, results=results))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--pack", type=Path, required=True, help="task pack folder from `mlestar bench prepare`"
    )
    ap.add_argument(
        "--budget", type=float, default=600, help="wall-clock seconds per task and contender"
    )
    ap.add_argument(
        "--only", default="ours,flaml,sklearn", help="comma-separated contenders to run"
    )
    ap.add_argument("--tasks", default="", help="comma-separated task folder names (default: all)")
    ap.add_argument("--out", type=Path, default=Path("bench_out/offline_vs_flaml"))
    ap.add_argument("--markdown", type=Path, help="also write the results table to this file")
    ap.add_argument(
        "--report-only", action="store_true", help="re-tabulate OUT/results.json, run nothing"
    )
    args = ap.parse_args(argv)
    if args.report_only:
        rows = _load_rows(args.out / "results.json")
        text = markdown(rows, args.out, args.budget)
        print(text)
        if args.markdown:
            args.markdown.write_text(text)
        return 0
    os.environ.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
    contenders = [c.strip() for c in args.only.split(",") if c.strip()]
    wanted = {t for t in args.tasks.split(",") if t}
    task_dirs = sorted(
        p
        for p in args.pack.iterdir()
        if (p / "task.json").is_file() and (not wanted or p.name in wanted)
    )
    if not task_dirs:
        print(f"no task folders (with task.json) under {args.pack}", file=sys.stderr)
        return 2
    rows: list[Row] = []
    print(
        f"{'task':28} {'modality':11} {'metric':9} {'ours':>9} {'flaml':>9} {'sklearn':>9}  seconds (ours/flaml/sklearn)"
    )
    for d in task_dirs:
        task = load_task(d)
        layout = inspect_task(task)
        row = Row(
            task.id, task.modality, task.metric_name, get_metric(task.metric_name).higher_is_better
        )
        for c in contenders:
            try:
                if c == "ours":
                    row.results[c] = run_ours(d, args.budget, args.out)
                elif c == "flaml":
                    row.results[c] = run_flaml(task, layout, args.budget, args.out)
                elif c == "sklearn":
                    row.results[c] = run_sklearn(task, layout, args.out)
            except Exception as e:  # one contender failing on one task must not end the benchmark
                row.results[c] = Outcome(note=f"error: {type(e).__name__}: {e}"[:300])
        rows.append(row)
        r = row.results
        secs = "/".join(
            f"{r[c].seconds:.0f}" if c in r else "-" for c in ("ours", "flaml", "sklearn")
        )
        print(
            f"{task.id[:28]:28} {task.modality:11} {task.metric_name:9} {_fmt(r.get('ours')):>9} {_fmt(r.get('flaml')):>9} {_fmt(r.get('sklearn')):>9}  {secs}"
        )
        for c, o in r.items():
            if o.note and not o.note.startswith(("n/a", "best")):
                print(f"    {c}: {o.note}")
    print()
    for other in ("flaml", "sklearn"):
        if "ours" in contenders and other in contenders:
            print(_wins(rows, other))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(
        json.dumps(
            [{**asdict(r), "results": {k: asdict(v) for k, v in r.results.items()}} for r in rows],
            indent=2,
        )
    )
    if args.markdown:
        args.markdown.write_text(markdown(rows, args.out, args.budget))
    return 0


if __name__ == "__main__":
    sys.exit(main())
