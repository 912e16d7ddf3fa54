"""A notebook saved with a cell that failed when its author ran it, and the cells after it run.

Exploring, people leave a cell that raised (a typo, a plot of a column since renamed) and go on
with the cells below.  Run from the top, that cell stopped the notebook at once and the run set it
aside ("AttributeError: 'DataFrame' object has no attribute 'plot_digits'", with no word on
which cell).  :func:`skip_failed_cells` comments out such a cell (``kind`` "error", given back in
proposals): one saved with an error output whose author then ran a later cell (a higher saved
execution count), so the notebook's own results never needed it.  A failing cell after which
nothing ran is left alone: it may be the notebook's end.
"""

from __future__ import annotations

from typing import Any

from ..notebook import SolutionNotebook
from .changes import PathChange

NOT_RUN = (
    "# MLE-STAR: not run: it raised {error} when you ran it, and you ran the cells below after it"
)


def skip_failed_cells(nb: SolutionNotebook) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with each cell that failed before its author ran later cells commented out (see
    the module docstring); the changed lines, or ``nb`` itself and none.  Runs before the
    outputs are cleared."""
    blocks = nb.code_blocks
    counts = [_count(nb.cell(b.id)) for b in blocks]
    out, changes = nb, []
    for i, block in enumerate(blocks):
        error = _error(nb.cell(block.id).get("outputs", []))
        mine = counts[i]
        if error is None or mine is None or not block.source.strip():
            continue
        if not any(c is not None and c > mine for c in counts[i + 1 :]):
            continue
        lines = block.source.split("\n")
        muted = [NOT_RUN.format(error=error)]
        changes.append(PathChange(block.id, "", muted[0], kind="error"))
        for line in lines:
            new = f"# {line}" if line.strip() else line
            if new != line:
                changes.append(PathChange(block.id, line, new, kind="error"))
            muted.append(new)
        out = out.replace_block(block.id, "\n".join(muted))
    return out, tuple(changes)


def _count(cell: Any) -> int | None:
    """The cell's saved execution count (``None``: never run, or saved without it)."""
    count = cell.get("execution_count")
    return count if isinstance(count, int) else None


def _error(outputs: list[Any]) -> str | None:
    """The error a cell's saved outputs hold (``KeyError``), else ``None``."""
    for o in outputs:
        if o.get("output_type") == "error":
            return str(o.get("ename") or "an error")
    return None


__all__ = ["NOT_RUN", "skip_failed_cells"]
