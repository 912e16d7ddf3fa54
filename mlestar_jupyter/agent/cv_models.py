"""A model built inside a cross-validation call, given a name the run can reach.

Teaching notebooks often never fit a model: they write
``scores = cross_val_score(RandomForestClassifier(), X, y, cv=5)`` and print the mean.  The copy
that ``cross_val_score`` fits is gone when the call returns, and the estimator it was given has
no name, so the validation cell a run adds could only build the model again from a copy of its
text, which a refinement of the user's cell would never change.  :func:`name_cv_models` moves
each such estimator onto a line of its own just above its statement
(``cv_model = RandomForestClassifier()``, then ``cross_val_score(cv_model, X, y, cv=5)``): the
model is then a part of the user's cell that the run refines, and the validation cell scores
whatever that line builds.  Only statements at a cell's top level are changed, and only
estimators that read no name the statement binds (a loop's variable stays in its loop).

The same holds for models listed in a loop's own header (``for model in [RandomForestClassifier(),
LogisticRegression()]:``, or ``(name, model)`` pairs, or a dict literal's ``.items()``): the list
is nothing a refinement can reach, so it moves onto a line of its own above the loop
(``models = [...]``, then ``for model in models:``), the collection the refiner changes one
model of (``offline.user_code.compared``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..notebook import SolutionNotebook
from ..notebook.code_vocabulary import ESTIMATOR_RE, call_name, cv_call_parts

_BASE_NAME = "cv_model"
_LIST_NAME = "models"  # a loop's list of models, named


@dataclass(frozen=True)
class NamedModel:
    """One estimator moved out of a cross-validation call: its block, its new name, its code."""

    block_id: str
    name: str
    code: str


def name_cv_models(nb: SolutionNotebook) -> tuple[SolutionNotebook, tuple[NamedModel, ...]]:
    """``nb`` with every estimator constructed inside a top-level ``cross_val_score``,
    ``cross_validate`` or ``cross_val_predict`` call assigned to a name first; what was named
    (``nb`` itself when nothing was)."""
    taken = set(re.findall(r"\b\w+\b", "\n".join(b.source for b in nb.code_blocks)))
    out, named = nb, []
    for block in nb.code_blocks:
        source, found = _name_in(block.source, block.id, taken)
        source, listed = _name_loop_lists(source, block.id, taken)
        found += listed
        if found:
            out = out.replace_block(block.id, source)  # still the user's cell: refinable
            named.extend(found)
    return out, tuple(named)


def note_for(named: tuple[NamedModel, ...]) -> str:
    """One sentence for the validation cell's note."""
    shown = ", ".join(f"`{m.name} = {m.code}`" for m in named[:3])
    return (
        f" The model your cross-validation or loop builds inline now has a name of its own "
        f"({shown}, on the line above the statement), so the run refines that line and this "
        "cell scores it."
    )


def _name_in(source: str, block_id: str, taken: set[str]) -> tuple[str, list[NamedModel]]:
    tree = _parsed(source)
    if tree is None:
        return source, []
    lines = source.splitlines(keepends=True)
    edits: list[tuple[ast.stmt, ast.Call]] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue  # a function's calls run when it is called, with its own names
        for node in ast.walk(stmt):
            parts = cv_call_parts(node) if isinstance(node, ast.Call) else None
            est = parts[0] if parts else None
            if (
                isinstance(est, ast.Call)
                and ESTIMATOR_RE.search(call_name(est.func))
                and not _reads_names_bound_in(est, stmt)
            ):
                edits.append((stmt, est))
                break  # one per statement: the lines above it are one assignment
    return _hoisted(lines, edits, block_id, taken, _BASE_NAME)


