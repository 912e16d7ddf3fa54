"""A metric computed inside a loop over folds: score every fold, not only the last one.

A notebook that cross-validates by hand scores each fold inside its loop::

    for tr, va in kf.split(X, y):
        model.fit(X.iloc[tr], y.iloc[tr])
        scores.append(roc_auc_score(y.iloc[va], model.predict_proba(X.iloc[va])[:, 1]))

A validation cell added after that loop sees only the last fold's values (a fifth of the rows),
so every refinement was judged on them.  :func:`collect_folds` adds one line after the statement
that calls the metric, keeping the values it was given for every pass of the loop, and
:func:`fold_mean_code` is the validation cell that scores each pass in the task's metric and
prints their mean.
"""

from __future__ import annotations

import ast
import re

from ..notebook.roles import MetricCall, strip_magics

FOLDS = "_mlestar_folds"
# a call inside these sees names of its own, which a line after the statement cannot
_OWN_NAMES = (
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.Lambda,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
)


def in_loop(source: str, metric: MetricCall) -> bool:
    """``metric`` is called inside a ``for`` or ``while`` loop of its cell (not in a function)."""
    return _spot(source, metric) is not None


def in_epoch_loop(source: str, metric: MetricCall) -> bool:
    """``metric`` is called in a training loop's passes, not in folds: the innermost loop around
    it steps one model on (``for epoch in range(30)``, or its body calls ``.backward()``), and
    no loop around it goes over a split's folds (``kf.split(...)``).  Its last pass scores the
    model the notebook ends with; a mean of the passes would score earlier states of it."""
    spot = _spot(source, metric)
    if spot is None:
        return False
    top, _ = spot
    path = _path_to(top, *metric.position) or []
    loops = [n for n in path if isinstance(n, ast.For | ast.AsyncFor | ast.While)]
    if any(_over_folds(loop) for loop in loops):
        return False
    return steps_a_model(loops[-1])


def steps_a_model(loop: ast.stmt) -> bool:
    """Whether ``loop`` is a training loop: each pass steps one model on (its body calls
    ``.backward()``, or it goes ``for epoch in range(30)``), not over a split's folds."""
    if not isinstance(loop, ast.For | ast.AsyncFor | ast.While) or _over_folds(loop):
        return False
    target = ast.unparse(loop.target) if isinstance(loop, ast.For | ast.AsyncFor) else ""
    steps = any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward"
        for n in ast.walk(loop)
    )
    return steps or bool(re.search(r"epoch|\bep\b|\bstep\b|\biteration\b", target, re.I))


def _over_folds(loop: ast.stmt) -> bool:
    """Whether ``loop`` goes over a split's folds (``kf.split(X, y)``, ``enumerate(folds)``)."""
    head = ast.unparse(loop.iter) if isinstance(loop, ast.For | ast.AsyncFor) else ""
    return bool(re.search(r"\.split\(|fold", head, re.I))


def in_function(source: str, metric: MetricCall) -> bool:
    """``metric`` is called in a function defined in its cell (``def validate(X, y): ...``),
    with names of that function (not of a comprehension or a lambda inside it)."""
    return _spot_in_function(source, metric) is not None


def collect_folds(source: str, metric: MetricCall) -> tuple[str, tuple[str, ...]]:
    """``source`` with the values given to ``metric`` kept at every pass of its loop (a list
    started before the loop's outermost statement), and the lines added (none when the call is
    in no loop: ``source`` as it is).  A call in a function keeps the values of the function's
    latest call: the list starts anew as the function's first statement (``in_function``)."""
    if metric.scope:
        spot = _spot_in_function(source, metric)
        if spot is None:
            return source, ()
        fn, stmt = spot
        body = fn.body
        first = body[1] if _is_docstring(body[0]) and len(body) > 1 else body[0]
        at = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])
        start = f"globals()[{FOLDS!r}] = []  # added by MLE-STAR: the values of this call"
        return _with_lines(source, metric, stmt, at, start)
    at_top = _spot(source, metric)
    if at_top is None:
        return source, ()
    top, stmt = at_top
    start = f"{FOLDS} = []  # added by MLE-STAR: the values of each pass of the loop"
    return _with_lines(source, metric, stmt, top.lineno, start)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _with_lines(
    source: str, metric: MetricCall, stmt: ast.stmt, at: int, start: str
) -> tuple[str, tuple[str, ...]]:
    """``source`` with a line keeping the metric's values after ``stmt`` and ``start`` (indented
    like line ``at``) above line ``at``, which comes before ``stmt``; and the two lines."""
    lines = source.splitlines()
    indent = re.match(r"\s*", lines[stmt.lineno - 1]).group(0)  # type: ignore[union-attr]
    y, p = metric.args[0], metric.args[1]
    keep = f"{indent}{FOLDS}.append(({y}, {p}))  # added by MLE-STAR: every pass is scored"
    start = re.match(r"\s*", lines[at - 1]).group(0) + start  # type: ignore[union-attr]
    lines.insert(stmt.end_lineno or stmt.lineno, keep)
    lines.insert(at - 1, start)  # above the statement: inserted second
    return "\n".join(lines), (start, keep)


