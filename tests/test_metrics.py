"""Metric registry and Score comparisons."""

from __future__ import annotations

import numpy as np
import pytest

from mlestar_jupyter.agent.user_notebook import _EXPR, _PROBA
from mlestar_jupyter.metrics import Score, UnknownMetricError, best_of, get_metric


@pytest.mark.parametrize(
    ("name", "canon", "direction"),
    [
        ("Multiclass Accuracy", "accuracy", "maximize"),
        ("RMSE", "rmse", "minimize"),
        ("roc auc", "roc_auc", "maximize"),
        ("Root Mean Squared Error (RMSE) of log price", "rmse", "minimize"),
        ("Log Loss", "log_loss", "minimize"),
        ("macro-F1", "f1_macro", "maximize"),
        ("Quadratic Weighted Kappa", "qwk", "maximize"),
        ("MCRMSE", "mcrmse", "minimize"),
        # names other authors write in task.json
        ("PR AUC", "average_precision", "maximize"),  # was read as ROC AUC ("auc")
        ("Weighted F1", "f1_weighted", "maximize"),  # was read as binary F1 ("f1")
        ("F1 (weighted)", "f1_weighted", "maximize"),
        ("micro-averaged F1", "f1_micro", "maximize"),
        ("Normalized Gini", "gini", "maximize"),
        ("SMAPE", "smape", "minimize"),
        ("Mean Absolute Percentage Error", "mape", "minimize"),
        ("MedAE", "medae", "minimize"),
        ("Pearson correlation coefficient", "pearson", "maximize"),
        ("Spearman's rho", "spearman", "maximize"),
        ("Recall", "recall", "maximize"),
        ("Precision", "precision", "maximize"),
        ("Cohen's kappa", "cohen_kappa", "maximize"),  # was read as the quadratic weighted kappa
        ("Cohen Kappa Score", "cohen_kappa", "maximize"),
        ("Cohen's quadratic weighted kappa", "qwk", "maximize"),
        ("Kendall's tau-b", "kendall", "maximize"),
        ("Explained Variance", "explained_variance", "maximize"),
        ("Mean Poisson Deviance", "poisson_deviance", "minimize"),
        ("Matthews correlation", "mcc", "maximize"),  # was "unknown metric"
        ("matthews_corrcoef", "mcc", "maximize"),
        ("Matthews Correlation Coefficient (MCC)", "mcc", "maximize"),
        # sentences: the metric named first, whatever else the sentence names
        ("Evaluated on the F1 score, the harmonic mean of precision and recall", "f1", "maximize"),
        ("the mean column-wise root mean squared error", "mcrmse", "minimize"),
        ("mean column-wise RMSE", "mcrmse", "minimize"),  # was rmse: pooled, not per column
        ("RMSE averaged over the columns", "mcrmse", "minimize"),
        ("multi-class logarithmic loss", "log_loss", "minimize"),
    ],
)
def test_names_resolve_with_direction(name: str, canon: str, direction: str) -> None:
    m = get_metric(name)
    assert (m.name, m.direction) == (canon, direction)


@pytest.mark.parametrize(
    "name",
    [
        "top-3 precision",  # top-3 accuracy is a metric now (test_metric_params.py)
        "MAP@K",  # MAP@3 and "Mean Average Precision @ 5" are metrics now (test_map_at_k.py)
        "mean average precision",
        "precision at k",
        "Precision@K",  # was read as plain precision
        "Recall@k",
        "linear weighted kappa",  # was read as the quadratic one
        "NDCG@10",
        "accuracy of the top 3 predictions",
    ],
)
def test_a_qualified_metric_is_not_read_as_the_one_it_contains(name: str) -> None:
    """ "top-3 accuracy" contains "accuracy" and "MAP@K" (no k) nothing at all: neither may be
    graded as plain accuracy (or average precision); the run is refused with the names it knows."""
    with pytest.raises(UnknownMetricError, match="expected one of"):
        get_metric(name)


def test_the_new_metrics_compute_what_their_names_say() -> None:
    y, p = [3.0, 1.0, 2.0, 4.0], [2.0, 1.0, 2.5, 5.0]
    assert get_metric("medae")(y, p) == pytest.approx(0.75)
    assert get_metric("mape")(y, p) == pytest.approx((1 / 3 + 0 + 0.25 + 0.25) / 4)
    assert get_metric("smape")(y, p) == pytest.approx(100 * (2 / 5 + 0 + 1 / 4.5 + 2 / 9) / 4)
    assert get_metric("pearson")(y, p) == pytest.approx(float(np.corrcoef(y, p)[0, 1]))
    assert get_metric("spearman")(y, p) == pytest.approx(0.8, abs=1e-9)
    assert get_metric("pearson")(y, [1.0] * 4) == 0.0  # constant: no correlation, not NaN
    yb, pb = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    assert get_metric("gini")(yb, pb) == pytest.approx(2 * 0.75 - 1)
    assert get_metric("average_precision")(yb, pb) == pytest.approx(0.8333, abs=1e-4)
    lab = [0, 1, 1, 1]
    assert get_metric("precision")([0, 0, 1, 1], lab) == pytest.approx(2 / 3)
    assert get_metric("recall")([0, 0, 1, 1], lab) == 1.0
    assert get_metric("f1_micro")([0, 1, 2, 2], [0, 1, 1, 2]) == pytest.approx(0.75)


