"""Rank averaging for every AUC (hunt U, session 36): a task graded by the one-vs-one AUC of
three wine cultivars was offered no rank average (``roc_auc`` only), and for several classes
the rank cell's rows were no probabilities, which a multi-class AUC refuses.  Real cards on
small real data, run in this process."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
from inprocess import exec_notebook, scorer
from sklearn.datasets import load_wine

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.agent.policy import ModelCard, Plan
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.ensemble import strategy_order
from mlestar_jupyter.task import load_task

SCORE = re.compile(r"Final Validation Performance:\s*([-+0-9.eE]+)")


def _wine(root: Path) -> Path:
    """Wine cultivars (three) in ``input/``, graded by the one-vs-one AUC, as a task.json
    written with scikit-learn's call names it."""
    frame = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    frame.columns = [c.replace("/", "_") for c in frame.columns]
    frame.insert(0, "id", range(len(frame)))
    frame = frame.sample(frac=1, random_state=0)
    (root / "input").mkdir(parents=True)
    frame.iloc[:140].to_csv(root / "input" / "train.csv", index=False)
    frame.iloc[140:].drop(columns="cultivar").to_csv(root / "input" / "test.csv", index=False)
    spec = {"metric": "roc_auc_score(multi_class='ovo')", "target": "cultivar", "id": "id"}
    (root / "task.json").write_text(json.dumps(spec))
    return root


def test_rank_average_of_a_one_vs_one_auc_scores_and_writes_probabilities(tmp_path: Path) -> None:
    root = _wine(tmp_path / "wine")
    policy = OfflinePolicy(load_task(root), RunConfig(kfold_rows=0))
    assert policy.task.metric_name == "roc_auc_ovo"
    assert "rank" in strategy_order(policy.layout)
    harness = scorer(root, kfold_rows=0)
    members = [policy.init_solution(ModelCard(c, "")) for c in ("linear", "random_forest")]
    for i, nb in enumerate(members):
        exec_notebook(nb, root, tmp_path / f"m{i}", harness)
    nb = policy.ensemble(members, Plan("rank", "rank"))
    scope, out = exec_notebook(nb, root, tmp_path / "rank", harness)
    score = float(SCORE.findall(out)[-1])
    assert math.isfinite(score) and 0.9 <= score <= 1.0
    check = harness.check(tmp_path / "rank", score)
    assert check.status == "measured", check
    sub = pd.read_csv(tmp_path / "rank" / "final" / "submission.csv")
    probs = sub.drop(columns="id").to_numpy()
    assert probs.shape == (38, 3) and abs(probs.sum(axis=1) - 1).max() < 1e-6
