"""What each code cell of a plain notebook does, read from its syntax tree (no tags needed).

Every top-level statement gets a role from what it imports, reads, defines, fits and writes:
``load`` (reads files), ``preprocess`` (imputers, scalers, encoders, ``fillna``), ``features``
(new columns, vectorizers, a hand-picked choice of columns: ``X = df[["age", "fare"]]``), ``model`` (an estimator's constructor, a torch module), ``train``
(``fit``, ``lgb.train``, a loop calling ``backward()``), ``subsample`` (the validation split),
``evaluate`` (a metric), ``predict`` and ``submission`` (``to_csv``).  Consecutive statements with
one role form a :class:`Segment`; a cell with several refinable segments is *mixed*, and the
agent may refine one segment of it (the paper's extractor picks "a part of a cell").

:func:`analyze` also finds the target column, the validation split, the metric calls, the
estimators with their constructor calls and the fits.  :func:`tag_roles` writes the inferred
role of every untagged cell into its metadata; a role a person set (any role but ``other``) wins.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .code_vocabulary import (
    ESTIMATOR_RE,
    LOAD_CALLS,
    METRIC_FUNCS,
    PREPROCESS_CALLS,
    SPLIT_CALLS,
    TRANSFORMER_RE,
    VECTORIZER_RE,
)
from .code_vocabulary import assigned as _assigned
from .code_vocabulary import call_name as _name
from .code_vocabulary import calls as _calls
from .code_vocabulary import cv_call_parts as _cv_call_parts
from .code_vocabulary import new_column as _new_column
from .code_vocabulary import receiver as _base
from .solution import META, SolutionNotebook

__all__ = [
    "ESTIMATOR_RE",
    "METRIC_FUNCS",
    "NOT_FEATURE_WORDS",
    "REFINABLE_ROLES",
    "TRANSFORMER_RE",
    "VECTORIZER_RE",
    "Analysis",
    "CellRoles",
    "Estimator",
    "Fit",
    "MetricCall",
    "Segment",
    "analyze",
    "tag_roles",
]

REFINABLE_ROLES = ("model", "features", "preprocess", "train")
_PRIORITY = (
    "model",
    "train",
    "features",
    "preprocess",
    "evaluate",
    "subsample",
    "predict",
    "submission",
    "load",
    "setup",
    "other",
)

_SCORE_LINE = "Final Validation Performance"


@dataclass(frozen=True)
class Segment:
    """Consecutive top-level statements of one cell sharing a role (lines are 1-based, inclusive)."""

    role: str
    start: int
    end: int
    source: str


@dataclass(frozen=True)
class CellRoles:
    """One code cell's inferred role and its segments."""

    block_id: str
    role: str
    segments: tuple[Segment, ...]
    tagged: bool = False  # the role came from the cell's metadata, not from its code

    @property
    def mixed(self) -> bool:
        """More than one refinable role in the cell."""
        return len({s.role for s in self.segments if s.role in REFINABLE_ROLES}) > 1


@dataclass(frozen=True)
class Estimator:
    """An estimator built by a constructor call, e.g. ``model = RandomForestClassifier(...)``."""

    block_id: str
    var: str
    cls: str
    call: str  # the constructor call's exact source
    lineno: int


@dataclass(frozen=True)
class Fit:
    """``var.fit(args...)`` (or ``var = lgb.train(...)``, or a torch loop calling ``backward``)."""

    block_id: str
    var: str
    args: tuple[str, ...]
    lineno: int
    scope: str = ""  # the function it is inside ("" at the notebook's top level)
    # the collection a loop takes ``var`` from (``for name, model in models.items()``: the
    # notebook compares the models of ``models``); "" when ``var`` is no loop's element
    over: str = ""
    # ``cross_val_score(var, X, y)`` (or ``cross_validate``, ``cross_val_predict``): copies of
    # ``var`` (a name, or the constructor call written there) are fitted, ``var`` itself is not
    cross_validated: bool = False
    # ``model = train_model(X, y)``: the notebook's function that fitted and returned it
    returned_by: str = ""


@dataclass(frozen=True)
class MetricCall:
    """A call to a known metric function such as ``accuracy_score(y_val, pred)``: its block,
    the function's name, each argument's source and the whole call's source."""

    block_id: str
    func: str
    args: tuple[str, ...]
    source: str
    scope: str = ""  # the function it is inside ("" at the notebook's top level)
    position: tuple[int, int] = (0, 0)  # (line, column) of the call in its cell
    # a helper of the notebook's called (``score(y_val, pred)``): the settings it gives the
    # metric function (``average='macro'``), which the call's own source does not show
    settings: str = ""


