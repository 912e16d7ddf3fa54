"""One column name written two ways: how task files written by different people are matched.

A task.json says ``Label`` where the sample submission says ``label``; a test table calls the
id ``Id`` where the training table calls it ``ID``; a download's sample names ``Label`` the
column its training table calls ``label``.  Each reader asks :func:`find_column` for the
column a name means: the name as written first, else the one column that differs from it only
in letter case or surrounding spaces, else (``loose``) also in ``_``, ``-`` and spaces between
words (``SalePrice`` for ``sale_price``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable


def column_key(name: str, *, loose: bool = False) -> str:
    """What two spellings of one column name share: the name without surrounding spaces, in
    lower case; with ``loose``, also without ``_``, ``-`` and spaces."""
    key = str(name).strip().casefold()
    return re.sub(r"[\s_\-]+", "", key) if loose else key


def find_column(name: str, columns: Iterable[object], *, loose: bool = False) -> str | None:
    """The column of ``columns`` that ``name`` means: itself, else the one that
    :func:`column_key` matches (letter case and surrounding spaces; with ``loose`` also ``_``,
    ``-`` and inner spaces); ``None`` when none does, or when several do (which is unclear)."""
    cols = [str(c) for c in columns]
    if name in cols:
        return name
    key = column_key(name)
    same = [c for c in cols if column_key(c) == key]
    if not same and loose:
        key = column_key(name, loose=True)
        same = [c for c in cols if column_key(c, loose=True) == key]
    return same[0] if len(set(same)) == 1 else None


__all__ = ["column_key", "find_column"]
