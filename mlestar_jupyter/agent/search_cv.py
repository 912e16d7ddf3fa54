"""A notebook validated by its own hyperparameter search: ``GridSearchCV`` / ``RandomizedSearchCV``.

A notebook often tunes and fits in one call and trusts the search's score::

    search = RandomizedSearchCV(RandomForestRegressor(), dist, n_iter=6, cv=4,
                                scoring='neg_mean_absolute_error', refit=True)
    search.fit(X, y)
    print(search.best_params_, -search.best_score_)
    ... search.predict(test) ...

The validation cell a run added cross-validated a clone of ``search`` three times: the whole
search again in each fold (hunt M's ``colab_export``: 75 forest fits), which ran past the
notebook's time cap, and the notebook was set aside.  The score such a notebook trusts is the
search's own: ``best_score_``, the best candidate's mean over the search's folds.
:func:`search_score_cell` writes the cell that prints it as the run's validation score (negated
for a ``neg_`` scorer), when the search's ``scoring`` is the task's metric (none: accuracy for a
classifier, R² for a regressor), it refits its best model (``refit`` absent or true), and no other
model is fitted after it at the notebook's top level.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from ..importer.notebook_task import SCORING_METRICS
from ..notebook import SolutionNotebook
from ..notebook.roles import Analysis, strip_magics

_SEARCHES = frozenset(
    {"GridSearchCV", "RandomizedSearchCV", "HalvingGridSearchCV", "HalvingRandomSearchCV"}
)


class SearchScore(NamedTuple):
    """The validation cell to add after block ``after``: its code, and how it measures."""

    after: str
    code: str
    how: str


def search_score_cell(
    a: Analysis, nb: SolutionNotebook, metric: str, classification: bool
) -> SearchScore | None:
    """The cell printing the notebook's search's ``best_score_`` in the task's ``metric`` (see
    the module docstring), or ``None``."""
    order = [c.block_id for c in a.cells]
    searches: dict[str, ast.Call] = {}
    last: tuple[str, str] | None = None  # (block, name) of the last top-level search fitted
    for block_id in order:
        try:
            tree = ast.parse(strip_magics(nb.block(block_id).source))
        except (SyntaxError, ValueError, KeyError):
            continue
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)
                and _called(node.value) in _SEARCHES
            ):
                searches[node.targets[0].id] = node.value
            fitted = _fitted_name(node)
            if fitted in searches:
                last = (block_id, fitted)
    if last is None:
        return None
    block_id, name = last
    later = [
        f
        for f in a.fits
        if not f.scope and f.var != name and order.index(f.block_id) >= order.index(block_id)
    ]
    if later:
        return None  # another model is fitted after it: the search does not score that one
    call = searches[name]
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    refit = keywords.get("refit")
    if refit is not None and not (isinstance(refit, ast.Constant) and refit.value is True):
        return None
    scoring = keywords.get("scoring")
    if scoring is None:
        scored, negated = ("accuracy" if classification else "r2"), False
    elif isinstance(scoring, ast.Constant) and isinstance(scoring.value, str):
        scored, negated = SCORING_METRICS.get(scoring.value, ""), scoring.value.startswith("neg_")
    else:
        return None
    if scored != metric:
        return None
    code = (
        f"# the best mean score of your search's own cross-validation ({name}.best_score_)\n"
        f'print(f"Final Validation Performance: {{{"-" if negated else ""}float({name}.best_score_)}}")'
    )
    return SearchScore(block_id, code, f"as your search's own best score (`{name}.best_score_`)")


def _called(call: ast.Call) -> str:
    """The called class's name: ``GridSearchCV``, ``model_selection.GridSearchCV`` → its last
    part."""
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _fitted_name(node: ast.stmt) -> str:
    """``search`` of a top-level ``search.fit(...)`` (or ``x = search.fit(...)``), else ``""``."""
    value = node.value if isinstance(node, ast.Expr | ast.Assign) else None
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "fit"
        and isinstance(value.func.value, ast.Name)
    ):
        return value.func.value.id
    return ""


__all__ = ["SearchScore", "search_score_cell"]
