"""Static checks on plain Python source: leakage, unused input files, undefined names, imports.

Nothing here runs the code; every check reads its syntax tree.  The offline policy uses them as its
leakage and data-usage checkers; an LLM policy can use them to pre-screen code a model wrote.

- ``find_leakage(source, target)``: a fit on test data, on a train+test concatenation, on the
  validation rows before the score is printed, or the target among the features.
- ``fix_leakage(source, finding)``: the source with ``.fit_transform(test)`` turned into
  ``.transform(test)`` (or a lone ``.fit(test)`` removed); ``None`` when no safe fix is known.
- ``unused_files(source, files)``: input files the code never names.
- ``undefined_names`` / ``repair_imports`` / ``unavailable_imports``.
"""

from __future__ import annotations

import ast
import builtins
import fnmatch
import importlib.util
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

TEST_NAME = re.compile(r"(^|_)(test|te)(_|$)|^test", re.IGNORECASE)
VAL_NAME = re.compile(r"(^|_)(val|valid|validation)(_|$)", re.IGNORECASE)
FIT_METHODS = ("fit", "fit_transform", "fit_resample", "partial_fit")
COMBINERS = ("concat", "concatenate", "vstack", "hstack", "append", "row_stack", "r_")


@dataclass(frozen=True)
class LeakageFinding:
    """One leak: what kind, on which line of the source, and why."""

    kind: str  # fit_on_test | fit_on_concat | fit_on_validation | target_as_feature
    line: int
    reason: str


# --------------------------------------------------------------------------- helpers
def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _names_in(node: ast.AST, *, through_subscript: bool = True) -> set[str]:
    """Names an expression reads; with ``through_subscript=False`` row slices such as ``df[:n]`` or
    ``df.iloc[:n]`` hide their frame (a slice of a train+test concat is the training part)."""
    out: set[str] = set()

    def walk(n: ast.AST) -> None:
        if isinstance(n, ast.Name):
            out.add(n.id)
        if (
            isinstance(n, ast.Subscript)
            and not through_subscript
            and any(isinstance(s, ast.Slice) for s in ast.walk(n.slice))
        ):
            return
        for child in ast.iter_child_nodes(n):
            walk(child)

    walk(node)
    return out


