"""The scoring function a solution notebook defines for its task's metric, as readable code.

Notebooks spell the metric out with scikit-learn (so they run anywhere) rather than importing
``mlestar_jupyter.metrics``; ``tests/offline`` checks both agree.  Classification notebooks predict
class probabilities (columns in ``classes`` order); label metrics take the most probable class.
"""

from __future__ import annotations

from ..metrics import AUC_AVERAGES, POSITIVE_LABELS, Metric, get_metric, positive_texts

_LABEL = "    labels = np.asarray(classes)[np.argmax(pred, axis=1)]\n"


# F1, precision and recall of two classes score the positive one: 1, True, "yes", "positive",
# else the last in sorted order (``metrics._positive_class``); of more than two, their macro mean
def default_positive(classes: str) -> str:
    """The source of an expression picking the positive class of the classes ``classes`` (the
    source of a sorted sequence) as ``metrics._positive_class`` does: the first whose text is
    one of ``POSITIVE_LABELS`` (1, True, "yes", "positive" ...), else the last in sorted order."""
    return (
        f"next((c for c in {classes} if str(c).strip().lower() in {POSITIVE_LABELS!r}), "
        f"sorted({classes}, key=str)[-1])"
    )


_POSITIVE = (
    _LABEL + "    if len(classes) > 2:  # several classes: the mean over them (macro)\n"
    '        return {fn}(y_true, labels, average="macro"{more})\n'
    f"    positive = {default_positive('classes')}\n"
    "    return {fn}(y_true, labels, pos_label=positive{more})"
)


def _positive_code(fn: str, more: str = "") -> str:
    return _POSITIVE.format(fn=fn, more=more)


# the task names its positive class (task.json's ``positive_label``): that one, as the evaluator
# grades (a label compared as text: ``1`` is ``"1"``), else the default above
_NAMED = (
    "    positive = next((c for c in classes if str(c).strip() in {texts!r}), None)\n"
    "    if positive is None:  # not among the classes: the default\n"
    f"        positive = {default_positive('classes')}\n"
)
# a binary probability metric reads the positive class's column (the second by default)
_COLUMN = (
    "    column = next((i for i, c in enumerate(classes) if str(c).strip() in {texts!r}), 1)\n"
)


def _named_body(name: str, body: str, named: str) -> str:
    """``body`` scoring the class ``named`` positive: its pos_label, or its probability column."""
    if "    positive = next(" in body:  # F1, precision, recall of two classes
        head, rest = body.split("    positive = next(", 1)
        rest = rest.split("\n", 1)[1]
        return head + _NAMED.format(texts=positive_texts(named)) + rest
    if "pred[:, 1]" in body:  # a binary probability metric: the named class's column
        lines = []
        for line in body.split("\n"):
            if line.startswith("    if pred.shape[1] == 2:"):
                lines.append(_COLUMN.format(texts=positive_texts(named)).rstrip("\n"))
            elif "(y_true, pred[:, 1])" in line:  # sklearn's positive is the later label: say which
                lines.append(
                    "        _is_positive = np.asarray(y_true) == np.asarray(classes)[column]"
                )
                line = line.replace("(y_true, pred[:, 1])", "(_is_positive, pred[:, 1])")
            line = line.replace("np.asarray(classes)[1]", "np.asarray(classes)[column]")
            lines.append(line.replace("[:, 1]", "[:, column]"))
        return "\n".join(lines)
    return body


