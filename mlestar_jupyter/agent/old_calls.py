"""A user's notebook written for older library versions: its calls rewritten for the installed.

A notebook from a few years ago calls ``OneHotEncoder(sparse=False)`` (gone in scikit-learn
1.4), ``mean_squared_error(..., squared=False)`` (gone in 1.6) or XGBoost's ``fit(...,
early_stopping_rounds=50)`` (moved in 2.0).  The run failed it at that call, and the notebook
was never refined.  :func:`repair_old_calls` applies ``codecheck.api_drift`` (which LLM answers
already pass through) to each cell, recording every changed line (``kind`` "old_api"); a
proposal gives the user's cell its own line back, as the data paths.  IPython's lines
(``%%time`` above a training cell, ``%matplotlib inline``, ``!ls``) are read as comments, and
the imports a rewrite needs go below a cell magic (``cell_head``); a cell that still does not
parse as Python (a ``%%bash`` cell) is left alone.
"""

from __future__ import annotations

import re

from ..codecheck import repair_api_drift
from ..notebook import SolutionNotebook
from ..notebook.cell_head import with_head
from .changes import PathChange

# an IPython line (a magic or a shell command), and the comment it is read as meanwhile
_MAGIC = re.compile(r"^([ \t]*)([%!])", re.MULTILINE)
_MASK = "#mlestar-ipython:"


def repair_old_calls(nb: SolutionNotebook) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with the calls the installed libraries refuse rewritten; the lines changed and
    the imports added (``old`` empty), or ``nb`` itself and none."""
    out, changes = nb, []
    for block in nb.code_blocks:
        masked = _MAGIC.sub(rf"\1{_MASK}\2", block.source)
        fixed, notes = repair_api_drift(masked)
        if not notes or fixed == masked:
            continue
        old, new = masked.split("\n"), fixed.split("\n")
        added = len(new) - len(old)  # imports the rewrite needs, above the cell's lines
        if added < 0:
            fixed = _unmasked(fixed)
            changes.append(PathChange(block.id, block.source, fixed, kind="old_api"))
        else:
            changes += [PathChange(block.id, "", line, kind="old_api") for line in new[:added]]
            changes += [
                PathChange(block.id, _unmasked(a), _unmasked(b), kind="old_api")
                for a, b in zip(old, new[added:], strict=True)
                if a != b
            ]
            body = _unmasked("\n".join(new[added:]))
            fixed = with_head(body, "\n".join(new[:added])) if added else body
        out = out.replace_block(block.id, fixed)
    return out, tuple(changes)


def _unmasked(source: str) -> str:
    """``source`` with its IPython lines as they were written."""
    return source.replace(_MASK, "")


__all__ = ["repair_old_calls"]
