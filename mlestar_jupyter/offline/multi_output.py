"""A single-output model given several target columns, wrapped to fit one model per column.

A user's notebook that predicts several columns (``ExtraTreesRegressor().fit(X, train[["y1",
"y2"]])``) is refined by swapping its model, and some of the models put in fit one column only:
histogram or plain gradient boosting, LightGBM, SVR ... fail with scikit-learn's "y should be a
1d array, got an array of shape (107, 2) instead" (CatBoost: "multidimensional target").  Hunt J
(session 31): 2 of 31 refinements of such a notebook failed so, and the debugger undid them.
:func:`one_model_per_column` is the debugger's fix: the model's constructor, in the block that
failed (else the first block that builds one), becomes ``MultiOutputRegressor(...)`` (or
``MultiOutputClassifier``), which fits a copy per column and predicts them side by side.

The debugger's fix cost a candidate each time (the swap ran once, failed, and was run again
wrapped).  :func:`wrapped_swap` makes the same change when the refinement is written: in a task
of several target columns, a strategy that swaps in a model of another class that fits one
column only (not one of ``_NATIVE``: forests, trees, neighbours, linear models, MLPs, XGBoost
fit several) gets it wrapped, unless the notebook fits that model inside a loop (one column at
a time: ``for col in TARGETS: reg.fit(X, train[col])``), where a wrapper would refuse the one
column.  A class the list misses is still fixed by the debugger.
"""

from __future__ import annotations

import ast
import re

from ..notebook import SolutionNotebook
from .user_code.syntax import (
    call_name,
    is_classifier,
    model_call,
    parse,
    replace_node,
    with_imports,
)

# what a model of one output says when it is given a table of several target columns
ONE_OUTPUT_ERROR = re.compile(
    r"y should be a 1d array, got an array of shape \(\d+, ?\d+\)|multidimensional target"
)
_MULTI_OUTPUT = (
    "MultiOutputRegressor",
    "MultiOutputClassifier",
    "RegressorChain",
    "ClassifierChain",
)


# estimators fitting several target columns themselves (scikit-learn's ``multioutput`` tag;
# XGBoost since 1.6): a swap to one of them is left as it is
_NATIVE = re.compile(
    r"^(?:RandomForest|ExtraTrees?|DecisionTree|KNeighbors|RadiusNeighbors|MLP|Dummy|XGB"
    r"|LinearRegression$|Ridge$|RidgeCV$|RidgeClassifier|Lasso$|ElasticNet$|MultiTask|Lars$"
    r"|PLS|CCA$|KernelRidge$|GaussianProcessRegressor$|TransformedTargetRegressor$)"
)


def wrapped_swap(solution: SolutionNotebook, old: str, new: str) -> str:
    """``new``, a refinement of the part ``old`` of ``solution`` (a notebook fitting several
    target columns), with its model wrapped to fit one copy per column (:func:`wrapped`) when
    it swapped in a model of another class that fits one column only and no loop of the
    notebook fits it; else ``new`` as it is."""
    before, after = model_call(old), model_call(new)
    if after is None or (before is not None and call_name(before) == call_name(after)):
        return new
    if _NATIVE.match(call_name(after).split(".")[-1]) or _fitted_in_loop(solution, new, after):
        return new
    return wrapped(new) or new


def _fitted_in_loop(solution: SolutionNotebook, new: str, call: ast.Call) -> bool:
    """Whether the model ``call`` builds in ``new`` is built, or fitted by the name it is given,
    inside a loop of the notebook (one target column per pass, or one model per pass)."""
    tree = parse(new)
    if tree is None:
        return True
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.For | ast.While) and _holds(node, call):
            return True
        if isinstance(node, ast.Assign) and _holds(node.value, call):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    for block in solution.code_blocks:
        other = parse(block.source)
        for loop in ast.walk(other) if other is not None else ():
            if not isinstance(loop, ast.For | ast.While):
                continue
            for n in ast.walk(loop):
                if (
                    isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Attribute)
                    and n.func.attr == "fit"
                    and isinstance(n.func.value, ast.Name)
                    and n.func.value.id in names
                ):
                    return True
    return False


def _holds(node: ast.AST, call: ast.Call) -> bool:
    """Whether ``call`` (found by its position in the same source) lies inside ``node``."""
    at = (call.lineno, call.col_offset)
    return any(isinstance(n, ast.Call) and (n.lineno, n.col_offset) == at for n in ast.walk(node))


def wrapped(src: str) -> str | None:
    """``src`` with its model's constructor wrapped in ``MultiOutputRegressor`` (a classifier:
    ``MultiOutputClassifier``) and the import it needs; ``None`` when it builds no model or
    its model is wrapped already."""
    call, tree = model_call(src), parse(src)
    if call is None or tree is None or call_name(call) in _MULTI_OUTPUT:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and call_name(node) in _MULTI_OUTPUT:
            inside = [
                n for arg in [*node.args, *(k.value for k in node.keywords)] for n in ast.walk(arg)
            ]
            at = (call.lineno, call.col_offset)  # ``model_call`` parsed ``src`` on its own
            if any(at == (a.lineno, a.col_offset) for a in inside if isinstance(a, ast.Call)):
                return None
    body = ast.get_source_segment(src, call) or ast.unparse(call)
    wrapper = "MultiOutputClassifier" if is_classifier(call_name(call)) else "MultiOutputRegressor"
    return with_imports(
        replace_node(src, call, f"{wrapper}({body})"), f"from sklearn.multioutput import {wrapper}"
    )


def one_model_per_column(
    solution: SolutionNotebook, error: str, bid: str | None
) -> SolutionNotebook | None:
    """``solution`` with the model that refused several target columns (``error``, see
    :data:`ONE_OUTPUT_ERROR`) fitting one copy per column: the model of the failed block ``bid``,
    else of the first block that builds one; ``None`` when the error is another or no model
    can be wrapped."""
    if not ONE_OUTPUT_ERROR.search(error):
        return None
    order = [b.id for b in solution.code_blocks]
    for block_id in ([bid] if bid in order else []) + [b for b in order if b != bid]:
        new = wrapped(solution.block(block_id).source)
        if new is not None:
            return solution.replace_block(block_id, new, origin="offline:debug")
    return None


__all__ = ["ONE_OUTPUT_ERROR", "one_model_per_column", "wrapped", "wrapped_swap"]
