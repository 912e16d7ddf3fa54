"""A notebook's own debug switch, turned off for a run.

Kaggle notebooks start with ``DEBUG = True`` and then ``if DEBUG: train = train.sample(60)``,
``n_estimators=10 if DEBUG else 300`` and ``if not DEBUG: sub.to_csv(...)``.  Run as saved, the
whole search trained on the 60-row sample and no submission was written.  A run takes care of
time itself (it trains on fewer rows when the budget asks for it), so :func:`debug_off` sets such
a switch to ``False`` (``kind`` "debug", given back in proposals).
"""

from __future__ import annotations

import re

from ..notebook import SolutionNotebook
from .changes import PathChange, lines_changed

# DEBUG = True at the notebook's top level, by the names people give the switch
_SWITCH = re.compile(
    r"^(?P<head>(?P<name>DEBUG|DEBUG_MODE|IS_DEBUG|QUICK_RUN|FAST_DEV_RUN|SMOKE_TEST|debug)"
    r"[ \t]*(?::[ \t]*bool[ \t]*)?=[ \t]*)True\b(?P<tail>[ \t]*(?:#.*)?)$",
    re.MULTILINE,
)
OFF = "  # MLE-STAR: your debug switch, off for the run (it trains on all rows)"


def debug_off(nb: SolutionNotebook) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with a debug switch that the notebook tests (``if DEBUG``, ``... if DEBUG else``)
    set to ``False``; the changed line, or ``nb`` itself and none."""
    code = "\n".join(b.source for b in nb.code_blocks)

    def off(m: re.Match[str], _before: int) -> str | None:
        tested = re.compile(rf"\bif\s+(?:not\s+)?{m.group('name')}\b")
        return f"{m.group('head')}False{OFF}" if tested.search(code) else None

    return lines_changed(nb, _SWITCH, "debug", off)


__all__ = ["OFF", "debug_off"]
