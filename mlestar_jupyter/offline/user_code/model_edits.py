"""Refinement strategies for a model part: the constructor's hyperparameters, a scaler in front,
a log target, another model in its place."""

from __future__ import annotations

import ast
import re

from .model_swaps import LINEAR_REGRESSOR, SCALE_SENSITIVE, swap
from .strategy import Edit, Strategy, chain
from .syntax import (
    call_name,
    format_like,
    is_classifier,
    keywords,
    model_call,
    number_value,
    parse,
    replace_node,
    with_imports,
    with_keywords,
)


def scale_param(
    param: str, factor: float, *, add: float | None = None, cap: float | None = None
) -> Edit:
    """Multiply a keyword argument of the model's constructor (or set it to ``add`` when absent)."""

    def edit(src: str) -> str | None:
        call = model_call(src)
        if call is None:
            return None
        kw = keywords(call)
        value = number_value(kw.get(param))
        if value is None:
            if add is None or param in kw:
                return None
            return with_keywords(
                src, call, {param: format_like(add, None) if add != int(add) else str(int(add))}
            )
        new = value * factor
        if cap is not None:
            new = min(new, cap)
        like = kw.get(param)
        if isinstance(like, ast.Constant) and isinstance(like.value, int):
            new = float(max(1, round(new)))
        if new == value:
            return None
        return with_keywords(src, call, {param: format_like(new, kw.get(param))})

    return edit


def set_param(param: str, value: str, *, only: str = "") -> Edit:
    """Set a keyword argument of the model's constructor (of a class matching ``only``, if given)."""

    def edit(src: str) -> str | None:
        call = model_call(src)
        if call is None or (only and not re.search(only, call_name(call))):
            return None
        kw = keywords(call)
        if param in kw and ast.unparse(kw[param]) == value:
            return None
        return with_keywords(src, call, {param: value})

    return edit


def drop_param(param: str) -> Edit:
    """Remove a keyword argument from the model's constructor."""

    def edit(src: str) -> str | None:
        call = model_call(src)
        if call is None or param not in keywords(call):
            return None
        return with_keywords(src, call, {param: None})

    return edit


def _slower_learning(src: str) -> str | None:
    call = model_call(src)
    if call is None:
        return None
    kw = keywords(call)
    # the number of boosting rounds: max_iter for scikit-learn's histogram boosting
    rounds = "max_iter" if call_name(call).startswith("HistGradientBoosting") else "n_estimators"
    lr, n = number_value(kw.get("learning_rate")), number_value(kw.get(rounds))
    if lr is None or lr <= 0.02:
        return None
    changes: dict[str, str | None] = {"learning_rate": format_like(lr / 3, kw.get("learning_rate"))}
    changes[rounds] = str(int((n or 100) * 3))
    return with_keywords(src, call, changes)


def _early_stopping(src: str) -> str | None:
    call = model_call(src)
    if call is None or not call_name(call).startswith("GradientBoosting"):
        return None
    return chain(
        src,
        set_param("n_iter_no_change", "20"),
        scale_param("n_estimators", 3, add=300, cap=2000),
    )


def _standardize(src: str) -> str | None:
    """Wrap a scale-sensitive model in ``make_pipeline(StandardScaler(), ...)``; not a model
    that is already a pipeline's later step (``Pipeline([('pre', pre), ('model', LR())])``:
    ``pre`` prepares its features, often with its own scaler, in lines this part may not hold)."""
    call = model_call(src)
    if call is None or not SCALE_SENSITIVE.match(call_name(call)) or "Scaler" in src:
        return None
    if _after_pipeline_steps(src, call):
        return None
    body = ast.get_source_segment(src, call) or ast.unparse(call)
    out = replace_node(src, call, f"make_pipeline(StandardScaler(with_mean=False), {body})")
    return with_imports(
        out,
        "from sklearn.pipeline import make_pipeline",
        "from sklearn.preprocessing import StandardScaler",
    )


def _after_pipeline_steps(src: str, call: ast.Call) -> bool:
    """Whether ``call`` (parsed from ``src``) is a step of a ``Pipeline([...])`` or
    ``make_pipeline(...)`` in ``src`` with other steps before it."""
    at, tree = (call.lineno, call.col_offset), parse(src)
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call):
            continue
        name = call_name(node)
        steps: list[ast.expr] = []
        if name == "make_pipeline":
            steps = list(node.args)
        elif name == "Pipeline" and node.args and isinstance(node.args[0], ast.List | ast.Tuple):
            steps = [
                e.elts[-1]
                for e in node.args[0].elts
                if isinstance(e, ast.Tuple | ast.List) and e.elts
            ]
        placed = [i for i, step in enumerate(steps) if (step.lineno, step.col_offset) == at]
        if placed and placed[0] > 0:
            return True
    return False


def _balanced_classes(src: str) -> str | None:
    """``class_weight="balanced"`` on a classifier that takes it (a regressor has no classes: a
    ``RandomForestRegressor`` given it raises ``TypeError``)."""
    call = model_call(src)
    if call is None or not is_classifier(call_name(call)):
        return None
    return set_param(
        "class_weight", '"balanced"', only="Logistic|SVC|Forest|Trees|DecisionTree|LGBM"
    )(src)


