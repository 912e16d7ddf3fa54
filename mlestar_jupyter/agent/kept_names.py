"""A cell that frees what it is done with: ``del X_train, X_valid; gc.collect()`` after its fit.

Kaggle notebooks do this to save memory.  The validation cell MLE-STAR adds below such a cell
(when the notebook prints no score a run reads) scores the model on those very names, and
failed with ``NameError``: the notebook was then never refined.  :func:`keep_for_validation`
takes the names the added cell reads out of the cell's top-level ``del`` statements (a
``del`` left with nothing to delete becomes ``pass``), with a comment saying why.  The changes
(``kind`` "keep") come back in proposals as the data paths do: the user's cell keeps its line.

Left alone: a ``del`` under ``if``/``for``/a function, one spread over several lines, and
cells that do not parse as Python.
"""

from __future__ import annotations

import ast

from ..notebook import SolutionNotebook
from .changes import PathChange

KEPT = "  # MLE-STAR: {} kept (the validation cell below scores on it)"


def keep_for_validation(
    nb: SolutionNotebook, block_id: str, code: str
) -> tuple[SolutionNotebook, tuple[PathChange, ...], tuple[str, ...]]:
    """``nb`` with the names that ``code`` (the cell added after block ``block_id``) reads taken
    out of that block's top-level ``del`` statements; the changes and the names kept (in the
    cell's order), or ``nb`` and none."""
    needed = _read_names(code)
    source = nb.block(block_id).source
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return nb, (), ()
    lines = source.split("\n")
    changes: list[PathChange] = []
    names: list[str] = []
    # the last statement first: columns of earlier ones on the same line stay where they were
    for stmt in reversed(tree.body):
        if not isinstance(stmt, ast.Delete) or stmt.lineno != stmt.end_lineno:
            continue
        kept = [t.id for t in stmt.targets if isinstance(t, ast.Name) and t.id in needed]
        if not kept or stmt.end_col_offset is None:
            continue
        rest = [
            ast.unparse(t) for t in stmt.targets if not (isinstance(t, ast.Name) and t.id in needed)
        ]
        i = stmt.lineno - 1
        old = lines[i]
        head, tail = old[: stmt.col_offset], old[stmt.end_col_offset :]
        new = head + (f"del {', '.join(rest)}" if rest else "pass") + tail
        new += KEPT.format(", ".join(kept))
        changes.append(PathChange(block_id, old, new, kind="keep"))
        names[:0] = kept
        lines[i] = new
    if not changes:
        return nb, (), ()
    return nb.replace_block(block_id, "\n".join(lines)), tuple(changes), tuple(names)


def _read_names(code: str) -> set[str]:
    """The names ``code`` reads that it does not define itself."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    read: set[str] = set()
    made: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else made).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            made.add(node.name)
        elif isinstance(node, ast.arg):
            made.add(node.arg)
        elif isinstance(node, ast.alias):
            made.add((node.asname or node.name).split(".")[0])
    return read - made


__all__ = ["KEPT", "keep_for_validation"]
