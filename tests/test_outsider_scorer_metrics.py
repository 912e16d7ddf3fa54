"""Metrics named as scikit-learn's scorers name them, which outsiders write in a task.json (hunt S,
session 35): ``roc_auc_ovo`` (and "one-vs-one AUC") was graded as the one-vs-rest AUC;
``roc_auc_ovr_weighted``, ``precision_macro`` ("precision (macro)"), ``recall_weighted`` and
``d2_absolute_error_score`` were refused as unknown metrics, and ``d2_pinball_score`` (higher is
better) was read as the pinball loss (lower is better).  Each is now its own metric, computed
alike by the registry (the grader), the offline notebooks' metric code and the validation cell
added to a user's notebook."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn import metrics as skm

from mlestar_jupyter.agent.user_notebook import _EXPR, _PROBA, _imports
from mlestar_jupyter.evaluator.grading import grade_submission
from mlestar_jupyter.metrics import UnknownMetricError, get_metric
from mlestar_jupyter.offline.metric_code import metric_source
from mlestar_jupyter.task import load_task


@pytest.mark.parametrize(
    ("name", "canon", "direction"),
    [
        ("roc_auc_ovo", "roc_auc_ovo", "maximize"),  # was roc_auc: one-vs-rest
        ("one-vs-one AUC", "roc_auc_ovo", "maximize"),
        ("ROC AUC (one-vs-one)", "roc_auc_ovo", "maximize"),
        ("roc_auc_ovo_weighted", "roc_auc_ovo_weighted", "maximize"),
        ("roc_auc_ovr_weighted", "roc_auc_ovr_weighted", "maximize"),  # was unknown
        ("roc_auc_ovr", "roc_auc", "maximize"),
        ("precision_macro", "precision_macro", "maximize"),  # was unknown
        ("Precision (macro)", "precision_macro", "maximize"),
        ("precision_weighted", "precision_weighted", "maximize"),
        ("recall_weighted", "accuracy", "maximize"),  # of one label per row: the same number
        ("recall_micro", "accuracy", "maximize"),
        ("precision_micro", "accuracy", "maximize"),
        ("d2_absolute_error_score", "d2_absolute_error", "maximize"),  # was unknown
        ("d2_pinball_score", "d2_absolute_error", "maximize"),  # was pinball@0.5, minimized
        # other names outsiders write (each was "unknown metric")
        ("macro-averaged F1 score", "f1_macro", "maximize"),
        ("R²", "r2", "maximize"),
        ("Area Under Curve", "roc_auc", "maximize"),
        ("Error rate", "zero_one_loss", "minimize"),
        ("Misclassification rate", "zero_one_loss", "minimize"),
        ("zero_one_loss", "zero_one_loss", "minimize"),
        ("l2", "mse", "minimize"),  # LightGBM's names (the whole name only)
        ("l2_root", "rmse", "minimize"),
        ("multi_error", "zero_one_loss", "minimize"),
        ("categorical_crossentropy", "log_loss", "minimize"),  # Keras's
        ("MeanSquaredError", "mse", "minimize"),
        ("mAP@5", "map@5", "maximize"),  # (no CamelCase)
        # a scikit-learn call written out, with its average
        ("f1_score(average='macro')", "f1_macro", "maximize"),
        (
            'sklearn.metrics.precision_score(y_true, y_pred, average="weighted")',
            "precision_weighted",
            "maximize",
        ),
        ("recall_score(average='macro')", "balanced_accuracy", "maximize"),
        ("roc_auc_score(multi_class='ovo')", "roc_auc_ovo", "maximize"),  # was roc_auc
        (
            "roc_auc_score(multi_class='ovr', average='weighted')",
            "roc_auc_ovr_weighted",
            "maximize",
        ),
    ],
)
def test_scikit_learn_scorer_names_are_the_metrics_they_score(
    name: str, canon: str, direction: str
) -> None:
    m = get_metric(name)
    assert (m.name, m.direction) == (canon, direction)


def test_a_d2_pinball_score_of_another_quantile_is_refused() -> None:
    with pytest.raises(UnknownMetricError, match="only of the median"):
        get_metric("d2_pinball_score alpha=0.9")


@pytest.mark.parametrize(
    "name",
    [
        "Balanced Log Loss",  # was log_loss: the classes weighed alike is another number
        "Normalized RMSE",  # was rmse: divided by the targets' range
        "word error rate",  # speech's, no share of wrong labels
        "roc_auc_score(average='micro')",  # was roc_auc (the macro mean)
        "f1_score(average='samples')",  # was f1
        "L2 loss",  # "l2" names MSE only alone: "L2 regularization" is no metric
    ],
)
def test_names_that_qualify_a_metric_into_another_are_refused(name: str) -> None:
    with pytest.raises(UnknownMetricError, match="expected one of"):
        get_metric(name)


def _three_classes() -> tuple[np.ndarray, np.ndarray]:
    """Imbalanced classes 0/1/2 and noisy probabilities, on which one-vs-one and one-vs-rest
    AUCs, and their macro and weighted means, differ."""
    rng = np.random.RandomState(3)
    y = rng.choice(3, size=240, p=[0.6, 0.3, 0.1])
    raw = rng.rand(240, 3) + np.eye(3)[y] * rng.rand(240, 1) * 0.8
    return y, raw / raw.sum(axis=1, keepdims=True)


_SKLEARN = {
    "roc_auc_ovo": lambda y, p: skm.roc_auc_score(y, p, multi_class="ovo"),
    "roc_auc_ovo_weighted": lambda y, p: skm.roc_auc_score(
        y, p, multi_class="ovo", average="weighted"
    ),
    "roc_auc_ovr_weighted": lambda y, p: skm.roc_auc_score(
        y, p, multi_class="ovr", average="weighted"
    ),
    "precision_macro": lambda y, p: skm.precision_score(
        y, np.argmax(p, axis=1), average="macro", zero_division=0
    ),
    "precision_weighted": lambda y, p: skm.precision_score(
        y, np.argmax(p, axis=1), average="weighted", zero_division=0
    ),
    "zero_one_loss": lambda y, p: skm.zero_one_loss(y, np.argmax(p, axis=1)),
}


@pytest.mark.parametrize("name", sorted(_SKLEARN))
def test_each_place_a_metric_is_computed_agrees_with_scikit_learn(name: str) -> None:
    """The registry, the offline notebooks' ``score_predictions`` and the user notebook's
    validation expression, on three classes, give what scikit-learn's scorer of that name
    gives (before: the one-vs-rest AUC for ``roc_auc_ovo``, or no metric at all)."""
    y, proba = _three_classes()
    want = _SKLEARN[name](y, proba)
    assert want != pytest.approx(skm.roc_auc_score(y, proba, multi_class="ovr"), abs=1e-4)
    metric = get_metric(name)
    labels = np.argmax(proba, axis=1)
    pred = proba if metric.needs_proba else labels
    assert metric(y, pred) == pytest.approx(want)

    head, body = metric_source(name, "classification")
    scope: dict[str, object] = {"np": np}
    exec(f"{head}\n{body}", scope)  # noqa: S102 - the notebooks' metric code
    assert scope["score_predictions"](y, proba, np.arange(3)) == pytest.approx(want)  # type: ignore[operator]

    assert (name in _PROBA) == metric.needs_proba
    ns: dict[str, object] = {}
    exec(_imports(_EXPR[name]), ns)  # noqa: S102 - what the added cell defines first
    got = eval(_EXPR[name], {"_skm": skm, "_sps": stats, "np": np, "_y": y, "_p": pred, **ns})  # noqa: S307
    assert float(got) == pytest.approx(want)


def test_d2_absolute_error_agrees_everywhere() -> None:
    rng = np.random.RandomState(0)
    y = rng.rand(80) * 10
    p = y + rng.randn(80)
    want = skm.d2_absolute_error_score(y, p)
    assert get_metric("d2_absolute_error_score")(y, p) == pytest.approx(want)
    head, body = metric_source("d2_absolute_error", "regression")
    scope: dict[str, object] = {"np": np}
    exec(f"{head}\n{body}", scope)  # noqa: S102
    assert scope["score_predictions"](y, p) == pytest.approx(want)  # type: ignore[operator]
    got = eval(_EXPR["d2_absolute_error"], {"_skm": skm, "np": np, "_y": y, "_p": p})  # noqa: S307
    assert float(got) == pytest.approx(want)


def _wine_task(root: Path, metric: str, proba: bool) -> tuple[Path, np.ndarray, np.ndarray]:
    """Three cultivars (imbalanced), a task.json naming ``metric`` as scikit-learn does, the test
    answers in private/; the sample submission has a probability column per class, or a label."""
    y, p = _three_classes()
    rows = np.arange(len(y))
    inp = root / "input"
    inp.mkdir(parents=True)
    pd.DataFrame({"row": rows, "x": p[:, 0], "cultivar": y}).to_csv(inp / "train.csv", index=False)
    pd.DataFrame({"row": rows, "x": p[:, 0]}).to_csv(inp / "test.csv", index=False)
    if proba:
        sample = pd.DataFrame({"row": rows, **{f"class_{c}": 1 / 3 for c in range(3)}})
    else:
        sample = pd.DataFrame({"row": rows, "cultivar": 0})
    sample.to_csv(inp / "sample_submission.csv", index=False)
    (root / "private").mkdir()
    pd.DataFrame({"row": rows, "cultivar": [f"class_{c}" if proba else c for c in y]}).to_csv(
        root / "private" / "answers.csv", index=False
    )
    spec = {"metric": metric, "target": "cultivar", "id_column": "row"}
    (root / "task.json").write_text(json.dumps(spec))
    return root, y, p


@pytest.mark.parametrize("name", ["roc_auc_ovo", "roc_auc_ovo_weighted", "roc_auc_ovr_weighted"])
def test_the_grader_scores_class_probability_columns_in_the_named_average(
    tmp_path: Path, name: str
) -> None:
    """A submission with a probability column per class, graded by the evaluator: before, the
    one-vs-rest macro AUC whatever ``roc_auc_ovo`` said."""
    root, y, p = _wine_task(tmp_path, name, proba=True)
    task = load_task(root)
    assert task.metric_name == name
    sub = pd.DataFrame({"row": np.arange(len(y)), **{f"class_{c}": p[:, c] for c in range(3)}})
    sub.to_csv(tmp_path / "submission.csv", index=False)
    report = grade_submission(task, tmp_path / "submission.csv")
    assert report.valid_submission, report.invalid_reason
    assert report.score == pytest.approx(_SKLEARN[name](y, p))


def test_the_grader_scores_labels_in_macro_precision(tmp_path: Path) -> None:
    root, y, p = _wine_task(tmp_path, "precision_macro", proba=False)
    task = load_task(root)
    pd.DataFrame({"row": np.arange(len(y)), "cultivar": np.argmax(p, axis=1)}).to_csv(
        tmp_path / "submission.csv", index=False
    )
    report = grade_submission(task, tmp_path / "submission.csv")
    assert report.valid_submission, report.invalid_reason
    assert report.score == pytest.approx(_SKLEARN["precision_macro"](y, p))


@pytest.mark.parametrize(
    ("call", "metric"),
    [
        ("roc_auc_score(y_va, proba, multi_class='ovo')", "roc_auc_ovo"),  # was roc_auc
        (
            "roc_auc_score(y_va, proba, multi_class='ovr', average='weighted')",
            "roc_auc_ovr_weighted",
        ),
        ("roc_auc_score(y_va, proba, multi_class='ovr')", "roc_auc"),
        ("precision_score(y_va, pred, average='macro')", "precision_macro"),  # was precision
        ("recall_score(y_va, pred, average='weighted')", "accuracy"),  # was recall
        ("d2_absolute_error_score(y_va, pred)", "d2_absolute_error"),  # was no metric
        ("cross_val_score(clf, X, y, cv=5, scoring='roc_auc_ovo')", "roc_auc_ovo"),
        ("cross_val_score(clf, X, y, cv=5, scoring='precision_weighted')", "precision_weighted"),
    ],
)
def test_a_notebook_s_metric_call_names_the_average_it_computes(
    tmp_path: Path, call: str, metric: str
) -> None:
    """A user's notebook computing one of these: the task read from it grades what it computes."""
    import nbformat

    from mlestar_jupyter.importer.notebook_task import task_from_notebook
    from mlestar_jupyter.notebook import SolutionNotebook

    _wine_task(tmp_path / "w", "accuracy", proba=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import pandas as pd\ndf = pd.read_csv('train.csv')"),
        nbformat.v4.new_code_cell(f"clf.fit(X, y)\nscore = {call}\nprint(score)"),
    ]
    data = tmp_path / "w" / "input"
    nbformat.write(nb, data / "n.ipynb")
    task = task_from_notebook(SolutionNotebook.read(data / "n.ipynb"), data)
    assert task.metric_name == metric


def test_a_printed_d2_above_one_is_implausible() -> None:
    """D² (as R²) is 1 minus a share of an error: a printed 1.7 is no D² (before: any value)."""
    from mlestar_jupyter.agent.scoring import implausible, value_range

    assert value_range(get_metric("d2_absolute_error_score"))[1] == 1.0
    assert implausible(get_metric("d2_absolute_error"), 1.7)
    assert not implausible(get_metric("d2_absolute_error"), -0.3)
