"""Metrics added in hunt S (session 35) as outsiders' task.json files name them, checked where
hunt U (session 36) found them half-wired: a randomized search wrapped around a user's model
scored ``roc_auc_ovo``, ``precision_macro``, ``d2_absolute_error``, ``zero_one_loss``, F1 of
string labels ... by the model's default scorer (accuracy, R²), not the task's metric; rank
averaging was offered for ``roc_auc`` only, not its other averages; and ``recall_score(y, p,
average=None)`` (one recall per class, no scalar) was read as binary recall."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mlestar_jupyter.metrics import UnknownMetricError, get_metric, metric_names
from mlestar_jupyter.offline.user_code.search_edits import DEFAULT_SCORED, scorer_for, tuning

# parametric metrics: one of each family
_PARAMETRIC = ["f2", "f2_macro", "pinball@0.9", "top3_accuracy", "map@3"]


def _data(kind: str, labels: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    if kind == "regression":
        return X, X[:, 0] * 3 + 10 + rng.normal(size=90) * 0.5
    if labels == "three":
        return X, np.array(["cat", "dog", "eel"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)]
    return X, np.where(X[:, 0] + rng.normal(size=90) * 0.5 > 0, "yes", "no")


@pytest.mark.parametrize("name", [*metric_names(), *_PARAMETRIC])
def test_every_metric_scores_a_search_in_itself_or_says_why_not(name: str) -> None:
    """Each metric the registry knows is a scorer of its own (one that runs in a 3-fold search of
    string labels, and moves with the metric), or is left to the model's score with a reason."""
    metric = get_metric(name)
    scorer = scorer_for(name)
    if scorer is None:
        assert any(name.startswith(k.split("@")[0]) for k in DEFAULT_SCORED), name
        return
    imports, source = scorer
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.model_selection import cross_val_score

    regression = metric.kind == "regression"
    first = "three" if metric.kind == "ranked" else "two"
    for labels in (first, "three") if not regression and metric.k is None else (first,):
        X, y = _data(metric.kind, labels)
        scope: dict = {}  # type: ignore[type-arg]
        exec(imports + "\nscoring = " + source, scope)
        model = Ridge() if regression else LogisticRegression()
        scores = cross_val_score(model, X, y, cv=3, scoring=scope["scoring"], error_score="raise")
        assert all(math.isfinite(s) for s in scores), (name, labels, scores)
        # a better model scores better: the sign follows the metric's direction
        if not regression:
            continue
        worse = cross_val_score(Ridge(alpha=1e4), X, y, cv=3, scoring=scope["scoring"])
        assert scores.mean() > worse.mean(), name


@pytest.mark.parametrize(
    ("name", "scoring"),
    [
        ("roc_auc_ovo", '"roc_auc_ovo"'),  # was the model's own score (accuracy)
        ("roc_auc_ovr_weighted", '"roc_auc_ovr_weighted"'),
        ("roc_auc_ovo_weighted", '"roc_auc_ovo_weighted"'),
        ("precision_macro", '"precision_macro"'),
        ("precision_weighted", '"precision_weighted"'),
        ("d2_absolute_error", '"d2_absolute_error_score"'),
        ("zero_one_loss", '"accuracy"'),
        ("qwk", 'make_scorer(cohen_kappa_score, weights="quadratic")'),
        ("f1", "make_scorer(lambda y, p: f1_score("),
    ],
)
def test_the_randomized_search_is_scored_in_the_tasks_metric(name: str, scoring: str) -> None:
    new = tuning(name).edit("model = RandomForestClassifier(n_estimators=100)")
    assert new is not None and f"scoring={scoring}" in new


def test_a_made_scorers_import_is_added_to_the_cell() -> None:
    new = tuning("f1").edit("model = RandomForestClassifier()") or ""
    assert "from sklearn.metrics import make_scorer, f1_score" in new
    scope: dict = {}  # type: ignore[type-arg]
    exec("from sklearn.ensemble import RandomForestClassifier\n" + new, scope)


@pytest.mark.parametrize(
    "name", ["roc_auc", "roc_auc_ovo", "roc_auc_ovr_weighted", "roc_auc_ovo_weighted", "gini"]
)
def test_rank_averaging_is_offered_for_every_auc(name: str) -> None:
    """AUCs grade the order of the scores only: averaging ranks suits every one of them."""
    from types import SimpleNamespace

    from mlestar_jupyter.offline.ensemble import strategy_order

    layout = SimpleNamespace(metric=name, is_classification=True)
    assert "rank" in strategy_order(layout)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "written",
    [
        "recall_score(y, p, average=None)",
        "sklearn.metrics.recall_score(average=None)",
        "f1_score(y_true, y_pred, average=None)",
        "precision_score(average='none')",
    ],
)
def test_a_per_class_score_is_refused_with_what_to_pick(written: str) -> None:
    """``average=None`` returns one number per class: no score to maximise; was binary recall."""
    with pytest.raises(UnknownMetricError, match="average"):
        get_metric(written)
