"""Keeping user-supplied text short in messages: a 100 KB metric name or path is cut, not echoed."""

from __future__ import annotations

MESSAGE_LIMIT = 500  # characters of one error line
VALUE_LIMIT = 80  # characters of one quoted user value inside a message


def clip(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    cut = f"... [{len(text) - limit} more characters]"
    return text[: max(0, limit - len(cut))] + cut


def quote(value: object, limit: int = VALUE_LIMIT) -> str:
    """``repr(value)`` for a message, cut to ``limit`` characters."""
    return clip(repr(value), limit)
