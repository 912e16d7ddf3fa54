"""Strategies for feature and preprocessing parts: the vectorizer's settings, the engineered
columns, imputation, scaling and encoding."""

from __future__ import annotations

import ast
import re

from ...notebook.roles import TRANSFORMER_RE, VECTORIZER_RE
from .strategy import Edit, Strategy, chain
from .syntax import call_name, keywords, parse, replace_node, with_imports, with_keywords


def vectorizer_param(param: str, value: str) -> Edit:
    """Set a keyword argument of the first text vectorizer's constructor."""

    def edit(src: str) -> str | None:
        tree = parse(src)
        if tree is None:
            return None
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and VECTORIZER_RE.search(call_name(n)):
                kw = keywords(n)
                if param in kw and ast.unparse(kw[param]) == value:
                    return None
                return with_keywords(src, n, {param: value})
        return None

    return edit


def vectorizer_defaults(src: str) -> str | None:
    """The first vectorizer given arguments, with its library defaults instead."""
    tree = parse(src)
    if tree is None:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and VECTORIZER_RE.search(call_name(n)) and n.keywords:
            return with_keywords(src, n, {k: None for k in keywords(n)})  # type: ignore[arg-type]
    return None


def _new_column_stmts(tree: ast.Module) -> list[ast.stmt]:
    """Top-level statements (or loops of them) that only add columns to a table."""

    def adds(s: ast.stmt) -> bool:
        if isinstance(s, ast.Assign):
            return any(isinstance(t, ast.Subscript) for t in s.targets) and not any(
                isinstance(c, ast.Call)
                and call_name(c) in ("fillna", "astype", "clip", "map", "replace")
                for c in ast.walk(s.value)
            )
        if isinstance(s, ast.For):
            return all(adds(b) for b in s.body)
        return False

    return [s for s in tree.body if adds(s)]


def _drop_statements(src: str, stmts: list[ast.stmt]) -> str | None:
    if not stmts:
        return None
    lines = src.splitlines()
    drop = {i for s in stmts for i in range(s.lineno - 1, s.end_lineno or s.lineno)}
    kept = [ln for i, ln in enumerate(lines) if i not in drop]
    return "\n".join(kept) if kept else "pass"


def drop_feature_group(src: str) -> str | None:
    """``src`` without the statements that add engineered columns, and without those columns'
    names in the cell's lists of column names (``FEATS = [..., 'dow', 'month']``): left
    there, every variant failed with ``KeyError: "['dow', 'month'] not in index"`` (hunt E,
    session 28: 9 of 31 candidates)."""
    tree = parse(src)
    if tree is None:
        return None
    stmts = _new_column_stmts(tree)
    out = _drop_statements(src, stmts)
    return None if out is None else _without_names(out, _added_names(stmts))


def _added_names(stmts: list[ast.stmt]) -> set[str]:
    """The column names ``stmts`` add (``df['dow'] = ...``: ``dow``)."""
    return {
        n.slice.value
        for s in stmts
        for n in ast.walk(s)
        if isinstance(n, ast.Subscript)
        and isinstance(n.ctx, ast.Store)
        and isinstance(n.slice, ast.Constant)
        and isinstance(n.slice.value, str)
    }


def _without_names(src: str, names: set[str]) -> str:
    """``src`` with ``names`` left out of each top-level assignment of a list or tuple of
    strings (a list of feature columns)."""
    tree = parse(src) if names else None
    if tree is None:
        return src
    lines = src.splitlines()
    for s in reversed(tree.body):
        if not isinstance(s, ast.Assign):
            continue
        value = s.value
        if not isinstance(value, ast.List | ast.Tuple) or not value.elts:
            continue
        items = [e.value for e in value.elts if isinstance(e, ast.Constant)]
        if len(items) != len(value.elts) or not all(isinstance(i, str) for i in items):
            continue
        kept = [i for i in items if i not in names]
        if len(kept) == len(items) or not kept:
            continue
        first, last = s.lineno - 1, (s.end_lineno or s.lineno) - 1
        targets = " = ".join(ast.unparse(t) for t in s.targets)
        shown = repr(tuple(kept)) if isinstance(value, ast.Tuple) else repr(kept)
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        lines[first : last + 1] = [f"{indent}{targets} = {shown}"]
    return "\n".join(lines)


def _self_transforms(tree: ast.Module) -> list[ast.stmt]:
    """``X = scaler.fit_transform(X)``, ``X = X.fillna(0)``, ``df[c] = df[c].fillna(0)``: a
    preprocessing step whose removal leaves the data as it was."""
    out: list[ast.stmt] = []
    for s in tree.body:
        if not (
            isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.value, ast.Call)
        ):
            continue
        target = ast.unparse(s.targets[0])
        call = s.value
        name = call_name(call)
        if (
            name in ("fit_transform", "transform")
            and call.args
            and ast.unparse(call.args[0]) == target
        ):
            out.append(s)
        elif (
            name in ("fillna", "clip")
            and isinstance(call.func, ast.Attribute)
            and ast.unparse(call.func.value) == target
        ):
            out.append(s)
    return out