@dataclass(frozen=True)
class Analysis:
    """What a notebook does: roles per cell, target, split, metrics, estimators and fits."""

    cells: tuple[CellRoles, ...]
    target: str | None
    split: tuple[str, tuple[str, ...]] | None  # (block id, assigned names) of train_test_split
    metrics: tuple[MetricCall, ...]
    estimators: tuple[Estimator, ...]
    fits: tuple[Fit, ...]  # in reading order (cell, then line)
    prints_score: bool  # already prints "Final Validation Performance"
    syntax_errors: tuple[str, ...] = ()

    def cell(self, block_id: str) -> CellRoles:
        """The roles of one cell (``KeyError`` for an unknown block)."""
        for c in self.cells:
            if c.block_id == block_id:
                return c
        raise KeyError(block_id)

    @property
    def has_fit(self) -> bool:
        """Whether any cell fits a model (``.fit``, ``lgb.train``, a torch loop)."""
        return bool(self.fits)

    def segments(self, roles: tuple[str, ...] = REFINABLE_ROLES) -> list[tuple[str, Segment]]:
        """(block id, segment) for every segment with one of ``roles``, in notebook order."""
        return [(c.block_id, s) for c in self.cells for s in c.segments if s.role in roles]


# ---------------------------------------------------------------------- statements
# keys of a dict that holds a booster's parameters (``params = {"objective": ..., ...}``)
_BOOSTER_KEYS = frozenset({"objective", "learning_rate", "num_leaves", "max_depth", "n_estimators"})