def _name_loop_lists(source: str, block_id: str, taken: set[str]) -> tuple[str, list[NamedModel]]:
    """``source`` with the literal list (tuple, dict, ``{...}.items()``) of models each top-level
    ``for`` loop goes over assigned to a name above the loop (``models = [...]``); what was
    named."""
    tree = _parsed(source)
    if tree is None:
        return source, []
    lines = source.splitlines(keepends=True)
    edits: list[tuple[ast.For, ast.expr]] = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.For):
            continue
        it = stmt.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args:
            it = it.func.value if it.func.attr == "items" else it  # {...}.items()
        if not isinstance(it, ast.List | ast.Tuple | ast.Dict):
            continue
        models = [
            n
            for n in ast.walk(it)
            if isinstance(n, ast.Call) and ESTIMATOR_RE.search(call_name(n.func))
        ]
        if len(models) > 1 and not _reads_names_bound_in(it, stmt):  # type: ignore[arg-type]
            edits.append((stmt, it))
    return _hoisted(lines, edits, block_id, taken, _LIST_NAME)


def _parsed(source: str) -> ast.Module | None:
    """``source``'s syntax tree, IPython's ``%``/``!`` lines read as comments; ``None`` when it
    does not parse."""
    masked = re.sub(r"^(\s*)([%!])", r"\1#\2", source, flags=re.MULTILINE)
    try:
        return ast.parse(masked)
    except SyntaxError:
        return None


def _hoisted(
    lines: list[str],
    edits: Sequence[tuple[ast.stmt, ast.expr]],
    block_id: str,
    taken: set[str],
    base: str,
) -> tuple[str, list[NamedModel]]:
    """``lines`` with each edit's expression assigned to a free name (``base``, ``base_2``, ...)
    on a line of its own above its statement and replaced by that name there; what was named."""
    found: list[NamedModel] = []
    for stmt, expr in reversed(edits):  # bottom up: earlier positions stay valid
        name = _free_name(taken, base)
        taken.add(name)
        code = _segment(lines, expr)
        _replace(lines, expr, name)
        indent = re.match(r"[ \t]*", lines[stmt.lineno - 1]).group(0)  # type: ignore[union-attr]
        lines.insert(stmt.lineno - 1, f"{indent}{name} = {code}\n")
        found.append(NamedModel(block_id, name, " ".join(code.split())))
    return "".join(lines), found[::-1]


def _reads_names_bound_in(est: ast.Call, stmt: ast.stmt) -> bool:
    """Whether the estimator's call reads a name that ``stmt`` itself binds: a loop's variable
    (``for k in ...: cross_val_score(KNN(n_neighbors=k), ...)``), a comprehension's or a
    lambda's.  Moved above ``stmt``, such a call would run before the name exists (hunt E,
    session 28: the notebook was set aside with ``NameError: name 'k' is not defined``)."""
    bound = {
        n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    bound |= {a.arg for n in ast.walk(stmt) if isinstance(n, ast.Lambda) for a in n.args.args}
    read = {n.id for n in ast.walk(est) if isinstance(n, ast.Name)}
    return bool(read & bound)


def _free_name(taken: set[str], base: str = _BASE_NAME) -> str:
    """``base``, or ``base_2``, ``base_3`` ..., the first the notebook does not use."""
    n, name = 1, base
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def _offsets(lines: list[str], node: ast.expr) -> tuple[int, int, int, int]:
    """(first line index, first char, last line index, end char) of ``node``: ``ast`` counts
    columns in UTF-8 bytes, the lines are text."""
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    start = len(lines[first].encode()[: node.col_offset].decode())
    end = len(lines[last].encode()[: node.end_col_offset or 0].decode())
    return first, start, last, end


def _segment(lines: list[str], node: ast.expr) -> str:
    first, start, last, end = _offsets(lines, node)
    if first == last:
        return lines[first][start:end]
    return lines[first][start:] + "".join(lines[first + 1 : last]) + lines[last][:end]


def _replace(lines: list[str], node: ast.expr, name: str) -> None:
    first, start, last, end = _offsets(lines, node)
    lines[first : last + 1] = [lines[first][:start] + name + lines[last][end:]]


__all__ = ["NamedModel", "name_cv_models", "note_for"]
