"""A booster notebook validated by the library's own cross-validation: ``lgb.cv`` / ``xgb.cv``.

Kaggle notebooks with LightGBM's native API often never split off validation rows: they call
``cv = lgb.cv(params, lgb.Dataset(X, y), nfold=5, callbacks=[lgb.early_stopping(100)])``, read
the number of rounds from it, and fit the submission's model with ``lgb.train(params, ...,
num_boost_round=len(cv["valid auc-mean"]))``.  A run found the fit but no validation rows and set
the notebook aside.  The score such a notebook trusts is the cross-validation's last mean of its
metric (with early stopping: the best round's); :func:`booster_cv_cell` writes the cell that
prints it as the run's validation score, in the task's metric: the result's entry of that metric
(``valid auc-mean`` for ROC AUC, ``valid l1-mean`` for MAE, ``1 - binary_error`` for accuracy),
or, when the notebook's cross-validation scored another metric, the same call once more with
``metrics=`` the task's (the notebook's ``lgb.cv(...)`` as written, its keyword added).

Only a cross-validation assigned to a name at the notebook's top level, with no other model
fitted after it than the library's ``train`` with the same parameters (the refit for the
submission), is read: its folds then score the model the notebook submits.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from ..notebook import SolutionNotebook
from ..notebook.roles import Analysis, strip_magics

# the task's metric: the names the libraries' results give it (first: the name ``metrics=``
# asks for when the notebook's cross-validation scored another), and whether the result is an
# error rate to turn into accuracy
_NAMES: dict[str, tuple[tuple[str, ...], str]] = {
    "roc_auc": (("auc",), "auc"),
    "rmse": (("rmse", "l2_root"), "rmse"),
    "mse": (("l2", "mse"), "l2"),
    "mae": (("l1", "mae"), "l1"),
    "mape": (("mape",), "mape"),
    "log_loss": (("binary_logloss", "multi_logloss", "logloss", "mlogloss"), ""),
    "accuracy": (("binary_error", "multi_error", "error", "merror"), ""),
}
_LIBRARIES = {"lgb": "lightgbm", "lightgbm": "lightgbm", "xgb": "xgboost", "xgboost": "xgboost"}


class BoosterCV(NamedTuple):
    """The cell to add after block ``after``: its code, and how it measures (for the note)."""

    after: str
    code: str
    how: str


def booster_cv_cell(a: Analysis, nb: SolutionNotebook, metric: str) -> BoosterCV | None:
    """The validation cell of a notebook validated by ``lgb.cv`` / ``xgb.cv`` (see the module
    docstring) in the task's ``metric``; ``None`` when it has no such call, fits another model
    after it, or the metric is not one the libraries compute."""
    if metric not in _NAMES:
        return None
    order = [c.block_id for c in a.cells]
    found = _last_cv(nb, order)
    if found is None:
        return None
    block_id, name, call, module = found
    params = ast.unparse(call.args[0]) if call.args else ""
    for fit in a.fits:
        if fit.scope or order.index(fit.block_id) <= order.index(block_id):
            continue
        if not _refits(nb, fit.block_id, fit.lineno, module, params):
            return None  # another model is fitted after it: its folds do not score that one
    names, asked = _NAMES[metric]
    again = ""
    if asked:  # the call as written, scoring the task's metric instead
        redo = ast.Call(
            func=call.func,
            args=call.args,
            keywords=[k for k in call.keywords if k.arg != "metrics"]
            + [ast.keyword(arg="metrics", value=ast.Constant(asked))],
        )
        again = (
            "if _key is None:  # your cross-validation scored another metric: once more in the task's\n"
            f"    _cv = {ast.unparse(redo)}\n"
            "    _key = _mlestar_key(_cv)\n"
        )
    error = "1 - " if metric == "accuracy" else ""
    code = (
        "import numpy as np\n\n\n"
        "def _mlestar_key(_cv):\n"
        '    """The entry of the cross-validation\'s mean of the task\'s metric, or None."""\n'
        "    for _k in list(_cv.keys()):  # 'valid auc-mean' (LightGBM), 'test-auc-mean' (XGBoost)\n"
        "        if str(_k).startswith('train'):\n"
        "            continue  # the training folds' own score\n"
        "        _m = str(_k).rsplit(' ', 1)[-1]\n"
        "        _m = _m[len('test-'):] if _m.startswith('test-') else _m\n"
        f"        if _m.endswith('-mean') and _m[: -len('-mean')] in {names!r}:\n"
        "            return _k\n"
        "    return None\n\n\n"
        f"_cv = {name}\n"
        "_key = _mlestar_key(_cv)\n"
        f"{again}"
        "if _key is None:\n"
        f"    raise ValueError('your cross-validation ({name}) has no mean of {metric} "
        f"({', '.join(names)}): add it to its metrics')\n"
        "# the last round's mean over the folds (with early stopping: the best round's)\n"
        f"_score = {error}float(np.asarray(_cv[_key])[-1])\n"
        'print(f"Final Validation Performance: {_score}")'
    )
    how = f"as the last round's mean of your cross-validation (`{name}`, {module}'s own folds)"
    return BoosterCV(block_id, code, how)


def _last_cv(nb: SolutionNotebook, order: list[str]) -> tuple[str, str, ast.Call, str] | None:
    """The last ``NAME = lgb.cv(...)`` / ``xgb.cv(...)`` at a cell's top level: its block, the
    name, the call and the library; ``None`` when there is none."""
    for block_id in reversed(order):
        try:
            tree = ast.parse(strip_magics(nb.block(block_id).source))
        except SyntaxError:
            continue
        for node in reversed(tree.body):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute)
                and node.value.func.attr == "cv"
                and isinstance(node.value.func.value, ast.Name)
                and node.value.func.value.id in _LIBRARIES
            ):
                module = _LIBRARIES[node.value.func.value.id]
                return block_id, node.targets[0].id, node.value, module
    return None


def _refits(nb: SolutionNotebook, block_id: str, lineno: int, module: str, params: str) -> bool:
    """Whether the fit at ``lineno`` of ``block_id`` is the library's ``train`` given the
    parameters the cross-validation had (``lgb.train(params, ...)``)."""
    try:
        tree = ast.parse(strip_magics(nb.block(block_id).source))
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node, "lineno", 0) == lineno
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "train"
            and isinstance(node.func.value, ast.Name)
            and _LIBRARIES.get(node.func.value.id) == module
            and node.args
            and ast.unparse(node.args[0]) == params
        ):
            return True
    return False


__all__ = ["BoosterCV", "booster_cv_cell"]
