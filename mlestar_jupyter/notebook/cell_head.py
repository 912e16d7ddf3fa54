"""Lines put at the top of a cell, where the cell still runs.

A cell that starts with a cell magic (``%%time``, ``%%capture``) must keep it as its first
line: ``import os`` above ``%%time`` makes IPython read ``%%time`` as an unknown line magic, and
the cell's body never runs.  ``from __future__`` imports must come first in the Python too.
"""

from __future__ import annotations


def with_head(source: str, head: str) -> str:
    """``source`` with the lines ``head`` first: after its cell magic and its
    ``from __future__`` imports."""
    lines = source.split("\n")
    at = 1 if source.startswith("%%") else 0
    while at < len(lines) and lines[at].startswith("from __future__"):
        at += 1
    before = "".join(line + "\n" for line in lines[:at])
    return before + (head if head.endswith("\n") else head + "\n") + "\n".join(lines[at:])


__all__ = ["with_head"]
