"""The vocabulary a plain notebook's code is read with: which called names are estimators,
transformers, vectorizers, metrics, loaders, splits, and small helpers over the syntax tree.

``notebook.roles`` infers each statement's role from these; the offline policy's rewrites of a
user's code use the same patterns to find the estimator or transformer to change.
"""

from __future__ import annotations

import ast
import re

ESTIMATOR_RE = re.compile(
    r"(Classifier|Regressor|Regression|SVC|SVR|LinearSVC|Ridge|RidgeCV|Lasso|LassoCV|ElasticNet|"
    r"NB|Pipeline|make_pipeline|Booster|Sequential|SearchCV|TransformedTargetRegressor)$"
    r"|^(LGBM|XGB|CatBoost|KNeighbors|HistGradientBoosting|RandomForest|ExtraTrees)"
)
TRANSFORMER_RE = re.compile(
    r"(Scaler|Imputer|Encoder|Transformer|Binarizer|Normalizer|PCA|TruncatedSVD|"
    r"PolynomialFeatures|SelectKBest|SelectFromModel|VarianceThreshold|make_column_transformer)$"
)
VECTORIZER_RE = re.compile(r"(Vectorizer|HashingVectorizer)$")
METRIC_FUNCS = frozenset(
    {
        "accuracy_score",
        "roc_auc_score",
        "f1_score",
        "log_loss",
        "mean_squared_error",
        "root_mean_squared_error",
        "mean_absolute_error",
        "r2_score",
        "balanced_accuracy_score",
        "precision_score",
        "recall_score",
        "matthews_corrcoef",
        "mean_squared_log_error",
        "brier_score_loss",
        "cohen_kappa_score",
        "explained_variance_score",
        "mean_poisson_deviance",
        "median_absolute_error",
        "mean_absolute_percentage_error",
        "fbeta_score",
        "jaccard_score",
        "hamming_loss",
        "max_error",
        "d2_absolute_error_score",
        "zero_one_loss",
        "mean_pinball_loss",
        "top_k_accuracy_score",
        "cross_val_score",
        "cross_validate",
    }
)
PREPROCESS_CALLS = frozenset(
    {"fillna", "dropna", "astype", "get_dummies", "clip", "replace", "map", "drop_duplicates"}
)
LOAD_CALLS = frozenset(
    {"read_csv", "read_parquet", "read_json", "read_table", "load", "imread", "open", "glob"}
)
SPLIT_CALLS = frozenset({"train_test_split", "KFold", "StratifiedKFold", "GroupKFold"})
# scikit-learn's cross-validation helpers: ``cross_val_score(estimator, X, y, ...)`` fits copies
# of ``estimator``, so a notebook that only calls one of them still trains a model
CV_CALLS = frozenset({"cross_val_score", "cross_validate", "cross_val_predict"})


def cv_call_parts(node: ast.Call) -> tuple[ast.expr, ast.expr, ast.expr] | None:
    """(estimator, X, y) of a ``cross_val_score``-style call, by position or keyword; ``None``
    when it is not one or any of the three is missing."""
    if call_name(node.func) not in CV_CALLS:
        return None
    given = dict(zip(("estimator", "X", "y"), node.args, strict=False))
    given.update({k.arg: k.value for k in node.keywords if k.arg in ("estimator", "X", "y")})
    if len(given) < 3:
        return None
    return given["estimator"], given["X"], given["y"]


def call_name(node: ast.AST) -> str:
    """The last name of a called thing: ``sk.ensemble.RandomForestClassifier`` → the class."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return call_name(node.func)
    return ""


def receiver(node: ast.AST) -> str:
    """The variable a method is called on: ``model.fit`` → ``model``."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def calls(node: ast.AST) -> list[ast.Call]:
    """Every call anywhere under ``node``."""
    return [n for n in ast.walk(node) if isinstance(n, ast.Call)]


def assigned(node: ast.stmt) -> list[str]:
    """The plain names a statement assigns (``a, b = ...`` gives both)."""
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    out = []
    for t in targets:
        for n in [t, *(t.elts if isinstance(t, ast.Tuple | ast.List) else [])]:
            if isinstance(n, ast.Name):
                out.append(n.id)
    return out


def new_column(node: ast.stmt) -> bool:
    """``df["col"] = ...`` or ``df.loc[:, "col"] = ...``."""
    targets = node.targets if isinstance(node, ast.Assign) else []
    return any(isinstance(t, ast.Subscript) for t in targets)
