"""A strategy that needs the task's data: the columns a notebook's feature list leaves out.

Notebooks written by people often pick a few columns by hand (``features = ["Pclass", "Sex"]``)
and never try the rest; the tutorial that made Kaggle's Titanic famous leaves out the passengers'
age.  This strategy adds the training table's usable columns (numbers, and text columns with few
distinct values; never the target, the id, free text, names or dates) to the first list of
column names in the part.  The library's other strategies read only the code; this one is built
per task by ``usable_columns`` and handed to the refiner.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ...notebook.roles import NOT_FEATURE_WORDS
from ...task import Task
from ...task.layout import DataLayout
from ...task.layout.tables import read_head
from .strategy import Strategy
from .syntax import parse, replace_node

FEW_VALUES = 20  # a text column with at most this many distinct values is a category


@dataclass(frozen=True)
class TableColumns:
    """The training table's columns, those a model can use as they are, and which are numbers."""

    all: tuple[str, ...]
    usable: tuple[str, ...]
    numeric: tuple[str, ...] = ()


def usable_columns(task: Task, layout: DataLayout) -> TableColumns | None:
    """The training table's columns for a tabular task (``None`` for other data or when the
    table cannot be read)."""
    if layout.modality != "tabular" or not layout.train_table:
        return None
    try:
        head = read_head(task.input_dir / layout.train_table)
    except Exception:  # noqa: BLE001  (no columns to offer: the strategy is left out)
        return None
    skip = {
        layout.label_col,
        layout.id_col,
        layout.text_col,
        *task.target_cols,
        *layout.drop_cols,
        *layout.index_cols,
        *layout.high_card_cols,
        *layout.date_cols,
    }
    usable = [
        str(c)
        for c in head.columns
        if c not in skip
        and head[c].notna().any()
        and (head[c].dtype.kind in "biuf" or head[c].nunique() <= FEW_VALUES)
    ]
    numeric = tuple(c for c in usable if head[c].dtype.kind in "biuf")
    return TableColumns(tuple(str(c) for c in head.columns), tuple(usable), numeric)


def _words(name: str) -> set[str]:
    return set(re.findall(r"[a-z]+", name.lower()))


def _feature_lists(tree: ast.Module, known: set[str]) -> list[tuple[ast.List | ast.Tuple, str]]:
    """Lists of the table's column names that pick features, with the name they are assigned to
    ("" for ``df[[...]]``): not those of a drop, an exclusion (``c not in (...)``) or a target."""
    out: list[tuple[ast.List | ast.Tuple, str]] = []

    def columns_only(node: ast.expr) -> bool:
        return (
            isinstance(node, ast.List | ast.Tuple)
            and bool(node.elts)
            and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value in known
                for e in node.elts
            )
        )

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and columns_only(node.value):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if len(names) == 1 and not _words(names[0]) & NOT_FEATURE_WORDS:
                out.append((node.value, names[0].lower()))  # type: ignore[arg-type]
        elif isinstance(node, ast.Subscript) and columns_only(node.slice):
            out.append((node.slice, ""))  # type: ignore[arg-type]
    return out


def _appended(src: str, node: ast.List | ast.Tuple, add: list[str]) -> str:
    """The list's own text (its quotes, its layout) with ``add`` appended."""
    text = ast.get_source_segment(src, node) or ast.unparse(node)
    first = ast.get_source_segment(src, node.elts[0]) or "'"
    quote = '"' if first.lstrip("rbuRBU").startswith('"') else "'"
    close = text[-1] if text[-1] in ")]" else ""
    body = text[: len(text) - len(close)].rstrip().rstrip(",")
    return body + ", " + ", ".join(f"{quote}{c}{quote}" for c in add) + close


def unused_columns(columns: TableColumns) -> Strategy | None:
    """The strategy adding ``columns.usable`` to the hand-picked lists of the table's columns
    (numbers to a list named for numbers, text columns to one named for categories)."""
    if not columns.usable:
        return None
    known = set(columns.all)
    numeric = set(columns.numeric)

    def edit(src: str) -> str | None:
        tree = parse(src)
        if tree is None:
            return None
        mentioned = {
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
        changes = []
        for node, name in _feature_lists(tree, known):
            words = _words(name)
            if any(w.startswith("cat") for w in words):
                add = [c for c in columns.usable if c not in numeric]
            elif any(w.startswith(("num", "cont")) for w in words):
                add = [c for c in columns.usable if c in numeric]
            else:
                add = list(columns.usable)
            add = [c for c in add if c not in mentioned]
            if add:
                mentioned.update(add)
                changes.append((node, _appended(src, node, add)))
        out = src
        for node, text in sorted(
            changes, key=lambda c: (c[0].lineno, c[0].col_offset), reverse=True
        ):
            out = replace_node(out, node, text)
        return out if changes else None

    shown = ", ".join(columns.usable[:8]) + (", ..." if len(columns.usable) > 8 else "")
    return Strategy(
        "unused_columns",
        f"Add the training table's columns the hand-picked feature lists leave out (of {shown}).",
        edit,
        roles=("features", "preprocess"),
    )


__all__ = ["TableColumns", "unused_columns", "usable_columns"]
