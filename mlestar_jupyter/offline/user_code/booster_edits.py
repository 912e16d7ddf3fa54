"""Strategies for a native booster: the parameter dict of ``xgb.train`` / ``lgb.train`` and its
number of boosting rounds.

Kaggle notebooks train gradient boosting through the libraries' own API:
``params = {"objective": "binary:logistic", "eta": 0.1, "max_depth": 6}`` and
``bst = xgb.train(params, dtrain, 500, evals=[(dval, "val")], early_stopping_rounds=50)``.
There is no estimator constructor for the model strategies to change, so these edit the dict
literal that names an ``objective`` (adding a key it lacks, at the library's default scaled)
and the rounds (``num_boost_round=`` or the call's third argument).
"""

from __future__ import annotations

import ast
import re

from ...notebook.spans import node_span, replace_spans
from .strategy import Edit, Strategy, chain

# the opening brace of a dict literal that names an objective, or a setting only gradient
# boosting libraries have: the booster's parameters (``params = {"num_leaves": 15, ...}`` given
# to ``lgb.train`` or as ``LGBMClassifier(**params)``)
_BOOSTER_KEYS = (
    "objective|num_leaves|colsample_bytree|feature_fraction|bagging_fraction|subsample_freq|"
    "bagging_freq|min_child_samples|min_child_weight|eta|reg_lambda|reg_alpha|lambda_l1|lambda_l2"
)
_PARAMS = re.compile(rf"\{{(?=[^{{}}]*[\"'](?:{_BOOSTER_KEYS})[\"']\s*:)")
# a value that is a list or a distribution: the dict is a search's grid, not one setting each
_GRID_VALUE = re.compile(r":\s*(?:\[|\(|np\.|stats\.|(?:uniform|loguniform|randint)\s*\()")


def _params_opening(src: str) -> re.Match[str] | None:
    """The opening brace of the booster's parameter dict: the first dict naming a booster's
    setting whose values are single settings (``{"num_leaves": [7, 15, 31]}`` given to a
    ``RandomizedSearchCV`` is a grid: a scalar put into it fails the search)."""
    for m in _PARAMS.finditer(src):
        end = src.find("}", m.end())
        if not _GRID_VALUE.search(src, m.end(), end if end >= 0 else len(src)):
            return m
    return None


# the rounds of a scikit-learn-style booster, in its parameter dict (``**params``)
_ROUND_KEYS = ("n_estimators", "num_boost_round", "num_iterations", "num_rounds")
_TRAINERS = {"xgb", "xgboost", "lgb", "lightgbm"}


def param(keys: tuple[str, ...], factor: float, absent: str | None, cap: float | None) -> Edit:
    """Multiply the value of the first of ``keys`` in the booster's parameter dict; where none
    is there, add ``keys[0]: absent`` (``None``: leave the dict alone)."""
    names = "|".join(re.escape(k) for k in keys)
    value = re.compile(rf"[\"'](?:{names})[\"']\s*:\s*([0-9.]+(?:e-?\d+)?)")

    def edit(src: str) -> str | None:
        opening = _params_opening(src)
        if opening is None:
            return None
        end = src.find("}", opening.end())
        m = value.search(src, opening.end(), end)
        if m is None:
            if absent is None:
                return None
            at = opening.end()
            return f"{src[:at]}'{keys[0]}': {absent}, {src[at:]}"
        old = float(m.group(1))
        new = old * factor if cap is None else min(old * factor, cap)
        if new == old:
            return None
        text = str(max(1, round(new))) if re.fullmatch(r"\d+", m.group(1)) else f"{new:.4g}"
        return src[: m.start(1)] + text + src[m.end(1) :]

    return edit