def test_unknown_metric_lists_choices() -> None:
    with pytest.raises(UnknownMetricError, match="expected one of: accuracy"):
        get_metric("vibes")


def test_metric_values() -> None:
    assert get_metric("accuracy")([1, 0, 1], [1, 1, 1]) == pytest.approx(2 / 3)
    assert get_metric("rmse")([0, 0], [3, 4]) == pytest.approx(12.5**0.5)
    assert get_metric("roc_auc")([0, 1, 1], [0.1, 0.9, 0.8]) == 1.0


def test_score_direction_and_failures() -> None:
    assert Score(0.9).better_than(Score(0.8))
    assert Score(0.8, "minimize").better_than(Score(0.9, "minimize"))
    assert Score(0.5).better_than(Score(None)) and not Score(None).better_than(Score(0.1))
    assert Score(0.8).at_least(Score(0.8)) and not Score(0.8).better_than(Score(0.8))
    assert best_of([Score(None), Score(0.7), Score(0.9), Score(0.9)]) == 2
    assert best_of([Score(None)]) is None


def test_a_page_naming_map_at_k_is_map_at_k_and_top_k_accuracy_top_k() -> None:
    """An imported page about MAP@3 once became an average-precision task: it is MAP@3 (both
    spellings), never average precision; top-5 accuracy is top-5 accuracy, never accuracy."""
    from mlestar_jupyter.task.vocabulary import find_metrics

    found = find_metrics("Submissions are evaluated on the Mean Average Precision @ 3 (MAP@3).")
    assert [m.name for m in found] == ["map@3", "map@3"]
    assert [m.name for m in find_metrics("We report top-5 accuracy.")] == ["top5_accuracy"]
    f1 = find_metrics("Evaluated on the F1 score, the harmonic mean of precision and recall.")
    assert [m.name for m in f1] == ["f1"]
    assert [m.name for m in find_metrics("the PR AUC (average precision)")][:1] == [
        "average_precision"
    ]


def test_brier_score_for_two_and_for_several_classes() -> None:
    """Binary: the mean squared error of the positive class's probability (scikit-learn's);
    several classes: the squared errors summed over the classes; the notebook code agrees."""
    import numpy as np
    from sklearn.metrics import brier_score_loss

    from mlestar_jupyter.metrics import get_metric
    from mlestar_jupyter.offline.metric_code import metric_source

    brier = get_metric("Brier score")
    assert brier.name == "brier" and brier.direction == "minimize" and brier.needs_proba
    y = np.array([0, 1, 1, 0])
    p1 = np.array([0.1, 0.8, 0.6, 0.3])
    assert brier(y, p1) == pytest.approx(brier_score_loss(y, p1))
    assert brier(y, np.column_stack([1 - p1, p1])) == pytest.approx(brier_score_loss(y, p1))
    labels = np.array(["a", "c", "b", "c"])
    P = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]])
    want = np.mean(
        [
            0.3**2 + 0.2**2 + 0.1**2,
            0.1**2 + 0.1**2 + 0.2**2,
            0.2**2 + 0.5**2 + 0.3**2,
            0.3**2 + 0.3**2 + 0.6**2,
        ]
    )
    assert brier(labels, P) == pytest.approx(want)
    assert brier(np.array([0, 2, 1, 2]), P) == pytest.approx(want)  # the grader's class codes
    imp, body = metric_source("brier", "classification")
    ns: dict = {"np": np}  # type: ignore[type-arg]
    exec(imp + "\n" + body, ns)
    assert ns["score_predictions"](labels, P, np.array(["a", "b", "c"])) == pytest.approx(want)


def test_kappa_kendall_explained_variance_and_poisson_deviance() -> None:
    y, p = [3.0, 1.0, 2.0, 4.0], [2.0, 1.0, 2.5, 5.0]
    # 6 pairs of rows: 5 ordered alike, one (3 > 2 but 2 < 2.5) not
    assert get_metric("kendall")(y, p) == pytest.approx(4 / 6)
    resid = np.subtract(y, p)
    assert get_metric("explained_variance")(y, p) == pytest.approx(1 - resid.var() / np.var(y))
    dev = 2 * np.mean([yi * np.log(yi / pi) - yi + pi for yi, pi in zip(y, p, strict=True)])
    assert get_metric("poisson_deviance")(y, p) == pytest.approx(dev)
    assert np.isfinite(get_metric("poisson_deviance")(y, [0.0, 1.0, 2.0, 4.0]))  # clipped
    # unweighted kappa: a 3-versus-1 mistake costs what a 2-versus-1 one does; quadratic: more
    truth, near, far = [1, 2, 3, 1, 2, 3], [2, 2, 3, 1, 2, 3], [3, 2, 3, 1, 2, 3]
    assert get_metric("cohen_kappa")(truth, near) == get_metric("cohen_kappa")(truth, far)
    assert get_metric("qwk")(truth, near) > get_metric("qwk")(truth, far)