_CLASSIFICATION: dict[str, tuple[str, str]] = {
    "accuracy": ("accuracy_score", _LABEL + "    return accuracy_score(y_true, labels)"),
    "balanced_accuracy": (
        "balanced_accuracy_score",
        _LABEL + "    return balanced_accuracy_score(y_true, labels)",
    ),
    "f1_macro": ("f1_score", _LABEL + '    return f1_score(y_true, labels, average="macro")'),
    "f1": ("f1_score", _positive_code("f1_score")),
    "qwk": (
        "cohen_kappa_score",
        _LABEL + '    return cohen_kappa_score(y_true, labels, weights="quadratic")',
    ),
    "cohen_kappa": ("cohen_kappa_score", _LABEL + "    return cohen_kappa_score(y_true, labels)"),
    "mcc": ("matthews_corrcoef", _LABEL + "    return matthews_corrcoef(y_true, labels)"),
    "roc_auc": (
        "roc_auc_score",
        "    if pred.shape[1] == 2:  # binary: the probability of the second (positive) class\n"
        "        return roc_auc_score(y_true, pred[:, 1])\n"
        '    return roc_auc_score(y_true, pred, multi_class="ovr", labels=classes)',
    ),
    **{
        name: (
            "roc_auc_score",
            "    if pred.shape[1] == 2:  # binary: the probability of the second (positive) class\n"
            "        return roc_auc_score(y_true, pred[:, 1])\n"
            f'    return roc_auc_score(y_true, pred, multi_class="{multi_class}", '
            f'average="{average}", labels=classes)',
        )
        for name, (multi_class, average) in AUC_AVERAGES.items()
        if name != "roc_auc"
    },
    "log_loss": (
        "log_loss",
        "    return log_loss(y_true, np.clip(pred, 1e-15, 1 - 1e-15), labels=classes)",
    ),
    "f1_weighted": (
        "f1_score",
        _LABEL + '    return f1_score(y_true, labels, average="weighted")',
    ),
    "f1_micro": ("f1_score", _LABEL + '    return f1_score(y_true, labels, average="micro")'),
    "precision": (
        "precision_score",
        _positive_code("precision_score", ", zero_division=0"),
    ),
    "precision_macro": (
        "precision_score",
        _LABEL + '    return precision_score(y_true, labels, average="macro", zero_division=0)',
    ),
    "precision_weighted": (
        "precision_score",
        _LABEL + '    return precision_score(y_true, labels, average="weighted", zero_division=0)',
    ),
    "recall": (
        "recall_score",
        _positive_code("recall_score", ", zero_division=0"),
    ),
    "jaccard": ("jaccard_score", _positive_code("jaccard_score", ", zero_division=0")),
    "jaccard_macro": (
        "jaccard_score",
        _LABEL + '    return jaccard_score(y_true, labels, average="macro", zero_division=0)',
    ),
    "hamming_loss": ("hamming_loss", _LABEL + "    return hamming_loss(y_true, labels)"),
    "zero_one_loss": ("zero_one_loss", _LABEL + "    return zero_one_loss(y_true, labels)"),
    "average_precision": (
        "average_precision_score",
        "    if pred.shape[1] == 2:  # binary: the probability of the second (positive) class\n"
        "        is_positive = np.asarray(y_true) == np.asarray(classes)[1]  # labels may be words\n"
        "        return average_precision_score(is_positive, pred[:, 1])\n"
        "    onehot = (np.asarray(y_true)[:, None] == np.asarray(classes)[None, :]).astype(int)\n"
        '    return average_precision_score(onehot, pred, average="macro")',
    ),
    "brier": (
        "",
        "    onehot = (np.asarray(y_true)[:, None] == np.asarray(classes)[None, :]).astype(float)\n"
        "    if pred.shape[1] == 2:  # binary: the squared error of the positive class's probability\n"
        "        return float(np.mean((pred[:, 1] - onehot[:, 1]) ** 2))\n"
        "    return float(np.mean(np.sum((pred - onehot) ** 2, axis=1)))",
    ),
    "gini": (
        "roc_auc_score",
        "    if pred.shape[1] == 2:  # normalised Gini: 2 AUC - 1 of the positive class\n"
        "        return 2 * roc_auc_score(y_true, pred[:, 1]) - 1\n"
        '    return 2 * roc_auc_score(y_true, pred, multi_class="ovr", labels=classes) - 1',
    ),
}

_REGRESSION: dict[str, tuple[str, str]] = {
    "rmse": ("mean_squared_error", "    return float(np.sqrt(mean_squared_error(y_true, pred)))"),
    "mse": ("mean_squared_error", "    return mean_squared_error(y_true, pred)"),
    "mae": ("mean_absolute_error", "    return mean_absolute_error(y_true, pred)"),
    "r2": ("r2_score", "    return r2_score(y_true, pred)"),
    "rmsle": (
        "mean_squared_log_error",
        "    return float(np.sqrt(mean_squared_log_error(y_true, np.clip(pred, 0, None))))",
    ),
    "msle": (
        "mean_squared_log_error",
        "    return mean_squared_log_error(y_true, np.clip(pred, 0, None))",
    ),
    "medae": ("median_absolute_error", "    return median_absolute_error(y_true, pred)"),
    "max_error": (
        "",
        "    err = np.abs(np.asarray(y_true, dtype=float) - np.asarray(pred, dtype=float))\n"
        "    return float(np.max(err))  # the worst one",
    ),
    "mape": (
        "",
        "    y_true, pred = np.asarray(y_true, dtype=float), np.asarray(pred, dtype=float)\n"
        "    return float(np.mean(np.abs(y_true - pred) / np.maximum(np.abs(y_true), 1e-12)))",
    ),
    "smape": (
        "",
        "    y_true, pred = np.asarray(y_true, dtype=float), np.asarray(pred, dtype=float)\n"
        "    denom = np.abs(y_true) + np.abs(pred)\n"
        "    ratio = np.divide(2 * np.abs(y_true - pred), denom, out=np.zeros_like(y_true), where=denom > 0)\n"
        "    return float(100 * np.mean(ratio))",
    ),
    "pearson": (
        "",
        "    y_true, pred = np.asarray(y_true, dtype=float), np.asarray(pred, dtype=float)\n"
        "    if np.std(pred) == 0 or np.std(y_true) == 0:\n"
        "        return 0.0  # a constant prediction has no correlation\n"
        "    return float(np.corrcoef(y_true, pred)[0, 1])",
    ),
    "spearman": (
        "",
        "    from scipy.stats import spearmanr\n\n"
        "    y_true, pred = np.asarray(y_true, dtype=float), np.asarray(pred, dtype=float)\n"
        "    if np.std(pred) == 0 or np.std(y_true) == 0:\n"
        "        return 0.0  # a constant prediction has no correlation\n"
        "    return float(spearmanr(y_true, pred)[0])",
    ),
    "kendall": (
        "",
        "    from scipy.stats import kendalltau\n\n"
        "    y_true, pred = np.asarray(y_true, dtype=float), np.asarray(pred, dtype=float)\n"
        "    if np.std(pred) == 0 or np.std(y_true) == 0:\n"
        "        return 0.0  # a constant prediction has no correlation\n"
        "    return float(kendalltau(y_true, pred)[0])",
    ),
    "d2_absolute_error": (
        "d2_absolute_error_score",
        "    return d2_absolute_error_score(y_true, pred)  # 1 - MAE / the MAE of the median",
    ),
    "explained_variance": (
        "explained_variance_score",
        "    return explained_variance_score(y_true, pred)",
    ),
    "poisson_deviance": (
        "mean_poisson_deviance",
        "    # a count's mean is positive: so must the prediction be\n"
        "    return mean_poisson_deviance(y_true, np.clip(np.asarray(pred, dtype=float), 1e-9, None))",
    ),
    "mcrmse": (
        "",
        "    err = (np.asarray(y_true, dtype=float) - np.asarray(pred, dtype=float)) ** 2\n"
        "    err = err.reshape(len(err), -1)\n"
        "    return float(np.mean(np.sqrt(err.mean(axis=0))))",
    ),
}


