"""A notebook that compares models in a loop: which entry of the collection a model edit changes.

``models = {"logreg": ..., "rf": ..., "gb": ...}`` then ``for name, m in models.items(): m.fit``:
the notebook keeps the model that scores best, so a refinement of the *last* entry (where a
model edit lands by default: ``syntax.model_call``) changes a model that is never submitted.

Which entry won is not guessed from the notebook's own prints (they may be in any form, in
another metric, or absent): the validation cell MLE-STAR adds to such a notebook scores every
entry in the task's metric on the notebook's validation rows, keeps the best (the model the run
measures and submits), and after each run the harness notes that entry on the cell
(``agent.compared_models``).  A part that builds the collection is then refined at that entry
(``syntax.focused``), and a strategy that would change another entry as well (``max_iter=``
found by name in another model) is left out.  When no run noted one (the notebook prints its own
score, so no cell of MLE-STAR compares its models; or its run stopped before that cell), the
part is refined where an edit lands by default (a model edit: the last model listed), and the
plan says that which model won is not known and names the entries the change touches.

Entries are named as the validation cell names them: a dict's keys (``"rf"``), the names of
``(name, model)`` pairs, else list positions (``"0"``, ``"1"``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ...agent.compared_models import COMPARES, KEPT
from ...notebook import META, SolutionNotebook
from ...notebook.roles import Analysis


@dataclass(frozen=True)
class Comparison:
    """A collection of models the notebook compares, and the entry its last run kept."""

    collection: str  # as the loop names it: ``models``
    kept: str = ""  # "" when no run noted it


def comparisons(nb: SolutionNotebook, analysis: Analysis) -> list[Comparison]:
    """The collections of models ``nb`` compares in a loop at its top level, each with the entry
    its last run kept when a comparing validation cell noted it."""
    noted: dict[str, str] = {}
    for b in nb.code_blocks:
        meta = nb.cell(b.id).metadata.get(META, {})
        if meta.get(COMPARES):
            noted[str(meta[COMPARES])] = str(meta.get(KEPT) or "")
    for f in analysis.fits:
        if f.over and not f.scope:
            noted.setdefault(f.over, "")
    return [Comparison(c, k) for c, k in noted.items()]


def entries(src: str, collection: str) -> list[tuple[str, ast.expr]]:
    """(name, value) of every entry ``src`` gives ``collection``: a dict literal's items (or
    ``dict(rf=...)``), a list or tuple literal's ``(name, model)`` pairs or its elements by
    position, and ``collection["rf"] = ...`` assignments; empty when ``src`` builds none."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    out: list[tuple[str, ast.expr]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            if ast.unparse(t) == collection:
                out = _literal_entries(node.value)  # a new literal starts the collection again
            elif isinstance(t, ast.Subscript) and ast.unparse(t.value) == collection:
                key = t.slice
                if isinstance(key, ast.Constant):
                    out.append((str(key.value), node.value))
    return out


def _literal_entries(value: ast.expr) -> list[tuple[str, ast.expr]]:
    """The entries of a dict, list or tuple literal (or a ``dict(...)`` call) of models."""
    if isinstance(value, ast.Dict):
        return [
            (str(k.value), v)
            for k, v in zip(value.keys, value.values, strict=True)
            if isinstance(k, ast.Constant)
        ]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        return [(k.arg, k.value) for k in value.keywords if k.arg]
    if isinstance(value, ast.List | ast.Tuple):
        pairs = [p for p in map(_named, value.elts) if p is not None]
        if pairs and len(pairs) == len(value.elts):
            return pairs
        return [(str(i), e) for i, e in enumerate(value.elts)]
    return []


def _named(element: ast.expr) -> tuple[str, ast.expr] | None:
    """A ``("rf", RandomForestClassifier())`` pair of a list as (name, model), else ``None``."""
    if (
        isinstance(element, ast.Tuple)
        and len(element.elts) == 2
        and isinstance(element.elts[0], ast.Constant)
    ):
        return str(element.elts[0].value), element.elts[1]
    return None


def entry_value(src: str, collection: str, name: str) -> ast.expr | None:
    """The value ``src`` gives entry ``name`` of ``collection`` (its last one), or ``None``."""
    found = [v for n, v in entries(src, collection) if n == name]
    return found[-1] if found else None


def within(node: ast.AST, outer: ast.AST) -> bool:
    """Whether ``node`` lies inside ``outer`` (by their positions in the same source)."""
    start = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    end = (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)
    o_start = (getattr(outer, "lineno", 0), getattr(outer, "col_offset", 0))
    o_end = (getattr(outer, "end_lineno", 0) or 0, getattr(outer, "end_col_offset", 0) or 0)
    return o_start <= start and end <= o_end


def changed_entries(old: str, new: str, collection: str) -> list[str]:
    """The entries of ``collection`` (as ``old`` builds it) whose source ``new`` changes, or
    leaves out."""
    after = {n: ast.get_source_segment(new, v) for n, v in entries(new, collection)}
    return [
        n for n, v in entries(old, collection) if after.get(n) != ast.get_source_segment(old, v)
    ]


def only_entry_changed(old: str, new: str, collection: str, entry: str) -> bool:
    """Whether ``new`` keeps every entry of ``collection`` that ``old`` builds as it was but
    ``entry`` (an edit found by name, ``max_iter=`` say, may land on another model), and adds
    none."""
    if len(entries(new, collection)) != len(entries(old, collection)):
        return False
    return set(changed_entries(old, new, collection)) <= {entry}


def plan_text(text: str, collection: str, kept: str, changed: list[str]) -> str:
    """A plan's ``text`` for a part that builds a compared ``collection``: it changes the model
    the notebook's comparison kept (``kept``), or, when no run noted that, the ``changed``
    entries, which may not be the model kept."""
    if kept:
        return f"In `{collection}`, the model the notebook's comparison kept (`{kept}`): {text}"
    unknown = (
        f"Which model of `{collection}` won the notebook's comparison is not known (no run "
        "named the model it kept)"
    )
    if not changed:
        return f"{unknown}: {text}"
    names = ", ".join(f"`{n}`" for n in changed)
    return f"{unknown}, so this changes {names}, which may not be the model it keeps: {text}"


__all__ = [
    "Comparison",
    "comparisons",
    "changed_entries",
    "entries",
    "entry_value",
    "only_entry_changed",
    "plan_text",
    "within",
]
