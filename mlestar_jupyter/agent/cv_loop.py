"""Models compared by cross-validation in a loop: the best one is the notebook's, not the last.

A notebook that only evaluates compares a few models and reads the printout::

    for name, model in [('logreg', make_pipeline(...)), ('rf', RandomForestClassifier(...))]:
        s = cross_val_score(model, X, y, cv=5, scoring='accuracy')
        print(f'{name}: {s.mean():.4f}')

The validation cell a run adds read ``s`` after the loop: the *last* model's scores (hunt M's
``eval_only``: the forest's 0.960 where the printout's best was 0.972), and the submission the
run wrote for a notebook that writes none predicted with that last model (0.958 on the hidden
rows, against 0.979 for the model the printout picks).  :func:`keep_each_model` adds one line
before the loop, starting a list, and one after the statement that assigns the scores, keeping
each pass's mean score and model (kind "fold": given back in proposals without them); the
validation cell (:func:`best_model_code`) keeps the best of them in the loop's variable and
prints its score.

The rule when the loop scores another metric than the task's (``scoring='accuracy'`` in a
task graded by ROC AUC): the model kept is still the best by the loop's *own* mean score (the
one the notebook's printout ranks first, which its author would carry on with; before, the
last one listed, a constant in hunt's notebook, was kept and scored 0.5), and the run then
measures that model in the task's metric with the cell it adds for any notebook
(:func:`pick_best_code` before it: the notebook's split, its metric call, or 3-fold
cross-validation); the loop's scores are never the run's score, being in another metric.
The models are not scored again in the task's metric to choose among them: that would
change which model the notebook picks and cost a second cross-validation of each.
scikit-learn's scores are greater for better in every scorer (``neg_`` ones, and
``make_scorer(greater_is_better=False)``, are negated), so the best is the greatest; a mean
that is nan (a fold that failed) ranks last.
"""

from __future__ import annotations

import ast
import re

KEPT = "_mlestar_cv_models"


def keep_each_model(
    source: str, line: int, scores: str, model: str
) -> tuple[str, tuple[str, str]] | None:
    """``source`` with the two lines that keep each pass's mean of ``scores`` (assigned by the
    statement on line ``line``, 1-based) and the model ``model``, when that statement lies in a
    top-level ``for`` loop over models whose element is ``model`` (not over folds, and in no
    function); the lines added.  ``None`` otherwise."""
    try:
        tree = ast.parse(re.sub(r"^(\s*)([%!])", r"\1#\2", source, flags=re.MULTILINE))
    except SyntaxError:
        return None
    for top in tree.body:
        if not isinstance(top, ast.For) or not (top.lineno <= line <= (top.end_lineno or 0)):
            continue
        if model not in _bound(top.target) or _over_folds(top.iter):
            return None
        stmt = next((s for s in top.body if s.lineno == line and isinstance(s, ast.Assign)), None)
        if stmt is None:
            return None  # a deeper statement: not one pass per model
        lines = source.split("\n")
        indent = re.match(r"\s*", lines[line - 1]).group(0)  # type: ignore[union-attr]
        top_indent = re.match(r"\s*", lines[top.lineno - 1]).group(0)  # type: ignore[union-attr]
        start = f"{top_indent}{KEPT} = []  # added by MLE-STAR: each model's mean score"
        keep = (
            f"{indent}{KEPT}.append((sum({scores}) / len({scores}), {model}))"
            "  # added by MLE-STAR: every model is scored"
        )
        lines.insert(stmt.end_lineno or stmt.lineno, keep)
        lines.insert(top.lineno - 1, start)
        return "\n".join(lines), (start, keep)
    return None


def _bound(target: ast.expr) -> set[str]:
    """The names a loop's target binds (``name, model``)."""
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _over_folds(it: ast.expr) -> bool:
    """Whether a loop goes over a split's folds (``kf.split(X, y)``, ``enumerate(...split())``)."""
    return any(isinstance(n, ast.Attribute) and n.attr == "split" for n in ast.walk(it))


def pick_best_code(model: str) -> str:
    """Code that leaves in ``model`` the best of the kept models (scikit-learn's scores are
    greater for better, ``neg_`` scorers too; a nan mean ranks last), in ``_best`` its
    ``(mean score, model)``."""
    return (
        f"# the best of the models your loop cross-validates (their mean scores), kept as `{model}`\n"
        f"_best = max({KEPT}, key=lambda _t: _t[0] if _t[0] == _t[0] else float('-inf'))\n"
        f"{model} = _best[1]"
    )


def best_model_code(model: str, negated: bool) -> str:
    """The validation cell of a loop scored in the task's metric: the best of the kept models
    left in ``model`` (:func:`pick_best_code`), its score printed in the metric's sign."""
    sign = "-" if negated else ""
    return (
        pick_best_code(model) + "\n"
        f'print(f"Final Validation Performance: {{{sign}float(_best[0])}}")'
    )


__all__ = ["KEPT", "best_model_code", "keep_each_model", "pick_best_code"]
