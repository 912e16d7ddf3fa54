"""Which model a notebook's comparison kept, as its run printed it.

A user's notebook that compares models in a loop (``for name, m in models.items(): m.fit(...)``)
gets a validation cell (``user_notebook``) that scores every model of the collection in the
task's metric on the notebook's own validation rows, prints ``best: <name>`` and keeps that
model, which is the one the run measures and submits.  That cell is marked with the collection it
compares (``metadata.mlestar.compares``, e.g. ``"models"``); after each run the harness notes on
it the entry the run kept (``metadata.mlestar.kept``, e.g. ``"rf"``: a dict's key, a pair's name,
or a list position), so that a refinement changes the model that won rather than the last one
listed (``offline.user_code.compared``).

The kept entry is read from the cell's own output line, not from the notebook's prints: the
notebook may print scores in any form (or in another metric), while the cell's line is written
by MLE-STAR and always names the model it kept.  A run that printed no such line (it failed
before the cell) leaves no note, and the refiner says it does not know which model won.
"""

from __future__ import annotations

import re

from ..notebook import META, SolutionNotebook

COMPARES = "compares"  # the collection of models a validation cell compares
KEPT = "kept"  # the entry of that collection the last run kept

# the validation cell's own lines: ``best: <name>`` then its score line (``_best_of_collection``)
_KEPT_LINE = re.compile(r"^best: (?P<name>.*)\r?\nFinal Validation Performance: ", re.MULTILINE)


def kept_entry(stdout: str) -> str | None:
    """The entry the comparing validation cell kept, from the last ``best: <name>`` line it
    printed (followed by its score line), or ``None`` when it printed none."""
    found = list(_KEPT_LINE.finditer(stdout))
    return found[-1].group("name").strip() if found else None


def note_kept_model(nb: SolutionNotebook, stdout: str) -> SolutionNotebook:
    """``nb`` with the entry its run kept (``kept_entry`` of the run's ``stdout``) noted on its
    comparing validation cell, or without a note when the run printed none; ``nb`` itself when
    it has no such cell or the note is unchanged."""
    cells = [b.id for b in nb.code_blocks if nb.cell(b.id).metadata.get(META, {}).get(COMPARES)]
    if not cells:
        return nb
    kept = kept_entry(stdout)
    if all(nb.cell(c).metadata[META].get(KEPT) == kept for c in cells):
        return nb
    out = nb.copy()
    for c in cells:
        meta = out.cell(c).metadata[META]
        if kept is None:
            meta.pop(KEPT, None)
        else:
            meta[KEPT] = kept
    return out


__all__ = ["COMPARES", "KEPT", "kept_entry", "note_kept_model"]
