"""Refinement strategies: per role, the changes a Kaggle practitioner tries, as param updates.

A strategy applies to a block when its card's template understands every param it sets (the
card lists the param among its defaults for that role) and the task suits it (e.g. class weights
only for classification).  ``next_plan`` walks them guided by the scores so far: after a change
that helped, it tries the next step in the same direction on top of it; after one that did not,
it moves on to another kind of change.  A plan is never repeated on a block.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..agent.policy import Plan
from ..metrics import Direction, Score
from ..task.layout import DataLayout


@dataclass(frozen=True)
class Strategy:
    id: str
    role: str
    group: str  # strategies of a group are steps along one direction
    text: str
    params: dict[str, Any]
    when: Callable[[DataLayout], bool] = field(default=lambda layout: True)


def _clf(layout: DataLayout) -> bool:
    return layout.is_classification


def _reg(layout: DataLayout) -> bool:
    return not layout.is_classification and layout.submission_kind != "multi_target"


S = Strategy
LIBRARY: tuple[Strategy, ...] = (
    # -- features ----------------------------------------------------------------------------
    S(
        "interactions",
        "features",
        "interactions",
        "Add products and ratios of the 4 numeric columns most correlated with the target: trees and linear models alike find interactions hard to build from single splits.",
        {"interactions": 4},
    ),
    S(
        "interactions_more",
        "features",
        "interactions",
        "Widen the interactions to the 6 most correlated numeric columns.",
        {"interactions": 6},
    ),
    S(
        "ordered_codes",
        "features",
        "ordered",
        "Encode the columns whose values are steps of an ordered scale (quality grades Po < Fa < TA < Gd < Ex, sizes S < M < L < XL, Fair < Good < Very Good < Premium < Ideal) by their rank, so one split separates the better from the worse.",
        {"ordered": True},
        lambda layout: bool(layout.ordered_cols),
    ),
    S(
        "frequency",
        "features",
        "frequency",
        "Add frequency encoding: for each categorical column, how common its value is among the training rows.",
        {"frequency": True},
    ),
    S(
        "row_stats",
        "features",
        "row_stats",
        "Add row statistics (mean, std, min, max over the numeric columns).",
        {"row_stats": True},
    ),
    S(
        "no_missing_count",
        "features",
        "missing_count",
        "Drop the missing-value count feature, which may only add noise.",
        {"missing_count": False},
    ),
    S(
        "no_placeholders",
        "features",
        "placeholders",
        "Keep URLs and numbers as they are instead of placeholder tokens: their exact values may carry signal.",
        {"placeholders": False},
    ),
    S(
        "bigger_images",
        "features",
        "image_size",
        "Feed the images at a larger size (up to 64 pixels) so fine detail survives resizing.",
        {"max_size": 64},
    ),
    S(
        "smaller_images",
        "features",
        "image_size",
        "Shrink the images to 24 pixels: less detail, but less overfitting and faster training.",
        {"max_size": 24},
    ),
    S(
        "more_mfcc",
        "features",
        "mfcc",
        "Keep 30 MFCCs over 64 mel bands to describe the spectrum in more detail.",
        {"n_mfcc": 30, "n_mels": 64},
    ),
    S(
        "fewer_mfcc",
        "features",
        "mfcc",
        "Keep only 13 MFCCs (the classic speech setting), dropping fine spectral detail that may be noise.",
        {"n_mfcc": 13},
    ),
    S(
        "more_kernels",
        "features",
        "rocket",
        "Use 5000 convolution features instead of 2000.",
        {"num_features": 5000},
    ),
    S(
        "fewer_kernels",
        "features",
        "rocket",
        "Use 800 convolution features: fewer, less noisy features for a small training set.",
        {"num_features": 800},
    ),
    S(
        "no_spectrum",
        "features",
        "spectrum",
        "Drop the spectrum band powers, keeping statistics and autocorrelations.",
        {"spectrum": False},
    ),
    # -- preprocess ---------------------------------------------------------------------------
    S(
        "target_high_cardinality",
        "preprocess",
        "encoding",
        "Encode the categorical columns with many distinct values (names, codes) by their cross-fitted mean target (no row sees its own target), keeping ordinal codes for the others.",
        {"encoding": "target_high"},
        lambda layout: bool(layout.high_card_cols),
    ),
    S(
        "target_encoding",
        "preprocess",
        "encoding",
        "Encode categorical columns by their cross-fitted mean target (target encoding) instead of arbitrary codes.",
        {"encoding": "target"},
    ),
    S(
        "onehot",
        "preprocess",
        "encoding",
        "One-hot encode the categorical columns (rare values grouped together).",
        {"encoding": "onehot"},
    ),
    S(
        "ordinal",
        "preprocess",
        "encoding",
        "Encode categorical columns as ordinal codes, a compact representation trees split on easily.",
        {"encoding": "ordinal"},
    ),
    S(
        "impute_median",
        "preprocess",
        "impute",
        "Impute missing numbers with the training median and add missing-value indicator columns.",
        {"impute": "median"},
    ),
    S(
        "impute_mean",
        "preprocess",
        "impute",
        "Impute missing numbers with the training mean (plus indicator columns).",
        {"impute": "mean"},
    ),
    S(
        "scale",
        "preprocess",
        "scale",
        "Standardise the numeric columns (zero mean, unit variance).",
        {"scale": True},
    ),
    S(
        "word_trigrams",
        "preprocess",
        "word_ngrams",
        "Extend the word n-grams to trigrams to capture short phrases.",
        {"word_ngrams": 3},
    ),
    S(
        "char_ngrams_6",
        "preprocess",
        "char_ngrams",
        "Use character n-grams up to length 6.",
        {"char_ngrams": 6},
    ),
    S(
        "add_char_ngrams",
        "preprocess",
        "char_ngrams",
        "Add character n-grams (2 to 5) beside the word n-grams.",
        {"char_ngrams": 5},
    ),
    S(
        "min_df_1",
        "preprocess",
        "min_df",
        "Keep n-grams seen only once (min_df=1): rare words can be decisive.",
        {"min_df": 1},
    ),
    S(
        "min_df_3",
        "preprocess",
        "min_df",
        "Drop n-grams seen fewer than 3 times (min_df=3) to cut noise.",
        {"min_df": 3},
    ),
    S(
        "no_sublinear",
        "preprocess",
        "sublinear",
        "Use raw term counts instead of sublinear (log) term frequency.",
        {"sublinear_tf": False},
    ),
    S(
        "fine_hog",
        "preprocess",
        "hog_cell",
        "Compute HOG over smaller 2-pixel cells for finer edge detail.",
        {"hog_cell": 2},
    ),
    S(
        "coarse_hog",
        "preprocess",
        "hog_cell",
        "Compute HOG over larger 8-pixel cells, more robust to small shifts.",
        {"hog_cell": 8},
    ),
    # -- model ---------------------------------------------------------------------------------
    S(
        "lower_lr",
        "model",
        "learning_rate",
        "Halve the learning rate and double the number of trees: smaller steps usually generalise better.",
        {"learning_rate": 0.025, "n_estimators": 800},
    ),
    S(
        "lower_lr_more",
        "model",
        "learning_rate",
        "Lower the learning rate further to 0.01 with 2000 trees.",
        {"learning_rate": 0.01, "n_estimators": 2000},
    ),
    S(
        "hgb_lower_lr",
        "model",
        "learning_rate",
        "Lower the learning rate to 0.04 and allow 600 boosting iterations.",
        {"learning_rate": 0.04, "max_iter": 600},
    ),
    S(
        "hgb_early_stop",
        "model",
        "early_stopping",
        "Allow 1000 iterations but stop early once 10% held-out training rows stop improving.",
        {"early_stopping": True, "max_iter": 1000},
    ),
    S(
        "smaller_trees",
        "model",
        "tree_size",
        "Use smaller trees (15 leaves) to reduce overfitting.",
        {"num_leaves": 15},
    ),
    S(
        "bigger_trees",
        "model",
        "tree_size",
        "Use bigger trees (63 leaves) to capture more interactions.",
        {"num_leaves": 63},
    ),
    S(
        "hgb_smaller_trees",
        "model",
        "tree_size",
        "Use smaller trees (15 leaf nodes) to reduce overfitting.",
        {"max_leaf_nodes": 15},
    ),
    S(
        "hgb_bigger_trees",
        "model",
        "tree_size",
        "Use bigger trees (63 leaf nodes) to capture more interactions.",
        {"max_leaf_nodes": 63},
    ),
    S(
        "feature_subsample",
        "model",
        "randomisation",
        "Sample 70% of the columns per tree and 80% of the rows per iteration, decorrelating the trees.",
        {"colsample_bytree": 0.7, "subsample": 0.8},
    ),
    S(
        "min_child_50",
        "model",
        "min_leaf",
        "Require 50 rows per leaf, smoothing noisy splits.",
        {"min_child_samples": 50},
    ),
    S(
        "l2",
        "model",
        "regularization",
        "Add L2 regularization on the leaf values (lambda=5).",
        {"reg_lambda": 5.0},
    ),
    S(
        "hgb_l2",
        "model",
        "regularization",
        "Add L2 regularization on the leaf values (1.0).",
        {"l2_regularization": 1.0},
    ),
    S(
        "rf_more_trees",
        "model",
        "n_trees",
        "Grow 600 trees: a bigger forest has lower variance.",
        {"n_estimators": 600},
    ),
    S(
        "rf_max_features",
        "model",
        "max_features",
        "Consider half of the columns at each split (max_features=0.5).",
        {"max_features": 0.5},
    ),
    S(
        "rf_min_leaf",
        "model",
        "min_leaf",
        "Require 3 rows per leaf to smooth the trees.",
        {"min_samples_leaf": 3},
    ),
    S("less_reg_C", "model", "C", "Weaken the regularization (C four times larger).", {"C": "x4"}),
    S(
        "more_reg_C",
        "model",
        "C",
        "Strengthen the regularization (C four times smaller).",
        {"C": "/4"},
    ),
    S(
        "less_reg_alpha",
        "model",
        "alpha",
        "Weaken the ridge penalty (alpha ten times smaller).",
        {"alpha": "/10"},
    ),
    S(
        "more_reg_alpha",
        "model",
        "alpha",
        "Strengthen the ridge penalty (alpha ten times larger).",
        {"alpha": "x10"},
    ),
    S(
        "splines",
        "model",
        "splines",
        "Expand each column into cubic splines so the linear model can bend.",
        {"spline_knots": 5},
    ),
    S(
        "balanced",
        "model",
        "class_weight",
        "Weight classes inversely to their frequency (class_weight='balanced').",
        {"class_weight": "balanced"},
        _clf,
    ),
    S("more_epochs", "model", "epochs", "Train twice as many epochs.", {"epochs": "x2"}),
    S(
        "augment_shift",
        "model",
        "augment",
        "Augment training images with random shifts of up to 2 pixels.",
        {"augment": "shift"},
    ),
    S(
        "augment_flip",
        "model",
        "augment",
        "Augment with random shifts and horizontal flips.",
        {"augment": "shift_flip"},
    ),
    S(
        "wider_cnn",
        "model",
        "width",
        "Double the network's width (channels per layer).",
        {"width": "x2"},
    ),
    S("lower_cnn_lr", "model", "cnn_lr", "Lower the peak learning rate to a third.", {"lr": "/3"}),
    S(
        "more_weight_decay",
        "model",
        "weight_decay",
        "Increase weight decay tenfold to regularise the network.",
        {"weight_decay": "x10"},
    ),
    S("more_iters", "model", "iterations", "Double the boosting iterations.", {"max_iter": "x2"}),
    # -- train ----------------------------------------------------------------------------------
    S(
        "early_stopping",
        "train",
        "early_stopping",
        "Stop adding trees once a 10% slice of the training rows stops improving (early stopping).",
        {"early_stopping": True},
    ),
    S(
        "log_target",
        "train",
        "log_target",
        "Fit on log(1 + target) and transform predictions back: tames a skewed target.",
        {"log_target": True},
        _reg,
    ),
    S(
        "bagging",
        "train",
        "bagging",
        "Bag 3 copies of the model, each fitted on a different 80% of the rows, and average them.",
        {"bags": 3},
    ),
    S("bagging_more", "train", "bagging", "Bag 5 copies instead of 3.", {"bags": 5}),
)


def _apply(current: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """``current`` with ``update``; "x4" / "/10" scale the current number."""
    out = dict(current)
    for k, v in update.items():
        if (
            isinstance(v, str)
            and v[:1] in "x/"
            and v[1:].replace(".", "").isdigit()
            and isinstance(current.get(k), int | float)
        ):
            factor = float(v[1:])
            value = current[k] * factor if v[0] == "x" else current[k] / factor
            out[k] = (
                int(value)
                if isinstance(current[k], int) and not isinstance(current[k], bool)
                else round(value, 6)
            )
        else:
            out[k] = v
    return out


CATEGORICAL_PARAMS = {"encoding", "frequency"}
MISSING_PARAMS = {"impute", "missing_count"}


def relevant(params: dict[str, Any], layout: DataLayout) -> bool:
    """Whether changing ``params`` can matter for this data (no encoding changes without categories)."""
    if (
        layout.modality == "tabular"
        and layout.n_categorical == 0
        and set(params) & CATEGORICAL_PARAMS
    ):
        return False
    return not (
        layout.modality == "tabular" and not layout.has_missing and set(params) & MISSING_PARAMS
    )


def applicable(
    role: str, defaults: dict[str, Any], current: dict[str, Any], layout: DataLayout
) -> list[Strategy]:
    """Strategies for ``role`` that this card's template understands and that change ``current``."""
    return [
        s
        for s in LIBRARY
        if s.role == role
        and set(s.params) <= set(defaults)
        and s.when(layout)
        and relevant(s.params, layout)
        and _apply(current, s.params) != current
    ]


