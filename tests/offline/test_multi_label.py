"""Hunt, session 24: a multi-label task (three 0/1 label columns in the sample, graded by the
mean column-wise ROC AUC) failed in every candidate ("y should be a 1d array") and the run
handed in one label's prior for all three columns (AUC 0.500).  Its labels are now fitted as a
regression of each column, whose predictions within 0 and 1 are the probabilities (the hunt's
folder: mean AUC 0.974; a logistic regression per label 0.981)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from kernel import run_notebook
from sklearn.datasets import load_breast_cancer

from mlestar_jupyter.agent.config import RunConfig
from mlestar_jupyter.offline import OfflinePolicy
from mlestar_jupyter.offline.render import render_notebook
from mlestar_jupyter.task import load_task
from mlestar_jupyter.task.layout import inspect_task
from mlestar_jupyter.task.layout.checks import data_problems


def _labels(root: Path, as_text: bool = False) -> Path:
    data = load_breast_cancer(as_frame=True).frame.iloc[:, [0, 1, 2, 3, 7, 20, 21, 27, 30]]
    data.columns = [f"f{i}" for i in range(8)] + ["target"]
    rng = np.random.default_rng(0)
    frame = data.drop(columns="target").assign(
        label_a=data["target"],
        label_b=(data["f1"] + rng.normal(0, 3, len(data)) > data["f1"].median()).astype(int),
        label_c=(data["f6"] > data["f6"].median()).astype(int),
    )
    if as_text:
        frame["label_a"] = frame["label_a"].map({0: "no", 1: "yes"})
    frame.insert(0, "id", range(1000, 1000 + len(frame)))
    inp = root / "input"
    inp.mkdir(parents=True)
    frame.iloc[:450].to_csv(inp / "train.csv", index=False)
    test = frame.iloc[450:]
    test.drop(columns=["label_a", "label_b", "label_c"]).to_csv(inp / "test.csv", index=False)
    test[["id"]].assign(label_a=0.5, label_b=0.5, label_c=0.5).to_csv(
        inp / "sample_submission.csv", index=False
    )
    test[["id", "label_a", "label_b", "label_c"]].to_csv(root / "answers.csv", index=False)
    (root / "description.md").write_text(
        "# Multi-label\nEach row may carry several labels: label_a, label_b, label_c.\n\n"
        "## Evaluation\nMean column-wise ROC AUC\n"
    )
    return root


@pytest.mark.parametrize("card", ["lightgbm", "linear"])
def test_each_label_is_a_column_of_probabilities(tmp_path: Path, card: str) -> None:
    root = _labels(tmp_path / "t")
    task = load_task(root)
    assert task.task_type == "classification" and task.metric_name == "roc_auc"
    layout = inspect_task(task)
    assert layout.submission_kind == "multi_target" and not layout.is_classification
    assert data_problems(task, layout) == []
    policy = OfflinePolicy(task, RunConfig())
    params = {"features": {"interactions": 4}} if card == "lightgbm" else None
    nb = render_notebook(policy.catalog, policy.catalog[card], policy.ctx, params)
    ran = run_notebook(nb, root, tmp_path / "work", timeout=300)
    assert ran.score is not None and ran.score > 0.85, ran.output[-2000:]
    sub = pd.read_csv(ran.submission)
    assert list(sub.columns) == ["id", "label_a", "label_b", "label_c"]
    probs = sub[["label_a", "label_b", "label_c"]].to_numpy()
    assert probs.min() >= 0 and probs.max() <= 1 and len(np.unique(probs[:, 0])) > 10


def test_labels_written_as_text_are_refused_saying_how(tmp_path: Path) -> None:
    task = load_task(_labels(tmp_path / "x", as_text=True))
    (problem,) = data_problems(task, inspect_task(task))
    assert "'label_a' hold text" in problem and "0/1" in problem


def test_the_prior_baseline_gives_each_label_its_own_frequency(tmp_path: Path) -> None:
    """The last-resort file wrote label_a's mean into all three columns."""
    import os

    from mlestar_jupyter.agent.submission import BASELINE, PER_TARGET_FILL, value_spec

    root = _labels(tmp_path / "t")
    task = load_task(root)
    values = value_spec(task)
    assert values is not None and values.mode == "proba_single"
    code = BASELINE.format(
        sample="sample_submission.csv",
        read_sample='sample = pd.read_csv("input/sample_submission.csv")',
        train_args="",
        target=task.target,
        id_col=task.id_col,
        fill=PER_TARGET_FILL,
        write_args="",
    )
    here = Path.cwd()
    os.chdir(root)
    try:
        exec(compile(code, "baseline", "exec"), {})  # noqa: S102 - our own template
    finally:
        os.chdir(here)
    sub = pd.read_csv(root / "final" / "submission.csv")
    train = pd.read_csv(root / "input" / "train.csv")
    for col in ("label_a", "label_b", "label_c"):
        assert sub[col].nunique() == 1 and sub[col].iloc[0] == pytest.approx(train[col].mean())
