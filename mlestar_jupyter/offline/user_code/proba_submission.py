"""A user's notebook that writes class labels for a metric computed from probabilities: its
submission made to hold the positive class's probability.

A Kaggle notebook validates with ``roc_auc_score(y_val, rf.predict_proba(X_val)[:, 1])`` and
then writes ``rf.predict(test[features])`` (0 and 1) to its submission.  The run refined and
scored the notebook on its probabilities, but the file graded held two values: an AUC of two
groups.  :func:`probabilities_written` rewrites, in the final notebook only, the ``predict``
calls whose result goes into the submission (inside the table written by ``.to_csv``, or a name
assigned from one and used nowhere else but there) into ``_positive_proba(model, X)``, which is
``model.predict_proba(X)[:, 1]`` for a model that has it and ``model.predict(X)`` otherwise (a
native booster already predicts probabilities; the first column, and ``1 - model.predict(X)``,
when the task names 0 positive); an ``.astype(int)`` on such a prediction is
dropped.  A ``predict`` whose labels the notebook also scores (``accuracy_score(y, preds)``) is
left alone.  Only two-class tasks with 0/1 labels and one target column: which class is
"positive" is then not in doubt.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ...agent.submission_warnings import two_class_probability_task
from ...notebook import SolutionNotebook
from ...notebook.roles import analyze
from ...notebook.spans import node_span, replace_spans
from ...task import Task

ORIGIN = "offline:submission"

HELPER = '''def _positive_proba(model, X):
    """Added by MLE-STAR: the metric is computed from probabilities, so the submission gets the
    positive class's probability rather than the predicted label."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)[:, 1]
    return model.predict(X)  # (a native booster's predict gives probabilities already)


