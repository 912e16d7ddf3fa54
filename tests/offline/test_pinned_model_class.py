"""Swaps that changed the class of a model the rest of the notebook needs as it is.

Outsider notebooks (written for this test the way Kaggle and course notebooks are) where every
swap failed: a later cell reads ``rf.feature_importances_``, the fit passes LightGBM's
``eval_set``, a ``GridSearchCV`` tunes the forest with the forest's own parameters.  Such a part
keeps its class now: the swaps, the randomized search around it and the "linear model instead"
ablation are left out, and the strategies that keep the class stay."""

from __future__ import annotations

import pytest
from user_runs import code_notebook as _nb

from mlestar_jupyter.offline.user_code.ablations import ablations
from mlestar_jupyter.offline.user_code.library import applicable
from mlestar_jupyter.offline.user_code.model_edits import MODEL_STRATEGIES
from mlestar_jupyter.offline.user_code.parts import parts
from mlestar_jupyter.offline.user_code.pinned import CLASS_CHANGES
from mlestar_jupyter.offline.user_code.search_edits import tuning_strategies

LOAD = "import pandas as pd\ndf = pd.read_csv('train.csv')\nX = df.drop(columns='y'); y = df.y"


@pytest.mark.parametrize(
    ("cells", "why"),
    [
        (
            (
                "rf = RandomForestClassifier(n_estimators=200, random_state=0)\nrf.fit(X, y)",
                "%matplotlib inline\nimp = pd.Series(rf.feature_importances_, index=X.columns)\n"
                "imp.sort_values()[:15].plot.bar()",
            ),
            "the notebook reads rf.feature_importances_",
        ),
        (
            (
                "params = {'num_leaves': 31}\nclf = lgbm.LGBMClassifier(**params)\n"
                "clf.fit(X_tr, y_tr,\n        eval_set=[(X_va, y_va)],\n"
                "        callbacks=[lgbm.early_stopping(50)])",
            ),
            "its fit passes callbacks, eval_set",
        ),
        (
            (
                "grid = GridSearchCV(RandomForestClassifier(random_state=0),\n"
                "                    {'max_depth': [4, 8], 'n_estimators': [100, 300]}, cv=3)\n"
                "grid.fit(X, y)",
            ),
            "GridSearchCV tunes it with RandomForestClassifier's parameters",
        ),
        (
            (
                "rf = RandomForestClassifier()",
                "search = GridSearchCV(estimator=rf, param_grid={'max_depth': [3, 5]})\n"
                "search.fit(X, y)",
            ),
            "the notebook passes it to GridSearchCV",
        ),
    ],
)
def test_a_model_the_notebook_needs_as_it_is_keeps_its_class(
    cells: tuple[str, ...], why: str
) -> None:
    nb = _nb(LOAD, *cells)
    (model,) = [p for p in parts(nb) if p.role == "model" and "Classifier(" in p.source]
    assert model.pinned == why
    extra = tuning_strategies("roc_auc")
    ids = {s.id for s, _ in applicable(model, extra)}
    assert not ids & CLASS_CHANGES, ids
    assert "a linear model instead" not in {name for name, _ in ablations(model)}


def test_a_model_nothing_else_needs_can_still_be_swapped() -> None:
    nb = _nb(
        LOAD,
        "rf = RandomForestClassifier(n_estimators=200)\nrf.fit(X, y, sample_weight=w)\n"
        "print(rf.classes_, rf.n_features_in_)",  # what every estimator has
    )
    (model,) = [p for p in parts(nb) if p.role == "model"]
    assert model.pinned == ""
    ids = {s.id for s, _ in applicable(model, tuning_strategies("roc_auc"))}
    assert {"swap_hist_gbm", "randomized_search"} <= ids
    assert "a linear model instead" in {name for name, _ in ablations(model)}


def test_slower_learning_raises_histogram_boostings_own_rounds() -> None:
    """``n_estimators`` was added to ``HistGradientBoostingRegressor`` (a TypeError)."""
    slower = next(s for s in MODEL_STRATEGIES if s.id == "slower_learning")
    out = slower.edit("m = HistGradientBoostingRegressor(learning_rate=0.1, max_iter=200)")
    assert out is not None and "max_iter=600" in out and "n_estimators" not in out
    out = slower.edit("m = GradientBoostingRegressor(learning_rate=0.1)")
    assert out is not None and "n_estimators=300" in out


def test_a_regressor_in_a_searched_pipeline_is_not_wrapped_for_a_log_target() -> None:
    """``GridSearchCV(make_pipeline(pre, RandomForestRegressor()), {"randomforestregressor__...":
    ...})``: wrapping the forest in a TransformedTargetRegressor renamed the pipeline's step, the
    grid's names no longer matched, and the candidate and its debugged retry failed (hunt,
    session 22).  Nothing pins a forest alone, so there the log target is still tried."""
    searched = _nb(
        LOAD,
        "pipe = make_pipeline(StandardScaler(), RandomForestRegressor(random_state=0))\n"
        "grid = GridSearchCV(pipe, {'randomforestregressor__max_depth': [3, 6]}, cv=5)\n"
        "grid.fit(X, y)",
    )
    alone = _nb(LOAD, "rf = RandomForestRegressor(random_state=0)\nrf.fit(X, y)")
    for nb, wrapped in ((searched, False), (alone, True)):
        (model,) = [p for p in parts(nb) if p.role == "model" and "Regressor(" in p.source]
        assert bool(model.pinned) is not wrapped, model.pinned
        ids = {s.id for s, _ in applicable(model, tuning_strategies("rmse"))}
        assert ("target_transform" in ids) is wrapped, ids
