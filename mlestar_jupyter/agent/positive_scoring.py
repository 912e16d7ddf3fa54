"""A user's own scoring of one class made to score the task's positive class.

``cross_val_score(model, X, y, cv=5, scoring="f1")`` (or ``"precision"``, ``"recall"``,
``"average_precision"``, ``"jaccard"``; in ``cross_validate``, ``GridSearchCV`` ...; alone, in
a list ``scoring=["f1", "roc_auc"]`` or as a dict's value ``{"f1": "f1"}``) scores the class 1.  On labels that are words ("yes"/"no", "churned"/"stayed") scikit-learn fails every
fold ("pos_label=1 is not a valid label"; the scores are nan), and a task that names another
class positive (``positive_label: 0``) is scored on the wrong one.  :func:`positive_scorings`
writes ``scoring=positive_class_scorer("f1", "yes")`` in its place (a list becomes the dict of
the same names: ``{"f1": positive_class_scorer("f1", "yes"), "roc_auc": "roc_auc"}``), defined by a cell put first:
scikit-learn's ``make_scorer(f1_score, pos_label="yes")`` when the labels the scorer is given
hold the class, else scikit-learn's own scorer (labels the notebook coded as 0 and 1 keep the
class 1).  Each rewritten line is a change of kind "scoring", said in the run's note and given
back as the user wrote it in a proposal.
"""

from __future__ import annotations

import ast

from ..metrics import POSITIVE_LABELS, positive_texts
from ..notebook import SolutionNotebook
from ..notebook.roles import strip_magics
from ..notebook.spans import node_span, replace_spans
from ..task import Task
from ..task.errors import LayoutError
from ..task.layout.tables import label_values, table_for
from .changes import PathChange

ORIGIN = "mlestar:scoring"
HELPER = "positive_class_scorer"
# scikit-learn's scorers of one class -> (their metric function, what they read of the model)
_ONE_CLASS = {
    "f1": ("f1_score", "predict"),
    "precision": ("precision_score", "predict"),
    "recall": ("recall_score", "predict"),
    "jaccard": ("jaccard_score", "predict"),
    "average_precision": ("average_precision_score", ("decision_function", "predict_proba")),
}
# the labels scikit-learn's pos_label=1 finds: no rewrite needed
_SKLEARN_POSITIVE = ("1", "1.0", "True")

_CELL = '''# Added by MLE-STAR: the task's positive class is {positive!r}; scikit-learn's "{names}"
# scoring scores the class 1, so your scoring names the task's class.
import numpy as _np
from sklearn import metrics as _skm

_ONE_CLASS = {one_class!r}


def {helper}(name, positive):
    """scikit-learn's scorer ``name`` of the class ``positive`` (``{positive!r}``) when the labels
    it is given hold it; else scikit-learn's own (labels coded as numbers keep the class 1).
    A list or tuple of names: the dict of the same names; a dict: its values so; another
    scoring: as it is."""
    if isinstance(name, (list, tuple)):
        return {{n: {helper}(n, positive) for n in name}}
    if isinstance(name, dict):
        return {{k: {helper}(v, positive) for k, v in name.items()}}
    if not isinstance(name, str) or name not in _ONE_CLASS:
        return name
    own = _skm.get_scorer(name)
    function, response = _ONE_CLASS[name]

    def score(estimator, X, y):
        values = set(_np.asarray(y, dtype=object).ravel().tolist())
        found = [v for v in values if str(v).strip() in {texts!r}]
        if not found:
            return own(estimator, X, y)
        scorer = _skm.make_scorer(
            getattr(_skm, function), response_method=response, pos_label=found[0]
        )
        return scorer(estimator, X, y)

    return score
'''


def task_positive_class(task: Task) -> str | None:
    """The class a two-class task scores as positive, as text: the one it names, else 1, True,
    yes, positive ... of its two training labels, else the later in order; ``None`` when the
    task is no two-class classification or its labels cannot be read."""
    if task.positive_label is not None:
        return str(task.positive_label)
    train = table_for(task, "train")
    if task.task_type != "classification" or len(task.target_cols) != 1 or not train:
        return None
    try:
        classes = sorted(label_values(task.input_dir / train, task.target), key=str)
    except (OSError, ValueError, KeyError, LayoutError):
        return None
    if len(classes) != 2:
        return None
    words = [c for c in classes if c.strip().lower() in POSITIVE_LABELS]
    return (words or classes)[-1]


def positive_scorings(
    nb: SolutionNotebook, task: Task
) -> tuple[SolutionNotebook, tuple[PathChange, ...]]:
    """``nb`` with each ``scoring="f1"`` (of one class: ``_ONE_CLASS``) scoring the task's
    positive class where scikit-learn's class 1 is not it, and a first cell defining how; the
    lines changed.  ``nb`` itself and none when nothing is to change."""
    positive = task_positive_class(task)
    if positive is None or positive in _SKLEARN_POSITIVE:
        return nb, ()
    out, changes = nb, []
    names: list[str] = []
    held = _held_scorings(nb)
    for block in nb.code_blocks:
        try:
            tree = ast.parse(strip_magics(block.source))
        except SyntaxError:
            continue
        spans = []
        for node in ast.walk(tree):
            for kw in node.keywords if isinstance(node, ast.Call) else ():
                if kw.arg == "scoring" and isinstance(kw.value, ast.Name):
                    spans += _held_spans(block.source, kw.value, positive, held, names)
                elif kw.arg == "scoring":
                    spans += _scoring_spans(block.source, kw.value, positive, names)
        if not spans:
            continue
        source = replace_spans(block.source, spans)
        old, new = block.source.split("\n"), source.split("\n")
        changes += [
            PathChange(block.id, a, b, kind="scoring")
            for a, b in zip(old, new, strict=True)
            if a != b
        ]
        out = out.replace_block(block.id, source)
    if not changes:
        return nb, ()
    cell = _CELL.format(
        positive=positive,
        names='", "'.join(sorted(set(names))),
        one_class=_ONE_CLASS,
        helper=HELPER,
        texts=positive_texts(positive),
    )
    return out.insert_block_after(None, cell, role="setup", origin=ORIGIN), tuple(changes)