def _stmt_role(node: ast.stmt, kinds: dict[str, str]) -> str:
    """The role of one top-level statement; ``kinds`` maps variables to estimator/transformer."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return "setup"
    if isinstance(node, ast.ClassDef):
        bases = {_name(b) for b in node.bases}
        return "model" if bases & {"Module", "nn.Module"} else "setup"
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        roles = [_stmt_role(s, kinds) for s in node.body]
        inner = [r for r in roles if r not in ("other", "setup")]
        return min(inner, key=_PRIORITY.index) if inner else "setup"
    if isinstance(node, ast.For | ast.While | ast.With | ast.If | ast.Try):
        # a loop over folds that builds, fits and scores a model is the model's part, not an
        # evaluation: its statements' roles decide (the most refinable one)
        inner = [
            r for r in (_stmt_role(s, kinds) for s in node.body) if r not in ("other", "setup")
        ]
        if inner and min(inner, key=_PRIORITY.index) in ("model", "train"):
            return min(inner, key=_PRIORITY.index)
    calls = _calls(node)
    names = {_metric_name(c.func, kinds) for c in calls}
    text = ast.unparse(node)
    for c in calls:  # cross_val_score(RandomForestClassifier(...), X, y): the model is built here
        cv = _cv_call_parts(c)
        if cv and isinstance(cv[0], ast.Call) and ESTIMATOR_RE.search(_name(cv[0].func)):
            return "model"
    if _SCORE_LINE in text or names & METRIC_FUNCS:
        return "evaluate"
    if "to_csv" in names:
        return "submission"
    if names & {"backward", "train"} or (isinstance(node, ast.For | ast.While) and "step" in names):
        return "train"
    if any(kinds.get(n) == _FITS for n in names):  # results[name] = train_and_evaluate(model)
        return "train"
    for c in calls:
        if isinstance(c.func, ast.Attribute) and c.func.attr == "fit":
            built = c.func.value  # Model(...).fit(X, y): the model is built in this statement
            if isinstance(built, ast.Call) and ESTIMATOR_RE.search(_name(built.func)):
                return "model"
            kind = kinds.get(_base(c.func.value), "estimator")
            return "preprocess" if kind == "transformer" else "train"
    if names & SPLIT_CALLS:
        return "subsample"
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
        cls = _name(node.value.func)
        if ESTIMATOR_RE.search(cls) or kinds.get(cls) == "module":
            return "model"
        if VECTORIZER_RE.search(cls):
            return "features"
        if TRANSFORMER_RE.search(cls):
            return "preprocess"
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict | ast.List | ast.Tuple):
        # models = {"Random Forest": RandomForestClassifier(), ...}: a notebook comparing models
        if any(
            isinstance(c, ast.Call) and ESTIMATOR_RE.search(_name(c.func))
            for c in ast.walk(node.value)
        ):
            return "model"
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
        keys = {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
        if keys & _BOOSTER_KEYS:
            return "model"
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
        # params = dict(objective="regression", num_leaves=7): a booster's parameters too
        if _name(node.value.func) == "dict" and {k.arg for k in node.value.keywords} & (
            _BOOSTER_KEYS
        ):
            return "model"
    if names & {"predict", "predict_proba", "argmax"}:
        return "predict"
    if names & LOAD_CALLS or any(n.startswith("load_") for n in names):
        return "load"
    if any(
        VECTORIZER_RE.search(n) or n in ("fit_transform", "transform") and "vec" in text.lower()
        for n in names
    ):
        return "features"
    if (
        names & PREPROCESS_CALLS
        or any(TRANSFORMER_RE.search(n) for n in names)
        or (names & {"fit_transform", "transform"})
    ):
        return "preprocess"
    if _new_column(node):
        return "features"
    dropped = _drops_from_itself(node)
    if dropped:
        return dropped
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
        return "setup"
    if isinstance(node, ast.For | ast.While | ast.With | ast.If | ast.Try):
        inner = [
            r for r in (_stmt_role(s, kinds) for s in node.body) if r not in ("other", "setup")
        ]
        return min(inner, key=_PRIORITY.index) if inner else "other"
    if _picks_columns(node):
        return "features"
    return "other"


def _drops_from_itself(node: ast.stmt) -> str:
    """A table's cleanup by ``drop``: ``train = train.drop(columns=["Name"])``, ``df =
    df.drop(["a"], axis=1)``, ``df.drop("id", axis=1, inplace=True)`` (the table itself
    changed, not ``X = df.drop(columns=[target])``, which takes the features from it).  Columns
    dropped are a choice of features (``features``); rows dropped (``df.drop(index=...)``,
    ``df.drop(df[df.x > 5].index)``) a cleaning of the data (``preprocess``); ``""`` else."""
    value = node.value if isinstance(node, ast.Assign | ast.Expr) else None
    if not (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "drop"
    ):
        return ""
    kw = {k.arg: k.value for k in value.keywords if k.arg}
    table = ast.unparse(value.func.value)
    if isinstance(node, ast.Assign):
        if [ast.unparse(t) for t in node.targets] != [table]:
            return ""
    else:
        inplace = kw.get("inplace")
        if not (isinstance(inplace, ast.Constant) and inplace.value is True):
            return ""
    axis = kw.get("axis", value.args[1] if len(value.args) > 1 else None)
    by_columns = "columns" in kw or (
        isinstance(axis, ast.Constant) and axis.value in (1, "columns")
    )
    return "features" if by_columns else "preprocess"


# words of a name that say its list of column names is no choice of features (drop_cols,
# excluded, target_cols, ...); the offline refiner's column strategy reads them too
NOT_FEATURE_WORDS = frozenset(
    "drop dropped exclude excluded ignore ignored remove removed skip leak leaky "
    "target targets id ids label labels y".split()
)
_FEATURE_LIST_NAME = re.compile(r"feat|col|predictor|input|var|attr|field", re.I)


def _strings(node: ast.expr, least: int) -> bool:
    """A list or tuple of at least ``least`` string literals."""
    return (
        isinstance(node, ast.List | ast.Tuple)
        and len(node.elts) >= least
        and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    )


def _picks_columns(node: ast.stmt) -> bool:
    """A hand-picked choice of the table's columns as features: ``X = df[["age", "fare"]]``, or
    ``features = ["age", "fare"]`` (a name that says columns or features).  Not a target's, an
    id's or a drop list (``drop_cols = [...]``, ``y = df[["a"]]``)."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return False
    target = node.targets[0]
    name = target.id if isinstance(target, ast.Name) else ""
    if not name or set(re.findall(r"[a-z]+", name.lower())) & NOT_FEATURE_WORDS:
        return False
    value = node.value
    if isinstance(value, ast.Subscript) and _strings(value.slice, 1):
        return True  # df[["a", "b"]]: a table of the chosen columns
    return _strings(value, 2) and _FEATURE_LIST_NAME.search(name) is not None


_METRIC_ALIAS = "metric:"  # a kind: the name a metric function is imported as
# a kind: the name a split is imported as (``from sklearn.model_selection import
# train_test_split as tts``: ``tts`` is ``call:train_test_split``)
_CALL_ALIAS = "call:"
# a key of ``_kinds``' map (this prefix and a metric helper's name): the settings the helper
# passes its metric function (``def f1(y, p): return f1_score(y, p, average="macro")``:
# ``average='macro'``)
_SETTINGS = "settings:"