def _rounds_node(src: str) -> ast.Constant | None:
    """The number of rounds a ``xgb.train``/``lgb.train`` call in ``src`` is given (its
    ``num_boost_round=`` or its third argument), when it is written as a whole number; or a
    ``lgb.cv``/``xgb.cv`` call's, whose early stopping then sets the rounds ``lgb.train`` is
    given (``num_boost_round=len(cv["valid auc-mean"])``)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("train", "cv")
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in _TRAINERS
        ):
            given = {k.arg: k.value for k in node.keywords}
            n = given.get("num_boost_round", node.args[2] if len(node.args) > 2 else None)
            if isinstance(n, ast.Constant) and type(n.value) is int:
                return n
    return None


def rounds(factor: float, cap: int = 20000) -> Edit:
    """Multiply the number of boosting rounds."""

    def edit(src: str) -> str | None:
        n = _rounds_node(src)
        if n is None or n.end_col_offset is None or n.lineno != n.end_lineno:
            return None
        old = n.value
        assert isinstance(old, int)  # _rounds_node returns whole numbers only
        new = min(round(old * factor), cap)
        if new == old:
            return None
        lines = src.split("\n")
        raw = lines[n.lineno - 1].encode()
        lines[n.lineno - 1] = (
            raw[: n.col_offset].decode() + str(new) + raw[n.end_col_offset :].decode()
        )
        return "\n".join(lines)

    return edit


_LEARNING_RATE = ("eta", "learning_rate")


def _slower_learning(src: str) -> str | None:
    """A third of the learning rate and three times the rounds, both in this part (a lower
    rate alone stops short of the fit it had)."""
    lower = param(_LEARNING_RATE, 1 / 3, "0.1", None)(src)
    return _more_rounds(lower) if lower is not None else None


def _more_rounds(src: str) -> str | None:
    """Three times the rounds: the ``train`` call's, else the dict's ``n_estimators``."""
    return rounds(3)(src) or param(_ROUND_KEYS, 3, None, 20000)(src)


def _subsample(src: str) -> str | None:
    """80 % of the rows and columns per round; LightGBM (an objective without ``:``) bags
    only with a bagging frequency."""
    opening = _params_opening(src)
    if opening is None:
        return None
    objective = re.search(r"[\"']objective[\"']\s*:\s*[\"']([^\"']*)[\"']", src[opening.end() :])
    lightgbm = (objective is not None and ":" not in objective.group(1)) or bool(
        re.search(r"[\"'](?:num_leaves|min_child_samples|feature_fraction)[\"']", src)
    )
    return chain(
        src,
        param(("subsample", "bagging_fraction"), 1.0, "0.8", None),
        param(("colsample_bytree", "feature_fraction"), 1.0, "0.8", None),
        *((param(("bagging_freq", "subsample_freq"), 1.0, "1", None),) if lightgbm else ()),
    )


def _keyword_dict(src: str) -> ast.Call | None:
    """The first ``dict(objective=..., num_leaves=...)`` call of ``src`` naming a booster's
    setting by keyword (every argument a keyword), or ``None``."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return None
    keys = set(_BOOSTER_KEYS.split("|"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "dict"
            and not node.args
            and node.keywords
            and all(k.arg is not None for k in node.keywords)
            and any(k.arg in keys for k in node.keywords)
        ):
            return node
    return None


def _also_keyword_dict(edit: Edit) -> Edit:
    """``edit``, also for parameters written ``params = dict(objective="regression", ...)``
    (hunt E, session 28: only ``{...}`` literals were edited, so such a notebook got one
    refinement, the rounds, which its early stopping made a no-op): the call is edited as the
    literal it equals and written back as a ``dict(...)`` call."""

    def edited(src: str) -> str | None:
        out = edit(src)
        call = _keyword_dict(src) if out is None and _params_opening(src) is None else None
        span = node_span(src, call) if call is not None else None
        if call is None or span is None:
            return out
        pairs = [(k.arg, ast.get_source_segment(src, k.value)) for k in call.keywords]
        if any(v is None for _, v in pairs):
            return None
        literal = "{" + ", ".join(f"{k!r}: {v}" for k, v in pairs) + "}"
        changed = edit(src[: span[0]] + literal + src[span[1] :])
        if changed is None:
            return None
        return _back_to_call(changed, span[0])

    return edited


def _back_to_call(src: str, start: int) -> str | None:
    """``src`` with the dict literal at offset ``start`` written as ``dict(key=value, ...)``."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        span = node_span(src, node) if isinstance(node, ast.Dict) else None
        if span is None or span[0] != start or not isinstance(node, ast.Dict):
            continue
        items = []
        for key, value in zip(node.keys, node.values, strict=True):
            text = ast.get_source_segment(src, value)
            if (
                not (isinstance(key, ast.Constant) and str(key.value).isidentifier())
                or text is None
            ):
                return None
            items.append(f"{key.value!s}={text}")
        return replace_spans(src, [(span[0], span[1], f"dict({', '.join(items)})")])
    return None


BOOSTER_STRATEGIES: tuple[Strategy, ...] = (
    Strategy(
        "booster_slower_learning",
        "A third of the booster's learning rate with three times the rounds.",
        _also_keyword_dict(_slower_learning),
    ),
    Strategy(
        "booster_shallower",
        "Shallower booster trees (max_depth halved; 3 where unset).",
        _also_keyword_dict(param(("max_depth",), 0.5, "3", None)),
    ),
    Strategy(
        "booster_deeper",
        "Deeper booster trees (max_depth x2; 10 where unset).",
        _also_keyword_dict(param(("max_depth",), 2, "10", 16)),
    ),
    Strategy(
        "booster_subsample",
        "Each round on 80 % of the rows and of the columns.",
        _also_keyword_dict(_subsample),
    ),
    Strategy(
        "booster_more_rounds", "Three times the boosting rounds.", _also_keyword_dict(_more_rounds)
    ),
)
