"""The offline extractor's pieces: the metric vocabulary and explicit target statements."""

from __future__ import annotations

import pytest

from mlestar_jupyter.importer.heuristic import find_metric, stated_targets
from mlestar_jupyter.importer.pages import split_sections
from mlestar_jupyter.task.vocabulary import find_formula, find_metrics


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (
            "Submissions are evaluated on Root-Mean-Squared-Error (RMSE) between the logarithm of the predicted value",
            "rmsle",
        ),
        (r"$$\sqrt{\frac{1}{n}\sum_{i=1}^n (\log(p_i + 1) - \log(a_i+1))^2 }$$", "rmsle"),
        (r"$$\sqrt{\frac{1}{N}\sum_{i=1}^N (y_i - \hat{y}_i)^2}$$", "rmse"),
        (r"$\frac{1}{n}\sum_{i=1}^{n} \left| y_i - \hat{y}_i \right|$", "mae"),
        (r"$$-\frac{1}{N}\sum_{i}\sum_{j} y_{ij}\log(p_{ij})$$", "log_loss"),
        ("the square root of the average of the squared differences", "rmse"),
        ("scored by the share of images correctly classified", "accuracy"),
        ("quadratic weighted kappa, which measures the agreement between two ratings", "qwk"),
        ("the area under the receiver operating characteristic curve", "roc_auc"),
        ("Matthews correlation coefficient between predicted and observed", "mcc"),
        ("Submissions are evaluated according to the Mean Average Precision @ 3 (MAP@3)", "map@3"),
        ("The metric is MAP at 5 over the predicted hotel clusters.", "map@5"),
        ("Cohen's kappa between the raters and the model", "cohen_kappa"),
        (
            "evaluated on the average of the negative logarithm of the predicted probability "
            "assigned to the true cultivar",
            "log_loss",
        ),
        ("the mean negative log-likelihood of the true class", "log_loss"),
    ],
)
def test_vocabulary_reads_prose_and_formulas(text: str, name: str) -> None:
    assert find_metrics(text)[0].name == name


def test_the_evaluation_section_wins_and_a_refinement_of_the_same_family() -> None:
    text = (
        "# Overview\nUnlike last year's accuracy-based contest, ...\n\n"
        "# Evaluation\nWe compute the F1 score per class; the final score is the F1 averaged "
        "over all classes.\n$$F1 = 2\\frac{pr}{p+r}$$\n"
    )
    metric = find_metric(list(split_sections(text)), text)
    assert (
        metric is not None and metric.metric_name == "f1_macro" and metric.direction == "maximize"
    )
    assert find_formula(text) == "F1 = 2\\frac{pr}{p+r}"
    assert find_metric(list(split_sections("# A\nno metric here\n")), "no metric here") is None


def test_only_explicit_target_statements_count() -> None:
    text = (
        "Our target is to reduce churn.\nThe target column is `price`.\nTarget: SalePrice\n"
        "Predict `True` or `False` for the `Transported` variable. The `y` column is the target."
    )
    assert stated_targets(text) == ["price", "SalePrice", "y", "Transported"]
    assert stated_targets("We target small businesses and predict what they buy.") == []
