"""The regression ensemble (issue 21, part 3): weights fitted on the validation predictions
(non-negative, summing to 1, scored where fitted as ensemble selection is), a non-negative linear
stacker (cross-fitted, so the score it prints is not its own fit's); members combined in log
space for RMSLE; clipped to the targets' range.  Real cards on small real data, run in this
process."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from inprocess import exec_notebook, scorer

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.policy import ModelCard, Plan
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.ensemble import strategy_order
from mlestar_jupyter.task import load_task

SCORE = re.compile(r"Final Validation Performance:\s*([-+0-9.eE]+)")


def _weights(output: str) -> dict[str, float]:
    line = next(
        ln for ln in output.splitlines() if ln.startswith("fitted on every validation row:")
    )
    return ast.literal_eval(line.split(":", 1)[1].strip())


def _test_rmse(task_root: Path, workdir: Path, target: str) -> float:
    sub = pd.read_csv(workdir / "final" / "submission.csv")
    truth = pd.read_csv(task_root / "private" / "answers.csv")
    assert sub["id"].tolist() == truth["id"].tolist()
    return float(np.sqrt(np.mean((sub[target].to_numpy() - truth[target].to_numpy()) ** 2)))


@pytest.fixture(scope="module")
def diabetes_runs(task_dirs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Gradient boosting and ridge on diabetes (RMSE), alone and combined by each strategy, on
    the run's hold-out rows (k-fold off: the combiners are fitted on the hold-out's predictions)."""
    root = task_dirs["regression"]
    policy = OfflinePolicy(load_task(root), RunConfig(kfold_rows=0))
    harness = scorer(root, kfold_rows=0)
    base = tmp_path_factory.mktemp("regression_ensemble")
    members = [policy.init_solution(ModelCard(c, "")) for c in ("hist_gradient_boosting", "linear")]
    runs = {}
    for name, nb in zip(("gbm", "ridge"), members, strict=True):
        runs[name] = exec_notebook(nb, root, base / name, harness)
    for strategy in ("mean", "weighted", "stacking"):
        nb = policy.ensemble(members, Plan(strategy, strategy))
        runs[strategy] = exec_notebook(nb, root, base / strategy, harness)
        check = harness.check(base / strategy, float(SCORE.findall(runs[strategy][1])[-1]))
        assert check.status == "measured", check  # the harness agrees with the printed score
    return {"root": root, "base": base, "runs": runs}


def test_strategies_for_regression_include_weights_and_a_stacker(task_dirs) -> None:  # type: ignore[no-untyped-def]
    layout = OfflinePolicy(load_task(task_dirs["regression"]), RunConfig()).layout
    assert strategy_order(layout)[:3] == ["mean", "weighted", "stacking"]


def test_weights_lean_on_the_better_model_and_beat_the_plain_mean(diabetes_runs) -> None:  # type: ignore[no-untyped-def]
    runs, root, base = diabetes_runs["runs"], diabetes_runs["root"], diabetes_runs["base"]
    score = {k: float(SCORE.findall(out)[-1]) for k, (_, out) in runs.items()}
    assert score["ridge"] < score["gbm"] - 2  # the premise: on these rows ridge is clearly better
    weights = _weights(runs["weighted"][1])
    assert weights["solution_2"] > weights["solution_1"] and sum(weights.values()) == pytest.approx(
        1, abs=1e-3
    )
    stacked = _weights(runs["stacking"][1])
    assert stacked["solution_2"] > stacked["solution_1"] >= 0
    assert score["weighted"] < score["mean"]
    # ... and on the held-out test rows too (graded on the private answers)
    test = {k: _test_rmse(root, base / k, "progression") for k in ("mean", "weighted", "stacking")}
    assert test["weighted"] < test["mean"] and test["stacking"] < test["mean"]


def test_the_printed_score_is_cross_fitted_not_the_fit_on_its_own_rows(diabetes_runs) -> None:  # type: ignore[no-untyped-def]
    scope, _ = diabetes_runs["runs"]["stacking"]
    y_val = np.asarray(scope["y_val"], dtype=float)
    in_sample = scope["combine"](scope["Z_val"])  # the stacker fitted on every validation row
    honest = np.sqrt(np.mean((scope["val_pred"] - y_val) ** 2))
    assert honest > np.sqrt(np.mean((in_sample - y_val) ** 2))  # the in-sample fit flatters itself
    seen = np.asarray(scope["y"], dtype=float)
    for pred in (scope["val_pred"], scope["test_pred"]):
        assert seen.min() <= pred.min() and pred.max() <= seen.max()


def _skewed_prices(root: Path, n: int = 500) -> Path:
    """Positive prices with a long right tail (RMSLE), from two informative numbers."""
    import json

    rng = np.random.RandomState(1)
    a, b = rng.uniform(0, 3, n), rng.uniform(0, 1, n)
    price = np.exp(1 + a + b**2 + 0.4 * rng.randn(n)).round(2)
    df = pd.DataFrame({"id": np.arange(n), "a": a.round(3), "b": b.round(3), "price": price})
    (root / "input").mkdir(parents=True)
    (root / "private").mkdir()
    df.iloc[:400].to_csv(root / "input" / "train.csv", index=False)
    df.iloc[400:].drop(columns="price").to_csv(root / "input" / "test.csv", index=False)
    df.iloc[400:][["id"]].assign(price=1.0).to_csv(
        root / "input" / "sample_submission.csv", index=False
    )
    df.iloc[400:][["id", "price"]].to_csv(root / "private" / "answers.csv", index=False)
    spec = {
        "goal_description": "Predict the price.",
        "task_type": "regression",
        "metric": {"metric_name": "rmsle"},
        "target_col": "price",
        "data_information": {"data_type": "tabular"},
    }
    (root / "task.json").write_text(json.dumps(spec))
    return root


def test_rmsle_members_are_combined_in_log_space(tmp_path: Path) -> None:
    root = _skewed_prices(tmp_path / "task")
    policy = OfflinePolicy(load_task(root), RunConfig())
    members = [policy.init_solution(ModelCard(c, "")) for c in ("hist_gradient_boosting", "linear")]
    nb = policy.ensemble(members, Plan("mean", "mean"))
    assert "np.log1p" in nb.nb.cells[-1].source
    scope, _ = exec_notebook(nb, root, tmp_path / "mean", scorer(root))
    preds = scope["val_preds"]
    geometric = np.expm1(np.log1p(preds).mean(axis=0))  # the mean of log(1 + prediction)s
    seen = np.asarray(scope["y"], dtype=float)
    assert np.allclose(scope["val_pred"], np.clip(geometric, seen.min(), seen.max()))
    assert not np.allclose(scope["val_pred"], preds.mean(axis=0))  # not the plain mean
    weighted = policy.ensemble(members, Plan("weighted", "weighted"))
    scope, out = exec_notebook(weighted, root, tmp_path / "weighted", scorer(root))
    # the weights minimise the error of log(1 + prediction)s, the metric's own space
    assert "np.log1p" in weighted.nb.cells[-1].source and (scope["val_pred"] > 0).all()


def test_a_regression_merge_weighs_its_models_a_classification_merge_averages(policies) -> None:  # type: ignore[no-untyped-def]
    for name, recipe in (("regression", "nnls("), ("tabular", "val_preds.mean(axis=0)")):
        p = policies[name]
        a, b = (p.init_solution(ModelCard(c, "")) for c in ("hist_gradient_boosting", "linear"))
        assert recipe in p.merge(a, b).nb.cells[-1].source, name