def _kinds(tree: ast.Module) -> dict[str, str]:
    """Variables built by a constructor: estimator, transformer; classes deriving nn.Module;
    metric functions under a name of the notebook's (``from sklearn.metrics import
    mean_squared_error as mse``: ``mse`` is ``metric:mean_squared_error``; a helper returning
    one, ``def rmse(y, p): return np.sqrt(mean_squared_error(y, p))``, is
    ``metric:root_mean_squared_error``, and the settings it passes it, under ``settings:``
    and its name); a split under a name of the notebook's (``train_test_split as tts``)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sklearn"):
            for alias in node.names:
                if alias.asname and alias.name in METRIC_FUNCS:
                    out[alias.asname] = _METRIC_ALIAS + alias.name
                elif alias.asname and alias.name in SPLIT_CALLS:
                    out[alias.asname] = _CALL_ALIAS + alias.name
        if isinstance(node, ast.FunctionDef):
            wrapped = _wrapped_metric(node)
            if wrapped:
                out[node.name] = _METRIC_ALIAS + wrapped[0]
                if wrapped[1]:
                    out[_SETTINGS + node.name] = wrapped[1]
            elif _fits_a_model(node):
                out[node.name] = _FITS
        if isinstance(node, ast.ClassDef) and any(_name(b) == "Module" for b in node.bases):
            out[node.name] = "module"
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            cls = _name(node.value.func)
            kind = (
                "transformer"
                if TRANSFORMER_RE.search(cls) or VECTORIZER_RE.search(cls)
                else "estimator"
                if ESTIMATOR_RE.search(cls)
                else ""
            )
            for n in _assigned(node):
                if kind:
                    out[n] = kind
    return out


_FITS = "fits"  # a kind: a function of the notebook that fits a model (``train_and_evaluate``)


def _fits_a_model(fn: ast.FunctionDef) -> bool:
    """Whether the function fits a model: ``model.fit(X, y)`` (rows and labels: a scaler's
    ``fit(X)`` is none) or a torch step, ``loss.backward()``."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "fit" and len(node.args) >= 2:
                return True
            if node.func.attr == "backward":
                return True
    return False


# the root of a squared error is a metric function of its own (that of the log error is read
# as the RMSLE either way)
_ROOTED = {"mean_squared_error": "root_mean_squared_error"}


