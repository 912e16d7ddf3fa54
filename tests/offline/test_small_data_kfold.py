"""Small data (issue 21, part 4): a task with few labelled rows and no harness split (series)
validates by 5-fold cross-validation on every row, repeated as time allows, so its score is
steady; a model too slow for that keeps its hold-out, and an ensemble of both kinds compares them
on the hold-out.  A small table does the same, and the harness scores its out-of-fold predictions
of every row instead of the run's hold-out rows (``./val_index.csv``)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from inprocess import exec_notebook
from test_small_many_classes import N_CLASSES, N_TEST, N_TRAIN, _many_class_series

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.policy import ModelCard, Plan
from mlestar_jupyter.notebook import SolutionNotebook
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.render import render_notebook
from mlestar_jupyter.task import load_task

SCORE = re.compile(r"Final Validation Performance:\s*([-+0-9.eE]+)")
CHEAP_MODEL = (  # the first 8 steps into a logistic regression: seconds for 15 fits, far from perfect
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.preprocessing import StandardScaler\n\n"
    "model = make_pipeline(FunctionTransformer(lambda X: X[:, :8]), StandardScaler(), LogisticRegression(C=0.5, max_iter=300))"
)


@pytest.fixture(scope="module")
def series(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, OfflinePolicy]:
    root = _many_class_series(tmp_path_factory.mktemp("kfold") / "task")
    return root, OfflinePolicy(load_task(root), RunConfig())


def _notebook(
    policy: OfflinePolicy, card: str = "minirocket", cheap: bool = True, **ctx: Any
) -> SolutionNotebook:
    """The card's notebook for this task with render settings ``ctx`` (and a cheap model)."""
    nb = render_notebook(
        policy.catalog, policy.catalog[card], dataclasses.replace(policy.ctx, **ctx)
    )
    if cheap:
        model = nb.blocks_by_role("model")[0]
        nb = nb.replace_block(model.id, CHEAP_MODEL)
        feats = nb.blocks_by_role("features")[0]
        nb = nb.replace_block(feats.id, "features = None")
    return nb


def test_small_tables_validate_out_of_fold_and_the_harness_scores_every_row(  # type: ignore[no-untyped-def]
    policies, task_dirs, tmp_path
) -> None:
    """A table of a few hundred rows (the regression fixture): the notebook predicts every
    labelled row out of fold, writes them all to ./val_predictions.csv, and the harness grades
    them (the printed score is the measured one).  With ``kfold_rows=0`` it keeps the run's
    hold-out rows, as a large table does."""
    from mlestar_jupyter.agent.scoring import VAL_PREDICTIONS_FILE, scorer_for

    for name in ("tabular", "regression", "text"):
        nb = policies[name].init_solution(policies[name].retrieve(1)[0])
        assert "cross_validate(model, X, y" in nb.source and "val_index.csv" in nb.source, name
    root, policy = task_dirs["regression"], policies["regression"]
    for rows in (2_000, 0):
        scorer = scorer_for(policy.task, seed=0, max_rows=30_000, kfold_rows=rows)
        assert scorer.split is not None
        work = tmp_path / f"k{rows}"
        nb_k = policy.init_solution(ModelCard("linear", "")) if rows else _without_kfold(policy)
        scope, out = exec_notebook(nb_k, root, work, scorer)
        written = pd.read_csv(work / VAL_PREDICTIONS_FILE)
        n, held = len(scope["y"]), len(scorer.split.rows)
        assert len(written) == (n if rows else held) and scope.get("KFOLD", False) == bool(rows)
        got = scorer.check(work, float(SCORE.findall(out)[-1]), "val_index.csv")
        assert got.status == "measured" and got.score is not None, got


def _without_kfold(policy: OfflinePolicy) -> SolutionNotebook:
    """The linear card's notebook rendered with k-fold off (``kfold_rows=0``)."""
    nb = render_notebook(
        policy.catalog, policy.catalog["linear"], dataclasses.replace(policy.ctx, kfold_rows=0)
    )
    assert "cross_validate" not in nb.source
    return nb


