"""A notebook that ends itself: ``raise SystemExit``, ``sys.exit()``, ``exit()`` at a cell's top.

Authors put one where "Run All" should stop, before scratch cells they keep below it
(``raise SystemExit("stop here")``).  In Jupyter the exception ends Run All quietly; in a run
it failed the notebook, which was then never refined.  :func:`stop_at_exit` mutes such a line
(``pass`` with the line as a comment and why), and comments out what Run All would not reach:
the rest of that cell and every later code cell.  The changes (``kind`` "stop") come back in
proposals, as the data paths do.

Left alone: an exit under ``if``/``try``/a function (a condition the notebook checks: a run
that meets it fails as the notebook would), and cells that do not parse as Python.
"""

from __future__ import annotations

import ast

from ..notebook import SolutionNotebook
from .changes import PathChange

NO_EXIT = "  # MLE-STAR: not run (it ends Run All here; the cells after it are not run either)"
AFTER_EXIT = "# MLE-STAR: not run (after the notebook's own exit above: Run All stops there)"


def stop_at_exit(nb: SolutionNotebook) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with its first top-level exit muted and what follows it commented out (see the
    module docstring); the changes, or ``nb`` itself and none when it has no such line."""
    blocks = list(nb.code_blocks)
    for i, block in enumerate(blocks):
        line = _exit_line(block.source)
        if line is None:
            continue
        out, changes = nb, []
        lines = block.source.split("\n")
        muted = [*lines[:line], f"pass  # {lines[line]}{NO_EXIT}"]
        changes.append(PathChange(block.id, lines[line], muted[-1], kind="stop"))
        for rest in lines[line + 1 :]:
            new = f"# {rest}" if rest.strip() else rest
            if new != rest:
                changes.append(PathChange(block.id, rest, new, kind="stop"))
            muted.append(new)
        out = out.replace_block(block.id, "\n".join(muted))
        for later in blocks[i + 1 :]:
            if not later.source.strip():
                continue
            new = "\n".join([AFTER_EXIT, *(f"# {ln}" for ln in later.source.split("\n"))])
            changes.append(PathChange(later.id, later.source, new, kind="stop"))
            out = out.replace_block(later.id, new)
        return out, tuple(changes)
    return nb, ()


def _exit_line(source: str) -> int | None:
    """The line (from 0) of the first top-level statement of ``source`` that ends the program
    (``raise SystemExit(...)``, ``sys.exit()``, ``exit()``, ``quit()``, ``os._exit(0)``) on a
    line of its own; ``None`` when there is none or the cell is no Python."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for stmt in tree.body:
        if stmt.lineno != stmt.end_lineno or not _ends(stmt):
            continue
        line = source.split("\n")[stmt.lineno - 1]
        if line.startswith((" ", "\t")) or ";" in line:  # not alone on its line
            continue
        return stmt.lineno - 1
    return None


def _ends(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` ends the program: raises ``SystemExit`` or calls an exit."""
    if isinstance(stmt, ast.Raise):
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return isinstance(exc, ast.Name) and exc.id == "SystemExit"
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        if isinstance(func, ast.Name):
            return func.id in ("exit", "quit")
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            return (func.value.id, func.attr) in (("sys", "exit"), ("os", "_exit"))
    return False


__all__ = ["AFTER_EXIT", "NO_EXIT", "stop_at_exit"]
