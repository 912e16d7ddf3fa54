"""Metrics: names, aliases, direction, and how to compute each one.

A task names its metric in free text ("Multiclass Accuracy", "RMSE", "roc_auc"); ``get_metric``
maps it onto one entry of the registry, so the direction always comes from here, never from a
model's guess.  ``Score`` compares values by "better" given that direction.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .messages import quote
from .metric_params import Named, find_named

Direction = Literal["maximize", "minimize"]
MetricKind = Literal["label", "probability", "regression", "ranked"]


class UnknownMetricError(ValueError):
    """The metric name matches nothing in the registry."""


@dataclass(frozen=True)
class Metric:
    """One metric: its canonical name, direction, aliases and scoring function.

    ``fn(y_true, y_pred)`` takes labels/values and predictions (probabilities where the metric
    needs them: ``roc_auc`` takes the positive-class probability, ``log_loss`` a matrix).
    ``kind`` says what a prediction is: a class ``label``, a ``probability``, a number
    (``regression``), or ``ranked``: up to ``k`` classes, most likely first, written in one cell
    separated by spaces (MAP@k, top-k accuracy); ``nonnegative`` that predictions must be >= 0
    (log-based errors).  ``positive_class``: of two labels the metric scores one class, the
    positive one (F1, F-beta, precision, recall, Jaccard; ``_positive_class``), of more their
    macro average.  ``beta`` is F-beta's, ``alpha`` the pinball loss's quantile.
    """

    name: str
    direction: Direction
    fn: Callable[[Any, Any], float]
    aliases: tuple[str, ...] = ()
    kind: MetricKind = "label"
    bounds: tuple[float, float] | None = None
    nonnegative: bool = False
    k: int | None = None  # ranked: how many classes a prediction lists (and the metric counts)
    positive_class: bool = False  # two labels: the positive class's score (F1, Jaccard ...)
    beta: float | None = None  # F-beta: recall weighs beta times precision
    alpha: float | None = None  # pinball loss: the quantile predicted
    sklearn: str = ""  # how scikit-learn computes it, for a prompt (the less known metrics)

    @property
    def higher_is_better(self) -> bool:
        """Whether a larger value of this metric is a better score (``direction == "maximize"``)."""
        return self.direction == "maximize"

    @property
    def needs_proba(self) -> bool:
        """Whether predictions are probabilities."""
        return self.kind == "probability"

    def __call__(self, y_true: Any, y_pred: Any) -> float:
        return float(self.fn(y_true, y_pred))


def _accuracy(y, p):  # type: ignore[no-untyped-def]
    return float(np.mean(np.asarray(y) == np.asarray(p)))


# labels that name the positive class of a two-class target (compared lower-case)
POSITIVE_LABELS = ("1", "true", "yes", "y", "t", "positive", "pos")


def positive_texts(named: str) -> tuple[str, ...]:
    """How a class the task names positive reads as text in a model's classes: ``"0"`` is also
    ``"0.0"`` (a float target read by pandas)."""
    return (named, f"{named}.0") if named.lstrip("-").isdigit() else (named,)


def _positive_class(y: Any, p: Any) -> dict[str, Any]:
    """``f1_score`` / ``precision_score`` / ``recall_score`` arguments for labels that are not
    0 and 1: the positive class of two (``1``, ``True``, ``"yes"``, ``"positive"``; else the
    last in sorted order, as 1 is after 0: the offline notebooks choose alike), or the macro
    average of more than two (where a binary F1 has no meaning)."""
    import pandas as pd

    values = pd.unique(np.concatenate([np.asarray(y, dtype=object), np.asarray(p, dtype=object)]))
    if len(values) > 2:
        return {"average": "macro"}
    for v in values:
        if str(v).strip().lower() in POSITIVE_LABELS:
            return {"pos_label": v}
    return {"pos_label": sorted(values, key=str)[-1]} if len(values) == 2 else {}


# the ROC AUCs of several classes, as scikit-learn's scorers name them: roc_auc_score's
# (multi_class, average); "roc_auc" is scikit-learn's "roc_auc_ovr"
AUC_AVERAGES: dict[str, tuple[str, str]] = {
    "roc_auc": ("ovr", "macro"),
    "roc_auc_ovr_weighted": ("ovr", "weighted"),
    "roc_auc_ovo": ("ovo", "macro"),
    "roc_auc_ovo_weighted": ("ovo", "weighted"),
}


def multiclass_auc(name: str, y: Any, p: Any, labels: Sequence[Any] | None = None) -> float:
    """The ROC AUC ``name`` (one of ``AUC_AVERAGES``) of the class probabilities ``p`` (a
    column per class, in the order of ``labels``; default: ``y``'s sorted classes)."""
    from sklearn.metrics import roc_auc_score

    multi_class, average = AUC_AVERAGES[name]
    return float(
        roc_auc_score(
            y,
            p,
            multi_class=multi_class,
            average=average,
            labels=None if labels is None else list(labels),
        )
    )


def _sk(name: str) -> Callable[[Any, Any], float]:
    def fn(y: Any, p: Any) -> float:
        from sklearn import metrics as skm

        if name == "f1_macro":
            return float(skm.f1_score(y, p, average="macro"))
        if name == "f1":
            return float(skm.f1_score(y, p, **_positive_class(y, p)))
        if name in AUC_AVERAGES:
            p = np.asarray(p)
            if p.ndim == 2 and p.shape[1] > 2:
                return multiclass_auc(name, y, p)
            if p.ndim == 2:
                p = p[:, 1]
            return float(skm.roc_auc_score(y, p))  # two classes: every average is the one AUC
        if name == "log_loss":
            return float(skm.log_loss(y, p))
        if name == "rmse":
            return float(math.sqrt(skm.mean_squared_error(y, p)))
        if name == "mse":
            return float(skm.mean_squared_error(y, p))
        if name == "mae":
            return float(skm.mean_absolute_error(y, p))
        if name in ("rmsle", "msle"):
            y_, p_ = np.asarray(y, dtype=float), np.clip(np.asarray(p, dtype=float), 0, None)
            msle = float(np.mean((np.log1p(p_) - np.log1p(y_)) ** 2))
            return math.sqrt(msle) if name == "rmsle" else msle
        if name == "r2":
            return float(skm.r2_score(y, p))
        if name == "mcrmse":
            y_, p_ = np.asarray(y, dtype=float), np.asarray(p, dtype=float)
            if y_.ndim == 1:
                y_, p_ = y_[:, None], p_[:, None]
            return float(np.mean(np.sqrt(np.mean((y_ - p_) ** 2, axis=0))))
        if name == "qwk":
            return float(skm.cohen_kappa_score(y, p, weights="quadratic"))
        if name == "cohen_kappa":  # unweighted: every disagreement counts the same
            return float(skm.cohen_kappa_score(y, p))
        if name == "explained_variance":
            return float(skm.explained_variance_score(y, p))
        if name == "poisson_deviance":  # a count's mean is positive: so is the prediction
            p_ = np.clip(np.asarray(p, dtype=float), 1e-9, None)
            return float(skm.mean_poisson_deviance(np.asarray(y, dtype=float), p_))
        if name == "balanced_accuracy":
            return float(skm.balanced_accuracy_score(y, p))
        if name == "mcc":
            return float(skm.matthews_corrcoef(y, p))
        if name in ("f1_weighted", "f1_micro"):
            return float(skm.f1_score(y, p, average=name.split("_")[1]))
        if name in ("precision_macro", "precision_weighted"):
            return float(skm.precision_score(y, p, average=name.split("_")[1], zero_division=0))
        if name == "d2_absolute_error":  # 1 - MAE / the MAE of the median: R²'s analogue
            return float(skm.d2_absolute_error_score(y, p))
        if name == "precision":
            return float(skm.precision_score(y, p, zero_division=0, **_positive_class(y, p)))
        if name == "recall":
            return float(skm.recall_score(y, p, zero_division=0, **_positive_class(y, p)))
        if name in ("average_precision", "gini"):
            p = np.asarray(p)
            if p.ndim == 2 and p.shape[1] == 2:
                p = p[:, 1]
            if name == "gini":  # normalised Gini of the scores: 2 AUC - 1
                return 2 * _sk("roc_auc")(y, p) - 1
            if p.ndim == 2:  # several classes: the mean over one-vs-rest curves
                from sklearn.preprocessing import label_binarize

                onehot = label_binarize(y, classes=list(range(p.shape[1])))
                return float(skm.average_precision_score(onehot, p, average="macro"))
            return float(skm.average_precision_score(y, p))
        if name == "brier":
            p = np.asarray(p, dtype=float)
            if p.ndim == 2 and p.shape[1] == 2:
                p = p[:, 1]
            if p.ndim == 1:  # two classes: the squared error of the positive class's probability
                return float(skm.brier_score_loss(y, p))
            y_ = np.asarray(y)
            classes = (
                np.arange(p.shape[1]) if np.issubdtype(y_.dtype, np.integer) else np.unique(y_)
            )
            onehot = (y_[:, None] == classes[None, :]).astype(float)
            return float(np.mean(np.sum((p - onehot) ** 2, axis=1)))  # summed over the classes
        if name == "medae":
            return float(skm.median_absolute_error(y, p))
        if name == "jaccard":
            return float(skm.jaccard_score(y, p, zero_division=0, **_positive_class(y, p)))
        if name == "jaccard_macro":
            return float(skm.jaccard_score(y, p, average="macro", zero_division=0))
        if name == "zero_one_loss":  # the share of wrong labels
            return 1.0 - _accuracy(y, p)
        if name == "hamming_loss":  # the share of wrong labels: 1 - accuracy of one label column
            return float(skm.hamming_loss(y, p))
        if name == "max_error":  # the worst absolute error (of every column, several given)
            return float(np.max(np.abs(np.asarray(y, dtype=float) - np.asarray(p, dtype=float))))
        if name in ("mape", "smape"):
            y_, p_ = np.asarray(y, dtype=float), np.asarray(p, dtype=float)
            if name == "mape":
                return float(np.mean(np.abs(y_ - p_) / np.maximum(np.abs(y_), 1e-12)))
            denom = np.abs(y_) + np.abs(p_)
            ratio = np.divide(2 * np.abs(y_ - p_), denom, out=np.zeros_like(y_), where=denom > 0)
            return float(100 * np.mean(ratio))
        if name in ("pearson", "spearman", "kendall"):
            from scipy import stats

            y_, p_ = np.asarray(y, dtype=float), np.asarray(p, dtype=float)
            if np.std(p_) == 0 or np.std(y_) == 0:
                return 0.0  # a constant prediction has no correlation
            corr = {"pearson": stats.pearsonr, "spearman": stats.spearmanr}.get(
                name, stats.kendalltau
            )
            return float(corr(y_, p_)[0])
        raise UnknownMetricError(name)

    return fn


_REGISTRY: tuple[Metric, ...] = (
    Metric(
        "accuracy",
        "maximize",
        _accuracy,
        (
            "acc",
            "multiclass accuracy",
            "classification accuracy",
            "categorization accuracy",
            # of one label per row these are the share of right labels: scikit-learn's scorers
            # "recall_weighted" (each class's recall weighed by its rows), "recall_micro" and
            # "precision_micro" (every row's label counted once)
            "recall weighted",
            "weighted recall",
            "recall micro",
            "micro recall",
            "precision micro",
            "micro precision",
        ),
        bounds=(0, 1),
    ),
    Metric(
        "balanced_accuracy",
        "maximize",
        _sk("balanced_accuracy"),
        # the mean recall of the classes: scikit-learn's scorer "recall_macro" is the same number
        ("balanced accuracy", "recall macro", "macro recall", "macro averaged recall"),
        bounds=(0, 1),
    ),
    Metric(
        "f1_macro",
        "maximize",
        _sk("f1_macro"),
        (
            "macro f1",
            "macro-f1",
            "f1 macro",
            "macro f1 score",
            "mean f1",
            "f1 score macro",
            "macro averaged f1",
            "macro averaged f1 score",
        ),
        bounds=(0, 1),
    ),
    Metric(
        "f1",
        "maximize",
        _sk("f1"),
        ("f1 score", "f1-score", "binary f1"),
        bounds=(0, 1),
        positive_class=True,
    ),
    Metric(
        "roc_auc",
        "maximize",
        _sk("roc_auc"),
        (
            "auc",
            "roc auc",
            "area under the roc curve",
            "area under roc curve",  # OpenML's area_under_roc_curve
            "auroc",
            "roc-auc",
            "area under curve",
            "area under the curve",
            "roc auc ovr",  # scikit-learn's scorer: the mean of the one-vs-rest AUCs
            "one vs rest auc",
            "one vs rest roc auc",
            "ovr auc",
            "roc auc one vs rest",
            "auc one vs rest",
        ),
        kind="probability",
        bounds=(0, 1),
    ),
    Metric(
        "roc_auc_ovo",
        "maximize",
        _sk("roc_auc_ovo"),
        (
            "roc auc ovo",
            "one vs one auc",
            "one vs one roc auc",
            "ovo auc",
            "auc ovo",
            "roc auc one vs one",
            "auc one vs one",
            "macro one vs one auc",
        ),
        kind="probability",
        bounds=(0, 1),
        sklearn='roc_auc_score(y_true, probabilities, multi_class="ovo", labels=classes)',
    ),
    Metric(
        "roc_auc_ovr_weighted",
        "maximize",
        _sk("roc_auc_ovr_weighted"),
        ("weighted one vs rest auc", "weighted one vs rest roc auc"),
        kind="probability",
        bounds=(0, 1),
        sklearn='roc_auc_score(y_true, probabilities, multi_class="ovr", average="weighted", '
        "labels=classes)",
    ),
    Metric(
        "roc_auc_ovo_weighted",
        "maximize",
        _sk("roc_auc_ovo_weighted"),
        ("weighted one vs one auc", "weighted one vs one roc auc"),
        kind="probability",
        bounds=(0, 1),
        sklearn='roc_auc_score(y_true, probabilities, multi_class="ovo", average="weighted", '
        "labels=classes)",
    ),
    Metric(
        "log_loss",
        "minimize",
        _sk("log_loss"),
        (
            "logloss",
            "log loss",
            "logarithmic loss",
            "cross entropy",
            "multiclass log loss",
            "binary cross-entropy",
            "mlogloss",  # XGBoost's and LightGBM's names of it
            "multi_logloss",
            "binary_logloss",
            "binary crossentropy",  # Keras's names of it
            "categorical crossentropy",
            "sparse categorical crossentropy",
        ),
        kind="probability",
    ),
    Metric(
        "rmse",
        "minimize",
        _sk("rmse"),
        ("root mean squared error", "root mean square error"),
        kind="regression",
    ),
    Metric("mse", "minimize", _sk("mse"), ("mean squared error",), kind="regression"),
    Metric("mae", "minimize", _sk("mae"), ("mean absolute error",), kind="regression"),
    Metric(
        "rmsle",
        "minimize",
        _sk("rmsle"),
        ("root mean squared logarithmic error", "root mean squared log error", "rmse of log"),
        kind="regression",
        nonnegative=True,
    ),
    Metric(
        "msle",
        "minimize",
        _sk("msle"),
        ("mean squared logarithmic error", "mean squared log error"),
        kind="regression",
        nonnegative=True,
    ),
    Metric(
        "r2",
        "maximize",
        _sk("r2"),
        ("r squared", "coefficient of determination", "r^2", "r²", "r2 score"),
        kind="regression",
    ),
    Metric(
        "mcrmse",
        "minimize",
        _sk("mcrmse"),
        (
            "mean columnwise root mean squared error",
            "mean column wise root mean squared error",
            "mean columnwise rmse",
            "mean column wise rmse",
            "column wise mean rmse",
            "columnwise rmse",
            "column wise rmse",
            "rmse averaged over the columns",
            "rmse averaged over columns",
            "mean rmse over the columns",
            "average rmse of the columns",
        ),
        kind="regression",
    ),
    Metric(
        "qwk",
        "maximize",
        _sk("qwk"),
        ("quadratic weighted kappa", "kappa", "qwk score"),
        bounds=(-1, 1),
    ),
    Metric(
        "cohen_kappa",
        "maximize",
        _sk("cohen_kappa"),
        ("cohen kappa", "cohen's kappa", "cohens kappa", "cohen kappa score", "unweighted kappa"),
        bounds=(-1, 1),
    ),
    Metric(
        "mcc",
        "maximize",
        _sk("mcc"),
        ("matthews correlation coefficient", "matthews correlation", "matthews corrcoef"),
        bounds=(-1, 1),
    ),
    Metric(
        "f1_weighted",
        "maximize",
        _sk("f1_weighted"),
        (
            "weighted f1",
            "f1 weighted",
            "weighted f1 score",
            "weighted average f1",
            "f1 score weighted",
        ),
        bounds=(0, 1),
    ),
    Metric(
        "f1_micro",
        "maximize",
        _sk("f1_micro"),
        ("micro f1", "f1 micro", "micro f1 score", "micro averaged f1", "f1 score micro"),
        bounds=(0, 1),
    ),
    Metric(
        "precision",
        "maximize",
        _sk("precision"),
        ("precision score",),
        bounds=(0, 1),
        positive_class=True,
    ),
    Metric(
        "precision_macro",
        "maximize",
        _sk("precision_macro"),
        ("precision macro", "macro precision", "macro averaged precision", "precision score macro"),
        bounds=(0, 1),
        sklearn='precision_score(y_true, y_pred, average="macro", zero_division=0)',
    ),
    Metric(
        "precision_weighted",
        "maximize",
        _sk("precision_weighted"),
        ("precision weighted", "weighted precision", "precision score weighted"),
        bounds=(0, 1),
        sklearn='precision_score(y_true, y_pred, average="weighted", zero_division=0)',
    ),
    Metric(
        "recall",
        "maximize",
        _sk("recall"),
        ("recall score", "sensitivity"),
        bounds=(0, 1),
        positive_class=True,
    ),
    Metric(
        "jaccard",
        "maximize",
        _sk("jaccard"),
        (
            "jaccard score",
            "jaccard index",
            "jaccard similarity",
            "jaccard similarity score",
            "jaccard coefficient",
            "binary jaccard",
        ),
        bounds=(0, 1),
        positive_class=True,
        sklearn="jaccard_score(y_true, y_pred, pos_label=<the positive class>)",
    ),
    Metric(
        "jaccard_macro",
        "maximize",
        _sk("jaccard_macro"),
        ("macro jaccard", "jaccard macro", "macro jaccard score", "macro averaged jaccard"),
        bounds=(0, 1),
        sklearn='jaccard_score(y_true, y_pred, average="macro")',
    ),
    Metric(
        "hamming_loss",
        "minimize",
        _sk("hamming_loss"),
        ("hamming loss",),
        bounds=(0, 1),
        sklearn="hamming_loss(y_true, y_pred)",
    ),
    Metric(
        "zero_one_loss",
        "minimize",
        _sk("zero_one_loss"),
        (
            "error rate",
            "classification error",
            "classification error rate",
            "misclassification rate",
            "misclassification error",
            "zero one loss",
            "0 1 loss",
        ),
        bounds=(0, 1),
        sklearn="zero_one_loss(y_true, y_pred): the share of wrong labels, 1 - accuracy",
    ),
    Metric(
        "average_precision",
        "maximize",
        _sk("average_precision"),
        (
            "average precision",
            "pr auc",
            "auprc",
            "auc pr",
            "precision recall auc",
            "area under the precision recall curve",
        ),
        kind="probability",
        bounds=(0, 1),
    ),
    Metric(
        "gini",
        "maximize",
        _sk("gini"),
        ("normalized gini", "normalised gini", "gini coefficient", "normalized gini coefficient"),
        kind="probability",
        bounds=(-1, 1),
    ),
    Metric(
        "brier",
        "minimize",
        _sk("brier"),
        ("brier score", "brier score loss", "brier_score_loss", "multiclass brier score"),
        kind="probability",
        bounds=(0, 2),
    ),
    Metric(
        "mape",
        "minimize",
        _sk("mape"),
        ("mean absolute percentage error",),
        kind="regression",
    ),
    Metric(
        "smape",
        "minimize",
        _sk("smape"),
        ("symmetric mean absolute percentage error", "symmetric mape"),
        kind="regression",
        bounds=(0, 200),
    ),
    Metric(
        "medae",
        "minimize",
        _sk("medae"),
        ("median absolute error",),
        kind="regression",
    ),
    Metric(
        "max_error",
        "minimize",
        _sk("max_error"),
        (
            "max error",
            "maximum error",
            "maximum absolute error",
            "max absolute error",
            "maximum residual error",
        ),
        kind="regression",
        sklearn="max_error(y_true, y_pred)",
    ),
    Metric(
        "pearson",
        "maximize",
        _sk("pearson"),
        ("pearson correlation", "pearson r", "pearson correlation coefficient"),
        kind="regression",
        bounds=(-1, 1),
    ),
    Metric(
        "spearman",
        "maximize",
        _sk("spearman"),
        ("spearman correlation", "spearman rank correlation", "spearman rho", "spearman's rho"),
        kind="regression",
        bounds=(-1, 1),
    ),
    Metric(
        "kendall",
        "maximize",
        _sk("kendall"),
        (
            "kendall tau",
            "kendall's tau",
            "kendall rank correlation",
            "kendall correlation",
            "kendall tau b",
        ),
        kind="regression",
        bounds=(-1, 1),
    ),
    Metric(
        "d2_absolute_error",
        "maximize",
        _sk("d2_absolute_error"),
        (
            "d2 absolute error score",
            "d2 absolute error",
            "d² absolute error",
            "d2 pinball score",  # of its default quantile, 0.5: the same number
        ),
        kind="regression",
        sklearn="d2_absolute_error_score(y_true, y_pred): 1 - MAE / the MAE of the median",
    ),
    Metric(
        "explained_variance",
        "maximize",
        _sk("explained_variance"),
        ("explained variance", "explained variance score", "explained variance regression score"),
        kind="regression",
    ),
    Metric(
        "poisson_deviance",
        "minimize",
        _sk("poisson_deviance"),
        ("mean poisson deviance", "poisson deviance", "mean_poisson_deviance"),
        kind="regression",
    ),
)

# words that make a phrase another metric than the one it contains ("top-3 accuracy", "MAP@3",
# "precision at k"): a phrase with one of them must name its metric exactly, or it is unknown
_QUALIFIER = re.compile(
    r"\btop ?(?:\d+|k)\b|@ ?(?:\d+|k)\b|\bmap\b|\bmean average\b|\bat k\b|"
    r"\blinear(?:ly)? weighted\b|\bsamples?\b|\bndcg\b|\bweighted\b|\bmicro\b|\bmacro\b|\bpr\b|\bprecision\b|\brecall\b|"
    r"\bovo\b|\bone vs one\b|\bovr\b|\bone vs rest\b|"
    # "balanced log loss" weighs the classes alike, "normalized RMSE" divides by the range
    r"\bbalanced\b|\bnormali[sz]ed\b|"
    # speech's word error rate, biometrics' equal error rate: no share of wrong labels
    r"\b(?:word|character|char|equal|bit|symbol|phone) error rate\b"
)


# the metrics whose name carries a parameter, as an unknown metric's refusal lists them
PARAMETRIC_NAMES = "map@<k>, top<k>_accuracy, f<beta> (f2, f0.5, f2_macro), pinball@<alpha>"

# MAP@k: "MAP@3", "map @ 3", "Mean Average Precision @ 3", "mean average precision at 5"
_MAP_AT_K = re.compile(r"\b(?:mean average precision|map) ?(?:@|at) ?(\d+)\b")


def ranked_labels(cell: Any) -> list[str]:
    """A ranked prediction's classes, most likely first: a cell's space-separated text, or a
    sequence of labels (each as stripped text)."""
    if isinstance(cell, str):
        return cell.split()
    if isinstance(cell, (list, tuple, np.ndarray)):
        return [str(v).strip() for v in cell]
    return [] if cell is None or (isinstance(cell, float) and math.isnan(cell)) else [str(cell)]


def _first_distinct(cell: Any, k: int) -> list[str]:
    """The first ``k`` distinct classes a ranked cell lists (``ranked_labels``), in order."""
    seen: list[str] = []
    for label in ranked_labels(cell):
        if label not in seen:
            seen.append(label)
        if len(seen) == k:
            break
    return seen


def _map_at(k: int) -> Callable[[Any, Any], float]:
    def fn(y: Any, p: Any) -> float:
        """Mean over rows of 1/rank of the true class among the first ``k`` predicted (0 when
        it is not there; a class repeated in a row counts at its first place only)."""
        total, rows = 0.0, 0
        for truth, cell in zip(y, p, strict=True):
            rows += 1
            seen = _first_distinct(cell, k)
            if str(truth).strip() in seen:
                total += 1.0 / (seen.index(str(truth).strip()) + 1)
        return total / rows if rows else float("nan")

    return fn


def map_at_k(k: int) -> Metric:
    """The MAP@k metric: ``fn(y, p)`` takes true classes and ranked predictions (space-separated
    text or label sequences)."""
    if k < 1:
        raise UnknownMetricError(f"MAP@{k}: k must be at least 1")
    return Metric(
        f"map@{k}",
        "maximize",
        _map_at(k),
        (f"mean average precision @ {k}", f"map @ {k}", f"mean average precision at {k}"),
        kind="ranked",
        bounds=(0, 1),
        k=k,
    )


def _top_k(k: int) -> Callable[[Any, Any], float]:
    def fn(y: Any, p: Any) -> float:
        """The share of rows whose true class is among the first ``k`` (distinct) predicted."""
        hits, rows = 0, 0
        for truth, cell in zip(y, p, strict=True):
            rows += 1
            hits += str(truth).strip() in _first_distinct(cell, k)
        return hits / rows if rows else float("nan")

    return fn


def top_k_accuracy(k: int) -> Metric:
    """Top-k accuracy: ``fn(y, p)`` takes true classes and ranked predictions, each row's ``k``
    most likely classes (space-separated text or label sequences), most likely first; top-1
    accuracy is accuracy."""
    if k < 1:
        raise UnknownMetricError(f"top-{k} accuracy: k must be at least 1")
    if k == 1:
        return get_metric("accuracy")
    return Metric(
        f"top{k}_accuracy",
        "maximize",
        _top_k(k),
        (f"top {k} accuracy", f"top-{k} accuracy", f"top_k_accuracy_score k={k}"),
        kind="ranked",
        bounds=(0, 1),
        k=k,
        sklearn=f"top_k_accuracy_score(y_true, probabilities, k={k}, labels=classes)",
    )


def fbeta(beta: float, macro: bool = False) -> Metric:
    """F-beta of the positive class of two labels (``_positive_class``, as F1), or its
    ``macro`` average over the classes; F1 is beta = 1."""
    if beta <= 0:
        raise UnknownMetricError(f"F-beta: beta must be above 0, not {beta:g}")
    if beta == 1:
        return get_metric("f1_macro" if macro else "f1")

    def fn(y: Any, p: Any) -> float:
        from sklearn.metrics import fbeta_score

        how = {"average": "macro"} if macro else _positive_class(y, p)
        return float(fbeta_score(y, p, beta=beta, zero_division=0, **how))

    name = f"f{beta:g}" + ("_macro" if macro else "")
    spelled = f"macro f{beta:g}" if macro else f"f{beta:g} score"
    return Metric(
        name,
        "maximize",
        fn,
        (spelled, f"fbeta score beta={beta:g}" + (" average='macro'" if macro else "")),
        bounds=(0, 1),
        positive_class=not macro,
        beta=beta,
        sklearn=f"fbeta_score(y_true, y_pred, beta={beta:g}, "
        + ('average="macro")' if macro else "pos_label=<the positive class>)"),
    )


def pinball(alpha: float = 0.5) -> Metric:
    """The mean pinball (quantile) loss of predictions of the ``alpha`` quantile: under-predicting
    costs ``alpha`` per unit, over-predicting ``1 - alpha`` (0.5: half the MAE)."""
    if not 0 < alpha < 1:
        raise UnknownMetricError(f"pinball loss: alpha must be between 0 and 1, not {alpha:g}")

    def fn(y: Any, p: Any) -> float:
        from sklearn.metrics import mean_pinball_loss

        return float(mean_pinball_loss(y, p, alpha=alpha))

    return Metric(
        f"pinball@{alpha:g}",
        "minimize",
        fn,
        (f"pinball loss alpha={alpha:g}", f"mean pinball loss alpha={alpha:g}"),
        kind="regression",
        alpha=alpha,
        sklearn=f"mean_pinball_loss(y_true, y_pred, alpha={alpha:g}): predict the {alpha:g} "
        "quantile, not the mean",
    )


def named_metric(n: Named) -> Metric:
    """The metric a mention with a parameter names (``metric_params.find_named``; one without
    a refusal)."""
    if n.family in ("fbeta", "fbeta_macro"):
        return fbeta(float(n.value or 1), macro=n.family == "fbeta_macro")
    if n.family == "pinball":
        return pinball(0.5 if n.value is None else float(n.value))
    if n.family == "top_k_accuracy":
        return top_k_accuracy(int(n.value or 1))
    return get_metric(n.family)  # jaccard, jaccard_macro: in the registry


def is_classification_metric(name: str) -> bool:
    """Whether ``name`` grades classes (labels, probabilities or ranked classes)."""
    try:
        return get_metric(name).kind != "regression"
    except UnknownMetricError:
        return False


def _norm(name: str) -> str:
    # words joined in CamelCase are words ("MeanSquaredError", Keras's); "mAP" is one
    name = re.sub(r"(?<=[a-z])(?=[A-Z][a-z])", " ", name.strip())
    return re.sub(r"[\s_\-(),/:]+", " ", name.lower()).strip()


def metric_names() -> list[str]:
    """Canonical names of every known metric."""
    return [m.name for m in _REGISTRY]


# a scikit-learn call written as the metric ("f1_score(average='macro')", "roc_auc_score(
# multi_class='ovo')"), normalised (``_norm``): read as the registry's name of what it computes
_CALL = re.compile(r"^(?:sklearn\.)?(?:metrics\.)?(f1|precision|recall|roc auc) score\b(.*)$")
_CALL_ARG = re.compile(r"""\b(average|multi class) ?= ?['"]?(\w+)""")


def _call_named(key: str) -> str:
    """``key`` naming a scikit-learn call with its ``average`` (and ``multi_class``) as the
    registry's name of it ("f1 macro", "roc auc ovo weighted"); other keys as they are."""
    m = _CALL.match(key)
    if m is None or "=" not in m.group(2):
        return key
    args = {arg: value.lower() for arg, value in _CALL_ARG.findall(m.group(2))}
    base, average = m.group(1), args.get("average", "")
    if average == "none":  # one score per class: no one number to maximise
        name = base.replace(" ", "_")
        macro = "roc_auc" if base == "roc auc" else f"{name}_macro"
        weighted = "roc_auc_ovr_weighted" if base == "roc auc" else f"{name}_weighted"
        raise UnknownMetricError(
            f"metric {name}_score(average=None) gives one score per class, not one number to "
            f"optimise; pick an average: {macro} (each class alike) or {weighted} (by "
            "class size)" + (", or the positive class's score" if base != "roc auc" else "")
        )
    if base != "roc auc":  # an average not graded here ("samples") is then refused
        return base if average in ("", "binary") else f"{base} {average}"
    multi = args.get("multi class", "ovr")
    if average in ("", "macro") and multi in ("ovr", "raise"):
        return "roc auc"
    if average in ("", "macro", "weighted") and multi in ("ovr", "ovo"):
        return f"roc auc {multi}" + (" weighted" if average == "weighted" else "")
    return f"roc auc {average} {multi}"  # "micro": refused, not read as the macro mean


# LightGBM's and XGBoost's names of metrics, read only as the whole name (a page's "L2
# regularization" names no metric)
_BOOSTER_NAMES = {
    "l1": "mae",
    "l2": "mse",
    "l2 root": "rmse",
    "merror": "zero_one_loss",
    "binary error": "zero_one_loss",
    "multi error": "zero_one_loss",
}


def get_metric(name: str) -> Metric:
    """The registry entry for ``name`` (canonical, alias, or a phrase containing one: the one it
    names first; not one that words next to it turn into another metric)."""
    key = _call_named(_norm(name))
    key = _norm(_BOOSTER_NAMES.get(key, key))
    for m in _REGISTRY:
        if key == _norm(m.name) or key in (_norm(a) for a in m.aliases):
            return m
    ranked = _MAP_AT_K.search(key)
    # F2, pinball@0.9, top-3 accuracy, jaccard (macro): a mention with a parameter ("F1" is left
    # to the registry's names; "F-beta with beta = 1" is F1 too)
    named = next((n for n in find_named(key) if not _is_f1(key, n)), None)
    # Longest alias contained in a longer phrase ("Root Mean Squared Error (RMSE) of log price").
    # The name mentioned first, the longest there ("the F1 score, the harmonic mean of precision
    # and recall" is F1; "Root Mean Squared Error (RMSE) of log price" is RMSE, not MSE).
    best: tuple[tuple[int, int], Metric, re.Match[str]] | None = None
    for m in _REGISTRY:
        for a in (m.name, *m.aliases):
            a_ = _norm(a)
            hit = re.search(rf"\b{re.escape(a_)}\b", key)
            rank = (hit.start(), -len(a_)) if hit else None
            if hit and rank is not None and (best is None or rank < best[0]):
                best = (rank, m, hit)
    if ranked and (best is None or ranked.start() <= best[2].start()):
        if named is None or ranked.start() <= named.start:
            return map_at_k(int(ranked.group(1)))
    if named is not None and (best is None or named.start <= best[2].start()):
        if named.refusal:
            raise UnknownMetricError(f"metric {quote(name)}: {named.refusal}")
        metric = named_metric(named)  # its words are its own ("top-1 accuracy" is accuracy)
        if not _qualified(key, named.start, named.end, metric, key[named.start : named.end]):
            return metric
    elif best and not _qualified(key, best[2].start(), best[2].end(), best[1]):
        return best[1]
    raise UnknownMetricError(
        f"unknown metric {quote(name)} (expected one of: {', '.join(metric_names())}, "
        f"{PARAMETRIC_NAMES})"
    )


def _is_f1(key: str, n: Named) -> bool:
    """Whether mention ``n`` of ``key`` is F1 written short ("f1 score"), the registry's."""
    return n.family.startswith("fbeta") and n.value == 1 and "beta" not in key[n.start : n.end]


# "see sample_submission.csv" beside a metric's name is no "samples" average: blanked, same length
_SAMPLE_FILE = re.compile(r"\bsample[\s_-]*(?:submission|file|csv)\w*", re.I)


def _qualified(text: str, start: int, end: int, metric: Metric, said: str = "") -> bool:
    text = _SAMPLE_FILE.sub(lambda m: " " * len(m.group()), text)
    near = _norm(text[max(0, start - 16) : end + 16])
    found = {m.group() for m in _QUALIFIER.finditer(near)}
    own = " ".join(_norm(a) for a in (metric.name, *metric.aliases, said))
    return any(q not in own for q in found)


def qualified_away(text: str, start: int, end: int, name: str) -> bool:
    """Whether the words next to ``text[start:end]`` (which names metric ``name``) make it
    another metric ("top 3 accuracy" is not accuracy, "mean average precision @ 3" is not average
    precision) with words none of that metric's own names has ("the f1 score, the mean of
    precision and recall" is F1: those words are not next to it)."""
    return _qualified(text, start, end, get_metric(name))


@dataclass(frozen=True, order=False)
class Score:
    """A validation score that knows which way is better; ``None`` value means the run failed."""

    value: float | None
    direction: Direction = "maximize"

    @property
    def ok(self) -> bool:
        """Whether the run produced a finite score (False for a failed run, NaN or infinity)."""
        return self.value is not None and math.isfinite(self.value)

    def better_than(self, other: Score | None) -> bool:
        """Strictly better than ``other``; a failed score is worse than any real one."""
        if not self.ok:
            return False
        if other is None or not other.ok:
            return True
        assert self.value is not None and other.value is not None
        if self.direction == "maximize":
            return self.value > other.value
        return self.value < other.value

    def at_least(self, other: Score | None) -> bool:
        """Better than or equal to ``other`` (the paper's ``>=`` acceptance rule)."""
        if not self.ok:
            return False
        if other is None or not other.ok:
            return True
        return self.value == other.value or self.better_than(other)


def best_of(scores: Sequence[Score]) -> int | None:
    """Index of the best score, or ``None`` when none is ok (first wins ties)."""
    best: int | None = None
    for i, s in enumerate(scores):
        if s.ok and (best is None or s.better_than(scores[best])):
            best = i
    return best


__all__ = [
    "AUC_AVERAGES",
    "Direction",
    "Metric",
    "MetricKind",
    "Score",
    "UnknownMetricError",
    "best_of",
    "fbeta",
    "get_metric",
    "is_classification_metric",
    "map_at_k",
    "metric_names",
    "multiclass_auc",
    "named_metric",
    "pinball",
    "ranked_labels",
    "qualified_away",
    "top_k_accuracy",
]
