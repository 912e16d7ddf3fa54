"""Reference solutions of varying strength whose scores make a task's leaderboard.

Each ``Reference`` is a model family, a training-set fraction and a feature set; together they
span a constant baseline up to tuned gradient boosting, so a new score's rank percentile means
something.  Every reference's predictions are written as a submission frame and scored by the
same grader that scores agents.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..errors import ReferenceFailed
from ..submission import GradingSpec, norm_label

Kind = Literal["frame", "dense", "text"]
SEED = 0


@dataclass(frozen=True)
class Reference:
    """One reference solution: a model family, its settings, a training fraction, a feature set."""

    name: str
    model: str
    frac: float = 1.0
    few_features: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    log_target: bool = False


CLASSIFICATION_LADDER: tuple[Reference, ...] = (
    Reference("constant-prior", "constant"),
    Reference("dummy-stratified", "stratified"),
    Reference("naive-bayes", "nb"),
    Reference("linear-5pct", "linear", 0.05),
    Reference("linear-20pct", "linear", 0.2),
    Reference("linear", "linear"),
    Reference("linear-few-features", "linear", few_features=True),
    Reference("tree-depth2", "tree", params={"max_depth": 2}),
    Reference("tree-depth6", "tree", params={"max_depth": 6}),
    Reference("knn5-20pct", "knn", 0.2, params={"n_neighbors": 5}),
    Reference("knn15", "knn", params={"n_neighbors": 15}),
    Reference("random-forest-50", "rf", params={"n_estimators": 50}),
    Reference("hgb-10iter", "hgb", params={"max_iter": 10}),
    Reference("hgb-20pct", "hgb", 0.2),
    Reference("hgb-few-features", "hgb", few_features=True),
    Reference("hgb-100", "hgb", params={"max_iter": 100}),
    Reference("hgb-300-lr0.05", "hgb", params={"max_iter": 300, "learning_rate": 0.05}),
)

REGRESSION_LADDER: tuple[Reference, ...] = (
    Reference("constant-mean", "constant"),
    Reference("constant-median", "median"),
    Reference("ridge-5pct", "linear", 0.05),
    Reference("ridge-20pct", "linear", 0.2),
    Reference("ridge", "linear"),
    Reference("ridge-log-target", "linear", log_target=True),
    Reference("ridge-few-features", "linear", few_features=True),
    Reference("tree-depth2", "tree", params={"max_depth": 2}),
    Reference("tree-depth6", "tree", params={"max_depth": 6}),
    Reference("knn5-20pct", "knn", 0.2, params={"n_neighbors": 5}),
    Reference("knn15", "knn", params={"n_neighbors": 15}),
    Reference("random-forest-50", "rf", params={"n_estimators": 50}),
    Reference("hgb-10iter", "hgb", params={"max_iter": 10}),
    Reference("hgb-20pct", "hgb", 0.2),
    Reference("hgb-few-features", "hgb", few_features=True),
    Reference("hgb-100", "hgb", params={"max_iter": 100}),
    Reference(
        "hgb-300-lr0.05-log-target",
        "hgb",
        params={"max_iter": 300, "learning_rate": 0.05},
        log_target=True,
    ),
)


@dataclass
class ReferenceData:
    """Features for the reference solutions: training rows, their targets, and the test rows."""

    kind: Kind
    X_train: Any  # DataFrame (frame), ndarray (dense) or list[str] (text)
    y_train: np.ndarray  # labels (as text) or values; 2-D for several targets
    X_test: Any
    test_ids: list[str]


def _featurizer(kind: Kind, X: Any, for_trees: bool, few: bool) -> Any:
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.decomposition import PCA, TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    if kind == "text":
        tfidf = TfidfVectorizer(
            ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=200 if few else 50000
        )
        return (
            make_pipeline(tfidf, TruncatedSVD(20 if few else 100, random_state=SEED))
            if for_trees
            else tfidf
        )
    if kind == "frame":
        num = make_pipeline(SimpleImputer(strategy="median"), StandardScaler())
        cat = make_pipeline(
            SimpleImputer(strategy="most_frequent"),
            OneHotEncoder(handle_unknown="ignore", min_frequency=5, sparse_output=False),
        )
        return ColumnTransformer(
            [
                ("num", num, make_column_selector(dtype_include="number")),
                ("cat", cat, make_column_selector(dtype_exclude="number")),
            ]
        )
    steps: list[Any] = [SimpleImputer(strategy="median"), StandardScaler()]
    if for_trees and X.shape[1] > 256:
        steps.append(PCA(40, random_state=SEED))
    return make_pipeline(*steps)


def _estimator(ref: Reference, classification: bool, kind: Kind) -> Any:
    from sklearn import dummy, ensemble, linear_model, naive_bayes, neighbors, tree

    p = ref.params
    if classification:
        makers: dict[str, Callable[[], Any]] = {
            "constant": lambda: dummy.DummyClassifier(strategy="prior"),
            "stratified": lambda: dummy.DummyClassifier(strategy="stratified", random_state=SEED),
            "nb": lambda: (
                naive_bayes.MultinomialNB() if kind == "text" else naive_bayes.GaussianNB()
            ),
            "linear": lambda: linear_model.LogisticRegression(max_iter=500, C=1.0),
            "tree": lambda: tree.DecisionTreeClassifier(random_state=SEED, **p),
            "knn": lambda: neighbors.KNeighborsClassifier(**p),
            "rf": lambda: ensemble.RandomForestClassifier(
                random_state=SEED, n_jobs=1, min_samples_leaf=2, **p
            ),
            "hgb": lambda: ensemble.HistGradientBoostingClassifier(
                random_state=SEED, early_stopping=False, **p
            ),
        }
    else:
        makers = {
            "constant": lambda: dummy.DummyRegressor(strategy="mean"),
            "median": lambda: dummy.DummyRegressor(strategy="median"),
            "linear": lambda: linear_model.Ridge(alpha=1.0),
            "tree": lambda: tree.DecisionTreeRegressor(random_state=SEED, **p),
            "knn": lambda: neighbors.KNeighborsRegressor(**p),
            "rf": lambda: ensemble.RandomForestRegressor(
                random_state=SEED, n_jobs=1, min_samples_leaf=2, **p
            ),
            "hgb": lambda: ensemble.HistGradientBoostingRegressor(
                random_state=SEED, early_stopping=False, **p
            ),
        }
    return makers[ref.model]()


def _subset(
    data: ReferenceData, ref: Reference, classification: bool
) -> tuple[Any, np.ndarray, Any]:
    X, y, Xt = data.X_train, data.y_train, data.X_test
    n = len(y)
    if ref.frac < 1.0:
        from sklearn.model_selection import train_test_split

        k = max(int(n * ref.frac), 20)
        strat = (
            y
            if classification and pd.Series(y).value_counts().min() >= 2 and k >= len(set(y))
            else None
        )
        try:
            idx, _ = train_test_split(np.arange(n), train_size=k, random_state=SEED, stratify=strat)
        except ValueError:
            idx, _ = train_test_split(np.arange(n), train_size=k, random_state=SEED)
        idx = np.sort(idx)
        X = (
            X.iloc[idx]
            if isinstance(X, pd.DataFrame)
            else [X[i] for i in idx]
            if isinstance(X, list)
            else X[idx]
        )
        y = y[idx]
    if ref.few_features and data.kind != "text":
        if isinstance(X, pd.DataFrame):
            cols = list(X.columns[: max(2, X.shape[1] // 4)])
            X, Xt = X[cols], Xt[cols]
        else:
            rng = np.random.default_rng(SEED)
            keep = np.sort(rng.choice(X.shape[1], size=max(2, X.shape[1] // 10), replace=False))
            X, Xt = X[:, keep], Xt[:, keep]
    return X, y, Xt


def fit_predict(data: ReferenceData, ref: Reference, spec: GradingSpec) -> pd.DataFrame:
    """Train ``ref`` on the training rows and return its submission frame for the test rows."""
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.pipeline import make_pipeline

    classification = spec.mode != "regression"
    X, y, Xt = _subset(data, ref, classification)
    for_trees = ref.model in ("tree", "rf", "hgb", "knn") or (
        ref.model == "nb" and data.kind != "text"
    )
    est = make_pipeline(
        _featurizer(data.kind, X, for_trees, ref.few_features),
        _estimator(ref, classification, data.kind),
    )
    if not classification and ref.log_target and np.nanmin(y) >= 0:
        est = TransformedTargetRegressor(est, func=np.log1p, inverse_func=np.expm1)
    est.fit(X, y)
    out: dict[str, Any] = {spec.id_col: data.test_ids} if spec.id_col else {}
    if spec.mode == "regression":
        pred = np.asarray(est.predict(Xt), dtype=float)
        pred = pred.reshape(len(data.test_ids), -1)
        if spec.values is not None and spec.values.nonnegative:
            pred = np.clip(pred, 0, None)  # RMSLE wants >= 0 (and reads negatives as 0 anyway)
        for j, c in enumerate(spec.pred_cols):
            out[c] = pred[:, j]
    elif spec.mode == "label":
        out[spec.pred_cols[0]] = [norm_label(v) for v in est.predict(Xt)]
    else:
        proba = est.predict_proba(Xt)
        classes = [norm_label(c) for c in est.classes_]
        if spec.mode == "proba_single":
            out[spec.pred_cols[0]] = proba[:, classes.index(str(spec.positive_label))]
        else:
            for c in spec.pred_cols:
                out[c] = proba[:, classes.index(norm_label(c))] if norm_label(c) in classes else 0.0
    return pd.DataFrame(out).astype(str)


def ladder_for(spec: GradingSpec, quick: bool = False) -> tuple[Reference, ...]:
    """The references that suit the task's kind of target.

    ``quick`` keeps every entry but caps boosting at 15 iterations and forests at 10 trees
    (for tests: same ladder shape, a fraction of the time).
    """
    refs = REGRESSION_LADDER if spec.mode == "regression" else CLASSIFICATION_LADDER
    if not quick:
        return refs
    caps = {"max_iter": 15, "n_estimators": 10}
    return tuple(
        replace(
            r,
            params={k: min(v, caps[k]) if k in caps else v for k, v in r.params.items()}
            | ({"max_iter": 15} if r.model == "hgb" and "max_iter" not in r.params else {}),
        )
        for r in refs
    )


def run_ladder(
    data: ReferenceData,
    spec: GradingSpec,
    score_fn: Callable[[pd.DataFrame], tuple[float | None, str | None]],
    log: Callable[[str], None] = lambda _: None,
    quick: bool = False,
) -> pd.DataFrame:
    """Fit and score every reference; the leaderboard rows (team, score, method, ...), best first."""
    rows = []
    for ref in ladder_for(spec, quick):
        t0 = time.perf_counter()
        sub = fit_predict(data, ref, spec)
        score, reason = score_fn(sub)
        secs = time.perf_counter() - t0
        if reason is not None:
            raise ReferenceFailed(
                f"{spec.task_id}: reference {ref.name} made an invalid submission ({reason}); "
                "this is a bug of the pack: report it, and prepare the other tasks with --tasks"
            )
        log(f"  [{spec.task_id}] {ref.name:<28} {spec.metric_name}={score:.5f} ({secs:.1f}s)")
        rows.append(
            {
                "team": f"ref-{ref.name}",
                "score": score,
                "method": ref.model,
                "train_fraction": ref.frac,
                "features": "few" if ref.few_features else "all",
                "seconds": round(secs, 2),
            }
        )
    board = pd.DataFrame(rows).sort_values(
        "score", ascending=spec.direction == "minimize", kind="stable"
    )
    board.insert(0, "rank", range(1, len(board) + 1))
    return board.reset_index(drop=True)
