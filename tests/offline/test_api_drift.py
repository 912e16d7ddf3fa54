"""Outdated library calls are rewritten so they run on the installed versions."""

from __future__ import annotations

import numpy as np
import pytest

from mlestar_jupyter.codecheck.api_drift import repair_api_drift
from mlestar_jupyter.codecheck.prescreen import prescreen

DATA = """
import numpy as np
rng = np.random.RandomState(0)
X = rng.randn(200, 4)
y = (X[:, 0] + 0.3 * rng.randn(200) > 0).astype(int)
X_tr, X_va, y_tr, y_va = X[:150], X[150:], y[:150], y[150:]
"""

OLD_STYLE = """
import lightgbm as lgb
from xgboost import XGBClassifier
from sklearn.metrics import mean_squared_error
from sklearn.preprocessing import OneHotEncoder
model = lgb.LGBMClassifier(n_estimators=20, verbose=-1)
model.fit(X_tr, y_tr, eval_set=[(X_va, y_va)], early_stopping_rounds=5, verbose=False)
xgb = XGBClassifier(n_estimators=20)
xgb.fit(X_tr, y_tr, eval_set=[(X_va, y_va)], early_stopping_rounds=5, eval_metric="logloss", verbose=False)
rmse = mean_squared_error(y_va, model.predict_proba(X_va)[:, 1], squared=False)
enc = OneHotEncoder(handle_unknown="ignore", sparse=False).fit(np.array([["a"], ["b"]]))
"""


def _run(code: str) -> dict[str, object]:
    scope: dict[str, object] = {}
    exec(compile(code, "<cell>", "exec"), scope)  # noqa: S102 - the test's own code
    return scope


def test_old_style_calls_fail_as_written_and_run_once_repaired() -> None:
    with pytest.raises(TypeError):
        _run(DATA + OLD_STYLE)
    fixed, notes = repair_api_drift(DATA + OLD_STYLE)
    assert len(notes) == 4
    assert "lightgbm.early_stopping(5, verbose=False)" in fixed
    assert "XGBClassifier(n_estimators=20, early_stopping_rounds=5, eval_metric='logloss')" in fixed
    scope = _run(fixed)
    assert 0 < float(scope["rmse"]) < 1  # type: ignore[arg-type]
    assert scope["xgb"].best_iteration is not None  # type: ignore[attr-defined]
    assert scope["enc"].transform(np.array([["a"]])).tolist() == [[1.0, 0.0]]  # type: ignore[attr-defined]


def test_current_calls_and_other_libraries_are_left_alone() -> None:
    code = (
        "from sklearn.metrics import mean_squared_error\n"
        "err = mean_squared_error(a, b)\n"
        "clf = SomethingElse()\nclf.fit(X, y, verbose=1, early_stopping_rounds=3)\n"
    )
    assert repair_api_drift(code) == (code, [])


def test_prescreen_applies_the_rewrites() -> None:
    code, problem = prescreen(
        "from lightgbm import LGBMRegressor\nm = LGBMRegressor()\nm.fit(X, y, verbose=False)\n"
    )
    assert problem is None and "m.fit(X, y)" in code


def test_lightgbm_train_with_early_stopping_rounds_is_rewritten_to_a_callback() -> None:
    # what Qwen2.5-Coder-1.5B wrote for rotten-tomatoes in the small-model lane
    old = DATA + (
        "import lightgbm as lgb\n"
        "train_set = lgb.Dataset(X_tr, y_tr)\nvalid_set = lgb.Dataset(X_va, y_va)\n"
        "booster = lgb.train({'objective': 'binary', 'verbose': -1}, train_set, num_boost_round=30,"
        " valid_sets=[valid_set], early_stopping_rounds=5, verbose_eval=False)\n"
    )
    with pytest.raises(TypeError, match="early_stopping_rounds|verbose_eval"):
        _run(old)
    new, notes = repair_api_drift(old)
    assert "early_stopping_rounds" not in new and "lightgbm.early_stopping(5" in new
    assert notes and "train()" in notes[0]
    assert _run(new)["booster"].num_trees() > 0  # type: ignore[attr-defined]


def test_dataframe_append_becomes_concat_and_a_list_s_append_stays() -> None:
    """Hunt C (session 27): ``full = train.append(test)`` (gone in pandas 2) set a user's notebook
    aside with "'DataFrame' object has no attribute 'append'"."""
    code = (
        "import pandas as pd\n"
        "train = pd.DataFrame({'a': [1, 2]})\ntest = pd.DataFrame({'a': [3]})\n"
        "full = train.append(test, ignore_index=True)\n"
        "full = full.append({'a': 4}, ignore_index=True)\n"
        "seen = []\nseen.append(len(full))\n"
    )
    with pytest.raises(AttributeError):
        _run(code)
    fixed, notes = repair_api_drift(code)
    assert notes == ["pandas 2 removed DataFrame.append: pd.concat"] * 2
    assert "seen.append(len(full))" in fixed
    scope = _run(fixed)
    assert scope["full"]["a"].tolist() == [1, 2, 3, 4]  # type: ignore[index]
    assert scope["seen"] == [4]


XGB_GPU = """
import xgboost as xgb
params = {
    'objective': 'binary:logistic',  # a Kaggle GPU kernel's settings
    'tree_method': 'gpu_hist',
    'gpu_id': 0,
    'max_depth': 3,
}
bst = xgb.train(params, xgb.DMatrix(X_tr, label=y_tr), num_boost_round=5)
clf = xgb.XGBClassifier(n_estimators=5, tree_method="gpu_hist").fit(X_tr, y_tr)
reg_params = dict(tree_method='gpu_hist')
reg_params['gpu_id'] = 1
reg = xgb.XGBRegressor(n_estimators=5, **reg_params).fit(X_tr, y_tr)
"""


def test_xgboost_s_old_gpu_settings_take_the_device_form() -> None:
    """XGBoost 3 refuses ``tree_method='gpu_hist'`` and ``gpu_id`` on any machine, a GPU's too
    (models and Kaggle notebooks write them): they become ``device='cuda'`` in the cell's own
    text, a dict keeping its lines and comments.  Without a GPU, XGBoost trains that on the CPU."""
    pytest.importorskip("xgboost")
    import xgboost

    with pytest.raises(xgboost.core.XGBoostError):
        _run(DATA + XGB_GPU)
    fixed, notes = repair_api_drift(XGB_GPU)
    assert notes and "device='cuda'" in notes[0]
    assert "    'tree_method': 'hist',\n    'device': 'cuda:0',\n" in fixed
    assert "# a Kaggle GPU kernel's settings" in fixed
    assert 'XGBClassifier(n_estimators=5, tree_method="hist", device="cuda")' in fixed
    assert (
        "dict(tree_method='hist', device='cuda')" in fixed
        and "reg_params['device'] = 'cuda:1'" in fixed
    )
    assert "gpu_hist" not in fixed and "gpu_id" not in fixed
    with pytest.warns(UserWarning, match="GPU"):  # no GPU here: XGBoost says it uses the CPU
        scope = _run(DATA + fixed)
    assert scope["clf"].predict(np.zeros((1, 4))).shape == (1,)  # type: ignore[attr-defined]
    assert repair_api_drift(fixed) == (fixed, [])  # done once