def test_few_rows_of_many_classes_are_validated_by_kfold_on_every_row(series, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root, policy = series
    nb = _notebook(policy, cheap=False, cv_seconds=600.0)  # the real card, time enough
    scope, out = exec_notebook(nb, root, tmp_path / "run")
    assert "5-fold cross-validation x" in out and scope["KFOLD"]
    assert len(scope["y_val"]) == N_TRAIN and scope["val_pred"].shape == (N_TRAIN, N_CLASSES)
    assert np.allclose(scope["val_pred"].sum(axis=1), 1)  # out-of-fold class probabilities
    score = float(SCORE.findall(out)[-1])
    truth = np.asarray(scope["y"])
    hits = np.asarray(scope["classes_"])[scope["val_pred"].argmax(axis=1)] == truth
    assert score == pytest.approx(hits.mean()) and score > 0.5  # prior-only: about 1/52
    sub = pd.read_csv(tmp_path / "run" / "final" / "submission.csv")
    assert len(sub) == N_TEST and sub["label"].isin(set(truth)).all()


def test_the_kfold_score_is_steadier_than_one_hold_out(series, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root, policy = series
    scores: dict[str, list[float]] = {"hold-out": [], "k-fold": []}
    for seed in range(5):  # other validation rows each time
        for kind, rows in (("hold-out", 0), ("k-fold", 2000)):
            nb = _notebook(policy, split_seed=seed, kfold_rows=rows, cv_seconds=600.0)
            _, out = exec_notebook(nb, root, tmp_path / f"{kind}{seed}")
            assert ("cross-validation" in out) == (kind == "k-fold")
            scores[kind].append(float(SCORE.findall(out)[-1]))
    spread = {k: float(np.std(v)) for k, v in scores.items()}
    assert spread["k-fold"] < 0.5 * spread["hold-out"], scores


def test_a_slow_model_keeps_its_hold_out_and_an_ensemble_compares_there(series, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root, policy = series
    slow = _notebook(policy, cv_seconds=0.0)  # one fold already takes longer than allowed
    _, out = exec_notebook(slow, root, tmp_path / "slow")
    assert "a 5-fold cross-validation would take over 0 s" in out
    # a train cell that does not time its fit: the first fold tells, and the rest is not run
    train = slow.blocks_by_role("train")[0]
    untimed = slow.replace_block(
        train.id, re.sub(r"fit_seconds = .*|fit_started = .*", "", train.source)
    )
    scope, out = exec_notebook(untimed, root, tmp_path / "untimed")
    assert "fit_seconds" not in scope and "would take over 0 s" in out and not scope["KFOLD"]
    quick = _notebook(policy, cv_seconds=600.0)
    for plan in ("mean", "weighted"):
        both = policy.ensemble([slow, quick], Plan(plan, plan))
        scope, out = exec_notebook(both, root, tmp_path / f"both_{plan}")
        held_out = len(scope["solutions"]["solution_1"]["y_val"])
        assert held_out < N_TRAIN and len(scope["y_val"]) == held_out  # compared on the hold-out
        assert scope["val_pred"].shape == (held_out, N_CLASSES)
    kfold_only = policy.ensemble([quick, quick], Plan("mean", "mean"))
    scope, _ = exec_notebook(kfold_only, root, tmp_path / "kfold_only")
    assert len(scope["y_val"]) == N_TRAIN and scope["hold_out_predictions"] is None


def test_in_a_run_the_time_limit_not_the_machine_load_decides_the_k_fold(series, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Titanic found it: on a loaded machine a random forest's five fits took over CV_SECONDS, so
    it was scored on the 184-row hold-out while the other models were k-folded on all 919 rows,
    and the run compared the two kinds of score as one.  In a run (``./time_limit.txt``) a model
    is k-folded while its five fits take at most half of its time limit; only a model slower
    than that keeps the hold-out."""
    root, policy = series
    nb = _notebook(policy, cv_seconds=0.0)  # outside a run this keeps the hold-out (test above)
    roomy = tmp_path / "roomy"
    roomy.mkdir()
    (roomy / "time_limit.txt").write_text("600\n")
    scope, out = exec_notebook(nb, root, roomy)
    assert "5-fold cross-validation x" in out and scope["KFOLD"], out[-500:]
    assert len(scope["y_val"]) == N_TRAIN
    tight = tmp_path / "tight"
    tight.mkdir()
    (tight / "time_limit.txt").write_text("0\n")  # no five fits take no time at all
    scope, out = exec_notebook(nb, root, tight)
    assert "validation: the hold-out" in out and not scope["KFOLD"]


def test_an_ensemble_of_real_series_cards_runs(policies, task_dirs, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The series fixture (180 labelled rows, 3 shapes): both cards, merged, on k-fold rows."""
    policy = policies["time_series"]
    a, b = (policy.init_solution(ModelCard(c, "")) for c in ("minirocket", "ts_stats_gbm"))
    merged = policy.merge(a, b)
    scope, out = exec_notebook(merged, task_dirs["time_series"], tmp_path / "merged")
    n = len(scope["y"])
    assert out.count("Validation performance of this model") == 2
    if len(scope["y_val"]) == n:  # both cross-validated (the usual case: seconds per fit)
        assert scope["val_pred"].shape == (n, 3)
    assert float(SCORE.findall(out)[-1]) > 0.8


@pytest.mark.parametrize(
    ("name", "cards"),
    [("regression", ("hist_gradient_boosting", "linear")), ("tabular", ("lightgbm", "linear"))],
)
def test_ensembles_of_small_tables_are_scored_on_every_row(  # type: ignore[no-untyped-def]
    policies, task_dirs, tmp_path, name, cards
) -> None:
    """Both members predicted every row out of fold: each ensemble strategy combines them there,
    and the harness scores the ensemble's predictions of every row."""
    from inprocess import scorer

    from mlestar_jupyter.offline.ensemble import strategy_order

    root, policy = task_dirs[name], policies[name]
    harness = scorer(root)
    assert harness.split is not None and harness.split.every_row is not None
    # time enough for the folds even on a loaded machine (else a member keeps its hold-out)
    ctx = dataclasses.replace(policy.ctx, cv_seconds=600.0)
    members = [render_notebook(policy.catalog, policy.catalog[c], ctx) for c in cards]
    for strategy in strategy_order(policy.layout)[:3]:
        nb = policy.ensemble(members, Plan(strategy, strategy))
        scope, out = exec_notebook(nb, root, tmp_path / strategy, harness)
        assert len(scope["y_val"]) == len(scope["y"]), strategy  # every row, out of fold
        check = harness.check(tmp_path / strategy, float(SCORE.findall(out)[-1]))
        assert check.status == "measured", (strategy, check)
