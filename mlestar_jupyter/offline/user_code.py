"""Ablations and refinement strategies for code a person wrote (no catalog template behind it).

The catalog's blocks are rendered from templates with parameters; a user's notebook is not, so
here every change is an edit of the code's syntax tree, found from what the code does
(``notebook.roles``): the estimator's constructor call (any scikit-learn, LightGBM, XGBoost or
CatBoost class, a torch module's sizes and epochs), the preprocessing statements, the engineered
columns, the vectorizer.  A *part* is one refinable segment of a cell (the whole cell, or a part of
a mixed cell).

- Ablations (:func:`ablations`): switch a preprocessing step off, replace the model by a simpler
  default, drop a feature group, drop an ensemble member.
- Strategies (:func:`strategies`): per role, a list of ``Strategy(id, text, edit)``; an ``edit``
  returns the part's new source, or ``None`` where it does not apply.  The policy walks them in
  order (rotated per path, so that parallel paths diverge) and never applies one twice to a block.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..notebook import SolutionNotebook
from ..notebook.roles import (
    ESTIMATOR_RE,
    REFINABLE_ROLES,
    TRANSFORMER_RE,
    VECTORIZER_RE,
    analyze,
)

Edit = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Part:
    """One refinable part of a user's notebook."""

    block_id: str
    role: str
    fragment: str | None  # None: the whole cell
    source: str

    @property
    def label(self) -> str:
        return f"{self.block_id} ({self.role}{', part of the cell' if self.fragment else ''})"


@dataclass(frozen=True)
class Strategy:
    id: str
    text: str
    edit: Edit


def parts(nb: SolutionNotebook) -> list[Part]:
    """The refinable parts of ``nb`` (cells the agent added are never refined), model first."""
    analysis = analyze(nb)
    out: list[Part] = []
    for c in analysis.cells:
        if nb.block(c.block_id).origin.startswith("mlestar"):
            continue
        for s in c.segments:
            if s.role not in REFINABLE_ROLES:
                continue
            whole = len(c.segments) == 1
            out.append(Part(c.block_id, s.role, None if whole else s.source, s.source))
    return sorted(out, key=lambda p: REFINABLE_ROLES.index(p.role))


# ---------------------------------------------------------------------- source edits
def _offsets(src: str) -> list[int]:
    starts, n = [0], 0
    for line in src.splitlines(keepends=True):
        n += len(line)
        starts.append(n)
    return starts


def _span(src: str, node: ast.AST) -> tuple[int, int]:
    starts = _offsets(src)
    a = starts[node.lineno - 1] + _char_col(src, starts, node.lineno, node.col_offset)  # type: ignore[attr-defined]
    end_line = node.end_lineno or node.lineno  # type: ignore[attr-defined]
    b = starts[end_line - 1] + _char_col(src, starts, end_line, node.end_col_offset or 0)  # type: ignore[attr-defined]
    return a, b


def _char_col(src: str, starts: list[int], line: int, byte_col: int) -> int:
    text = src[starts[line - 1] : starts[line] if line < len(starts) else len(src)]
    return len(text.encode()[:byte_col].decode(errors="ignore"))


def _replace(src: str, node: ast.AST, new: str) -> str:
    a, b = _span(src, node)
    return src[:a] + new + src[b:]


def _parse(src: str) -> ast.Module | None:
    try:
        return ast.parse(src)
    except SyntaxError:
        return None


def _constructors(src: str) -> list[ast.Call]:
    """Estimator constructor calls in ``src`` (outermost last, so a pipeline's model is found)."""
    tree = _parse(src)
    if tree is None:
        return []
    out = []
    local = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            name = _cls(n)
            skip = ("make_pipeline", "Pipeline", "Sequential", "TransformedTargetRegressor")
            if ESTIMATOR_RE.search(name) and name not in skip and name not in local:
                out.append(n)
    return out


