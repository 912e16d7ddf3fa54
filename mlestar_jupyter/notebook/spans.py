"""Where an ``ast`` node stands in its source text, and the text with spans replaced.

``ast`` counts columns in UTF-8 bytes; a cell's text counts characters, so a line holding
``é`` or ``€`` before a node shifts every byte column after it.  The code rewriters (the API
drift fixer, the submission rewrites of a user's notebook) edit a cell by such spans.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable


def node_span(source: str, node: ast.AST) -> tuple[int, int] | None:
    """The (start, end) character offsets of ``node`` in ``source``; ``None`` for a node without
    an end position."""
    end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
    if end_line is None or end_col is None:
        return None
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, col: int) -> int:
        return starts[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode(errors="ignore"))

    return offset(node.lineno, node.col_offset), offset(end_line, end_col)  # type: ignore[attr-defined]


def replace_spans(source: str, spans: Iterable[tuple[int, int, str]]) -> str:
    """``source`` with each (start, end, text) span replaced (last first, so the earlier
    offsets stay valid; spans must not overlap)."""
    out = source
    for start, end, text in sorted(spans, reverse=True):
        out = out[:start] + text + out[end:]
    return out


__all__ = ["node_span", "replace_spans"]
