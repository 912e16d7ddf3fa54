"""Outsiders' task.json files naming F2 and the 0.9-quantile pinball loss: both were refused
('unknown metric'); now a short offline run ends on a valid submission the evaluator grades in
that metric, the search validates in it (no score mismatch), and the pinball loss's boosters fit
the quantile it grades, not the mean."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_diabetes

from mlestar_jupyter.agent.run import RunOutcome
from mlestar_jupyter.evaluator.grading import grade_submission
from mlestar_jupyter.journal import RunJournal
from mlestar_jupyter.task import load_task


def _folder(root: Path, frame: pd.DataFrame, target: str, spec: dict[str, object]) -> Path:
    """A task folder as another author ships one: train/test/sample submission in input/, the
    test answers in private/, and a task.json naming the metric in their own words."""
    frame = frame.sample(frac=1.0, random_state=0).reset_index(drop=True)
    frame.insert(0, "row_id", np.arange(len(frame)) + 1000)
    cut = int(len(frame) * 0.8)
    inp = root / "input"
    inp.mkdir(parents=True)
    frame.iloc[:cut].to_csv(inp / "train.csv", index=False)
    test = frame.iloc[cut:]
    test.drop(columns=target).to_csv(inp / "test.csv", index=False)
    sample = test[["row_id", target]].copy()
    sample[target] = frame[target].iloc[0]
    sample.to_csv(inp / "sample_submission.csv", index=False)
    (root / "private").mkdir()
    test[["row_id", target]].to_csv(root / "private" / "answers.csv", index=False)
    (root / "task.json").write_text(json.dumps({**spec, "target": target, "id_column": "row_id"}))
    return root


def _no_mismatch(out: RunOutcome) -> None:
    events = RunJournal.open(out.run_dir).events
    mismatches = [e.data for e in events if e.type == "score_mismatch"]
    assert not mismatches, mismatches  # printed (the notebook's metric) == measured


def test_an_f2_task_on_word_labels_ends_graded_by_f2(
    tmp_path: Path, short_run: Callable[..., RunOutcome]
) -> None:
    data = load_breast_cancer(as_frame=True)
    frame = data.frame.rename(columns=lambda c: c.replace(" ", "_")).drop(columns="target")
    frame["diagnosis"] = np.where(data.target == 1, "benign", "malignant")
    root = _folder(
        tmp_path / "screen",
        frame.iloc[:400],
        "diagnosis",
        {
            "name": "tumour-screen",
            "goal": "Find the malignant tumours: a missed one costs more than a false alarm.",
            "metric": "F2 score",
            "positive_label": "malignant",
        },
    )
    task = load_task(root)
    assert (task.metric_name, task.task_type) == ("f2", "classification")
    out = short_run(root)
    assert out.status == "done", out.stop_reason
    _no_mismatch(out)
    graded = grade_submission(task, Path(out.run_dir) / "final" / "submission.csv")
    assert graded.valid_submission, graded.invalid_reason
    assert graded.score is not None and 0.8 < graded.score <= 1.0


def test_a_pinball_task_fits_its_quantile_and_ends_graded_by_it(
    tmp_path: Path, short_run: Callable[..., RunOutcome]
) -> None:
    frame = load_diabetes(as_frame=True).frame.rename(columns={"target": "progression"})
    root = _folder(
        tmp_path / "diabetes",
        frame,
        "progression",
        {
            "name": "diabetes-upper",
            "goal": "Predict an upper bound of disease progression one year on.",
            "metric": "mean_pinball_loss(alpha=0.9)",
        },
    )
    task = load_task(root)
    assert (task.metric_name, task.direction, task.task_type) == (
        "pinball@0.9",
        "minimize",
        "regression",
    )
    out = short_run(root)
    assert out.status == "done", out.stop_reason
    _no_mismatch(out)
    notebooks = [p.read_text() for p in Path(out.run_dir).rglob("*.ipynb")]
    assert any("quantile" in nb and "0.9" in nb for nb in notebooks)  # the objective fitted
    path = Path(out.run_dir) / "final" / "submission.csv"
    graded = grade_submission(task, path)
    assert graded.valid_submission, graded.invalid_reason
    answers = pd.read_csv(root / "private" / "answers.csv")
    submitted = pd.read_csv(path).set_index("row_id").loc[answers["row_id"], "progression"]
    from sklearn.metrics import mean_pinball_loss

    want = mean_pinball_loss(answers["progression"], submitted.to_numpy(), alpha=0.9)
    assert graded.score == want or abs(graded.score - want) < 1e-9
    # a 0.9 quantile lies above most answers (a mean's prediction: about half of them)
    assert np.mean(submitted.to_numpy() >= answers["progression"].to_numpy()) > 0.7