def metric_source(
    metric_name: str, task_type: str, positive_label: str | None = None
) -> tuple[str, str]:
    """Python source (an import line, a function) defining ``score_predictions(y_true, pred, classes=None)``;
    ``positive_label`` (the task's, when it names one) is the class F1, precision and recall of
    two classes score, and whose probability a binary probability metric reads."""
    metric = get_metric(metric_name)
    if metric.kind == "ranked":
        return "", _ranked_source(metric.name, metric.k or 1)
    table = _CLASSIFICATION if task_type == "classification" else _REGRESSION
    if (
        metric.name not in table and _parametric(metric) is None
    ):  # e.g. accuracy asked of a regression: fall back to the other table
        table = _REGRESSION if table is _CLASSIFICATION else _CLASSIFICATION
    fn, body = _parametric(metric) or table[metric.name]
    if metric.beta is not None:  # F-beta: a classification's, whatever the task says
        table = _CLASSIFICATION
    if positive_label is not None and table is _CLASSIFICATION:
        body = _named_body(metric.name, body, str(positive_label))
    better = "higher" if metric.direction == "maximize" else "lower"
    head = f"from sklearn.metrics import {fn}" if fn else ""
    return head, (
        "def score_predictions(y_true, pred, classes=None):\n"
        f'    """{metric.name} of the predictions ({better} is better)."""\n'
        f"{body}\n"
    )


def _parametric(metric: Metric) -> tuple[str, str] | None:
    """(import, body) of a metric with a parameter: F-beta's beta, the pinball loss's alpha."""
    if metric.beta is not None:
        more = f", beta={metric.beta!r}, zero_division=0"
        if metric.positive_class:
            return "fbeta_score", _positive_code("fbeta_score", more)
        return (
            "fbeta_score",
            _LABEL + f'    return fbeta_score(y_true, labels, average="macro"{more})',
        )
    if metric.alpha is not None:
        return (
            "mean_pinball_loss",
            f"    return mean_pinball_loss(y_true, pred, alpha={metric.alpha!r})",
        )
    return None


def _ranked_source(name: str, k: int) -> str:
    if name.startswith("top"):  # top-k accuracy: the true class among the k, at any place
        return (
            "def score_predictions(y_true, pred, classes=None):\n"
            f'    """{name} of the predictions (higher is better): the share of rows whose true\n'
            f'    class is among the {k} most probable ones."""\n'
            f'    top = np.asarray(classes)[np.argsort(-np.asarray(pred), axis=1, kind="stable")[:, :{k}]]\n'
            "    return float(np.mean((top == np.asarray(y_true)[:, None]).any(axis=1)))\n"
        )
    return (
        "def score_predictions(y_true, pred, classes=None):\n"
        f'    """{name} of the predictions (higher is better): the mean over rows of 1/rank of the\n'
        f'    true class among the {k} most probable ones (0 when it is not among them)."""\n'
        f'    top = np.asarray(classes)[np.argsort(-np.asarray(pred), axis=1, kind="stable")[:, :{k}]]\n'
        "    hits = top == np.asarray(y_true)[:, None]\n"
        "    return float(np.mean((hits / np.arange(1, top.shape[1] + 1)).sum(axis=1)))\n"
    )


def needs_labels(metric_name: str) -> bool:
    """Whether the submission holds labels (not probabilities) for a classification metric."""
    return not get_metric(metric_name).needs_proba
