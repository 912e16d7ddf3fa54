"""Telling a number written as text (a column's name, a label read as text) from a word; a
module of its own, importing nothing of the package, so that any reader of tables can use it."""

from __future__ import annotations


def is_number(text: str) -> bool:
    """Whether ``text`` reads as a number, as ``float`` reads one (``3``, ``-1.5e3``, ``nan``)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


__all__ = ["is_number"]