'''
# the task names the first class positive (``positive_label: 0``): its probability is written
FIRST_POSITIVE = HELPER.replace("[:, 1]", "[:, 0]").replace(
    "return model.predict(X)  #", "return 1 - model.predict(X)  #"
)
_ZERO_ONE = ({"0", "1"}, {"0.0", "1.0"}, {"False", "True"})
_FIRST = ("0", "0.0", "False", "false")


@dataclass(frozen=True)
class _Edit:
    start: int  # character offsets in the cell's source (``notebook.spans.node_span``)
    end: int
    text: str


def _edit(source: str, node: ast.AST, text: str) -> list[_Edit]:
    """``node``'s text made ``text`` (none when ``node`` has no position)."""
    where = node_span(source, node)
    return [_Edit(*where, text)] if where is not None else []


def probabilities_written(nb: SolutionNotebook, task: Task) -> SolutionNotebook:
    """``nb`` with the labels its submission writes replaced by probabilities, when the task's
    metric needs them (see the module docstring); else ``nb`` itself."""
    if not _binary_probability_task(task):
        return nb
    fitted = {f.var for f in analyze(nb).fits if f.var and f.var.isidentifier() and not f.scope}
    trees = {b.id: _parse(b.source) for b in nb.code_blocks}
    writer = next((b for b in reversed(nb.code_blocks) if _writes(trees[b.id])), None)
    if writer is None or not fitted:
        return nb
    sources = {b.id: b.source for b in nb.code_blocks}
    edits = _edits(nb, trees, sources, writer.id, fitted)
    out = nb
    helper = FIRST_POSITIVE if str(task.positive_label).strip() in _FIRST else HELPER
    for b in nb.code_blocks:
        if edits.get(b.id):
            spans = ((e.start, e.end, e.text) for e in edits[b.id])
            out = out.replace_block(b.id, helper + replace_spans(b.source, spans), origin=ORIGIN)
    return out


def _binary_probability_task(task: Task) -> bool:
    """A two-class task with 0/1 labels, one target column and a metric on probabilities."""
    return two_class_probability_task(task) in _ZERO_ONE


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:  # magics left in a cell: not this rewrite's business
        return None


def _writes(tree: ast.Module | None) -> bool:
    return tree is not None and _to_csv(tree) is not None


def _to_csv(tree: ast.Module) -> ast.Call | None:
    """The last ``X.to_csv(...)`` call at the top level of a cell."""
    calls = [
        n
        for stmt in tree.body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "to_csv"
    ]
    return calls[-1] if calls else None


def _edits(
    nb: SolutionNotebook,
    trees: dict[str, ast.Module | None],
    sources: dict[str, str],
    writer: str,
    fitted: set[str],
) -> dict[str, list[_Edit]]:
    """Per block, the rewrites of the predictions that reach the submission."""
    order = [b.id for b in nb.code_blocks]
    upto = order[: order.index(writer) + 1]
    tree = trees[writer]
    call = _to_csv(tree) if tree else None
    if call is None:
        return {}
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else call
    while isinstance(receiver, ast.Subscript):  # test[["id", "target"]].to_csv(...): ``test``
        receiver = receiver.value
    table = receiver.id if isinstance(receiver, ast.Name) else None
    # the statements that build the written table: its assignments (``sub = pd.DataFrame(...)``,
    # ``sub["target"] = ...``) and the writing statement itself
    building: dict[str, list[ast.stmt]] = {}
    for bid in upto:
        t = trees[bid]
        for stmt in t.body if t else []:
            if _assigns(stmt, table) or (bid == writer and call in ast.walk(stmt)):
                building.setdefault(bid, []).append(stmt)
    out: dict[str, list[_Edit]] = {}
    names: set[str] = set()
    for bid, stmts in building.items():
        for stmt in stmts:
            value = stmt.value if isinstance(stmt, ast.Assign | ast.AugAssign) else stmt
            out.setdefault(bid, []).extend(_proba_edits(value, fitted, sources[bid]))
            names |= {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    names -= {table or ""}
    for name in names:  # ``preds = rf.predict(test)`` used only in the written table
        found = _only_assignment(name, upto, trees, building)
        if found is None:
            continue
        bid, stmt = found
        out.setdefault(bid, []).extend(_proba_edits(stmt.value, fitted, sources[bid]))
        for where, stmts in building.items():  # ``preds.astype(int)`` there: ``preds``
            out.setdefault(where, []).extend(_astype_edits(name, stmts, sources[where]))
    return {bid: _unique(e) for bid, e in out.items() if e}


def _assigns(stmt: ast.stmt, table: str | None) -> bool:
    """Whether ``stmt`` assigns ``table`` or one of its columns."""
    if table is None or not isinstance(stmt, ast.Assign):
        return False
    for target in stmt.targets:
        base = target.value if isinstance(target, ast.Subscript) else target
        if isinstance(base, ast.Name) and base.id == table:
            return True
    return False


def _only_assignment(
    name: str,
    upto: list[str],
    trees: dict[str, ast.Module | None],
    building: dict[str, list[ast.stmt]],
) -> tuple[str, ast.Assign] | None:
    """The last top-level ``name = model.predict(...)`` before the writing, when ``name`` is
    read nowhere but in the statements building the written table and in displays."""
    found: tuple[str, ast.Assign] | None = None
    for bid in upto:
        t = trees[bid]
        for stmt in t.body if t else []:
            reads = any(
                isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
                for n in ast.walk(stmt)
            )
            if isinstance(stmt, ast.Assign) and [_target_name(t) for t in stmt.targets] == [name]:
                found = (bid, stmt) if _predict_call(stmt.value) else None
            elif reads and stmt not in building.get(bid, []) and not _display(stmt, name):
                return None  # the labels are used elsewhere (scored, counted): leave them
    return found


def _target_name(target: ast.expr) -> str | None:
    return target.id if isinstance(target, ast.Name) else None


def _display(stmt: ast.stmt, name: str) -> bool:
    """A statement that only shows ``name`` (``print(preds[:5])``, ``preds.mean()``), handing it
    to no function but ``print`` / ``display`` (``print(accuracy_score(y, preds))`` scores it)."""
    if not isinstance(stmt, ast.Expr):
        return False
    for node in ast.walk(stmt):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id in {"print", "display"}:
            continue
        given = [*node.args, *(k.value for k in node.keywords)]
        if any(isinstance(n, ast.Name) and n.id == name for g in given for n in ast.walk(g)):
            return False
    return True


def _predict_call(node: ast.expr) -> ast.Call | None:
    """``model.predict(X)`` (also inside ``.astype(...)``), else None."""
    if _is_astype(node):
        node = node.func.value  # type: ignore[attr-defined]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "predict"
        and isinstance(node.func.value, ast.Name)
    ):
        return node
    return None


def _is_astype(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "astype"
    )


def _proba_edits(value: ast.AST, fitted: set[str], source: str) -> list[_Edit]:
    """``model.predict(X)`` (with an ``.astype(...)`` around it) inside ``value`` made
    ``_positive_proba(model, X)``, for the models the notebook fits."""
    edits: list[_Edit] = []
    for node in ast.walk(value):
        call = _predict_call(node) if isinstance(node, ast.Call) else None
        if call is None or (call is node and _inside_astype(node, value)):
            continue  # (a predict inside an .astype is rewritten with it, as one)
        model = call.func.value.id  # type: ignore[attr-defined]
        arg = ast.get_source_segment(source, call.args[0]) if len(call.args) == 1 else None
        if model in fitted and not call.keywords and arg is not None:
            edits += _edit(source, node, f"_positive_proba({model}, {arg})")
    return edits


def _inside_astype(call: ast.Call, root: ast.AST) -> bool:
    """Whether ``call`` is the receiver of an ``.astype(...)`` within ``root``."""
    return any(
        _is_astype(n) and n.func.value is call  # type: ignore[attr-defined]
        for n in ast.walk(root)
        if isinstance(n, ast.Call)
    )


def _astype_edits(name: str, stmts: list[ast.stmt], source: str) -> list[_Edit]:
    """``name.astype(...)`` in ``stmts`` made ``name``: the probabilities stay fractions."""
    return [
        edit
        for stmt in stmts
        for n in ast.walk(stmt)
        if isinstance(n, ast.Call)
        and _is_astype(n)
        and isinstance(n.func.value, ast.Name)  # type: ignore[attr-defined]
        and n.func.value.id == name  # type: ignore[attr-defined]
        for edit in _edit(source, n, name)
    ]


def _unique(edits: list[_Edit]) -> list[_Edit]:
    """Each span once, and none inside another (the outer one wins)."""
    out: list[_Edit] = []
    for e in sorted(set(edits), key=lambda e: (e.start, -e.end)):
        if out and e.start < out[-1].end:
            continue
        out.append(e)
    return out


__all__ = ["ORIGIN", "probabilities_written"]
