"""A refinement strategy for user code: an id, the plan's text, and the edit that makes it.

An ``Edit`` takes a part's source and returns its new source, or ``None`` where it does not
apply; ``chain`` runs several edits in turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Edit = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Strategy:
    """One change to try on a part: ``edit`` returns the new source, ``None`` where it does not apply."""

    id: str
    text: str
    edit: Edit
    # for a strategy built per task (``column_edits``, ``search_edits``): the roles of the parts
    # it is for (empty: any), and whether it goes after the library's own or before them
    roles: tuple[str, ...] = ()
    last: bool = False


def chain(src: str, *edits: Edit) -> str | None:
    """``src`` with every edit that applies made in turn (``None`` when none applies)."""
    out, changed = src, False
    for e in edits:
        new = e(out)
        if new is not None:
            out, changed = new, True
    return out if changed else None
