"""A single-output model given several target columns, wrapped to fit one model per column.

A user's notebook that predicts several columns (``ExtraTreesRegressor().fit(X, train[["y1",
"y2"]])``) is refined by swapping its model, and some of the models put in fit one column only:
histogram or plain gradient boosting, LightGBM, SVR ... fail with scikit-learn's "y should be a
1d array, got an array of shape (107, 2) instead" (CatBoost: "multidimensional target").  Hunt J
(session 31): 2 of 31 refinements of such a notebook failed so, and the debugger undid them.
:func:`one_model_per_column` is the debugger's fix: the model's constructor, in the block that
failed (else the first block that builds one), becomes ``MultiOutputRegressor(...)`` (or
``MultiOutputClassifier``), which fits a copy per column and predicts them side by side.
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


__all__ = ["ONE_OUTPUT_ERROR", "one_model_per_column", "wrapped"]
