"""Metric registry and Score comparisons."""

from __future__ import annotations

import pytest

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
    ],
)
def test_names_resolve_with_direction(name: str, canon: str, direction: str) -> None:
    m = get_metric(name)
    assert (m.name, m.direction) == (canon, direction)


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
