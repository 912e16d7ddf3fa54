"""A tuned HistGradientBoosting baseline that stops when its wall-clock budget is spent.

``tune_hgb(X, y, X_test, ...)`` is what a practitioner writes in twenty lines: date columns
become year / month / day / day-of-week / day-of-year / elapsed days (and hour when there is a
time), text categories become integer codes (native categorical splits up to 250 levels),
then a random search over learning_rate, max_leaf_nodes, min_samples_leaf, l2_regularization
and max_features, each fit early-stopped on a fixed validation split and scored by the task's
metric.  The library default is tried first; a configuration is started only when the fits so
far say it (and the final refit) can still finish within the budget.  The best one is refit on
all training rows with the number of iterations its early stopping chose.  For RMSLE the target
is ``log1p(y)``; regression predictions are clipped to the training range.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?"
MAX_NATIVE_LEVELS = 250  # HistGradientBoosting's categorical splits take at most 255 bins


@dataclass
class TuneResult:
    """Test predictions (values; for classes the probability matrix in ``classes`` order) and
    what the search did."""

    values: np.ndarray
    classes: np.ndarray | None
    tried: int
    best_params: dict[str, Any]
    best_val: float
    log: list[str] = field(default_factory=list)


def date_columns(X: pd.DataFrame, share: float = 0.95) -> list[str]:
    """Text columns whose non-blank values nearly all look like ``YYYY-MM-DD[ HH:MM[:SS]]``."""
    out = []
    for c in X.select_dtypes(include=["object", "string"]).columns:
        v = X[c].dropna().astype(str)
        if len(v) and v.str.match(DATE_PATTERN).mean() >= share:
            out.append(c)
    return out


def _date_parts(s: pd.Series, origin: pd.Timestamp) -> pd.DataFrame:
    d = pd.to_datetime(s, errors="coerce", utc=True).dt.tz_localize(None)
    parts = {
        "year": d.dt.year,
        "month": d.dt.month,
        "day": d.dt.day,
        "dow": d.dt.dayofweek,
        "doy": d.dt.dayofyear,
        "elapsed_days": (d - origin).dt.total_seconds() / 86400.0,
    }
    if (d.dt.hour.fillna(0) != 0).any():
        parts["hour"] = d.dt.hour + d.dt.minute / 60.0
    return pd.DataFrame({f"{s.name}_{k}": v.astype(float) for k, v in parts.items()})


def featurize(
    X: pd.DataFrame, X_test: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, list[bool]]:
    """Numeric frames for HistGradientBoosting and which columns are categorical."""
    dates = date_columns(X)
    both = pd.concat([X, X_test], keys=["train", "test"])
    origin = pd.to_datetime(both[dates[0]], errors="coerce", utc=True).min() if dates else None
    frames, categorical = [], []
    for c in both.columns:
        col = both[c]
        if c in dates:
            parts = _date_parts(col, origin.tz_localize(None))  # type: ignore[union-attr]
            frames.append(parts)
            categorical += [False] * parts.shape[1]
        elif pd.api.types.is_bool_dtype(col) or pd.api.types.is_numeric_dtype(col):
            frames.append(col.astype(float).to_frame(c))
            categorical.append(False)
        else:
            codes, levels = pd.factorize(col.astype("string"), sort=True)
            frames.append(
                pd.Series(np.where(codes < 0, np.nan, codes), index=col.index, name=c).to_frame()
            )
            categorical.append(len(levels) <= MAX_NATIVE_LEVELS)
    full = pd.concat(frames, axis=1)
    return (
        full.loc["train"].reset_index(drop=True),
        full.loc["test"].reset_index(drop=True),
        categorical,
    )


def _sample(rng: np.random.Generator) -> dict[str, Any]:
    return {
        "learning_rate": float(np.exp(rng.uniform(np.log(0.02), np.log(0.3)))),
        "max_leaf_nodes": int(rng.choice([15, 31, 63, 127, 255])),
        "min_samples_leaf": int(rng.choice([5, 10, 20, 40, 80, 160])),
        "l2_regularization": float(rng.choice([0.0, 1e-3, 1e-2, 0.1, 1.0, 10.0])),
        "max_features": float(rng.choice([1.0, 0.8, 0.5])),
    }


def _expected(params: dict[str, Any], default_iters: int, unit: float) -> float:
    """Seconds a fit of ``params`` should take: iterations scale as 1 / learning rate."""
    lr = float(params.get("learning_rate", 0.1))
    iters = min(2000, default_iters * 0.1 / lr + 30)
    return unit * iters * int(params.get("max_leaf_nodes", 31))


def tune_hgb(
    X: pd.DataFrame,
    y: pd.Series,
    X_test: pd.DataFrame,
    *,
    classification: bool,
    score: Callable[[np.ndarray, np.ndarray], float],
    higher_is_better: bool,
    proba: bool,
    log_target: bool,
    budget: float,
    seed: int = 0,
) -> TuneResult:
    """Random search within ``budget`` seconds (counted from the call); the refit's predictions.

    ``score(y_true, pred)`` is the task's metric on the original target scale; ``proba`` says
    the metric takes probabilities (the positive column for two classes, else the matrix).
    """
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.model_selection import train_test_split

    t0 = time.time()
    Xf, Xt, categorical = featurize(X, X_test)
    y_arr = np.asarray(y)
    classes = None
    if classification:
        classes, y_fit = np.unique(y_arr, return_inverse=True)
    else:
        y_fit = np.log1p(y_arr.astype(float)) if log_target else y_arr.astype(float)
    lo, hi = float(np.min(y_fit)), float(np.max(y_fit))
    strat = y_fit if classification and np.bincount(y_fit).min() >= 2 else None
    idx_fit, idx_val = train_test_split(
        np.arange(len(Xf)), test_size=0.2, random_state=seed, stratify=strat
    )
    model_cls = HistGradientBoostingClassifier if classification else HistGradientBoostingRegressor

    def make(params: dict[str, Any], **extra: Any) -> Any:
        return model_cls(categorical_features=categorical, random_state=seed, **params, **extra)

    def predict(model: Any, rows: pd.DataFrame) -> np.ndarray:
        if classification:
            p = model.predict_proba(rows)
            if not proba:
                return np.asarray(classes)[np.argmax(p, axis=1)]
            return p[:, 1] if p.shape[1] == 2 else p
        pred = np.clip(model.predict(rows), lo, hi)
        return np.expm1(pred) if log_target else pred

    rng = np.random.default_rng(seed)
    configs: list[dict[str, Any]] = [{}]  # the library default first
    best: tuple[float, dict[str, Any], int, float] | None = None
    unit: list[float] = []  # seconds per (iteration x leaf) of the fits so far
    log: list[str] = []
    tried = skipped = 0
    while time.time() - t0 < budget:
        params = configs.pop(0) if configs else _sample(rng)
        left = budget - (time.time() - t0)
        if unit and best is not None:
            refit = best[3] * 1.3  # all rows instead of 80 %, no early stopping
            if _expected(params, best[2], max(unit)) + refit > left:
                skipped += 1
                if refit * 2 > left or skipped > 50:
                    log.append(f"stop: {left:.0f}s left, the refit takes ~{refit:.0f}s")
                    break
                continue  # too slow for what is left: sample a cheaper one
        ts = time.time()
        model = make(
            params,
            max_iter=2000,
            early_stopping=True,
            validation_fraction=0.1,
            n_iter_no_change=30,
        )
        model.fit(Xf.iloc[idx_fit], y_fit[idx_fit])
        secs = time.time() - ts
        tried += 1
        leaves = int(params.get("max_leaf_nodes", 31))
        unit.append(secs / max(1, model.n_iter_ * leaves))
        val = float(score(y_arr[idx_val], predict(model, Xf.iloc[idx_val])))
        log.append(f"{params or 'default'}: val {val:.5f}, {model.n_iter_} iter, {secs:.1f}s")
        if best is None or (val > best[0] if higher_is_better else val < best[0]):
            best = (val, params, int(model.n_iter_), secs)
    assert best is not None  # the first configuration always runs
    val, params, n_iter, _ = best
    final = make(params, max_iter=max(10, int(n_iter * 1.1)), early_stopping=False)
    final.fit(Xf, y_fit)
    out = final.predict_proba(Xt) if classification else predict(final, Xt)
    return TuneResult(out, classes, tried, params, val, log)
