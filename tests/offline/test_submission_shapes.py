"""The submission follows the sample's columns; train-cell wrappers (bagging, log target) run and refit.

Regressions from the tiny bench pack: a per-class-probability sample got one label column, XGBoost
refused string labels, and the bagging strategy handed NumPy arrays to pandas feature code.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from kernel import run_notebook

from mlestar_jupyter.agent.policy import AblationSummary, ModelCard, Plan, RefineTarget
from mlestar_jupyter.offline import inspect_task, render_notebook
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import class_columns


@pytest.mark.parametrize(
    ("columns", "labels", "expected"),
    [
        (["class_0", "class_1", "class_10"], ["0", "1", "10"], ("0", "1", "10")),
        (["class_0", "class_1"], ["class_1", "class_0"], ("class_0", "class_1")),
        (["Cat", "dog"], ["cat", "dog"], ("cat", "dog")),
        (["proba_b", "proba_a"], ["a", "b"], ("b", "a")),
        (["proba_a", "proba_b", "proba_c"], ["a", "b"], ("a", "b", "c")),  # c never in training
        (["a", "b"], ["a", "c"], None),  # a training label without its column
        (["target"], ["0", "1"], None),  # one column: labels (or one probability), not classes
    ],
)
def test_class_columns(columns, labels, expected):
    assert class_columns(columns, labels) == expected


def test_layout_follows_the_sample_not_task_json(task_dirs):
    layout = inspect_task(load_task(task_dirs["wine"]))
    assert layout.label_col == "cultivar"
    assert layout.submission_kind == "proba_columns"
    assert layout.target_cols == ("grignolino", "barolo", "barbera")
    assert layout.class_names == layout.target_cols
    single = inspect_task(load_task(task_dirs["tabular"]))
    assert (single.submission_kind, single.target_cols, single.class_names) == (
        "single",
        ("target",),
        (),
    )


def _check_probability_submission(task_root, submission) -> pd.DataFrame:
    sample = pd.read_csv(task_root / "input" / "sample_submission.csv")
    sub = pd.read_csv(submission)
    assert list(sub.columns) == list(sample.columns)
    assert sub["id"].tolist() == sample["id"].tolist()
    probs = sub[sample.columns[1:]].to_numpy()
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-6) and (probs >= 0).all()
    answers = pd.read_csv(task_root / "private" / "answers.csv").set_index("id")
    truth = answers.loc[sub["id"], "cultivar"].to_numpy()
    picked = np.asarray(sample.columns[1:])[probs.argmax(axis=1)]
    assert (picked == truth).mean() > 0.85  # the columns hold the right classes' probabilities
    return sub


def test_bagging_runs_on_string_labels_and_refits(policies, task_dirs, tmp_path):
    """The bagging strategy's code runs on pandas features, and the final refit bags the plain model."""
    p = policies["wine"]
    card = p.catalog["linear"]
    nb = render_notebook(p.catalog, card, p.ctx, {"train": {"bags": 3}})
    assert "class Bagged" in nb.blocks_by_role("train")[0].source
    ran = run_notebook(nb, task_dirs["wine"], tmp_path / "search")
    assert ran.score is not None and ran.score < 0.3, ran.output[-2000:]
    _check_probability_submission(task_dirs["wine"], ran.submission)
    # The refit must bag the plain model again, not a bag of bags.
    check = (
        "assert type(model).__name__ == 'Bagged' and type(model.estimator).__name__ == 'Pipeline'"
    )
    final_nb = p.make_submission(nb).append_block("other", check)
    final = run_notebook(final_nb, task_dirs["wine"], tmp_path / "final")
    assert final.score is not None, final.output[-2000:]
    _check_probability_submission(task_dirs["wine"], final.submission)


def test_bagging_plan_from_the_policy_renders_runnable_code(policies, task_dirs, tmp_path):
    """The plan the policy itself writes for the train block ("Bag 3 copies ...") runs."""
    p = policies["wine"]
    nb = p.init_solution(ModelCard(name="xgboost", description="", template="xgboost"))
    train_id = nb.blocks_by_role("train")[0].id
    target = RefineTarget(train_id, Plan(""))
    plan = p.plan(nb, target, [])
    assert plan.strategy == "bagging", plan
    refined = nb.replace_block(train_id, p.code(nb, target, plan))
    ran = run_notebook(refined, task_dirs["wine"], tmp_path / "bagged")
    assert ran.score is not None and ran.score < 0.3, ran.output[-2000:]
    _check_probability_submission(task_dirs["wine"], ran.submission)
    assert p.extract(refined, AblationSummary("", ran.score), []).block_id in refined.block_ids


def test_log_target_refit_wraps_the_plain_model_once(policies, task_dirs, tmp_path):
    p = policies["regression"]
    nb = render_notebook(p.catalog, p.catalog["linear"], p.ctx, {"train": {"log_target": True}})
    check = "assert type(model.regressor).__name__ == 'Pipeline', 'the target was logged twice'"
    final = p.make_submission(nb).append_block("other", check)
    ran = run_notebook(final, task_dirs["regression"], tmp_path / "final")
    assert ran.score is not None and ran.score < 70, ran.output[-2000:]
    assert pd.read_csv(ran.submission)["progression"].between(20, 400).all()


def test_ensemble_writes_probability_columns(policies, task_dirs, tmp_path):
    p = policies["wine"]
    a = p.init_solution(ModelCard(name="linear", description="", template="linear"))
    b = p.init_solution(ModelCard(name="random_forest", description="", template="random_forest"))
    ens = p.ensemble([a, b], Plan("", "weighted"))
    ran = run_notebook(ens, task_dirs["wine"], tmp_path / "ens")
    assert ran.score is not None and ran.score < 0.3, ran.output[-2000:]
    _check_probability_submission(task_dirs["wine"], ran.submission)