def _cls(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _kwargs(call: ast.Call) -> dict[str, ast.expr]:
    return {k.arg: k.value for k in call.keywords if k.arg}


def _with_kwargs(src: str, call: ast.Call, changes: dict[str, str | None]) -> str:
    """``call`` with keyword arguments set (a string: its source) or removed (``None``)."""
    args = [ast.get_source_segment(src, a) or ast.unparse(a) for a in call.args]
    kws: dict[str, str] = {
        k.arg: ast.get_source_segment(src, k.value) or ast.unparse(k.value)
        for k in call.keywords
        if k.arg
    }
    for k, v in changes.items():
        if v is None:
            kws.pop(k, None)
        else:
            kws[k] = v
    func = ast.get_source_segment(src, call.func) or ast.unparse(call.func)
    inner = ", ".join(args + [f"{k}={v}" for k, v in kws.items()])
    return _replace(src, call, f"{func}({inner})")


def _num(node: ast.expr | None) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    return None


def _fmt(v: float, like: ast.expr | None) -> str:
    if isinstance(like, ast.Constant) and isinstance(like.value, int) and float(v).is_integer():
        return str(int(v))
    return f"{v:.4g}"


def _model_call(src: str) -> ast.Call | None:
    calls = _constructors(src)
    return calls[-1] if calls else None


def _is_classifier(name: str) -> bool:
    return bool(re.search(r"Classifier|SVC|Logistic|NB$|LinearSVC", name))


def _imports(src: str, *lines: str) -> str:
    need = [ln for ln in lines if ln not in src]
    return "\n".join(need) + ("\n" if need else "") + src


# ---------------------------------------------------------------------- model strategies
def _scale_param(
    param: str, factor: float, *, add: float | None = None, cap: float | None = None
) -> Edit:
    """Multiply a keyword argument of the model's constructor (or set it to ``add`` when absent)."""

    def edit(src: str) -> str | None:
        call = _model_call(src)
        if call is None:
            return None
        kw = _kwargs(call)
        value = _num(kw.get(param))
        if value is None:
            if add is None or param in kw:
                return None
            return _with_kwargs(
                src, call, {param: _fmt(add, None) if add != int(add) else str(int(add))}
            )
        new = value * factor
        if cap is not None:
            new = min(new, cap)
        like = kw.get(param)
        if isinstance(like, ast.Constant) and isinstance(like.value, int):
            new = float(max(1, round(new)))
        if new == value:
            return None
        return _with_kwargs(src, call, {param: _fmt(new, kw.get(param))})

    return edit


def _set_param(param: str, value: str, *, only: str = "") -> Edit:
    def edit(src: str) -> str | None:
        call = _model_call(src)
        if call is None or (only and not re.search(only, _cls(call))):
            return None
        kw = _kwargs(call)
        if param in kw and ast.unparse(kw[param]) == value:
            return None
        return _with_kwargs(src, call, {param: value})

    return edit


def _drop_param(param: str) -> Edit:
    def edit(src: str) -> str | None:
        call = _model_call(src)
        if call is None or param not in _kwargs(call):
            return None
        return _with_kwargs(src, call, {param: None})

    return edit


def _slower_learning(src: str) -> str | None:
    call = _model_call(src)
    if call is None:
        return None
    kw = _kwargs(call)
    lr, n = _num(kw.get("learning_rate")), _num(kw.get("n_estimators"))
    if lr is None or lr <= 0.02:
        return None
    changes: dict[str, str | None] = {"learning_rate": _fmt(lr / 3, kw.get("learning_rate"))}
    changes["n_estimators"] = str(int((n or 100) * 3))
    return _with_kwargs(src, call, changes)


def _early_stopping(src: str) -> str | None:
    call = _model_call(src)
    if call is None or not _cls(call).startswith("GradientBoosting"):
        return None
    return _chain(
        src,
        _set_param("n_iter_no_change", "20"),
        _scale_param("n_estimators", 3, add=300, cap=2000),
    )


_SCALE_SENSITIVE = re.compile(
    r"^(LogisticRegression|SVC|SVR|LinearSVC|KNeighbors\w+|MLP\w+|Ridge|Lasso|ElasticNet|SGD\w+)$"
)


def _standardize(src: str) -> str | None:
    """Wrap a scale-sensitive model in ``make_pipeline(StandardScaler(), ...)``."""
    call = _model_call(src)
    if call is None or not _SCALE_SENSITIVE.match(_cls(call)) or "Scaler" in src:
        return None
    body = ast.get_source_segment(src, call) or ast.unparse(call)
    out = _replace(src, call, f"make_pipeline(StandardScaler(with_mean=False), {body})")
    return _imports(
        out,
        "from sklearn.pipeline import make_pipeline",
        "from sklearn.preprocessing import StandardScaler",
    )


def _target_transform(src: str) -> str | None:
    call = _model_call(src)
    if call is None or _is_classifier(_cls(call)) or "TransformedTargetRegressor" in src:
        return None
    body = ast.get_source_segment(src, call) or ast.unparse(call)
    out = _replace(
        src,
        call,
        f"TransformedTargetRegressor(regressor={body}, func=np.log1p, inverse_func=np.expm1)",
    )
    return _imports(
        out, "import numpy as np", "from sklearn.compose import TransformedTargetRegressor"
    )


_SWAPS: dict[bool, tuple[tuple[str, str, str, str], ...]] = {
    # classifier? -> (id, import, constructor, needs)
    True: (
        (
            "swap_hist_gbm",
            "from sklearn.ensemble import HistGradientBoostingClassifier",
            "HistGradientBoostingClassifier(max_iter=300, learning_rate=0.05, random_state=0)",
            "sklearn",
        ),
        (
            "swap_lightgbm",
            "from lightgbm import LGBMClassifier",
            "LGBMClassifier(n_estimators=300, learning_rate=0.05, num_leaves=15, verbose=-1, n_jobs=1)",
            "lightgbm",
        ),
        (
            "swap_random_forest",
            "from sklearn.ensemble import RandomForestClassifier",
            "RandomForestClassifier(n_estimators=300, random_state=0, n_jobs=1)",
            "sklearn",
        ),
    ),
    False: (
        (
            "swap_hist_gbm",
            "from sklearn.ensemble import HistGradientBoostingRegressor",
            "HistGradientBoostingRegressor(max_iter=200, learning_rate=0.05, random_state=0)",
            "sklearn",
        ),
        (
            "swap_ridge",
            "from sklearn.linear_model import RidgeCV",
            "RidgeCV(alphas=(0.01, 0.1, 1.0, 10.0, 100.0))",
            "sklearn",
        ),
        (
            "swap_random_forest",
            "from sklearn.ensemble import RandomForestRegressor",
            "RandomForestRegressor(n_estimators=300, min_samples_leaf=3, random_state=0, n_jobs=1)",
            "sklearn",
        ),
    ),
}


def _swap(sid: str) -> Edit:
    def edit(src: str) -> str | None:
        call = _model_call(src)
        if call is None:
            return None
        name = _cls(call)
        if not (
            ESTIMATOR_RE.search(name)
            and (
                name.endswith(("Classifier", "Regressor"))
                or _SCALE_SENSITIVE.match(name)
                or name in ("SVC", "SVR")
            )
        ):
            return None
        clf = _is_classifier(name)
        for s, imp, ctor, needs in _SWAPS[clf]:
            if s != sid or ctor.split("(")[0] == name:
                continue
            if importlib.util.find_spec(needs) is None:
                return None
            return _imports(_replace(src, call, ctor), imp)
        return None

    return edit


_MODEL_STRATEGIES: tuple[Strategy, ...] = (
    Strategy(
        "standardize",
        "Standardize the features for this scale-sensitive model (StandardScaler in a pipeline).",
        _standardize,
    ),
    Strategy(
        "more_estimators",
        "Three times as many trees (n_estimators x3).",
        _scale_param("n_estimators", 3, cap=2000),
    ),
    Strategy(
        "slower_learning",
        "A third of the learning rate with three times the trees.",
        _slower_learning,
    ),
    Strategy("deeper_trees", "Deeper trees (max_depth x2).", _scale_param("max_depth", 2, cap=16)),
    Strategy(
        "shallower_trees",
        "Shallower trees (max_depth halved), less overfitting.",
        _scale_param("max_depth", 0.5),
    ),
    Strategy(
        "more_leaves",
        "More leaves per tree (num_leaves x2).",
        _scale_param("num_leaves", 2, cap=255),
    ),
    Strategy("weaker_regularization", "Weaker regularization (C x10).", _scale_param("C", 10)),
    Strategy(
        "stronger_regularization", "Stronger regularization (C / 10).", _scale_param("C", 0.1)
    ),
    Strategy("lower_alpha", "Less shrinkage (alpha / 10).", _scale_param("alpha", 0.1)),
    Strategy(
        "more_neighbors",
        "More neighbours, weighted by distance.",
        lambda s: _chain(
            s,
            _scale_param("n_neighbors", 3, cap=50),
            _set_param("weights", '"distance"', only="KNeighbors"),
        ),
    ),
    Strategy(
        "early_stopping",
        "Early stopping on an internal validation split, with a larger budget of boosting rounds.",
        _early_stopping,
    ),
    Strategy(
        "class_weight",
        "Balanced class weights.",
        _set_param(
            "class_weight", '"balanced"', only="Logistic|SVC|Forest|Trees|DecisionTree|LGBM"
        ),
    ),
    Strategy(
        "target_transform",
        "Model log1p of the target (TransformedTargetRegressor).",
        _target_transform,
    ),
    Strategy(
        "swap_hist_gbm",
        "Swap the model for histogram gradient boosting (same fit/predict interface).",
        _swap("swap_hist_gbm"),
    ),
    Strategy(
        "swap_lightgbm",
        "Swap the model for LightGBM (same fit/predict interface).",
        _swap("swap_lightgbm"),
    ),
    Strategy(
        "swap_ridge", "Swap the model for a cross-validated ridge regression.", _swap("swap_ridge")
    ),
    Strategy(
        "swap_random_forest",
        "Swap the model for a 300-tree random forest.",
        _swap("swap_random_forest"),
    ),
    Strategy("no_depth_limit", "Remove the depth limit of the trees.", _drop_param("max_depth")),
)


def _chain(src: str, *edits: Edit) -> str | None:
    out, changed = src, False
    for e in edits:
        new = e(out)
        if new is not None:
            out, changed = new, True
    return out if changed else None


# ---------------------------------------------------------------------- torch and other numbers
def _number(pattern: str, factor: float, cap: float | None = None) -> Edit:
    """Multiply the first number matching ``pattern`` (group 1 is the number), case-insensitive."""
    rx = re.compile(pattern, re.IGNORECASE)

    def edit(src: str) -> str | None:
        m = rx.search(src)
        if m is None:
            return None
        text = m.group(1)
        value = float(text)
        new = value * factor if cap is None else min(value * factor, cap)
        if new == value:
            return None
        out = str(int(new)) if re.fullmatch(r"\d+", text) else f"{new:.4g}"
        return src[: m.start(1)] + out + src[m.end(1) :]

    return edit


_NUMBER_STRATEGIES: tuple[Strategy, ...] = (
    Strategy(
        "more_epochs",
        "Train for three times as many epochs.",
        _number(r"\b(?:n_|num_)?epochs\s*=\s*(\d+)", 3, cap=2000),
    ),
    Strategy(
        "wider_network",
        "A wider network (hidden units x4).",
        _number(r"\bhidden\w*\s*=\s*(\d+)", 4, cap=1024),
    ),
    Strategy(
        "lower_lr",
        "A third of the learning rate.",
        _number(r"\blr\s*=\s*([0-9.]+(?:e-?\d+)?)", 1 / 3),
    ),
    Strategy(
        "higher_lr",
        "Three times the learning rate.",
        _number(r"\blr\s*=\s*([0-9.]+(?:e-?\d+)?)", 3, cap=0.1),
    ),
    Strategy(
        "more_iterations",
        "Three times the iterations (max_iter x3).",
        _number(r"\bmax_iter\s*=\s*(\d+)", 3, cap=5000),
    ),
)


# ---------------------------------------------------------------------- features and preprocessing
def _vectorizer_param(param: str, value: str) -> Edit:
    def edit(src: str) -> str | None:
        tree = _parse(src)
        if tree is None:
            return None
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and VECTORIZER_RE.search(_cls(n)):
                kw = _kwargs(n)
                if param in kw and ast.unparse(kw[param]) == value:
                    return None
                return _with_kwargs(src, n, {param: value})
        return None

    return edit


def _new_column_stmts(tree: ast.Module) -> list[ast.stmt]:
    """Top-level statements (or loops of them) that only add columns to a table."""

    def adds(s: ast.stmt) -> bool:
        if isinstance(s, ast.Assign):
            return any(isinstance(t, ast.Subscript) for t in s.targets) and not any(
                isinstance(c, ast.Call)
                and _cls(c) in ("fillna", "astype", "clip", "map", "replace")
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


def _drop_feature_group(src: str) -> str | None:
    tree = _parse(src)
    return None if tree is None else _drop_statements(src, _new_column_stmts(tree))


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
        name = _cls(call)
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
    tree = _parse(src)
    if tree is None:
        return None
    return _drop_statements(src, _self_transforms(tree))


def _passthrough_step(src: str) -> str | None:
    """A transformer inside ``make_pipeline``/``Pipeline`` replaced by ``"passthrough"``."""
    tree = _parse(src)
    if tree is None:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and _cls(n) in ("make_pipeline", "Pipeline"):
            for a in ast.walk(n):
                if a is not n and isinstance(a, ast.Call) and TRANSFORMER_RE.search(_cls(a)):
                    return _replace(src, a, '"passthrough"')
    return None


def _swap_call(old: str, new: str, imp: str) -> Edit:
    def edit(src: str) -> str | None:
        tree = _parse(src)
        if tree is None:
            return None
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and _cls(n) == old:
                return _imports(_replace(src, n, new), imp)
        return None

    return edit


def _median_fill(src: str) -> str | None:
    m = re.search(r"(\b[\w\[\]\"'.]+)\.fillna\((0|-1|0\.0)\)", src)
    if m is None:
        return None
    return src[: m.start(2)] + f"{m.group(1)}.median(numeric_only=True)" + src[m.end(2) :]


_FEATURE_STRATEGIES: tuple[Strategy, ...] = (
    Strategy(
        "tfidf_bigrams",
        "Word bigrams in the TF-IDF features (ngram_range=(1, 2)).",
        _vectorizer_param("ngram_range", "(1, 2)"),
    ),
    Strategy(
        "tfidf_sublinear",
        "Sublinear term frequencies (sublinear_tf=True).",
        _vectorizer_param("sublinear_tf", "True"),
    ),
    Strategy(
        "tfidf_vocabulary",
        "A larger vocabulary (no max_features cap, min_df=2).",
        lambda s: _chain(
            s, _vectorizer_param("max_features", "None"), _vectorizer_param("min_df", "2")
        ),
    ),
    Strategy(
        "drop_feature_group",
        "Drop the engineered feature group (the ablation says whether it helps).",
        _drop_feature_group,
    ),
)
_PREPROCESS_STRATEGIES: tuple[Strategy, ...] = (
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
        lambda s: _drop_preprocessing(s) or _passthrough_step(s),
    ),
)


def strategies(role: str) -> tuple[Strategy, ...]:
    """The strategy library for a part of this role, in the order they are tried (the ablation's
    own changes come last: the refiner moves one forward when the ablation measured it better)."""
    if role == "model":
        return _MODEL_STRATEGIES + _NUMBER_STRATEGIES + _ADOPT
    if role == "train":
        return _NUMBER_STRATEGIES + _MODEL_STRATEGIES + _ADOPT
    if role == "features":
        return _FEATURE_STRATEGIES + _PREPROCESS_STRATEGIES + _ADOPT
    return _PREPROCESS_STRATEGIES + _FEATURE_STRATEGIES + _ADOPT


def applicable(part: Part) -> list[tuple[Strategy, str]]:
    """Every strategy that changes ``part``, with the part's new source."""
    out = []
    for s in strategies(part.role):
        try:
            new = s.edit(part.source)
        except (SyntaxError, ValueError, IndexError):
            new = None
        if new is not None and new.strip() != part.source.strip() and _parse(new) is not None:
            out.append((s, new))
    return out


# ---------------------------------------------------------------------- ablations
def _default_model(src: str) -> str | None:
    """The model's constructor with its defaults (keeping seeds and verbosity)."""
    call = _model_call(src)
    if call is None:
        return None
    keep = {"random_state", "verbose", "verbosity", "n_jobs", "seed", "max_iter", "probability"}
    drop: dict[str, str | None] = {k: None for k in _kwargs(call) if k not in keep}
    return _with_kwargs(src, call, drop) if drop else None


def _linear_model(src: str) -> str | None:
    """A linear model in place of the model (same fit/predict interface)."""
    call = _model_call(src)
    if call is None:
        return None
    name = _cls(call)
    if _is_classifier(name):
        if name == "LogisticRegression":
            return None
        return _imports(
            _replace(src, call, "LogisticRegression(max_iter=1000)"),
            "from sklearn.linear_model import LogisticRegression",
        )
    if name in ("Ridge", "LinearRegression"):
        return None
    return _imports(_replace(src, call, "Ridge()"), "from sklearn.linear_model import Ridge")


def _drop_member(src: str) -> str | None:
    """The last estimator of a voting/stacking ensemble's list removed."""
    tree = _parse(src)
    if tree is None:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and re.search(r"Voting|Stacking", _cls(n)):
            est = _kwargs(n).get("estimators") or (n.args[0] if n.args else None)
            if isinstance(est, ast.List) and len(est.elts) > 2:
                return _replace(src, est.elts[-1], "").replace(", ]", "]").replace(",]", "]")
    return None


_ABLATIONS: dict[str, tuple[tuple[str, Edit], ...]] = {
    "model": (
        ("model with default settings", _default_model),
        ("a linear model instead", _linear_model),
        ("drop an ensemble member", _drop_member),
        ("pipeline step off", _passthrough_step),
        ("shorter training", _number(r"\b(?:n_|num_)?epochs\s*=\s*(\d+)", 0.25)),
        ("narrower network", _number(r"\bhidden\w*\s*=\s*(\d+)", 0.25)),
    ),
    "train": (("shorter training", _number(r"\b(?:n_|num_)?epochs\s*=\s*(\d+)", 0.25)),),
    "features": (
        ("without the engineered feature group", _drop_feature_group),
        ("default vectorizer", lambda s: _vectorizer_defaults(s)),
    ),
    "preprocess": (
        ("preprocessing step off", lambda s: _drop_preprocessing(s) or _passthrough_step(s)),
    ),
}


def _vectorizer_defaults(src: str) -> str | None:
    tree = _parse(src)
    if tree is None:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and VECTORIZER_RE.search(_cls(n)) and n.keywords:
            return _with_kwargs(src, n, {k: None for k in _kwargs(n)})  # type: ignore[arg-type]
    return None


_ADOPT: tuple[Strategy, ...] = (
    Strategy(
        "default_settings",
        "Use the model's library defaults (the ablation measured them better than these settings).",
        _default_model,
    ),
    Strategy(
        "swap_linear",
        "Swap the model for a linear one (the ablation measured it better).",
        _linear_model,
    ),
    Strategy(
        "shorter_training",
        "Train for a quarter of the epochs (the ablation measured it better).",
        _number(r"\b(?:n_|num_)?epochs\s*=\s*(\d+)", 0.25),
    ),
    Strategy(
        "narrower_network",
        "A narrower network (the ablation measured it better).",
        _number(r"\bhidden\w*\s*=\s*(\d+)", 0.25),
    ),
    Strategy(
        "default_vectorizer",
        "The vectorizer's defaults (the ablation measured them better).",
        lambda s: _vectorizer_defaults(s),
    ),
)
# an ablation that scored better than the original suggests adopting its change
ADOPT_ABLATION = {
    "model with default settings": "default_settings",
    "a linear model instead": "swap_linear",
    "shorter training": "shorter_training",
    "narrower network": "narrower_network",
    "default vectorizer": "default_vectorizer",
    "without the engineered feature group": "drop_feature_group",
    "preprocessing step off": "drop_preprocessing",
}


def ablations(part: Part) -> list[tuple[str, str]]:
    """(name, the part's ablated source) for every ablation that applies to ``part``."""
    out = []
    for name, edit in _ABLATIONS.get(part.role, ()):
        new = edit(part.source)
        if new is not None and new.strip() != part.source.strip() and _parse(new) is not None:
            out.append((name, new))
    return out


def apply(nb: SolutionNotebook, part: Part, new: str, origin: str) -> SolutionNotebook:
    """``nb`` with ``part`` replaced by ``new``."""
    if part.fragment is None:
        return nb.replace_block(part.block_id, new, origin=origin)
    return nb.replace_in_block(part.block_id, part.fragment, new, origin=origin)


_CSV_WRITE = re.compile(r"""\.to_csv\(\s*(["'])(?!final/|\./final/)([^"'/]*\.csv)\1""")


def final_outputs(nb: SolutionNotebook) -> SolutionNotebook:
    """``nb`` with the CSV files its cells write (``df.to_csv("submission.csv")``) written
    under ``./final/`` instead, where the run picks the submission up."""
    out = nb
    for b in nb.code_blocks:
        new = _CSV_WRITE.sub(
            lambda m: f".to_csv({m.group(1)}final/{m.group(2)}{m.group(1)}", b.source
        )
        if new != b.source:
            new = 'import os\n\nos.makedirs("final", exist_ok=True)\n' + new
            out = out.replace_block(b.id, new, origin="offline:submission")
    return out


__all__ = [
    "final_outputs",
    "Part",
    "Strategy",
    "ablations",
    "applicable",
    "apply",
    "parts",
    "strategies",
]
