"""Swap the model for another of the same fit/predict interface (gradient boosting, a forest, ...).

A swap applies to a classifier or regressor (or a scale-sensitive linear/kernel model) and never
to the class it would put in; it needs the replacement's library installed.
"""

from __future__ import annotations

import ast
import importlib.util
import re

from ...notebook.roles import ESTIMATOR_RE
from .strategy import Edit
from .syntax import call_name, is_classifier, keywords, model_call, replace_node, with_imports

# models whose fit depends on the features' scale (a scaler in front of them helps)
SCALE_SENSITIVE = re.compile(
    r"^(LogisticRegression|SVC|SVR|LinearSVC|KNeighbors\w+|MLP\w+|Ridge|Lasso|ElasticNet|SGD\w+)"
    r"(CV)?$"
)
# linear regressors (a "linear model instead" of one of them changes nothing worth measuring)
LINEAR_REGRESSOR = re.compile(
    r"^(LinearRegression|Ridge|Lasso|ElasticNet|Lars|LassoLars|LassoLarsIC|BayesianRidge|"
    r"ARDRegression|HuberRegressor|TheilSenRegressor|OrthogonalMatchingPursuit)(CV)?$"
)

_SWAPS: dict[bool, tuple[tuple[str, str, str, str], ...]] = {
    # classifier? -> (id, import, constructor, needs)
    True: (
        (
            "swap_hist_gbm",
            "from sklearn.ensemble import HistGradientBoostingClassifier",
            "HistGradientBoostingClassifier(max_iter=300, learning_rate=0.05, random_state=0)",
            "sklearn",
        ),
        (
            "swap_lightgbm",
            "from lightgbm import LGBMClassifier",
            "LGBMClassifier(n_estimators=300, learning_rate=0.05, num_leaves=15, verbose=-1, n_jobs=1)",
            "lightgbm",
        ),
        (
            "swap_random_forest",
            "from sklearn.ensemble import RandomForestClassifier",
            "RandomForestClassifier(n_estimators=300, random_state=0, n_jobs=1)",
            "sklearn",
        ),
    ),
    False: (
        (
            "swap_hist_gbm",
            "from sklearn.ensemble import HistGradientBoostingRegressor",
            "HistGradientBoostingRegressor(max_iter=200, learning_rate=0.05, random_state=0)",
            "sklearn",
        ),
        (
            "swap_ridge",
            "from sklearn.linear_model import RidgeCV",
            "RidgeCV(alphas=(0.01, 0.1, 1.0, 10.0, 100.0))",
            "sklearn",
        ),
        (
            "swap_random_forest",
            "from sklearn.ensemble import RandomForestRegressor",
            "RandomForestRegressor(n_estimators=300, min_samples_leaf=3, random_state=0, n_jobs=1)",
            "sklearn",
        ),
    ),
}


def _swappable(name: str) -> bool:
    return bool(
        ESTIMATOR_RE.search(name)
        and (
            name.endswith(("Classifier", "Regressor"))
            or SCALE_SENSITIVE.match(name)
            or LINEAR_REGRESSOR.match(name)
            or name in ("SVC", "SVR")
        )
    )


# the models that read pandas' category columns themselves (a swap to one of them needs nothing)
_NATIVE_CATEGORIES = ("HistGradientBoosting", "LGBM", "CatBoost", "XGB")
# the models that read a DataFrame's category columns without being told (no keyword names them)
_READS_CATEGORY_DTYPE = ("LGBM",)
_CATEGORY_COLUMNS_IF_ANY = (
    'lambda X: list(X.select_dtypes(["category", "object"]).columns) '
    'if hasattr(X, "select_dtypes") else []'
)
_ENCODED_IMPORTS = (
    "from sklearn.compose import make_column_selector, make_column_transformer",
    "from sklearn.pipeline import make_pipeline",
)


def with_categories_encoded(
    old: ast.Call, ctor: str, *, linear: bool
) -> tuple[str, tuple[str, ...]]:
    """``ctor`` (the model put in place of ``old``), and the imports it needs: when ``old`` read
    the table's category columns itself (``HistGradientBoostingRegressor(categorical_features=
    "from_dtype")``, or a ``LGBMClassifier`` given a DataFrame with category columns) and the
    new model does not, a pipeline that codes those columns first (one column per category for
    a linear model, one code per category for trees); a forest or ridge given the raw categories
    failed with "could not convert string to float"."""
    if ctor.startswith(_NATIVE_CATEGORIES):
        return ctor, ()
    if "categorical_features" in keywords(old):  # the table's category columns, by name
        columns = 'make_column_selector(dtype_include=["category", "object"])'
    elif call_name(old).startswith(_READS_CATEGORY_DTYPE):
        # LightGBM reads a DataFrame's category columns unasked, and is as often given arrays:
        # the columns coded are those of a DataFrame's, none of an array's
        columns = _CATEGORY_COLUMNS_IF_ANY
    else:
        return ctor, ()
    code = (
        'OneHotEncoder(handle_unknown="ignore")'
        if linear
        else 'OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1, '
        "encoded_missing_value=-1)"
    )
    encoder = "OneHotEncoder" if linear else "OrdinalEncoder"
    wrapped = (
        f"make_pipeline(make_column_transformer(({code}, {columns}), "
        f'remainder="passthrough"), {ctor})'
    )
    return wrapped, (*_ENCODED_IMPORTS, f"from sklearn.preprocessing import {encoder}")


def swap(sid: str) -> Edit:
    """The edit putting swap ``sid``'s model (e.g. ``swap_hist_gbm``) in place of the model."""

    def edit(src: str) -> str | None:
        call = model_call(src)
        if call is None:
            return None
        name = call_name(call)
        if not _swappable(name):
            return None
        for s, imp, ctor, needs in _SWAPS[is_classifier(name)]:
            if s != sid or ctor.split("(")[0] == name:
                continue
            if importlib.util.find_spec(needs) is None:
                return None
            new, more = with_categories_encoded(call, ctor, linear=sid == "swap_ridge")
            return with_imports(replace_node(src, call, new), imp, *more)
        return None

    return edit
