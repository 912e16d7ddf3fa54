"""The offline debugger's fix for a stratified split that cannot be made.

``train_test_split(..., stratify=y)`` fails when a class has a single row ("The least populated
class in y has only 1 member") or when a part is smaller than the number of classes
("test_size = 47 should be greater or equal to the number of classes = 52"): small data with many
classes.  The fix is a plain random split: every ``stratify=<expr>`` argument becomes
``stratify=None``.
"""

from __future__ import annotations

import ast
import re

STRATIFY_ERROR = re.compile(
    r"should be greater or equal to the number of classes"
    r"|least populated class in y has only 1 member"
    r"|n_splits=\d+ cannot be greater than the number of members in each class",
)


def is_stratify_error(error: str) -> bool:
    """Whether ``error`` (a traceback) is a stratified split that the data cannot fill."""
    return bool(STRATIFY_ERROR.search(error))


def drop_stratify(source: str) -> str:
    """``source`` with each call's ``stratify=<expr>`` argument (other than ``None``) replaced
    by ``stratify=None``; unchanged when there is none or the code does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    spans: list[tuple[int, int, int, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            value = kw.value
            if kw.arg != "stratify" or (isinstance(value, ast.Constant) and value.value is None):
                continue
            if value.end_lineno is None or value.end_col_offset is None:
                continue
            spans.append((value.lineno, value.col_offset, value.end_lineno, value.end_col_offset))
    if not spans:
        return source
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, col: int) -> int:
        # ast columns are UTF-8 byte offsets
        return starts[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())

    out = source
    for a_line, a_col, b_line, b_col in sorted(spans, reverse=True):
        out = out[: offset(a_line, a_col)] + "None" + out[offset(b_line, b_col) :]
    return out