def _spot_in_function(source: str, metric: MetricCall) -> tuple[ast.FunctionDef, ast.stmt] | None:
    """(the function ``metric.scope`` of the cell, the innermost statement holding the call)
    when the call's names are that function's; else ``None``."""
    if len(metric.args) < 2 or not metric.scope:
        return None
    try:
        tree = ast.parse(strip_magics(source))
    except SyntaxError:
        return None
    line, col = metric.position
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or fn.name != metric.scope:
            continue
        if fn.body[0].lineno == fn.lineno:  # ``def f(): return ...`` on one line
            return None
        path = _path_to(fn, line, col)
        if path is None:
            continue
        inner = path[1:]
        if any(isinstance(n, _OWN_NAMES) for n in inner):  # its names are not the function's
            return None
        stmts = [n for n in inner if isinstance(n, ast.stmt)]
        if not stmts or any(isinstance(n, ast.Return) for n in stmts):
            return None  # ``return rmse(y, p)``: no line after it runs
        return fn, stmts[-1]
    return None


def fold_mean_code(imports: str, expr: str, y: str, p: str, *, scope: str = "") -> str:
    """The validation cell: ``expr`` (the task's metric of ``_y``, ``_p``) of every pass kept by
    :func:`collect_folds`, and their mean; the last pass's values (``y``, ``p``) when a
    refinement took the added lines out.  ``scope``: the call is in that function, whose names
    a cell cannot reach; without its kept values the cell says what to do."""
    kept = f"globals().get({FOLDS!r}) or [({y}, {p})]"
    check = ""
    if scope:
        kept = f"globals()[{FOLDS!r}]"
        check = (
            f"if not globals().get({FOLDS!r}):\n"
            f"    raise RuntimeError('no values of the metric in {scope}() were kept: call "
            f"{scope}() before this cell, or print \\'Final Validation Performance: <score>\\' in it')\n"
        )
    return (
        imports + "\n" + check + "_fold_scores = []\n"
        f"for _y, _p in {kept}:\n"
        "    _y, _p = np.asarray(_y), np.asarray(_p)\n"
        f"    _fold_scores.append({expr})\n"
        'print(f"Folds scored: {len(_fold_scores)}")\n'
        'print(f"Final Validation Performance: {float(np.mean(_fold_scores))}")'
    )


def _spot(source: str, metric: MetricCall) -> tuple[ast.stmt, ast.stmt] | None:
    """(the cell's top-level statement holding the call, the innermost statement holding it)
    when a loop encloses the call outside any function; else ``None``."""
    if len(metric.args) < 2 or metric.scope:
        return None
    plain = strip_magics(source)
    try:
        tree = ast.parse(plain)
    except SyntaxError:
        return None
    line, col = metric.position
    for top in tree.body:
        path = _path_to(top, line, col)
        if path is None:
            continue
        loops = [n for n in path if isinstance(n, ast.For | ast.AsyncFor | ast.While)]
        stmts = [n for n in path if isinstance(n, ast.stmt)]
        if not loops or stmts[-1] is loops[-1]:  # a call in the loop's header is not per fold
            return None
        if any(isinstance(n, _OWN_NAMES) for n in path):  # its names are not the loop's
            return None
        return top, stmts[-1]
    return None


def _path_to(node: ast.AST, line: int, col: int) -> list[ast.AST] | None:
    """The nodes from ``node`` down to the call at (``line``, ``col``), outermost first."""
    if isinstance(node, ast.Call) and (node.lineno, node.col_offset) == (line, col):
        return [node]
    for child in ast.iter_child_nodes(node):
        start, end = getattr(child, "lineno", None), getattr(child, "end_lineno", None)
        if start is not None and end is not None and not start <= line <= end:
            continue
        found = _path_to(child, line, col)
        if found is not None:
            return [node, *found]
    return None
