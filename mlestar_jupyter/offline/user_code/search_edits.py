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

from ...metrics import UnknownMetricError, get_metric
from ..metric_code import default_positive
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
# the task's metric -> scikit-learn's scorer name, where it has one scoring in the same order
_SCORERS = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced_accuracy",
    "roc_auc": "roc_auc_ovr",
    "roc_auc_ovo": "roc_auc_ovo",
    "roc_auc_ovr_weighted": "roc_auc_ovr_weighted",
    "roc_auc_ovo_weighted": "roc_auc_ovo_weighted",
    "gini": "roc_auc_ovr",  # 2 AUC - 1: the AUC's order
    "log_loss": "neg_log_loss",
    "f1_macro": "f1_macro",
    "f1_micro": "f1_micro",
    "f1_weighted": "f1_weighted",
    "precision_macro": "precision_macro",
    "precision_weighted": "precision_weighted",
    "jaccard_macro": "jaccard_macro",
    "mcc": "matthews_corrcoef",
    "hamming_loss": "accuracy",  # of one label column: 1 - accuracy, the same order
    "zero_one_loss": "accuracy",  # the share of wrong labels: 1 - accuracy
    "rmse": "neg_root_mean_squared_error",
    "mcrmse": "neg_root_mean_squared_error",  # scikit-learn's: the mean of the columns' RMSEs
    "mse": "neg_mean_squared_error",
    "mae": "neg_mean_absolute_error",
    "medae": "neg_median_absolute_error",
    "mape": "neg_mean_absolute_percentage_error",
    "r2": "r2",
    "d2_absolute_error": "d2_absolute_error_score",
    "explained_variance": "explained_variance",
    "poisson_deviance": "neg_mean_poisson_deviance",
    "max_error": "neg_max_error",
}
# metrics scikit-learn has no scorer string for (or one that fails on these tasks' data): a
# ``make_scorer`` of the function, (the function's import, the scorer's source)
_MADE = {
    # scikit-learn's "average_precision" and "neg_brier_score" take the label 1 for positive,
    # and fail on others; a class's probability here is scored against the class (the last of
    # two: the positive one, as the grader reads it)
    "average_precision": (
        "average_precision_score",
        "make_scorer(lambda y, p: average_precision_score(label_binarize(y, classes=sorted(set(y)))"
        '.squeeze(), p), response_method="predict_proba")',
    ),
    "brier": (
        "",
        "make_scorer(lambda y, p: float(((p - label_binarize(y, classes=sorted(set(y))).squeeze())"
        ' ** 2).reshape(len(p), -1).sum(axis=1).mean()), response_method="predict_proba", '
        "greater_is_better=False)",
    ),
    "qwk": ("cohen_kappa_score", 'make_scorer(cohen_kappa_score, weights="quadratic")'),
    "cohen_kappa": ("cohen_kappa_score", "make_scorer(cohen_kappa_score)"),
    # the log errors of negative predictions are undefined: clipped at 0, as the grader does
    "rmsle": (
        "root_mean_squared_log_error",
        "make_scorer(lambda y, p: root_mean_squared_log_error(y, p.clip(0)), "
        "greater_is_better=False)",
    ),
    "msle": (
        "mean_squared_log_error",
        "make_scorer(lambda y, p: mean_squared_log_error(y, p.clip(0)), greater_is_better=False)",
    ),
    "smape": (
        "",
        "make_scorer(lambda y, p: float((2 * abs(y - p) / (abs(y) + abs(p) + 1e-12)).mean()), "
        "greater_is_better=False)",
    ),
}
# correlations: scipy's
_CORRELATIONS = {"pearson": "pearsonr", "spearman": "spearmanr", "kendall": "kendalltau"}
# F1, precision, recall, Jaccard of two classes score the positive one: 1, True, "yes",
# "positive", else the last in sorted order (``metrics._positive_class``); of more, their macro
# mean. scikit-learn's "f1" assumes the label 1 and fails on others: the class is found per fold.
_POSITIVE_FUNCTIONS = {
    "f1": "f1_score",
    "precision": "precision_score",
    "recall": "recall_score",
    "jaccard": "jaccard_score",
}
_POSITIVE = (
    'make_scorer(lambda y, p: {fn}(y, p, average="macro"{more}) if len(set(y)) > 2 else {fn}('
    f"y, p, pos_label={default_positive('sorted(set(y), key=str)')}{{more}}))"
)
# left to the model's own score, and why
DEFAULT_SCORED = {
    "map@k": "its rows are ranked lists of classes, which no scikit-learn scorer reads",
}


def scorer_for(metric_name: str) -> tuple[str, str] | None:
    """(the import it needs or "", the ``scoring=`` source) that scores a search in the task's
    metric; ``None`` where the model's own score stands in (``DEFAULT_SCORED`` says why)."""
    if metric_name in _SCORERS:
        return "", f'"{_SCORERS[metric_name]}"'
    try:
        metric = get_metric(metric_name)
    except UnknownMetricError:
        return None
    name = metric.name
    if name in _MADE:
        fn, source = _MADE[name]
        imports = f"from sklearn.metrics import {', '.join(filter(None, ('make_scorer', fn)))}"
        if "label_binarize" in source:
            imports += "\nfrom sklearn.preprocessing import label_binarize"
        return imports, source
    if name in _CORRELATIONS:
        fn = _CORRELATIONS[name]
        return (
            f"from sklearn.metrics import make_scorer\nfrom scipy.stats import {fn}",
            f"make_scorer(lambda y, p: {fn}(y, p)[0])",
        )
    if metric.kind == "ranked" and metric.k is not None and name.startswith("top"):
        return (
            "from sklearn.metrics import make_scorer, top_k_accuracy_score",
            f'make_scorer(top_k_accuracy_score, k={metric.k}, response_method="predict_proba")',
        )
    if metric.alpha is not None:
        return (
            "from sklearn.metrics import make_scorer, mean_pinball_loss",
            f"make_scorer(mean_pinball_loss, alpha={metric.alpha!r}, greater_is_better=False)",
        )
    fn = "fbeta_score" if metric.beta is not None else _POSITIVE_FUNCTIONS.get(name, "")
    if not fn:
        return None
    more = f", beta={metric.beta!r}" if metric.beta is not None else ""
    if fn != "f1_score":
        more += ", zero_division=0"
    imports = f"from sklearn.metrics import make_scorer, {fn}"
    if not metric.positive_class:  # F-beta's macro mean (a lambda: make_scorer checks pos_label=1)
        return imports, f'make_scorer(lambda y, p: {fn}(y, p, average="macro"{more}))'
    return imports, _POSITIVE.format(fn=fn, more=more)


_SEARCHES = re.compile(r"\b(RandomizedSearchCV|GridSearchCV|HalvingGridSearchCV|BayesSearchCV)\b")


def space_for(name: str) -> str | None:
    """The settings to draw from for an estimator class (``None``: a family not known here)."""
    return next((space for pattern, space in _SPACES if re.match(pattern, name)), None)


def tuning(metric_name: str) -> Strategy:
    """The randomized-search strategy, scored in the task's metric when scikit-learn can."""
    scorer = scorer_for(metric_name)

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
        scoring = f", scoring={scorer[1]}" if scorer else ""
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
            *(scorer[0].splitlines() if scorer else ()),
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


__all__ = ["DEFAULT_SCORED", "DRAWS", "scorer_for", "space_for", "tuning", "tuning_strategies"]
