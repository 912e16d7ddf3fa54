"""A model that read the table's category columns itself (``HistGradientBoostingRegressor(
categorical_features="from_dtype")`` on ``astype("category")`` columns, hunt, session 23): every
swap to a forest or a ridge and the "linear model instead" ablation failed with "could not
convert string to float: 'F'", and the run ended ``no_improvement``.  The swapped model now codes
those columns first; run here on such data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from mlestar_jupyter.offline.user_code.ablations import _linear_model
from mlestar_jupyter.offline.user_code.model_swaps import swap

CELL = (
    "hgb = HistGradientBoostingRegressor(categorical_features='from_dtype', max_iter=50, "
    "random_state=0)\nhgb.fit(X_tr, y_tr)\npred = hgb.predict(X_va)"
)


def _data() -> tuple[pd.DataFrame, pd.Series]:
    df = load_diabetes(as_frame=True, scaled=False).frame
    df["sex"] = df["sex"].map({1.0: "F", 2.0: "M"}).astype("category")
    df["bmi_class"] = pd.cut(df["bmi"], [0, 25, 30, 99], labels=["normal", "over", "obese"])
    return df.drop(columns="target"), df["target"]


@pytest.mark.parametrize(
    ("edit", "encoder"),
    [
        (swap("swap_random_forest"), "OrdinalEncoder"),
        (swap("swap_ridge"), "OneHotEncoder"),
        (_linear_model, "OneHotEncoder"),
    ],
)
def test_a_swap_from_a_model_reading_categories_codes_them(edit, encoder: str) -> None:  # type: ignore[no-untyped-def]
    new = edit(CELL)
    assert new is not None and encoder in new and "make_column_selector" in new
    X, y = _data()
    scope = {"X_tr": X.iloc[:300], "y_tr": y.iloc[:300], "X_va": X.iloc[300:]}
    exec("from sklearn.ensemble import HistGradientBoostingRegressor\n" + new, scope)
    assert len(scope["pred"]) == len(X) - 300 and np.isfinite(scope["pred"]).all()


def test_a_model_given_numbers_only_is_swapped_as_it_was() -> None:
    plain = "rf = RandomForestRegressor(n_estimators=50)\nrf.fit(X_tr, y_tr)"
    new = swap("swap_hist_gbm")(plain)
    assert new is not None and "make_column_selector" not in new
    lgb = swap("swap_lightgbm")(CELL.replace("Regressor", "Classifier"))  # reads them itself
    assert lgb is None or "make_column_selector" not in lgb


def test_the_pipeline_step_ablation_leaves_the_coding_of_categories() -> None:
    """The swapped model's pipeline codes the categories first: "pipeline step off" took that
    coder out, and the model got text at every step (5 failed candidates in the hunt's run)."""
    from mlestar_jupyter.offline.user_code.feature_edits import passthrough_step

    new = swap("swap_random_forest")(CELL) or ""
    assert passthrough_step(new) is None  # nothing else in it to switch off
    scaled = (
        "m = make_pipeline(make_column_transformer((OneHotEncoder(), cats), "
        "remainder='passthrough'), StandardScaler(with_mean=False), Ridge())"
    )
    assert passthrough_step(scaled) == (
        "m = make_pipeline(make_column_transformer((OneHotEncoder(), cats), "
        "remainder='passthrough'), \"passthrough\", Ridge())"
    )
    plain = "m = make_pipeline(StandardScaler(), LogisticRegression())"
    assert passthrough_step(plain) == 'm = make_pipeline("passthrough", LogisticRegression())'


LGBM_CELL = (
    "lgbm = LGBMRegressor(n_estimators=50, verbose=-1)\nlgbm.fit(X_tr, y_tr)\n"
    "pred = lgbm.predict(X_va)"
)


@pytest.mark.parametrize(
    "edit",
    [swap("swap_random_forest"), swap("swap_ridge"), _linear_model],
    ids=["forest", "ridge", "linear_ablation"],
)
@pytest.mark.parametrize("as_arrays", [False, True])
def test_a_swap_from_lightgbm_codes_a_dataframes_categories_and_takes_arrays(
    edit, as_arrays: bool
) -> None:  # type: ignore[no-untyped-def]
    """Hunt P: LightGBM reads a DataFrame's ``category`` columns with no keyword saying so; the
    "linear model instead" ablation and the swaps gave the new model the raw categories and
    failed ("could not convert string to float: 'No'").  The same notebooks give LightGBM
    arrays as often: the coding must let them through."""
    new = edit(LGBM_CELL)
    assert new is not None and "LGBM" not in new
    X, y = _data()
    data = X
    if as_arrays:  # the categories coded by the notebook itself, as numbers
        data = X.assign(sex=X["sex"].cat.codes, bmi_class=X["bmi_class"].cat.codes).to_numpy()
    scope = {"X_tr": data[:300], "y_tr": y.iloc[:300], "X_va": data[300:]}
    exec(new, scope)
    assert len(scope["pred"]) == len(X) - 300 and np.isfinite(scope["pred"]).all()
