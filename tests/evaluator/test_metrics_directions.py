"""Every metric name the pack and graders use resolves to the right direction."""

from __future__ import annotations

import pytest

from mlestar_jupyter.metrics import get_metric


@pytest.mark.parametrize(
    ("name", "canonical", "direction"),
    [
        ("Multiclass Accuracy", "accuracy", "maximize"),
        ("Accuracy", "accuracy", "maximize"),
        ("Macro F1", "f1_macro", "maximize"),
        ("ROC AUC", "roc_auc", "maximize"),
        ("Multiclass Log Loss", "log_loss", "minimize"),
        ("RMSE", "rmse", "minimize"),
        ("Root Mean Squared Logarithmic Error", "rmsle", "minimize"),
        ("MAE", "mae", "minimize"),
        ("MCRMSE", "mcrmse", "minimize"),
        ("Quadratic Weighted Kappa", "qwk", "maximize"),
    ],
)
def test_metric_directions(name: str, canonical: str, direction: str) -> None:
    m = get_metric(name)
    assert (m.name, m.direction) == (canonical, direction)
