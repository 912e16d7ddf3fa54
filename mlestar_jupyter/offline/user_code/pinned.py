"""Whether the rest of a user's notebook needs the model to stay the class it is.

A swap (``HistGradientBoostingClassifier`` for the user's forest, a linear model instead, a
randomized search around it) changes the model's class.  Notebooks written by people then break
in the cells around it, and every such candidate failed:

- a later cell reads what only that class has: ``rf.feature_importances_``, ``lr.coef_``,
  ``lgbm.plot_importance(clf)``, ``clf.best_iteration_``;
- the fit passes the library's own arguments: ``clf.fit(X, y, eval_set=[...], callbacks=[...])``;
- a search tunes it with that class's parameters: ``GridSearchCV(rf, {"max_depth": [...]})`` or
  ``GridSearchCV(RandomForestClassifier(), param_grid)``.

:func:`pinned_by` says why (``""``: nothing pins it), and the strategies that change the class
are left out for such a part.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from ...notebook.roles import strip_magics
from .syntax import call_name, model_call, parse

# strategies and ablations that put another class in the model's place (not "wider_search": more
# draws of a randomized search, the user's own too, keep every class as it is)
CLASS_CHANGES = frozenset(
    {
        "swap_hist_gbm",
        "swap_lightgbm",
        "swap_random_forest",
        "swap_ridge",
        "swap_linear",
        "randomized_search",
        "target_transform",  # a TransformedTargetRegressor around it: its grid's names break
        # a pipeline in its place (a basis before the linear model): a search's names for it,
        # "regressor__ridge__alpha", then name the pipeline, and lr.coef_ is gone
        "spline_features",
        "pairwise_interactions",
    }
)
CLASS_CHANGING_ABLATIONS = frozenset({"a linear model instead"})
# attributes every fitted scikit-learn estimator has: reading them pins nothing
_COMMON_ATTRS = frozenset({"classes_", "n_features_in_", "feature_names_in_", "n_outputs_"})
# fit arguments that only a library's own estimators take
_LIBRARY_FIT_ARGS = frozenset(
    {
        "eval_set",
        "eval_names",
        "eval_metric",
        "callbacks",
        "early_stopping_rounds",
        "verbose",
        "categorical_feature",
        "cat_features",
        "feature_name",
        "init_model",
        "xgb_model",
    }
)
_SEARCH = re.compile(r"(Grid|Randomized|Halving\w*)SearchCV$|^BayesSearchCV$")
_PLOTS = frozenset({"plot_importance", "plot_tree", "plot_metric", "TreeExplainer"})


def pinned_by(part_source: str, notebook_sources: Iterable[str]) -> str:
    """Why the model built in ``part_source`` must keep its class, given every code cell of its
    notebook (the part's own included), or ``""`` when nothing needs it."""
    tree = parse(part_source)
    call = model_call(part_source)
    if tree is None or call is None:
        return ""
    cls = call_name(call)
    for node in ast.walk(tree):  # GridSearchCV(RandomForestClassifier(), grid)
        if isinstance(node, ast.Call) and _SEARCH.search(call_name(node)):
            if any(_same(a, call) for a in _estimator_args(node)):
                return f"{call_name(node)} tunes it with {cls}'s parameters"
    names = _assigned_to(tree, call)
    if not names:
        return ""
    for source in notebook_sources:
        cell = parse(strip_magics(source))
        if cell is None:
            continue
        why = _use_that_pins(cell, names)
        if why:
            return why
    return ""


# a fit that stops the boosting once its validation score stops improving (LightGBM's and
# XGBoost's callbacks or early_stopping_rounds, scikit-learn's n_iter_no_change)
_STOPS_EARLY = re.compile(r"\bearly_stopping(?:_rounds)?\b|\bn_iter_no_change\s*=")


def stopped_early(part_source: str, notebook_sources: Iterable[str]) -> bool:
    """Whether the model built in ``part_source`` stops its boosting early: its constructor or
    a fit of its name in any cell (``reg.fit(X, y, callbacks=[lgb.early_stopping(30)])``)
    says so.  More rounds than it stops at add nothing."""
    tree = parse(part_source)
    call = model_call(part_source)
    if tree is None or call is None:
        return False
    if _STOPS_EARLY.search(ast.unparse(call)):
        return True
    names = _assigned_to(tree, call)
    for source in notebook_sources if names else ():
        cell = parse(strip_magics(source))
        for node in ast.walk(cell) if cell is not None else ():
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "fit"
                and _name_of(node.func.value) in names
                and _STOPS_EARLY.search(ast.unparse(node))
            ):
                return True
    return False


def _use_that_pins(tree: ast.Module, names: set[str]) -> str:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _name_of(node.value) in names:
            attr = node.attr
            if attr.endswith("_") and not attr.startswith("_") and attr not in _COMMON_ATTRS:
                return f"the notebook reads {_name_of(node.value)}.{attr}"
            if attr in ("get_booster", "booster_", "best_iteration", "evals_result"):
                return f"the notebook calls {_name_of(node.value)}.{attr}"
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "fit" and _name_of(func.value) in names:
            own = sorted(k.arg for k in node.keywords if k.arg in _LIBRARY_FIT_ARGS)
            if own:
                return f"its fit passes {', '.join(own)}"
        fn = call_name(node)
        if fn in _PLOTS or _SEARCH.search(fn):
            if any(_name_of(a) in names for a in _estimator_args(node)):
                return f"the notebook passes it to {fn}"
    return ""


def _estimator_args(call: ast.Call) -> list[ast.expr]:
    """The first positional argument and an ``estimator=`` / ``booster=`` / ``model=``."""
    first = call.args[:1]
    named = [k.value for k in call.keywords if k.arg in ("estimator", "booster", "model")]
    return [*first, *named]


def _assigned_to(tree: ast.Module, call: ast.Call) -> set[str]:
    """The names the statement holding ``call`` assigns (``rf = RandomForestClassifier()``,
    ``clf = make_pipeline(..., SVC())``)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(_same(n, call) for n in ast.walk(node.value)):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def _same(a: ast.AST, b: ast.AST) -> bool:
    return (getattr(a, "lineno", None), getattr(a, "col_offset", None)) == (
        getattr(b, "lineno", -1),
        getattr(b, "col_offset", -1),
    )


def _name_of(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else ""


__all__ = ["CLASS_CHANGES", "CLASS_CHANGING_ABLATIONS", "pinned_by", "stopped_early"]
