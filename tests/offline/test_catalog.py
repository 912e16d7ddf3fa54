"""The catalog: shipped cards, user cards, templates' structure, and the metric code they embed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mlestar_jupyter.metrics import get_metric, metric_names
from mlestar_jupyter.offline import CatalogError, load_catalog
from mlestar_jupyter.offline.metric_code import metric_source
from mlestar_jupyter.offline.render import RenderContext, render_cells

EXPECTED = {
    "lightgbm",
    "hist_gradient_boosting",
    "random_forest",
    "linear",
    "xgboost",
    "tfidf_linear",
    "nbsvm",
    "small_cnn",
    "hog_linear",
    "mfcc_gbm",
    "mfcc_linear",
    "minirocket",
    "ts_stats_gbm",
}


def test_shipped_cards():
    cat = load_catalog()
    assert EXPECTED <= set(cat.cards)
    for card in cat.cards.values():
        assert card.description and card.example_code and card.modalities and card.task_types
        mc = card.to_model_card()
        assert mc.template == card.name and mc.requires == card.requires


def test_cards_needing_missing_packages_are_skipped():
    cat = load_catalog()
    xgb = cat["xgboost"]
    import importlib.util

    assert xgb.available == (importlib.util.find_spec("xgboost") is not None)
    assert ("xgboost" in [c.name for c in cat.matching("tabular", "regression")]) == xgb.available
    assert "xgboost" in [
        c.name for c in cat.matching("tabular", "regression", available_only=False)
    ]


def test_matching_offers_one_card_per_family_first():
    """Three gradient-boosting cards must not fill a short list: a forest and a linear model come first."""
    names = [c.name for c in load_catalog().matching("tabular", "regression", available_only=False)]
    assert names[:3] == ["lightgbm", "random_forest", "linear"]
    assert set(names[3:]) == {"xgboost", "hist_gradient_boosting"}


def test_user_cards_extend_and_override(tmp_path):
    (tmp_path / "my_ridge.json").write_text(
        json.dumps(
            {
                "name": "my_ridge",
                "description": "My ridge.",
                "modalities": ["tabular"],
                "task_types": ["regression"],
                "priority": 1,
                "params": {"model": {"alpha": 3.0}},
            }
        )
    )
    (tmp_path / "my_ridge.py.j2").write_text(
        '{% extends "_tabular.py.j2" %}\n{% block model %}\nfrom sklearn.linear_model import Ridge\n\n'
        "model = make_pipeline(features, preprocessor, Ridge(alpha={{ p.model.alpha }}))\n{% endblock %}\n"
    )
    cat = load_catalog(extra_dirs=[tmp_path])
    assert cat["my_ridge"].source == "user"
    assert cat.matching("tabular", "regression")[0].name == "my_ridge"
    with pytest.raises(CatalogError, match="not a folder"):
        load_catalog(extra_dirs=[tmp_path / "nope"])
    (tmp_path / "bad.json").write_text('{"name": "bad"}')
    with pytest.raises(CatalogError, match="missing field"):
        load_catalog(extra_dirs=[tmp_path])


@pytest.mark.parametrize(
    "task_name", ["tabular", "regression", "text", "image", "image_folders", "audio", "time_series"]
)
def test_templates_have_one_cell_per_role_and_default_params(policies, task_name):
    p = policies[task_name]
    for card in p.catalog.matching(p.layout.modality, p.layout.task_type):
        cells = render_cells(p.catalog, card, RenderContext(p.task, p.layout))
        roles = [c.role for c in cells if c.role != "markdown"]
        assert len(roles) == len(set(roles)), (card.name, roles)
        assert {"setup", "load", "subsample", "model", "train", "evaluate", "predict"} <= set(roles)


@pytest.mark.parametrize("name", metric_names())
def test_metric_code_agrees_with_the_registry(name):
    rng = np.random.RandomState(0)
    metric = get_metric(name)
    clf = metric.kind != "regression"
    imp, body = metric_source(name, "classification" if clf else "regression")
    ns: dict = {"np": np}
    exec(imp + "\n" + body, ns)
    if clf:
        y = rng.randint(0, 2, 60)
        proba = np.clip(
            np.column_stack([1 - y * 0.6 - 0.2, y * 0.6 + 0.2]) + rng.rand(60, 2) * 0.3, 0, 1
        )
        proba /= proba.sum(1, keepdims=True)
        classes = np.array([0, 1])
        ours = ns["score_predictions"](y, proba, classes)
        ref = metric(
            y,
            proba
            if metric.needs_proba and name == "log_loss"
            else proba[:, 1]
            if metric.needs_proba
            else classes[proba.argmax(1)],
        )
    else:
        y = rng.rand(50) * 10
        pred = y + rng.randn(50)
        ours, ref = ns["score_predictions"](y, pred), metric(y, pred)
    assert ours == pytest.approx(ref)
