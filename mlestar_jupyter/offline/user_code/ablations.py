"""Ablations of user code, and the strategies that adopt an ablation's change when it scored
better than the original (a default model, a linear one, shorter training, ...)."""

from __future__ import annotations

import ast
import re

from .compared import only_entry_changed
from .feature_edits import (
    drop_feature_group,
    passthrough_step,
    preprocessing_off,
    vectorizer_defaults,
)
from .model_swaps import LINEAR_REGRESSOR, with_categories_encoded
from .number_edits import EPOCHS, HIDDEN, number
from .parts import Part
from .pinned import CLASS_CHANGING_ABLATIONS
from .strategy import Edit, Strategy
from .syntax import (
    call_name,
    focused,
    is_classifier,
    keywords,
    model_call,
    parse,
    replace_node,
    with_imports,
    with_keywords,
)

# constructor arguments a default model keeps: seeds, verbosity, what makes it run at all
# what "defaults" keeps: seeds and verbosity, and what the rest of the notebook or the data needs
# of the model (``bst.best_iteration`` needs its early stopping; string categories need
# ``categorical_features``/``enable_categorical``; the objective says what it predicts)
_KEEP = {
    "random_state",
    "verbose",
    "verbosity",
    "n_jobs",
    "seed",
    "max_iter",
    "probability",
    "early_stopping_rounds",
    "eval_metric",
    "callbacks",
    "objective",
    "num_class",
    "categorical_features",
    "enable_categorical",
}


def _default_model(src: str) -> str | None:
    """The model's constructor with its defaults (keeping seeds and verbosity)."""
    call = model_call(src)
    if call is None:
        return None
    drop: dict[str, str | None] = {k: None for k in keywords(call) if k not in _KEEP}
    return with_keywords(src, call, drop) if drop else None


def _linear_model(src: str) -> str | None:
    """A linear model in place of the model (same fit/predict interface)."""
    call = model_call(src)
    if call is None:
        return None
    name = call_name(call)
    if is_classifier(name):
        if name == "LogisticRegression":
            return None
        new, more = with_categories_encoded(call, "LogisticRegression(max_iter=1000)", linear=True)
        return with_imports(
            replace_node(src, call, new),
            "from sklearn.linear_model import LogisticRegression",
            *more,
        )
    if LINEAR_REGRESSOR.match(name):
        return None  # linear already
    new, more = with_categories_encoded(call, "Ridge()", linear=True)
    return with_imports(
        replace_node(src, call, new), "from sklearn.linear_model import Ridge", *more
    )


def _drop_member(src: str) -> str | None:
    """The last estimator of a voting/stacking ensemble's list removed."""
    tree = parse(src)
    if tree is None:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and re.search(r"Voting|Stacking", call_name(n)):
            est = keywords(n).get("estimators") or (n.args[0] if n.args else None)
            if isinstance(est, ast.List) and len(est.elts) > 2:
                return replace_node(src, est.elts[-1], "").replace(", ]", "]").replace(",]", "]")
    return None


_ABLATIONS: dict[str, tuple[tuple[str, Edit], ...]] = {
    "model": (
        ("model with default settings", _default_model),
        ("a linear model instead", _linear_model),
        ("drop an ensemble member", _drop_member),
        ("pipeline step off", passthrough_step),
        ("shorter training", number(EPOCHS, 0.25)),
        ("narrower network", number(HIDDEN, 0.25)),
    ),
    "train": (("shorter training", number(EPOCHS, 0.25)),),
    "features": (
        ("without the engineered feature group", drop_feature_group),
        ("default vectorizer", vectorizer_defaults),
    ),
    "preprocess": (("preprocessing step off", preprocessing_off),),
}


def ablations(part: Part) -> list[tuple[str, str]]:
    """(name, the part's ablated source) for every ablation that applies to ``part``."""
    out = []
    for name, edit in _ABLATIONS.get(part.role, ()):
        if part.pinned and name in CLASS_CHANGING_ABLATIONS:  # the notebook needs its class
            continue
        with focused(part.compares, part.kept):  # the compared model the run kept
            new = edit(part.source)
        if new is None or new.strip() == part.source.strip() or parse(new) is None:
            continue
        if part.kept and not only_entry_changed(part.source, new, part.compares, part.kept):
            continue  # it changed another of the compared models than the one kept
        out.append((name, new))
    return out


ADOPT: tuple[Strategy, ...] = (
    Strategy(
        "default_settings",
        "Use the model's library defaults (the ablation measured them better than these settings).",
        _default_model,
    ),
    Strategy(
        "swap_linear",
        "Swap the model for a linear one (the ablation measured it better).",
        _linear_model,
    ),
    Strategy(
        "shorter_training",
        "Train for a quarter of the epochs (the ablation measured it better).",
        number(EPOCHS, 0.25),
    ),
    Strategy(
        "narrower_network",
        "A narrower network (the ablation measured it better).",
        number(HIDDEN, 0.25),
    ),
    Strategy(
        "default_vectorizer",
        "The vectorizer's defaults (the ablation measured them better).",
        vectorizer_defaults,
    ),
)
# an ablation that scored better than the original suggests adopting its change
ADOPT_ABLATION = {
    "model with default settings": "default_settings",
    "a linear model instead": "swap_linear",
    "shorter training": "shorter_training",
    "narrower network": "narrower_network",
    "default vectorizer": "default_vectorizer",
    "without the engineered feature group": "drop_feature_group",
    "preprocessing step off": "drop_preprocessing",
}