def _call_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _string_constants(tree: ast.AST) -> dict[str, str]:
    """Module-level ``NAME = "text"`` bindings, to resolve ``TARGET`` to its column name."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node.value.value
    return out


def _literal_strings(node: ast.AST, consts: dict[str, str]) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.add(n.value)
        elif isinstance(n, ast.Name) and n.id in consts:
            out.add(consts[n.id])
    return out


def _printed_score_line(tree: ast.AST) -> int | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _call_name(node) == "print":
            if any(
                isinstance(c, ast.Constant) and "Final Validation Performance" in str(c.value)
                for c in ast.walk(node)
            ):
                return node.lineno
    return None


# --------------------------------------------------------------------------- leakage
def _tainted_names(tree: ast.Module) -> set[str]:
    """Names holding test rows mixed with training rows (a concat of both, and what derives from it)."""
    tainted: set[str] = set()
    assigns = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Assign)), key=lambda n: n.lineno
    )
    for node in assigns:
        value = node.value
        mixes = any(
            isinstance(c, ast.Call)
            and _call_name(c) in COMBINERS
            and any(TEST_NAME.search(n) for n in _names_in(c))
            and any(not TEST_NAME.search(n) for n in _names_in(c) if n not in ("pd", "np"))
            for c in ast.walk(value)
        )
        derived = bool(_names_in(value, through_subscript=False) & tainted)
        if mixes or derived:
            for t in node.targets:
                tainted |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return tainted


def find_leakage(source: str, target: str | None = None) -> list[LeakageFinding]:
    """Every leak found in ``source`` (empty when none is seen; unparsable code yields none)."""
    tree = _parse(source)
    if tree is None:
        return []
    tainted = _tainted_names(tree)
    score_line = _printed_score_line(tree)
    found: list[LeakageFinding] = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in FIT_METHODS
            and node.args
        ):
            continue
        data = _names_in(node.args[0], through_subscript=False)
        data_all = _names_in(node.args[0])
        call = ast.unparse(node)[:80]
        if any(TEST_NAME.search(n) for n in data):
            found.append(
                LeakageFinding(
                    "fit_on_test",
                    node.lineno,
                    f"`{call}` fits on test data; fit on training rows, then only transform the test rows",
                )
            )
        elif data & tainted:
            found.append(
                LeakageFinding(
                    "fit_on_concat",
                    node.lineno,
                    f"`{call}` fits on training and test rows together; fit on the training rows only",
                )
            )
        elif score_line and node.lineno < score_line and any(VAL_NAME.search(n) for n in data_all):
            found.append(
                LeakageFinding(
                    "fit_on_validation",
                    node.lineno,
                    f"`{call}` fits on validation rows before the validation score is printed",
                )
            )
    found += _target_as_feature(tree, target)
    return sorted(found, key=lambda f: f.line)


def _target_as_feature(tree: ast.Module, target: str | None) -> list[LeakageFinding]:
    consts = _string_constants(tree)
    frames_with_target: dict[str, str] = {}  # frame name -> target column taken from it
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            v = node.value
            if (
                isinstance(v, ast.Subscript)
                and isinstance(v.value, ast.Name)
                and node.targets[0].id.lower().startswith("y")
            ):
                cols = _literal_strings(v.slice, consts)
                if len(cols) == 1 and (target is None or cols == {target}):
                    frames_with_target[v.value.id] = next(iter(cols))
    out = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            continue
        name, v = node.targets[0].id, node.value
        if not re.match(r"^(X|x|features?)(_train|_tr|_all)?$", name):
            continue
        if isinstance(v, ast.Name) and v.id in frames_with_target:
            col = frames_with_target[v.id]
            out.append(
                LeakageFinding(
                    "target_as_feature",
                    node.lineno,
                    f"`{name} = {v.id}` keeps the target column {col!r} among the features; drop it",
                )
            )
        elif (
            isinstance(v, ast.Call)
            and _call_name(v) == "drop"
            and isinstance(v.func, ast.Attribute)
            and isinstance(v.func.value, ast.Name)
        ):
            frame = v.func.value.id
            target = frames_with_target.get(frame)
            if target and target not in _literal_strings(v, consts):
                out.append(
                    LeakageFinding(
                        "target_as_feature",
                        node.lineno,
                        f"`{ast.unparse(v)[:80]}` does not drop the target column {target!r}; add it to the dropped columns",
                    )
                )
    return out


def fix_leakage(source: str, finding: LeakageFinding) -> str | None:
    """``source`` with a fit-on-test leak repaired, or ``None`` when no safe fix is known."""
    if finding.kind != "fit_on_test":
        return None
    lines = source.splitlines()
    line = lines[finding.line - 1]
    if ".fit_transform(" in line:
        lines[finding.line - 1] = line.replace(".fit_transform(", ".transform(", 1)
        return "\n".join(lines)
    if re.match(r"^\s*[\w.]+\.fit\([^=]*\)\s*$", line):  # a lone `scaler.fit(X_test)` statement
        del lines[finding.line - 1]
        return "\n".join(lines)
    return None


# --------------------------------------------------------------------------- data usage
def unused_files(source: str, files: list[str]) -> list[str]:
    """Entries of ``files`` (names under ./input) that no string in ``source`` names or matches."""
    tree = _parse(source)
    literals: set[str] = set()
    if tree is not None:
        literals = {
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
    parts = {p for s in literals for p in re.split(r"[/\\]", s) if p}

    def used(name: str) -> bool:
        stem = name.rsplit(".", 1)[0]
        if name in literals or name in parts or any(s.endswith("/" + name) for s in literals):
            return True
        if any(
            ("*" in s or "?" in s) and fnmatch.fnmatch(name, s.rsplit("/", 1)[-1]) for s in literals
        ):
            return True
        return stem in parts and "." not in name  # a folder named by its bare name

    return [f for f in files if not used(f)]


# --------------------------------------------------------------------------- names and imports
class _Scope(ast.NodeVisitor):
    def __init__(self) -> None:
        self.bound: set[str] = set()
        self.loaded: dict[str, int] = {}
        self.star = False

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.loaded.setdefault(node.id, node.lineno)
        else:
            self.bound.add(node.id)

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.bound.add((a.asname or a.name).split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for a in node.names:
            if a.name == "*":
                self.star = True
            self.bound.add(a.asname or a.name)

    def _def(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        if not isinstance(node, ast.Lambda):
            self.bound.add(node.name)
        args = node.args
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if a is not None:
                self.bound.add(a.arg)
        self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _def

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bound.add(node.name)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.bound.add(node.name)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.bound.update(node.names)

    visit_Nonlocal = visit_Global  # type: ignore[assignment]

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.bound.add(node.name)
        self.generic_visit(node)


def _scope_of(source: str) -> _Scope | None:
    """The names ``source`` binds and reads (None if unparsable)."""
    tree = _parse(source)
    if tree is None:
        return None
    scope = _Scope()
    scope.visit(tree)
    return scope


def undefined_names(source: str) -> set[str]:
    """Names ``source`` reads but never binds, imports or gets from builtins (empty if unparsable)."""
    scope = _scope_of(source)
    if scope is None or scope.star:
        return set()
    known = set(dir(builtins)) | {"__file__", "__name__", "display", "get_ipython"}
    return {n for n in scope.loaded if n not in scope.bound and n not in known}


def defined_names(source: str) -> set[str]:
    """Names ``source`` binds at any level (assignments, imports, functions, classes, loops)."""
    scope = _scope_of(source)
    return set(scope.bound) if scope is not None else set()


KNOWN_IMPORTS: dict[str, str] = {
    "pd": "import pandas as pd",
    "np": "import numpy as np",
    "plt": "import matplotlib.pyplot as plt",
    "torch": "import torch",
    "nn": "from torch import nn",
    "F": "import torch.nn.functional as F",
    "lgb": "import lightgbm as lgb",
    "xgb": "import xgboost as xgb",
    "os": "import os",
    "re": "import re",
    "json": "import json",
    "math": "import math",
    "time": "import time",
    "random": "import random",
    "warnings": "import warnings",
    "Path": "from pathlib import Path",
    "sparse": "from scipy import sparse",
    "wavfile": "from scipy.io import wavfile",
    "Image": "from PIL import Image",
    "LGBMClassifier": "from lightgbm import LGBMClassifier",
    "LGBMRegressor": "from lightgbm import LGBMRegressor",
}
_SKLEARN = {
    "sklearn.model_selection": "train_test_split KFold StratifiedKFold GroupKFold cross_val_score cross_val_predict GridSearchCV",
    "sklearn.pipeline": "Pipeline make_pipeline make_union FeatureUnion",
    "sklearn.compose": "ColumnTransformer make_column_transformer make_column_selector TransformedTargetRegressor",
    "sklearn.preprocessing": "StandardScaler MinMaxScaler RobustScaler OneHotEncoder OrdinalEncoder LabelEncoder FunctionTransformer PolynomialFeatures TargetEncoder SplineTransformer",
    "sklearn.impute": "SimpleImputer KNNImputer",
    "sklearn.linear_model": "LogisticRegression LinearRegression Ridge RidgeCV Lasso ElasticNet RidgeClassifier RidgeClassifierCV SGDClassifier",
    "sklearn.ensemble": "RandomForestClassifier RandomForestRegressor ExtraTreesClassifier ExtraTreesRegressor GradientBoostingClassifier GradientBoostingRegressor HistGradientBoostingClassifier HistGradientBoostingRegressor BaggingClassifier BaggingRegressor VotingClassifier VotingRegressor StackingClassifier StackingRegressor",
    "sklearn.feature_extraction.text": "TfidfVectorizer CountVectorizer",
    "sklearn.metrics": "accuracy_score roc_auc_score log_loss f1_score mean_squared_error mean_absolute_error r2_score balanced_accuracy_score cohen_kappa_score matthews_corrcoef mean_squared_log_error fbeta_score jaccard_score hamming_loss max_error mean_pinball_loss top_k_accuracy_score",
    "sklearn.base": "BaseEstimator TransformerMixin ClassifierMixin RegressorMixin clone",
    "sklearn.svm": "SVC SVR LinearSVC",
    "sklearn.neighbors": "KNeighborsClassifier KNeighborsRegressor",
    "sklearn.decomposition": "PCA TruncatedSVD",
}
for _module, _names in _SKLEARN.items():
    for _n in _names.split():
        KNOWN_IMPORTS[_n] = f"from {_module} import {_n}"


def repair_imports(source: str) -> str:
    """``source`` with an import added for every undefined name this module knows how to import."""
    missing = sorted(undefined_names(source) & KNOWN_IMPORTS.keys())
    if not missing:
        return source
    lines = [KNOWN_IMPORTS[n] for n in missing]
    tree = _parse(source)
    at = 0  # after a module docstring and __future__ imports
    if tree is not None:
        for node in tree.body:
            is_doc = (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            )
            if is_doc or (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
                at = node.end_lineno or at
            else:
                break
    src_lines = source.splitlines()
    if at == 0:  # keep a leading cell marker first, so the imports join the first cell
        first = next((i for i, ln in enumerate(src_lines) if ln.strip()), None)
        if first is not None and src_lines[first].lstrip().startswith("# %%"):
            at = first + 1
    return "\n".join([*src_lines[:at], *lines, *src_lines[at:]]) + (
        "\n" if source.endswith("\n") else ""
    )


def imported_modules(source: str) -> list[str]:
    """Top-level packages ``source`` imports, in order of first appearance."""
    tree = _parse(source)
    if tree is None:
        return []
    out: list[str] = []
    for node in ast.walk(tree):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module]
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
            else []
        )
        for n in names:
            top = n.split(".")[0]
            if top not in out:
                out.append(top)
    return out


def unavailable_imports(source: str, local: Collection[str] = ()) -> list[str]:
    """Packages ``source`` imports that are not installed here (``local``: modules a run's
    kernels import from the task's data, such as a user's own ``helpers.py``)."""
    return [
        m
        for m in imported_modules(source)
        if m not in local and importlib.util.find_spec(m) is None
    ]


def modules_in(folder: Path) -> frozenset[str]:
    """The modules ``folder`` holds at its top (``helpers.py``, a package ``utils/``): a kernel
    whose ``sys.path`` holds the folder imports them."""
    if not folder.is_dir():
        return frozenset()
    return frozenset(
        p.stem if p.suffix == ".py" else p.name
        for p in folder.iterdir()
        if (p.suffix == ".py" and p.is_file()) or (p.is_dir() and (p / "__init__.py").is_file())
    )