def _drop_preprocessing(src: str) -> str | None:
    """``src`` without its in-place preprocessing statements (``_self_transforms``); the other
    rows the same transformer transforms (``X_test = scaler.transform(test[cols])``) pass
    through as they are: left, they failed unfitted (``NotFittedError``: the fit went with
    ``X_tr = scaler.fit_transform(X_tr)``), or were scaled for a model trained unscaled."""
    tree = parse(src)
    if tree is None:
        return None
    stmts = _self_transforms(tree)
    out = _drop_statements(src, stmts)
    transformers = {
        ast.unparse(s.value.func.value)
        for s in stmts
        if isinstance(s, ast.Assign)
        and isinstance(s.value, ast.Call)
        and isinstance(s.value.func, ast.Attribute)
        and call_name(s.value) in ("fit_transform", "transform")
    }
    return _passed_through(out, transformers) if out is not None and transformers else out


def _passed_through(src: str, transformers: set[str]) -> str:
    """``src`` with each ``t.transform(rows)`` of the ``transformers`` replaced by ``rows``."""
    tree = parse(src)
    if tree is None:
        return src
    calls = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "transform"
        and ast.unparse(n.func.value) in transformers
        and len(n.args) == 1
        and not n.keywords
    ]
    inner = {id(m) for c in calls for m in ast.walk(c.args[0])}
    for c in sorted(
        (c for c in calls if id(c) not in inner),
        key=lambda c: (c.lineno, c.col_offset),
        reverse=True,  # the last first: the earlier ones' places stay where they were
    ):
        rows = ast.get_source_segment(src, c.args[0]) or ast.unparse(c.args[0])
        src = replace_node(src, c, f"({rows})" if "\n" in rows else rows)
    return src


# what turns text categories into numbers: without it the model gets strings, and fails; what
# fills missing values: without it most models get NaN, and fail
_CODERS = re.compile(
    r"(OneHotEncoder|OrdinalEncoder|TargetEncoder|ColumnTransformer|make_column_transformer"
    r"|Imputer)$"
)


def passthrough_step(src: str) -> str | None:
    """A transformer inside ``make_pipeline``/``Pipeline`` replaced by ``"passthrough"`` (not
    one that codes categories or fills missing values, nor one inside it: the model would get
    text or NaN and fail, as every such ablation of a swapped model's coding step did, and of
    ``make_pipeline(SimpleImputer(), StandardScaler(), Ridge())``'s imputer: the scaler is
    the step switched off)."""
    tree = parse(src)
    if tree is None:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and call_name(n) in ("make_pipeline", "Pipeline"):
            inside = {
                id(b)
                for a in ast.walk(n)
                if isinstance(a, ast.Call) and _CODERS.search(call_name(a))
                for b in ast.walk(a)
            }
            for a in ast.walk(n):
                if (
                    a is not n
                    and isinstance(a, ast.Call)
                    and id(a) not in inside
                    and TRANSFORMER_RE.search(call_name(a))
                ):
                    return replace_node(src, a, '"passthrough"')
    return None


def preprocessing_off(src: str) -> str | None:
    """``src`` with a preprocessing step skipped: a statement that transforms data in place
    removed, else a pipeline's transformer replaced by ``"passthrough"``."""
    return _drop_preprocessing(src) or passthrough_step(src)


def _swap_call(old: str, new: str, imp: str) -> Edit:
    def edit(src: str) -> str | None:
        tree = parse(src)
        if tree is None:
            return None
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and call_name(n) == old:
                return with_imports(replace_node(src, n, new), imp)
        return None

    return edit


def _median_fill(src: str) -> str | None:
    m = re.search(r"(\b[\w\[\]\"'.]+)\.fillna\((0|-1|0\.0)\)", src)
    if m is None:
        return None
    return src[: m.start(2)] + f"{m.group(1)}.median(numeric_only=True)" + src[m.end(2) :]


FEATURE_STRATEGIES: tuple[Strategy, ...] = (
    Strategy(
        "tfidf_bigrams",
        "Word bigrams in the TF-IDF features (ngram_range=(1, 2)).",
        vectorizer_param("ngram_range", "(1, 2)"),
    ),
    Strategy(
        "tfidf_sublinear",
        "Sublinear term frequencies (sublinear_tf=True).",
        vectorizer_param("sublinear_tf", "True"),
    ),
    Strategy(
        "tfidf_vocabulary",
        "A larger vocabulary (no max_features cap, min_df=2).",
        lambda s: chain(
            s, vectorizer_param("max_features", "None"), vectorizer_param("min_df", "2")
        ),
    ),
    Strategy(
        "drop_feature_group",
        "Drop the engineered feature group (the ablation says whether it helps).",
        drop_feature_group,
    ),
)
PREPROCESS_STRATEGIES: tuple[Strategy, ...] = (
    Strategy(
        "median_imputation",
        "Fill missing values with the column median instead of a constant.",
        _median_fill,
    ),
    Strategy(
        "robust_scaler",
        "Scale with RobustScaler (outlier-resistant) instead of StandardScaler.",
        _swap_call(
            "StandardScaler", "RobustScaler()", "from sklearn.preprocessing import RobustScaler"
        ),
    ),
    Strategy(
        "median_imputer",
        "SimpleImputer with the median.",
        _swap_call(
            "SimpleImputer",
            'SimpleImputer(strategy="median")',
            "from sklearn.impute import SimpleImputer",
        ),
    ),
    Strategy(
        "one_hot_ignore",
        "One-hot encoding that ignores unseen categories.",
        _swap_call(
            "OrdinalEncoder",
            'OneHotEncoder(handle_unknown="ignore")',
            "from sklearn.preprocessing import OneHotEncoder",
        ),
    ),
    Strategy(
        "drop_preprocessing",
        "Skip this preprocessing step (the ablation says whether it helps).",
        preprocessing_off,
    ),
)
