"""How a user's notebook coded its target's classes as numbers, to write them back.

A notebook trains on ``y = df['diabetes'].map({'yes': 1, 'no': 0})``,
``LabelEncoder().fit_transform(df['diabetes'])`` or ``(df['default'] == 'Yes').astype(int)``;
its model predicts 0 and 1, and the submission the run added wrote them, which the task's check
refuses (its classes are ``no`` and ``yes``).  :func:`target_decoding` reads the coding from the
notebook's code so that the added submission cell writes the classes themselves.
"""

from __future__ import annotations

import ast
import re

from ...notebook import SolutionNotebook

_MAPPED = re.compile(r"\.(?:map|replace)\(\s*(\{[^{}]*\})\s*\)")
_COMPARED = re.compile(
    r"""==\s*(?P<q>['"])(?P<value>[^'"\n]*)(?P=q)\s*\)\s*\.astype\(\s*['"]?int"""
)
_WHERE = re.compile(
    r"""where\(\s*[^,\n]*==\s*(?P<q>['"])(?P<value>[^'"\n]*)(?P=q)\s*,\s*1\s*,\s*0\s*\)"""
)
_SORTED_CODES = re.compile(r"LabelEncoder\(\)|\.cat\.codes\b")


def target_decoding(nb: SolutionNotebook, target: str, classes: list[str]) -> dict[int, str] | None:
    """``{code: class}`` for the codes the notebook gave the target's ``classes`` (their text as
    the task's table holds them) on a line that names the target column, or ``None`` when no
    line codes it (or the coding does not cover the classes)."""
    column = re.compile(rf"""\[\s*(['"]){re.escape(target)}\1\s*\]|\.{re.escape(target)}\b""")
    for block in nb.code_blocks:
        for line in block.source.splitlines():
            if not column.search(line):
                continue
            found = _decoding(line, classes)
            if found is not None:
                return found
    return None


def _decoding(line: str, classes: list[str]) -> dict[int, str] | None:
    """The coding one line gives the classes, else ``None``."""
    m = _MAPPED.search(line)
    if m is not None:
        try:
            mapping = ast.literal_eval(m.group(1))
        except (ValueError, SyntaxError):
            return None
        if not isinstance(mapping, dict):
            return None
        pairs = {str(k): v for k, v in mapping.items()}
        codes = list(pairs.values())
        if (
            set(pairs) >= set(classes)
            and all(isinstance(v, int) for v in codes)
            and len(set(codes)) == len(codes)
        ):
            return {int(v): k for k, v in pairs.items()}
        return None
    m = _COMPARED.search(line) or _WHERE.search(line)
    if m is not None:
        value = m.group("value")
        others = [c for c in classes if c != value]
        if value in classes and len(others) == 1:
            return {1: value, 0: others[0]}
        return None
    if _SORTED_CODES.search(line):
        return dict(enumerate(sorted(classes)))
    return None


__all__ = ["target_decoding"]