def _better(a: float, b: float | None, higher: bool) -> bool:
    direction: Direction = "maximize" if higher else "minimize"
    return Score(a, direction).better_than(Score(b, direction))


def next_plan(
    role: str,
    defaults: dict[str, Any],
    current: dict[str, Any],
    layout: DataLayout,
    history: list[tuple[Plan, float | None]],
    baseline: float | None,
    higher: bool,
    prefer: str | None = None,
) -> Plan | None:
    """The next untried plan for a block (``None`` when every strategy has been tried);
    ``prefer`` names a strategy the data asks for, tried before any other."""
    tried_ids = {part for p, _ in history for part in str(p.strategy).split("+")}
    tried_params = [p.params.get("role_params") for p, _ in history]
    best: tuple[Plan, float] | None = None
    for p, s in history:
        if (
            s is not None
            and _better(s, baseline, higher)
            and (best is None or _better(s, best[1], higher))
        ):
            best = (p, s)
    base = best[0].params.get("role_params", current) if best else current
    cands = [s for s in applicable(role, defaults, current, layout) if s.id not in tried_ids]
    if best:  # a change helped: next try a further step in its direction, on top of it
        best_groups = {s.group for s in LIBRARY if s.id in str(best[0].strategy).split("+")}
        cands.sort(key=lambda s: s.group not in best_groups)
    else:  # nothing helped yet: prefer kinds of change not tried at all
        tried_groups = {s.group for s in LIBRARY if s.id in tried_ids}
        cands.sort(key=lambda s: s.group in tried_groups)
    cands.sort(key=lambda s: s.id != prefer)
    for strat in cands:
        params = _apply(base, strat.params)
        if params == base or params in tried_params or params == current:
            continue
        on_top = f" (on top of the best plan so far: {best[0].text})" if best else ""
        sid = f"{best[0].strategy}+{strat.id}" if best else strat.id
        return Plan(f"{strat.text}{on_top}", sid, {"role": role, "role_params": params})
    return None
