"""A user's notebook written for older library versions: its calls rewritten for the installed.

A notebook from a few years ago calls ``OneHotEncoder(sparse=False)`` (gone in scikit-learn
1.4), ``mean_squared_error(..., squared=False)`` (gone in 1.6) or XGBoost's ``fit(...,
early_stopping_rounds=50)`` (moved in 2.0).  The run failed it at that call, and the notebook
was never refined.  :func:`repair_old_calls` applies ``codecheck.api_drift`` (which LLM answers
already pass through) to each cell, recording every changed line (``kind`` "old_api"); a
proposal gives the user's cell its own line back, as the data paths.  A cell that does not
parse as Python (IPython magics) is left alone.
"""

from __future__ import annotations

from ..codecheck import repair_api_drift
from ..notebook import SolutionNotebook
from .changes import PathChange


def repair_old_calls(nb: SolutionNotebook) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with the calls the installed libraries refuse rewritten; the lines changed and
    the imports added (``old`` empty), or ``nb`` itself and none."""
    out, changes = nb, []
    for block in nb.code_blocks:
        fixed, notes = repair_api_drift(block.source)
        if not notes or fixed == block.source:
            continue
        old, new = block.source.split("\n"), fixed.split("\n")
        added = len(new) - len(old)  # imports the rewrite needs, above the cell's lines
        if added < 0:
            changes.append(PathChange(block.id, block.source, fixed, kind="old_api"))
        else:
            changes += [PathChange(block.id, "", line, kind="old_api") for line in new[:added]]
            changes += [
                PathChange(block.id, a, b, kind="old_api")
                for a, b in zip(old, new[added:], strict=True)
                if a != b
            ]
        out = out.replace_block(block.id, fixed)
    return out, tuple(changes)


__all__ = ["repair_old_calls"]