def _target_transform(src: str) -> str | None:
    call = model_call(src)
    if call is None or is_classifier(call_name(call)) or "TransformedTargetRegressor" in src:
        return None
    body = ast.get_source_segment(src, call) or ast.unparse(call)
    out = replace_node(
        src,
        call,
        f"TransformedTargetRegressor(regressor={body}, func=np.log1p, inverse_func=np.expm1)",
    )
    return with_imports(
        out, "import numpy as np", "from sklearn.compose import TransformedTargetRegressor"
    )


_LINEAR = re.compile(r"^(LogisticRegression|RidgeClassifier|LinearSVC|LinearSVR)(CV)?$")


def _expanded(transformer: str, imports: str) -> Edit:
    """A linear model given expanded columns: ``make_pipeline(<transformer>, <model>)`` in place
    of the model's constructor (inside the user's own pipeline, if any)."""

    def edit(src: str) -> str | None:
        call = model_call(src)
        if call is None:
            return None
        name = call_name(call)
        if not (LINEAR_REGRESSOR.match(name) or _LINEAR.match(name)):
            return None
        if transformer.split("(")[0] in src:
            return None  # expanded already
        body = ast.get_source_segment(src, call) or ast.unparse(call)
        out = replace_node(src, call, f"make_pipeline({transformer}, {body})")
        return with_imports(out, "from sklearn.pipeline import make_pipeline", imports)

    return edit


MODEL_STRATEGIES: tuple[Strategy, ...] = (
    Strategy(
        "standardize",
        "Standardize the features for this scale-sensitive model (StandardScaler in a pipeline).",
        _standardize,
    ),
    Strategy(
        "more_estimators",
        "Three times as many trees (n_estimators x3).",
        scale_param("n_estimators", 3, cap=2000),
    ),
    Strategy(
        "slower_learning",
        "A third of the learning rate with three times the trees.",
        _slower_learning,
    ),
    Strategy("deeper_trees", "Deeper trees (max_depth x2).", scale_param("max_depth", 2, cap=16)),
    Strategy(
        "shallower_trees",
        "Shallower trees (max_depth halved), less overfitting.",
        scale_param("max_depth", 0.5),
    ),
    Strategy(
        "more_leaves",
        "More leaves per tree (num_leaves x2).",
        scale_param("num_leaves", 2, cap=255),
    ),
    Strategy(
        "fewer_leaves",
        "Fewer leaves per tree (num_leaves halved), less overfitting.",
        scale_param("num_leaves", 0.5),
    ),
    Strategy(
        "larger_leaves",
        "More rows per leaf (min_child_samples or min_samples_leaf x2): smoother splits.",
        lambda s: chain(
            s,
            scale_param("min_child_samples", 2, cap=500),
            scale_param("min_samples_leaf", 2, cap=200),
        ),
    ),
    Strategy(
        "row_col_sampling",
        "Each boosting round on 80 % of the rows and of the columns (subsample, colsample_bytree).",
        lambda s: chain(
            s,
            set_param("subsample", "0.8", only="LGBM|XGB"),
            set_param("subsample_freq", "1", only="LGBM"),
            set_param("colsample_bytree", "0.8", only="LGBM|XGB"),
        ),
    ),
    Strategy(
        "l2_leaves",
        "L2 regularization of the leaf values (reg_lambda=5).",
        set_param("reg_lambda", "5", only="LGBM|XGB"),
    ),
    Strategy("weaker_regularization", "Weaker regularization (C x10).", scale_param("C", 10)),
    Strategy("stronger_regularization", "Stronger regularization (C / 10).", scale_param("C", 0.1)),
    Strategy("lower_alpha", "Less shrinkage (alpha / 10).", scale_param("alpha", 0.1)),
    Strategy(
        "more_neighbors",
        "More neighbours, weighted by distance.",
        lambda s: chain(
            s,
            scale_param("n_neighbors", 3, cap=50),
            set_param("weights", '"distance"', only="KNeighbors"),
        ),
    ),
    Strategy(
        "early_stopping",
        "Early stopping on an internal validation split, with a larger budget of boosting rounds.",
        _early_stopping,
    ),
    Strategy(
        "class_weight",
        "Balanced class weights.",
        _balanced_classes,
    ),
    Strategy(
        "target_transform",
        "Model log1p of the target (TransformedTargetRegressor).",
        _target_transform,
    ),
    Strategy(
        "swap_hist_gbm",
        "Swap the model for histogram gradient boosting (same fit/predict interface).",
        swap("swap_hist_gbm"),
    ),
    Strategy(
        "swap_lightgbm",
        "Swap the model for LightGBM (same fit/predict interface).",
        swap("swap_lightgbm"),
    ),
    Strategy(
        "swap_ridge", "Swap the model for a cross-validated ridge regression.", swap("swap_ridge")
    ),
    Strategy(
        "swap_random_forest",
        "Swap the model for a 300-tree random forest.",
        swap("swap_random_forest"),
    ),
    Strategy("no_depth_limit", "Remove the depth limit of the trees.", drop_param("max_depth")),
    Strategy(
        "spline_features",
        "Give the linear model a cubic spline basis of each column (bends it can fit).",
        _expanded(
            "SplineTransformer(n_knots=5, degree=3)",
            "from sklearn.preprocessing import SplineTransformer",
        ),
    ),
    Strategy(
        "pairwise_interactions",
        "Give the linear model every pairwise product of the columns (interactions).",
        _expanded(
            "PolynomialFeatures(degree=2, include_bias=False)",
            "from sklearn.preprocessing import PolynomialFeatures",
        ),
    ),
)
