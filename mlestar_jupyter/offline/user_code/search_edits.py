"""A strategy that tunes the user's model: a small randomized search over its settings.

The library's other model strategies change one setting each (more trees, a third of the
learning rate, ...).  Once those are spent, this one lets the data choose: the model's
constructor is wrapped in ``RandomizedSearchCV`` over the settings that matter for its family
(a few draws, 3-fold cross-validation inside the training rows, scored in the task's metric where
scikit-learn has a scorer for it), so the notebook's own validation rows still judge the result.
It is built per task (the scorer) by ``tuning`` and tried after the library's own.
"""

from __future__ import annotations

import ast
import re

from .strategy import Strategy
from .syntax import (
    call_name,
    keywords,
    model_call,
    number_value,
    parse,
    replace_node,
    with_imports,
)

DRAWS = 6  # settings drawn; with 3 folds, 19 fits of the model in all (the refit included)
# class-name pattern -> the settings to draw from (Python source of a dict)
_SPACES: tuple[tuple[str, str], ...] = (
    (
        r"^(RandomForest|ExtraTrees)\w+$",
        '{"n_estimators": [100, 200, 400], "max_depth": [None, 6, 12, 24], '
        '"min_samples_leaf": [1, 2, 4, 8], "max_features": ["sqrt", 0.5, 1.0]}',
    ),
    (
        r"^GradientBoosting\w+$",
        '{"n_estimators": [100, 200, 400], "learning_rate": [0.03, 0.06, 0.1, 0.2], '
        '"max_depth": [2, 3, 4, 5], "subsample": [0.7, 0.85, 1.0]}',
    ),
    (
        r"^HistGradientBoosting\w+$",
        '{"learning_rate": [0.03, 0.06, 0.1, 0.2], "max_leaf_nodes": [15, 31, 63], '
        '"min_samples_leaf": [5, 10, 20, 40], "l2_regularization": [0.0, 0.1, 1.0]}',
    ),
    (
        r"^LGBM\w+$",
        '{"n_estimators": [100, 200, 400], "learning_rate": [0.03, 0.06, 0.1], '
        '"num_leaves": [7, 15, 31, 63], "min_child_samples": [5, 10, 20, 40], '
        '"colsample_bytree": [0.6, 0.8, 1.0]}',
    ),
    (
        r"^XGB\w+$",
        '{"n_estimators": [100, 200, 400], "learning_rate": [0.03, 0.06, 0.1], '
        '"max_depth": [3, 4, 6, 8], "subsample": [0.7, 0.85, 1.0], '
        '"colsample_bytree": [0.6, 0.8, 1.0]}',
    ),
    (
        r"^CatBoost\w+$",
        '{"depth": [4, 6, 8], "learning_rate": [0.03, 0.06, 0.1], "l2_leaf_reg": [1, 3, 10]}',
    ),
    (r"^DecisionTree\w+$", '{"max_depth": [None, 3, 5, 8, 12], "min_samples_leaf": [1, 2, 5, 10]}'),
    (
        r"^KNeighbors\w+$",
        '{"n_neighbors": [3, 5, 7, 11, 15, 21], "weights": ["uniform", "distance"]}',
    ),
    (r"^LogisticRegression$", '{"C": [0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]}'),
    (
        r"^(SVC|SVR)$",
        '{"C": [0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0], "gamma": ["scale", 0.001, 0.01, 0.1]}',
    ),
    (r"^(LinearSVC|LinearSVR)$", '{"C": [0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0]}'),
    (r"^(Ridge|Lasso|ElasticNet)(Classifier)?$", '{"alpha": [0.001, 0.01, 0.1, 1.0, 10.0, 100.0]}'),
)
# the task's metric -> scikit-learn's scorer (metrics without one: the model's own score)
_SCORERS = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced_accuracy",
    "roc_auc": "roc_auc_ovr",
    "log_loss": "neg_log_loss",
    "f1_macro": "f1_macro",
    "f1_micro": "f1_micro",
    "f1_weighted": "f1_weighted",
    "mcc": "matthews_corrcoef",
    "rmse": "neg_root_mean_squared_error",
    "mse": "neg_mean_squared_error",
    "mae": "neg_mean_absolute_error",
    "medae": "neg_median_absolute_error",
    "mape": "neg_mean_absolute_percentage_error",
    "r2": "r2",
    "explained_variance": "explained_variance",
    "poisson_deviance": "neg_mean_poisson_deviance",
    "jaccard_macro": "jaccard_macro",
    "hamming_loss": "accuracy",  # of one label column: 1 - accuracy, the same order
    "max_error": "neg_max_error",
    "top2_accuracy": "top_k_accuracy",  # scikit-learn's scorer counts the first 2
}
_SEARCHES = re.compile(r"\b(RandomizedSearchCV|GridSearchCV|HalvingGridSearchCV|BayesSearchCV)\b")


def space_for(name: str) -> str | None:
    """The settings to draw from for an estimator class (``None``: a family not known here)."""
    return next((space for pattern, space in _SPACES if re.match(pattern, name)), None)


def tuning(metric_name: str) -> Strategy:
    """The randomized-search strategy, scored in the task's metric when scikit-learn can."""
    scorer = _SCORERS.get(metric_name)

    def edit(src: str) -> str | None:
        if _SEARCHES.search(src):
            return None  # searched already
        call = model_call(src)
        if call is None:
            return None
        space = space_for(call_name(call))
        if space is None:
            return None
        body = ast.get_source_segment(src, call) or ast.unparse(call)
        scoring = f', scoring="{scorer}"' if scorer else ""
        line = src.splitlines()[call.lineno - 1]
        pad = line[: len(line) - len(line.lstrip())]
        inner = pad + "    "
        wrapped = (
            f"RandomizedSearchCV(\n{inner}{body},\n{inner}{space},\n"
            f"{inner}n_iter={DRAWS}, cv=3{scoring}, random_state=0, n_jobs=1,\n{pad})"
        )
        return with_imports(
            replace_node(src, call, wrapped),
            "from sklearn.model_selection import RandomizedSearchCV",
        )

    how = f"scored in {metric_name}" if scorer else "scored by the model's own score"
    return Strategy(
        "randomized_search",
        f"Tune the model's settings: a randomized search of {DRAWS} draws over the settings that "
        f"matter for its family, 3-fold cross-validation inside the training rows, {how}.",
        edit,
        roles=("model",),
        last=True,
    )


WIDER = 3  # the wider search: this many times the draws
MAX_DRAWS = 60


def _wider(src: str) -> str | None:
    """The randomized search with ``WIDER`` times its draws (``None``: no search, or at the cap)."""
    tree = parse(src)
    if tree is None:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and call_name(n) == "RandomizedSearchCV":
            node = keywords(n).get("n_iter")
            draws = number_value(node)
            if node is None or draws is None or draws >= MAX_DRAWS:
                return None
            return replace_node(src, node, str(int(min(draws * WIDER, MAX_DRAWS))))
    return None


def tuning_strategies(metric_name: str) -> tuple[Strategy, Strategy]:
    """The randomized search, and (once it ran) the same search with more draws: what a run
    does with the budget the single-setting strategies leave."""
    return tuning(metric_name), Strategy(
        "wider_search",
        f"Search the model's settings wider: {WIDER} times the draws of its randomized search.",
        _wider,
        roles=("model",),
        last=True,
    )


__all__ = ["DRAWS", "space_for", "tuning", "tuning_strategies"]
