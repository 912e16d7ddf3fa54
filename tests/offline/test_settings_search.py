"""Issue 21: on a mid-size table the first plan for a LightGBM model block is a time-boxed random
search of its settings (each try early-stopped), which a refit does not repeat; a small table
never gets that plan (its few rows are validated by k-fold instead)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from inprocess import exec_notebook

from mlestar_jupyter.agent.config import Budget, RunConfig
from mlestar_jupyter.agent.policy import (
    AblationResult,
    AblationSummary,
    ModelCard,
    Plan,
    RefineTarget,
)
from mlestar_jupyter.agent.scoring import scorer_for
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.card_refiner import SEARCH_TIME_SHARE
from mlestar_jupyter.offline.catalog import CATALOG_DIR
from mlestar_jupyter.offline.render import render_notebook
from mlestar_jupyter.task import load_task

SCORE = re.compile(r"Final Validation Performance:\s*([-+0-9.eE]+)")
SEARCHED = re.compile(r"searched (\d+) settings in")


def _readings(root: Path, n: int = 7_000, classify: bool = False) -> Path:
    """Sensor readings as a user exports them: a CSV per split, a task.json with four fields."""
    rng = np.random.RandomState(1)
    X = rng.uniform(0, 1, (n, 6))
    y = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3]
    y = 5 + y + rng.normal(0, 1.5, n)  # positive (a log target is one of the cases)
    df = pd.DataFrame(X.round(4), columns=[f"s{i}" for i in range(6)])
    df.insert(0, "reading_id", np.arange(n))
    df["site"] = rng.choice(["north", "south", "east"], n)
    df["target"] = (y > np.median(y)).astype(int) if classify else y.round(3)
    train, test = df.iloc[: n - 1_000], df.iloc[n - 1_000 :]
    (root / "input").mkdir(parents=True)
    train.to_csv(root / "input" / "train.csv", index=False)
    test.drop(columns="target").to_csv(root / "input" / "test.csv", index=False)
    sample = pd.DataFrame({"reading_id": test["reading_id"], "target": 0.5 if classify else 0.0})
    sample.to_csv(root / "input" / "sample_submission.csv", index=False)
    spec = {
        "task_type": "classification" if classify else "regression",
        "metric": {"metric_name": "roc_auc" if classify else "rmse"},
        "target_col": "target",
        "goal_description": "Predict the reading's target from the six sensors and the site.",
    }
    (root / "task.json").write_text(json.dumps(spec))
    return root


def _model_target(p: OfflinePolicy) -> tuple[object, RefineTarget]:
    nb = p.init_solution(ModelCard("lightgbm", ""))
    block = nb.blocks_by_role("model")[0]
    return nb, RefineTarget(block.id, Plan("", "", {}))


def test_many_rows_search_the_settings_first_and_few_rows_never(tmp_path: Path, task_dirs) -> None:  # type: ignore[no-untyped-def]
    readings = load_task(_readings(tmp_path / "big"))
    big = OfflinePolicy(readings, RunConfig())
    nb, target = _model_target(big)
    first = big.plan(nb, target, [])  # type: ignore[arg-type]
    assert first.strategy == "search" and "SEARCH_SECONDS = 8" in big.code(nb, target, first)  # type: ignore[arg-type]
    after = big.plan(nb, target, [(first, 3.0)])  # type: ignore[arg-type]
    assert after.strategy == "search+search_longer"  # it helped: search longer on top of it
    # a 30 s execution limit (a 120 s run's) cuts both searches to about 8 s: no longer search
    short = RunConfig(budget=Budget(wall_seconds=120, exec_timeout=30))
    hurried = OfflinePolicy(readings, short)
    after = hurried.plan(nb, target, [(first, 3.0)])  # type: ignore[arg-type]
    assert "search_longer" not in after.strategy and after.strategy.startswith("search+"), after
    roomy = RunConfig(budget=Budget(wall_seconds=300, exec_timeout=75))  # 22.5 s: worth it
    assert (
        OfflinePolicy(readings, roomy).plan(nb, target, [(first, 3.0)]).strategy
        == "search+search_longer"
    )  # type: ignore[arg-type]
    # ... nor does leaving it out push the first search back: a skewed target (its log comes
    # first on the train block) still has the model block's first plan search the settings
    hurried.cards.log_target = lambda: "first"
    assert hurried.plan(nb, target, []).strategy == "search"  # type: ignore[arg-type]
    template = (CATALOG_DIR / "_search.py.j2").read_text()
    assert f"{SEARCH_TIME_SHARE} * float(Path(" in template  # the share the planner reckons with
    small = OfflinePolicy(load_task(task_dirs["tabular"]), RunConfig())  # 455 labelled rows
    nb, target = _model_target(small)
    history: list[tuple[Plan, float | None]] = []
    while (plan := small.plan(nb, target, history)).strategy != "exhausted":  # type: ignore[arg-type]
        assert "search" not in plan.strategy.split("+"), plan
        history.append((plan, None))
    assert len(history) >= 4


def test_on_many_rows_the_extractor_picks_an_unsearched_booster_before_the_ablations_order(
    tmp_path: Path, task_dirs
) -> None:  # type: ignore[no-untyped-def]
    """The ablation says the features matter most; on 6 000 rows the booster's model block is
    searched first all the same, then the ablation's order resumes.  A linear model (nothing to
    search) and a small table keep that order."""
    big = OfflinePolicy(load_task(_readings(tmp_path / "big", classify=True)), RunConfig())
    nb = big.init_solution(ModelCard("lightgbm", ""))
    model = nb.blocks_by_role("model")[0].id
    features = nb.blocks_by_role("features")[0].id
    summary = AblationSummary(
        text="", baseline=0.9, results=(AblationResult("without features", features, 0.7, 0.2),)
    )
    first = big.extract(nb, summary, [])
    assert first.block_id == model and first.plan.strategy == "search"
    assert big.extract(nb, summary, [model]).block_id == features
    linear = big.init_solution(ModelCard("linear", ""))
    lin_features = linear.blocks_by_role("features")[0].id
    lin_summary = AblationSummary(
        text="", baseline=0.9, results=(AblationResult("x", lin_features, 0.7, 0.2),)
    )
    assert big.extract(linear, lin_summary, []).block_id == lin_features
    small = OfflinePolicy(load_task(task_dirs["tabular"]), RunConfig())  # 455 labelled rows
    nb = small.init_solution(ModelCard("lightgbm", ""))
    summary = AblationSummary(
        text="",
        baseline=0.9,
        results=(AblationResult("x", nb.blocks_by_role("features")[0].id, 0.7, 0.2),),
    )
    assert small.extract(nb, summary, []).block_id != nb.blocks_by_role("model")[0].id


@pytest.mark.parametrize(
    ("card", "classify", "log_target"),
    [
        ("lightgbm", False, False),
        ("lightgbm", False, True),
        ("lightgbm", True, False),
        ("xgboost", False, True),
        ("xgboost", True, False),
    ],
)
def test_the_search_tries_several_settings_and_a_refit_reuses_them(
    tmp_path: Path, card: str, classify: bool, log_target: bool
) -> None:
    """Also inside a log-target wrapper, which clones the model it is given."""
    root = _readings(tmp_path / "task", classify=classify)
    task = load_task(root)
    p = OfflinePolicy(task, RunConfig())
    params = {"model": {"search_seconds": 16}, "train": {"log_target": log_target}}
    nb = render_notebook(p.catalog, p.catalog[card], p.ctx, params)
    assert ("TransformedTargetRegressor(" in nb.source) == log_target
    plain = render_notebook(p.catalog, p.catalog[card], p.ctx)
    assert "SearchedBooster" in nb.source and "SearchedBooster" not in plain.source
    scorer = scorer_for(task, seed=0, max_rows=30_000, kfold_rows=2_000)  # 6 000 rows: hold-out
    (tmp_path / "run").mkdir()
    # as the harness writes it; 60 s leave the 16 s asked (one setting of 6 000 rows took 3 s
    # and more on a loaded CI machine, and 6 s of search then tried only one)
    (tmp_path / "run" / "time_limit.txt").write_text("60\n")
    scope, out = exec_notebook(nb, root, tmp_path / "run", scorer)
    with contextlib.chdir(tmp_path / "run"):  # where the notebook ran
        assert scope["search_seconds"]() == pytest.approx(16.0)  # 30 % of 60 s: over the 16 asked
    (tmp_path / "short").mkdir()
    (tmp_path / "short" / "time_limit.txt").write_text("20\n")
    with contextlib.chdir(tmp_path / "short"):  # a shorter limit
        assert scope["search_seconds"]() == pytest.approx(6.0)  # 30 % of 20 s: under the 16 asked
    assert scope["search_seconds"]() == 16  # elsewhere (no time limit written): as asked
    (tries,) = SEARCHED.findall(out)
    assert int(tries) >= 2, out
    fitted = scope["model"].regressor_ if log_target else scope["model"]
    members = _searched(fitted[-1]).members_
    assert 1 <= len(members) <= 3 and all(m["n_estimators"] >= 10 for m in members)
    assert len(_searched(fitted[-1]).models_) == len(members)
    assert (len(members) > 1) == (f"averaging the {len(members)} best settings" in out), out
    checked = scorer.check(tmp_path / "run", float(SCORE.findall(out)[-1]))
    assert checked.status == "measured", checked
    if classify:
        assert checked.score is not None and checked.score > 0.9
    refit_out = io.StringIO()
    with contextlib.redirect_stdout(refit_out):
        refit = scope["train"](scope["model"], scope["X"], scope["y"])
    refit = refit.regressor_ if log_target else refit
    assert "searched" not in refit_out.getvalue() and _searched(refit[-1]).members_ == members
    # the refit has the validation rows too: each member's trees grow with the rows
    again = _searched(refit[-1])
    grow = len(scope["X"]) / again.rows_  # type: ignore[attr-defined]
    assert grow > 1.2 and again.rows_ == len(scope["y_train"])  # type: ignore[attr-defined]
    trees = [m.get_params()["n_estimators"] for m in again.models_]  # type: ignore[attr-defined]
    assert trees == [max(10, round(m["n_estimators"] * grow)) for m in members]


def _searched(step: object) -> object:
    """The search in a pipeline's last step (XGBoost's classifier wraps it to code the labels)."""
    return step if hasattr(step, "members_") else step.estimator_  # type: ignore[attr-defined]