@pytest.mark.parametrize("name", sorted(_EXPR))
def test_the_user_validation_cells_expression_agrees_with_the_registry(name: str) -> None:
    """The cell added to a user's notebook spells the metric out with scikit-learn: it must compute
    what the registry (and the grader) computes."""
    from scipy import stats
    from sklearn import metrics as skm

    rng = np.random.RandomState(0)
    metric = get_metric(name)
    if metric.kind == "regression":
        y = rng.rand(50) * 10 + 0.5
        p = y + rng.randn(50) * 0.5
        p = np.clip(p, 0.1, None)
    else:
        y = rng.randint(0, 2, 60)
        p = np.clip(y * 0.6 + 0.2 + rng.rand(60) * 0.3 - 0.15, 0.01, 0.99)
        if name not in _PROBA:
            p = (p > 0.5).astype(int)
    got = eval(
        _EXPR[name], {"_skm": skm, "_sps": stats, "np": np, "_y": y, "_p": p, **_helpers(name)}
    )
    assert float(got) == pytest.approx(metric(y, p))
    if metric.positive_class:  # labels that are words: the positive one is "yes"
        words = {"_y": np.where(y == 1, "Yes", "No"), "_p": np.where(p == 1, "Yes", "No")}
        got = eval(_EXPR[name], {"_skm": skm, "np": np, **words, **_helpers(name)})
        assert float(got) == pytest.approx(metric(words["_y"], words["_p"]))
        assert float(got) == pytest.approx(metric(y, p))


def _helpers(name: str) -> dict[str, object]:
    """What the added validation cell defines before its score (``_imports``)."""
    from mlestar_jupyter.agent.user_notebook import _imports

    ns: dict[str, object] = {}
    exec(_imports(_EXPR[name]), ns)
    return ns


def test_f1_precision_recall_of_word_labels_and_of_several_classes() -> None:
    """An outsider's ``--metric f1`` on yes/no labels failed every candidate ("pos_label=1 is not
    a valid label"), and on three classes too (binary F1): the positive class is now named by
    its word (yes, true, positive; else the last in sorted order), and more than two classes
    take the macro average.  The offline notebooks' own metric code agrees."""
    import numpy as np
    from sklearn.metrics import f1_score, precision_score, recall_score

    from mlestar_jupyter.offline.metric_code import metric_source

    y = np.array(["yes", "no", "yes", "no", "no", "yes"])
    p = np.array(["yes", "no", "no", "no", "yes", "yes"])
    assert get_metric("f1").fn(y, p) == pytest.approx(f1_score(y, p, pos_label="yes"))
    assert get_metric("precision").fn(y, p) == pytest.approx(precision_score(y, p, pos_label="yes"))
    assert get_metric("recall").fn(y, p) == pytest.approx(recall_score(y, p, pos_label="yes"))
    malign = np.array(["benign", "malignant", "malignant", "benign"])
    guess = np.array(["benign", "malignant", "benign", "benign"])
    assert get_metric("f1").fn(malign, guess) == pytest.approx(2 / 3)  # "malignant": sorted last
    three, three_p = np.array([0, 1, 2, 1, 0, 2]), np.array([0, 1, 1, 1, 0, 0])
    assert get_metric("f1").fn(three, three_p) == pytest.approx(
        f1_score(three, three_p, average="macro")
    )
    for name, words, truth, pred in (
        ("f1", ["no", "yes"], y, p),
        ("recall", ["benign", "malignant"], malign, guess),
        ("f1", [0, 1, 2], three, three_p),
    ):
        imports, code = metric_source(name, "classification")
        scope: dict = {"np": np}
        exec(imports + "\n" + code, scope)  # noqa: S102 - the notebooks' metric code
        classes = np.array(words)
        proba = (np.asarray(pred)[:, None] == classes[None, :]).astype(float)
        got = scope["score_predictions"](truth, proba, classes)
        assert got == pytest.approx(get_metric(name).fn(truth, pred)), name


def test_a_metric_object_s_average_names_the_averaged_metric() -> None:
    from mlestar_jupyter.task.spec_keys import metric_fields

    name, _ = metric_fields({"name": "F1", "average": "macro"})
    assert name is not None and get_metric(name).name == "f1_macro"
    name, _ = metric_fields({"name": "f1", "average": "weighted"})
    assert name is not None and get_metric(name).name == "f1_weighted"
