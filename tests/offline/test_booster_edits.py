"""A Kaggle notebook's native booster (``xgb.train(params, dtrain, 200)``) had nothing a run
could refine ("no cell builds a model ... in a way the strategies can change"): its parameters
are a dict, not a constructor.  The booster strategies edit that dict and the rounds."""

from __future__ import annotations

from mlestar_jupyter.offline.user_code.booster_edits import BOOSTER_STRATEGIES
from mlestar_jupyter.offline.user_code.library import applicable
from mlestar_jupyter.offline.user_code.parts import Part

XGB = (
    "dtrain = xgb.DMatrix(Xtr, label=ytr)\n"
    "bst = xgb.train({'objective': 'binary:logistic', 'eta': 0.3}, dtrain, 200,"
    " evals=[(dval, 'val')], early_stopping_rounds=20)"
)
LGB_PARAMS = 'params = {\n    "objective": "binary",\n    "num_leaves": 31,\n    "max_depth": 8,\n}'


def _edit(sid: str, src: str) -> str | None:
    return next(s for s in BOOSTER_STRATEGIES if s.id == sid).edit(src)


def test_the_parameter_dict_and_the_rounds_are_edited_in_place() -> None:
    assert _edit("booster_slower_learning", XGB) == XGB.replace("'eta': 0.3", "'eta': 0.1").replace(
        "dtrain, 200,", "dtrain, 600,"
    )
    assert _edit("booster_more_rounds", "bst = lgb.train(params, ds, num_boost_round=100)") == (
        "bst = lgb.train(params, ds, num_boost_round=300)"
    )
    # a key the dict lacks is added at the library's default, scaled
    assert _edit("booster_shallower", XGB) == XGB.replace(
        "{'objective'", "{'max_depth': 3, 'objective'"
    )
    assert _edit("booster_deeper", LGB_PARAMS) == LGB_PARAMS.replace(
        '"max_depth": 8', '"max_depth": 16'
    )
    # LightGBM (an objective without ":") bags only with a frequency; xgboost needs none
    lgb = _edit("booster_subsample", LGB_PARAMS)
    assert lgb is not None and "'bagging_freq': 1" in lgb and "'subsample': 0.8" in lgb
    xgb = _edit("booster_subsample", XGB)
    assert xgb is not None and "bagging_freq" not in xgb and "'colsample_bytree': 0.8" in xgb


def test_code_without_a_booster_dict_is_left_alone() -> None:
    for src in (
        "model = RandomForestClassifier(max_depth=4)",
        "grid = {'max_depth': [3, 5]}",  # a search grid, no objective
        "params = {'objective': 'binary'}",  # no rounds here: a lower rate alone stops short
    ):
        assert _edit("booster_slower_learning", src) is None
    assert _edit("booster_more_rounds", "model.fit(X, y)") is None


def test_the_native_booster_cell_of_a_user_notebook_now_has_strategies() -> None:
    got = [s.id for s, _ in applicable(Part("b3", "train", None, XGB))]
    assert {"booster_slower_learning", "booster_shallower", "booster_more_rounds"} <= set(got)


def test_a_dict_given_to_a_scikit_learn_booster_as_keyword_arguments() -> None:
    """``params = {"n_estimators": 400, "learning_rate": 0.03, "num_leaves": 15, ...}`` then
    ``LGBMClassifier(**params)``: no objective in the dict and no constructor argument to
    change, so the run had no strategy for the notebook's booster (it ended after 4 s of 60)."""
    params = (
        "SEED = 2024\nparams = {\n    'n_estimators': 400,\n    'learning_rate': 0.03,\n"
        "    'num_leaves': 15,\n    'random_state': SEED,\n}"
    )
    slower = _edit("booster_slower_learning", params)
    assert slower == params.replace("0.03", "0.01").replace("400", "1200")
    assert _edit("booster_more_rounds", params) == params.replace("400", "1200")
    bagged = _edit("booster_subsample", params)
    assert bagged is not None and "'bagging_freq': 1" in bagged  # LightGBM bags with a frequency
    # a forest's settings are no booster's: left alone
    assert _edit("booster_deeper", "rf_params = {'n_estimators': 300, 'max_depth': 6}") is None


def test_a_search_grid_is_not_the_booster_s_parameters() -> None:
    """The run's own randomized search of an LGBMClassifier names ``num_leaves`` in its grid:
    "Shallower booster trees" put ``'max_depth': 3`` into it and the search failed on a scalar
    (TypeError), three candidates in an outsider's penguins run."""
    from mlestar_jupyter.offline.user_code.booster_edits import param

    grid = (
        "clf = RandomizedSearchCV(\n    LGBMClassifier(num_leaves=15),\n"
        '    {"n_estimators": [100, 200], "num_leaves": [7, 15, 31]},\n    n_iter=6,\n)'
    )
    assert param(("max_depth",), 0.5, "3", None)(grid) is None
    dists = 'search = RandomizedSearchCV(m, {"num_leaves": randint(7, 63), "eta": uniform(0, 1)})'
    assert param(("max_depth",), 0.5, "3", None)(dists) is None
    params = 'params = {"objective": "binary", "num_leaves": 31}\nbst = lgb.train(params, dtrain)'
    out = param(("max_depth",), 0.5, "3", None)(grid + "\n" + params)
    assert out is not None and out.startswith(grid)  # the grid as it was
    assert "params = {'max_depth': 3, \"objective\"" in out


def test_settings_a_model_unpacks_are_kept_under_the_edit() -> None:
    """Hunt, session 26: ``lgb.LGBMClassifier(**params, random_state=SEED)`` became
    ``LGBMClassifier(random_state=SEED, subsample=0.8, ...)`` under the row-and-column sampling
    plan, losing the user's ``n_estimators``, ``learning_rate`` and ``num_leaves`` in ``params``."""
    from mlestar_jupyter.offline.user_code.model_edits import MODEL_STRATEGIES

    src = (
        "params = dict(n_estimators=300, learning_rate=0.05, num_leaves=15, verbose=-1)\n"
        "clf = lgb.LGBMClassifier(**params, random_state=SEED)"
    )
    sampled = next(s for s in MODEL_STRATEGIES if s.id == "row_col_sampling").edit(src)
    assert sampled is not None
    assert sampled.split("\n")[1] == (
        "clf = lgb.LGBMClassifier(**{**params, 'subsample': 0.8, 'subsample_freq': 1, "
        "'colsample_bytree': 0.8}, random_state=SEED)"
    )
    params = dict(n_estimators=300, learning_rate=0.05, num_leaves=15, verbose=-1)
    call = sampled.split("\n")[1].split("LGBMClassifier(", 1)[1].rsplit(")", 1)[0]
    got = eval(f"dict({call})", {"params": params, "SEED": 7})
    assert got == {
        **params,
        "subsample": 0.8,
        "subsample_freq": 1,
        "colsample_bytree": 0.8,
        "random_state": 7,
    }