def _wrapped_metric(fn: ast.FunctionDef) -> tuple[str, str] | None:
    """The metric function a helper of the notebook computes of its first two parameters, in
    their order (``def rmse(y_true, y_pred): return np.sqrt(mean_squared_error(y_true,
    y_pred))``: ``root_mean_squared_error``), and the settings it gives it, constants only
    (``def score(y, p): return f1_score(y, p, average="macro")``: ``average='macro'``; macro F1
    is not the binary F1), else ``None``."""
    body = [
        s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or len(params) < 2:
        return None
    value, rooted = body[0].value, False
    if isinstance(value, ast.Call) and _name(value.func) == "sqrt" and len(value.args) == 1:
        value, rooted = value.args[0], True
    elif (
        isinstance(value, ast.BinOp)
        and isinstance(value.op, ast.Pow)
        and isinstance(value.right, ast.Constant)
        and value.right.value == 0.5
    ):
        value, rooted = value.left, True
    if not isinstance(value, ast.Call):
        return None
    if not all(k.arg and isinstance(k.value, ast.Constant) for k in value.keywords):
        return None  # **kwargs, or a setting read from a parameter: not one metric
    func = _name(value.func)
    if func not in METRIC_FUNCS or func.startswith("cross_val"):
        return None
    if [ast.unparse(a) for a in value.args] != params[:2]:
        return None
    settings = ", ".join(f"{k.arg}={ast.unparse(k.value)}" for k in value.keywords)
    return (_ROOTED.get(func, func) if rooted else func), settings


def _metric_name(func: ast.expr, kinds: dict[str, str]) -> str:
    """The name of the function a call calls (``_name``), or, for a plain name that stands for
    a metric function (``mse``, a helper ``rmse``) or a split (``tts``), that function's; a
    method of the same name (``model.score``) is the method."""
    name = _name(func)
    kind = kinds.get(name, "") if isinstance(func, ast.Name) else ""
    for alias in (_METRIC_ALIAS, _CALL_ALIAS):
        if kind.startswith(alias):
            return kind.removeprefix(alias)
    return name


_SUBMISSION_NAME = re.compile(r"sub|sample|pred|output|result|answer", re.I)


def _written_tables(tree: ast.Module) -> set[str]:
    """Names of the tables this cell writes as a submission (``sub.to_csv("submission.csv")``:
    a file or a table whose name says so, not ``train.to_csv("train_fe.csv")``)."""
    out: set[str] = set()
    for c in _calls(tree):
        if isinstance(c.func, ast.Attribute) and c.func.attr in ("to_csv", "to_parquet"):
            table = _base(c.func.value)
            where = ast.unparse(c.args[0]) if c.args else ""
            if _SUBMISSION_NAME.search(where) or _SUBMISSION_NAME.search(table):
                out.add(table)
    return out


def _fills_written_table(node: ast.stmt, written: set[str]) -> bool:
    """``sub["col"] = ...`` where ``sub`` is a table the cell writes to a file."""
    if not isinstance(node, ast.Assign) or not written:
        return False
    return all(isinstance(t, ast.Subscript) and _base(t.value) in written for t in node.targets)


def _segments(source: str, tree: ast.Module, kinds: dict[str, str]) -> list[Segment]:
    lines = source.splitlines()
    raw: list[tuple[str, int, int]] = []
    written = _written_tables(tree)
    for node in tree.body:
        role = _stmt_role(node, kinds)
        if role == "features" and _fills_written_table(node, written):
            # sub["target"] = preds; sub.to_csv(...): the submission's column, not a feature
            role = "submission"
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        raw.append((role, start, node.end_lineno or node.lineno))
    # statements without a role of their own (imports, prints, constants) join a neighbour
    merged: list[list[object]] = []
    for role, a, b in raw:
        if merged and (role in ("other", "setup") or merged[-1][0] == role):
            merged[-1][2] = b
        elif merged and merged[-1][0] in ("other", "setup") and role not in ("other", "setup"):
            merged[-1][0], merged[-1][2] = role, b
        else:
            merged.append([role, a, b])
    return [
        Segment(str(r), int(str(a)), int(str(b)), "\n".join(lines[int(str(a)) - 1 : int(str(b))]))
        for r, a, b in merged
    ]


# ---------------------------------------------------------------------- facts
# the target read by position (``y = df.iloc[:, -1]``): the training table's last column
LAST_COLUMN = "\x00last column"
# attributes of a table or an array that are not one of its columns (``fit(X, y.values)``)
_NOT_COLUMNS = frozenset(
    {"values", "T", "array", "data", "index", "columns", "shape", "iloc", "loc"}
)
# names of modules whose attributes are constants or functions, never a table's columns
_MODULES = frozenset({"np", "numpy", "pd", "pandas", "math", "torch", "tf", "scipy", "sp"})


def _text_constants(trees: list[ast.Module]) -> dict[str, str]:
    """Top-level ``NAME = "text"`` assignments of the notebook (``TARGET = "SalePrice"``)."""
    out: dict[str, str] = {}
    for tree in trees:
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                if isinstance(node.value.value, str):
                    for t in node.targets:
                        if isinstance(t, ast.Name):
                            out[t.id] = node.value.value
    return out


def _text(node: ast.AST | None, consts: dict[str, str]) -> str | None:
    """The text ``node`` spells: a string literal, or a name bound to one in ``consts``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    return None


def _column(node: ast.AST | None, consts: dict[str, str]) -> str | None:
    """The column ``table["col"]`` (or ``table[TARGET]``) selects; ``LAST_COLUMN`` for
    ``df.iloc[:, -1]`` or ``arr[:, -1]`` (a course notebook's target, by position)."""
    if not isinstance(node, ast.Subscript):
        return None
    sl = node.slice
    if (
        isinstance(sl, ast.Tuple)
        and len(sl.elts) == 2
        and isinstance(sl.elts[0], ast.Slice)
        and sl.elts[0].lower is None
        and sl.elts[0].upper is None
        and ast.unparse(sl.elts[1]) == "-1"
    ):
        return LAST_COLUMN
    return _text(sl, consts)


# statsmodels' formula API: ``smf.ols("price ~ area + rooms", data=df)``
_FORMULA_CALLS = frozenset({"ols", "logit", "probit", "glm", "poisson", "mnlogit", "quantreg"})


def _target(
    tree: ast.Module, consts: dict[str, str] | None = None, kinds: dict[str, str] | None = None
) -> str | None:
    """The target column this cell names: the labels given to ``train_test_split``, what ``y``
    (``target``, ``labels`` ...) is assigned, a fit's or a cross-validation's labels
    (``consts``: the notebook's text constants, for ``df[TARGET]``; ``kinds``: ``_kinds``, for
    a split under a name of the notebook's); a dropped column is only ``_dropped_column``'s
    weaker guess."""
    consts, kinds = consts or {}, kinds or {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _metric_name(node.func, kinds) == "train_test_split":
            col = _column(node.args[1], consts) if len(node.args) >= 2 else None
            if col:
                return col
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and {"y", "y_train", "target", "labels", "y_all"} & set(
            _assigned(node)
        ):
            called = {id(n.func) for n in ast.walk(node.value) if isinstance(n, ast.Call)}
            for n in ast.walk(node.value):
                col = _column(n, consts)
                if col:
                    return col
                if isinstance(n, ast.Call) and _name(n.func) == "pop" and n.args:
                    col = _text(n.args[0], consts)
                    if col:
                        return col
                if (  # y = np.log(train.SalePrice + 1): a table's attribute, not a function
                    isinstance(n, ast.Attribute)
                    and isinstance(n.value, ast.Name)
                    and id(n) not in called
                    and n.value.id not in _MODULES
                    and n.attr not in _NOT_COLUMNS
                ):
                    return n.attr  # a column only if the table has it: the importer checks
    for node in ast.walk(tree):  # model.fit(X, train["col"]), cross_val_score(m, X, df.col)
        if not isinstance(node, ast.Call):
            continue
        formula = _text(node.args[0], consts) if node.args else None
        if _name(node.func) in _FORMULA_CALLS and formula and "~" in formula:
            left = formula.split("~", 1)[0].strip()
            if left.isidentifier():
                return left
        cv = _cv_call_parts(node)
        fit = _name(node.func) == "fit" and len(node.args) >= 2
        y = cv[2] if cv else node.args[1] if fit else None
        col = _column(y, consts)
        if col:
            return col
        if (
            isinstance(y, ast.Attribute)
            and isinstance(y.value, ast.Name)
            and y.attr not in _NOT_COLUMNS
        ):
            return y.attr  # a column only if the table has it: the importer checks
    return None


def _dropped_column(tree: ast.Module, consts: dict[str, str] | None = None) -> str | None:
    """The weakest sign of a target: a column a cell drops (``X = df.drop(columns=["price"])``);
    a notebook also drops ids and useless columns (``df.drop(["Name"], axis=1)``), so a column
    another cell names as its labels (``y = df["Survived"]``) wins over it, whichever comes
    first."""
    consts = consts or {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) == "drop":
            for a in [*node.args, *(k.value for k in node.keywords)]:
                for c in ast.walk(a):
                    col = _text(c, consts)
                    if col and col.lower() not in ("id", "columns", "index"):
                        return col
    return None


def analyze(nb: SolutionNotebook) -> Analysis:
    """Roles, segments and facts of every code cell of ``nb`` (cells that do not parse are
    one ``other`` segment and are named in ``syntax_errors``)."""
    trees: dict[str, ast.Module] = {}
    errors = []
    for b in nb.code_blocks:
        try:
            trees[b.id] = ast.parse(strip_magics(b.source))
        except SyntaxError as e:
            errors.append(f"{b.id}: line {e.lineno}: {e.msg}")
    kinds: dict[str, str] = {}
    for t in trees.values():
        kinds.update(_kinds(t))
    consts = _text_constants(list(trees.values()))
    cells, metrics, estimators, fits = [], [], [], []
    split: tuple[str, tuple[str, ...]] | None = None
    target: str | None = None
    dropped: str | None = None  # a dropped column: the target only if no cell names one
    prints = False
    for b in nb.code_blocks:
        tree = trees.get(b.id)
        # a person's tag wins; a role this module inferred earlier (``tag_roles``) is inferred
        # again from the code as it is now, so a mixed cell keeps its parts
        inferred = nb.cell(b.id).metadata.get(META, {}).get("inferred", False)
        tag = b.role if b.role != "other" and not inferred else None
        if tree is None:
            cells.append(CellRoles(b.id, tag or "other", (), tagged=tag is not None))
            continue
        segs = _segments(strip_magics(b.source), tree, kinds)
        if tag is not None:
            n = len(b.source.splitlines())
            segs = [Segment(tag, 1, max(n, 1), b.source)]
        role = tag or (min((s.role for s in segs), key=_PRIORITY.index) if segs else "other")
        cells.append(CellRoles(b.id, role, tuple(segs), tagged=tag is not None))
        prints = prints or _SCORE_LINE in b.source
        target = target or _target(tree, consts, kinds)
        dropped = dropped or _dropped_column(tree, consts)
        chained: dict[int, str] = {}  # clf = Model(...).fit(X, y): the fit call -> "clf"
        scope = _scopes(tree)  # node id -> the function it is inside (its names are local)
        loops = _loop_elements(tree)  # node id -> (element name, collection) of its for loop
        for node in ast.walk(tree):
            where = scope.get(id(node), "")
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                cls = _name(node.value.func)
                names = _assigned(node)
                if cls == "fit" and names and isinstance(node.value.func, ast.Attribute):
                    if isinstance(node.value.func.value, ast.Call):  # fit returns the model
                        chained[id(node.value)] = names[0]
                if names and (ESTIMATOR_RE.search(cls) or kinds.get(cls) == "module"):
                    estimators.append(
                        Estimator(b.id, names[0], cls, ast.unparse(node.value), node.lineno)
                    )
                split_call = _metric_name(node.value.func, kinds) == "train_test_split"
                if split_call and len(names) >= 4 and not where:
                    split = (b.id, tuple(names))
                if cls == "train" and _base(node.value.func) in ("lgb", "lightgbm", "xgb"):
                    fits.append(Fit(b.id, names[0], (), node.lineno, where))
            if isinstance(node, ast.Call):
                fn = _metric_name(node.func, kinds)
                if fn in METRIC_FUNCS:
                    helper = node.func.id if isinstance(node.func, ast.Name) else ""
                    metrics.append(
                        MetricCall(
                            b.id,
                            fn,
                            tuple(ast.unparse(a) for a in node.args),
                            ast.unparse(node),
                            where,
                            (node.lineno, node.col_offset),
                            kinds.get(_SETTINGS + helper, "") if helper else "",
                        )
                    )
                if isinstance(node.func, ast.Attribute) and fn == "fit":
                    var = chained.get(id(node)) or _base(node.func.value)
                    if kinds.get(var, "estimator") != "transformer" and var:
                        element, collection = loops.get(id(node), ("", ""))
                        fits.append(
                            Fit(
                                b.id,
                                var,
                                tuple(ast.unparse(a) for a in node.args),
                                node.lineno,
                                where,
                                collection if element == var else "",
                            )
                        )
                cv = _cv_call_parts(node)
                if cv is not None:
                    est = ast.unparse(cv[0])
                    element, collection = loops.get(id(node), ("", ""))
                    fits.append(
                        Fit(
                            b.id,
                            est,
                            (ast.unparse(cv[1]), ast.unparse(cv[2])),
                            node.lineno,
                            where,
                            collection if element == est else "",
                            cross_validated=True,
                        )
                    )
                if fn == "backward":
                    fits.append(Fit(b.id, "", (), node.lineno, where))
    fits += _returned_fits(trees, fits) + _looped_fits(trees, fits)
    order = {c.block_id: i for i, c in enumerate(cells)}
    metrics.sort(key=lambda m: (order.get(m.block_id, 0), m.position))  # reading order
    # reading order too: a fit a function's call makes (``_returned_fits``, ``_looped_fits``)
    # where it is called, a loop's fit above a later line of its cell ("the last fit" is the last)
    fits.sort(key=lambda f: (order.get(f.block_id, 0), f.lineno))
    return Analysis(
        tuple(cells),
        target or dropped,
        split,
        tuple(metrics),
        tuple(estimators),
        tuple(fits),
        prints,
        tuple(errors),
    )


def _returned_fits(trees: dict[str, ast.Module], fits: list[Fit]) -> list[Fit]:
    """``model = train_model(X_tr, y_tr)`` at a notebook's top level, where ``train_model`` is
    one of its functions that fits a model and returns a value: ``model`` is a fitted model of
    the top level, fitted on the call's arguments (``returned_by`` names the function)."""
    fitting = {f.scope for f in fits if f.scope and f.var}
    if not fitting:
        return []
    returning = {
        fn.name
        for t in trees.values()
        for fn in ast.walk(t)
        if isinstance(fn, ast.FunctionDef)
        and fn.name in fitting
        and any(isinstance(r, ast.Return) and r.value is not None for r in ast.walk(fn))
    }
    out = []
    for block_id, tree in trees.items():
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id in returning
            ):
                args = tuple(ast.unparse(a) for a in node.value.args)
                var = node.targets[0].id
                out.append(Fit(block_id, var, args, node.lineno, returned_by=node.value.func.id))
    return out


def _looped_fits(trees: dict[str, ast.Module], fits: list[Fit]) -> list[Fit]:
    """``for name, model in models.items(): results[name] = train_and_evaluate(model, name)`` at
    a notebook's top level, where ``train_and_evaluate`` is one of its functions that fits its
    parameter ``model``: each model of ``models`` is fitted as the function fits it, on rows a
    cell after the loop can name (the fit's arguments with the parameters read from the call;
    none when they read the function's own names: ``X.iloc[tr]`` in a loop over folds)."""
    params: dict[str, list[str]] = {}
    bound: dict[str, set[str]] = {}  # the names each function assigns itself
    for t in trees.values():
        for fn in ast.walk(t):
            if isinstance(fn, ast.FunctionDef):
                params[fn.name] = [a.arg for a in fn.args.posonlyargs + fn.args.args]
                bound[fn.name] = {
                    n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not _loaded(n)
                }
    fitting = [f for f in fits if f.scope and f.var and f.var in params.get(f.scope, ())]
    out = []
    for block_id, tree in trees.items():
        loops, scopes = _loop_elements(tree), _scopes(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            element, collection = loops.get(id(node), ("", ""))
            if not element or id(node) in scopes:
                continue
            names = params.get(node.func.id, [])
            given = dict(zip(names, node.args, strict=False))
            given.update({k.arg: k.value for k in node.keywords if k.arg})
            for f in fitting:
                if f.scope != node.func.id or _source(given.get(f.var)) != element:
                    continue
                read = [_with_arguments(a, given, names, bound[f.scope]) for a in f.args]
                args = tuple(a for a in read if a is not None)
                if len(args) == len(read):
                    out.append(Fit(block_id, element, args, node.lineno, "", collection))
    return out


def _loaded(name: ast.Name) -> bool:
    """Whether ``name`` is read, not assigned or deleted."""
    return isinstance(name.ctx, ast.Load)


def _source(node: ast.expr | None) -> str:
    """The source of ``node`` (``""`` for none)."""
    return ast.unparse(node) if node is not None else ""


def _with_arguments(
    arg: str, given: dict[str, ast.expr], params: list[str], local: set[str]
) -> str | None:
    """The fit's argument ``arg`` (source inside the function) as the caller's code: its
    parameters replaced by what the call gives them; ``None`` when it reads a name the function
    assigns, or a parameter the call leaves at its default."""
    try:
        tree = ast.parse(arg, mode="eval")
    except SyntaxError:
        return None
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    if used & (local - set(params)) or any(n in params and n not in given for n in used):
        return None

    class _Given(ast.NodeTransformer):
        """Each parameter replaced by the expression the call gives it."""

        def visit_Name(self, node: ast.Name) -> ast.expr:
            """The call's expression for a parameter, else the name itself."""
            return given.get(node.id, node) if node.id in params else node

    return ast.unparse(_Given().visit(tree))


def _loop_elements(tree: ast.Module) -> dict[int, tuple[str, str]]:
    """For every node inside a ``for`` loop over a collection of models: the loop's element
    name and the collection (``for name, model in models.items()``, ``for model in
    models.values()``, ``for model in models``, ``for name, model in pairs``), by node id; the
    innermost loop wins."""
    out: dict[int, tuple[str, str]] = {}
    for loop in ast.walk(tree):
        if not isinstance(loop, ast.For):
            continue
        it, target = loop.iter, loop.target
        pair = (
            isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and isinstance(target.elts[1], ast.Name)
        )
        element = ""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args:
            collection = ast.unparse(it.func.value)
            if it.func.attr == "items" and pair:
                element = target.elts[1].id  # type: ignore[attr-defined]
            elif it.func.attr == "values" and isinstance(target, ast.Name):
                element = target.id
        elif isinstance(it, ast.Name | ast.Attribute | ast.Subscript):
            collection = ast.unparse(it)
            if isinstance(target, ast.Name):
                element = target.id
            elif pair:
                element = target.elts[1].id  # type: ignore[attr-defined]
        if element:
            for node in ast.walk(loop):
                out[id(node)] = (element, collection)  # walked outer first: inner overwrites
    return out


def _scopes(tree: ast.Module) -> dict[int, str]:
    """For every node inside a function (or lambda) of ``tree``: that function's name (the
    innermost one), by node id; nodes at the top level are not in it."""
    owner: dict[int, str] = {}
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            name = getattr(fn, "name", "<lambda>")
            for node in ast.walk(fn):
                if node is not fn:
                    owner[id(node)] = name  # walked outer first: an inner function overwrites
    return owner


def strip_magics(source: str) -> str:
    """IPython lines (``%matplotlib``, ``!pip``) commented out so the cell parses."""
    return re.sub(r"^(\s*)([%!])", r"\1#\2", source, flags=re.MULTILINE)


def models_log_of(nb: SolutionNotebook, target: str) -> bool:
    """Whether the notebook models the log of ``target`` (``y = np.log1p(train["SalePrice"])``,
    ``np.log(df.SalePrice + 1)``, ``np.log1p(train.pop("SalePrice"))``): the RMSE it computes
    is then the RMSLE of the target."""
    col = re.escape(target)
    logged = re.compile(
        rf"""\b(?:np|numpy)\.log1?p?\(\s*\w+(?:\[\s*["']{col}["']\s*\]|\.{col}\b"""
        rf"""|\.pop\(\s*["']{col}["']\s*\))"""
    )
    return bool(target) and any(logged.search(b.source) for b in nb.code_blocks)


def tag_roles(nb: SolutionNotebook, analysis: Analysis | None = None) -> SolutionNotebook:
    """A copy of ``nb`` whose untagged code cells carry their inferred role (and, for mixed
    cells, their segments as ``[role, first line, last line]``); tagged cells are left alone."""
    analysis = analysis or analyze(nb)
    new = nb.copy()
    for c in analysis.cells:
        if c.tagged:
            continue
        meta = new.cell(c.block_id).metadata[META]
        meta["role"] = c.role
        meta["inferred"] = True
        if len(c.segments) > 1:
            meta["segments"] = [[s.role, s.start, s.end] for s in c.segments]
    return new


__all__ = [
    "REFINABLE_ROLES",
    "Analysis",
    "CellRoles",
    "Estimator",
    "Fit",
    "MetricCall",
    "Segment",
    "analyze",
    "tag_roles",
]
