"""Source edits through the syntax tree: find a call, rewrite its arguments, splice it back.

Every edit keeps the rest of the source byte for byte: a node is replaced by its span in the
text (line and column offsets mapped from UTF-8 bytes to characters), never by unparsing the tree.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ...notebook.roles import ESTIMATOR_RE
from .compared import entry_value, within

# constructor calls that wrap the model rather than being it
_WRAPPERS = ("make_pipeline", "Pipeline", "Sequential", "TransformedTargetRegressor")


def parse(src: str) -> ast.Module | None:
    """The syntax tree of ``src``, or ``None`` when it does not parse."""
    try:
        return ast.parse(src)
    except SyntaxError:
        return None


def _offsets(src: str) -> list[int]:
    starts, n = [0], 0
    for line in src.splitlines(keepends=True):
        n += len(line)
        starts.append(n)
    return starts


def _char_col(src: str, starts: list[int], line: int, byte_col: int) -> int:
    text = src[starts[line - 1] : starts[line] if line < len(starts) else len(src)]
    return len(text.encode()[:byte_col].decode(errors="ignore"))


def _span(src: str, node: ast.AST) -> tuple[int, int]:
    starts = _offsets(src)
    a = starts[node.lineno - 1] + _char_col(src, starts, node.lineno, node.col_offset)  # type: ignore[attr-defined]
    end_line = node.end_lineno or node.lineno  # type: ignore[attr-defined]
    b = starts[end_line - 1] + _char_col(src, starts, end_line, node.end_col_offset or 0)  # type: ignore[attr-defined]
    return a, b


def replace_node(src: str, node: ast.AST, new: str) -> str:
    """``src`` with the text of ``node`` replaced by ``new``."""
    a, b = _span(src, node)
    return src[:a] + new + src[b:]


def call_name(call: ast.Call) -> str:
    """The called name: ``RandomForestClassifier`` for ``ensemble.RandomForestClassifier(...)``."""
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def keywords(call: ast.Call) -> dict[str, ast.expr]:
    """The call's keyword arguments by name (``**kwargs`` left out)."""
    return {k.arg: k.value for k in call.keywords if k.arg}


def with_keywords(src: str, call: ast.Call, changes: dict[str, str | None]) -> str:
    """``call`` with keyword arguments set (a string: its source) or removed (``None``).  The
    settings it unpacks (``**params``) stay; a keyword it did not name is set over them
    (``**{**params, "subsample": 0.8}``), as ``params`` may hold it too."""
    args = [ast.get_source_segment(src, a) or ast.unparse(a) for a in call.args]
    kws: dict[str, str] = {
        k.arg: ast.get_source_segment(src, k.value) or ast.unparse(k.value)
        for k in call.keywords
        if k.arg
    }
    # what it unpacks: ``**params`` as (None, "params"), a merged ``**{**params, "k": v}``
    # (an earlier edit's) as its entries, so the next edit adds to it rather than nesting
    unpacked: list[tuple[str | None, str]] = []
    for kw in call.keywords:
        if kw.arg is None and isinstance(kw.value, ast.Dict):
            for key, value in zip(kw.value.keys, kw.value.values, strict=True):
                text = ast.get_source_segment(src, value) or ast.unparse(value)
                named = key.value if isinstance(key, ast.Constant) else None
                unpacked.append((str(named), text) if named is not None else (None, text))
        elif kw.arg is None:
            unpacked.append((None, ast.get_source_segment(src, kw.value) or ast.unparse(kw.value)))
    for k, v in changes.items():
        if v is None:
            kws.pop(k, None)
            unpacked = [(n, t) for n, t in unpacked if n != k]
        elif unpacked and k not in kws:
            unpacked = [(n, t) for n, t in unpacked if n != k] + [(k, v)]
        else:
            kws[k] = v
    func = ast.get_source_segment(src, call.func) or ast.unparse(call.func)
    spread = [f"**{t}" for _, t in unpacked]
    if any(n is not None for n, _ in unpacked):
        spread = ["**{" + ", ".join(f"{n!r}: {t}" if n else f"**{t}" for n, t in unpacked) + "}"]
    inner = ", ".join(args + spread + [f"{k}={v}" for k, v in kws.items()])
    return replace_node(src, call, f"{func}({inner})")


def number_value(node: ast.expr | None) -> float | None:
    """The value of a numeric literal, ``None`` for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    return None


def format_like(v: float, like: ast.expr | None) -> str:
    """``v`` as source: an integer where ``like`` is an integer literal, else 4 significant digits."""
    if isinstance(like, ast.Constant) and isinstance(like.value, int) and float(v).is_integer():
        return str(int(v))
    return f"{v:.4g}"


def constructors(src: str) -> list[ast.Call]:
    """Estimator constructor calls in ``src`` (outermost last, so a pipeline's model is found)."""
    tree = parse(src)
    if tree is None:
        return []
    out = []
    local = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            name = call_name(n)
            if ESTIMATOR_RE.search(name) and name not in _WRAPPERS and name not in local:
                out.append(n)
    return out


# (collection, entry): the entry of a compared collection of models whose model ``model_call``
# picks, while ``focused`` is in force (the edits of one part run in one thread)
_FOCUS: ContextVar[tuple[str, str] | None] = ContextVar("model_focus", default=None)


@contextmanager
def focused(collection: str, entry: str) -> Iterator[None]:
    """Within it, ``model_call`` picks the model of entry ``entry`` of ``collection`` (a dict
    key, a pair's name or a list position: ``compared.entries``) in a source that builds the
    collection, instead of the last model constructed; no focus when either is empty."""
    token = _FOCUS.set((collection, entry) if collection and entry else None)
    try:
        yield
    finally:
        _FOCUS.reset(token)


def model_call(src: str) -> ast.Call | None:
    """The model's constructor call in ``src`` (the last estimator constructed, a baseline such
    as ``DummyClassifier()`` only when there is no other: a notebook comparing models often
    lists it last, and it has nothing to tune), if any; under ``focused``, the one of the
    focused entry of a compared collection (``compared``), when ``src`` builds it."""
    calls = constructors(src)
    focus = _FOCUS.get()
    value = entry_value(src, *focus) if focus is not None else None
    if value is not None:
        calls = [c for c in calls if within(c, value)] or calls
    real = [c for c in calls if not call_name(c).startswith("Dummy")]
    return (real or calls)[-1] if calls else None


def is_classifier(name: str) -> bool:
    """Whether an estimator class name reads as a classifier."""
    return bool(re.search(r"Classifier|SVC|Logistic|NB$|LinearSVC", name))


def with_imports(src: str, *lines: str) -> str:
    """``src`` with the import ``lines`` it lacks put first."""
    have = {ln.strip() for ln in src.splitlines()}
    # by whole lines: "import Ridge" is not in "from sklearn.linear_model import RidgeCV"
    need = [ln for ln in lines if ln.strip() not in have]
    return "\n".join(need) + ("\n" if need else "") + src