def _assignments(nb: SolutionNotebook) -> dict[str, list[ast.expr]]:
    """The values each name is given at a cell's top level (``SCORING = "f1"``, ``METRIC:
    str = "f1"``), in the notebook's order; inside ``if``/``with``/``try`` too, not in a
    function or loop."""
    out: dict[str, list[ast.expr]] = {}

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                target, value = node.target, node.value
            elif isinstance(node, ast.If | ast.With | ast.Try):
                visit([*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])])
                continue
            else:
                continue
            if isinstance(target, ast.Name):
                out.setdefault(target.id, []).append(value)

    for block in nb.code_blocks:
        try:
            visit(ast.parse(strip_magics(block.source)).body)
        except SyntaxError:
            continue
    return out


def _one_class_names(value: ast.expr) -> list[str]:
    """The one-class scorer names (``_ONE_CLASS``) a literal scoring holds: ``"f1"``, a list or
    tuple of names, a dict's values."""
    items = value.values if isinstance(value, ast.Dict) else getattr(value, "elts", [value])
    return [
        str(e.value)
        for e in items
        if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value in _ONE_CLASS
    ]


def _held_scorings(nb: SolutionNotebook) -> dict[str, list[str]]:
    """The names that hold a one-class scoring at some top-level assignment (``SCORING =
    "f1"``), with the one-class names they hold."""
    held = {
        name: [n for v in values for n in _one_class_names(v)]
        for name, values in _assignments(nb).items()
    }
    return {name: found for name, found in held.items() if found}


def scoring_constants(nb: SolutionNotebook) -> dict[str, ast.expr]:
    """The literal each name of the notebook holds when a cell's top level assigns it once and
    nowhere else (``SCORING = "roc_auc"``): what ``scoring=SCORING`` scores."""
    return {
        name: values[0]
        for name, values in _assignments(nb).items()
        if len(values) == 1
        and isinstance(values[0], ast.Constant | ast.List | ast.Tuple | ast.Dict)
    }


def _held_spans(
    source: str,
    value: ast.Name,
    positive: str,
    held: dict[str, list[str]],
    names: list[str],
) -> list[tuple[int, int, str]]:
    """The span of ``scoring=SCORING`` to replace when ``SCORING`` holds a one-class scoring
    (``held``): ``positive_class_scorer(SCORING, positive)``, which reads its value when it
    runs."""
    where = node_span(source, value)
    if value.id not in held or where is None:
        return []
    names.extend(held[value.id])
    return [(*where, f"{HELPER}({value.id}, {positive!r})")]


def _scoring_spans(
    source: str, value: ast.expr, positive: str, names: list[str]
) -> list[tuple[int, int, str]]:
    """The spans of ``source`` to replace so that the ``scoring=`` ``value`` scores the class
    ``positive``: ``"f1"`` as ``positive_class_scorer("f1", positive)``; a list or tuple of
    names (``["f1", "roc_auc"]``) as a dict of the same names, in the same lines (the scores
    keep their keys: ``test_f1``, and ``refit="f1"`` its scorer); a dict's values (``{"f1":
    "f1"}``) each as a single name.  Each one-class name is added to ``names``; no spans when
    none is one class's."""
    if isinstance(value, ast.Constant):
        where = node_span(source, value)
        if value.value not in _ONE_CLASS or where is None:
            return []
        names.append(str(value.value))
        return [(*where, f"{HELPER}({value.value!r}, {positive!r})")]
    if isinstance(value, ast.Dict):
        return [
            span
            for item in value.values
            if isinstance(item, ast.Constant)
            for span in _scoring_spans(source, item, positive, names)
        ]
    if not isinstance(value, ast.List | ast.Tuple) or not value.elts:
        return []
    where = node_span(source, value)
    items = [e for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if where is None or len(items) != len(value.elts) or source[where[1] - 1] not in ")]":
        return []
    if not any(e.value in _ONE_CLASS for e in items) or source[where[0]] not in "([":
        return []
    spans = [(where[0], where[0] + 1, "{"), (where[1] - 1, where[1], "}")]
    for item in items:
        span = node_span(source, item)
        if span is None:
            return []
        scorer = _scoring_spans(source, item, positive, names)
        text = scorer[0][2] if scorer else repr(item.value)
        spans.append((*span, f"{item.value!r}: {text}"))
    return spans


__all__ = [
    "HELPER",
    "ORIGIN",
    "positive_scorings",
    "scoring_constants",
    "task_positive_class",
]
