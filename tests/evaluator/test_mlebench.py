"""Grading an MLE-bench competition folder and a multi-target (MCRMSE) TAM-Bench task."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlestar_jupyter.evaluator import grade_submission


def _mlebench_folder(root: Path, answers_name: str = "prepared/private/test.csv") -> Path:
    rng = np.random.default_rng(0)
    pub = root / "prepared" / "public"
    pub.mkdir(parents=True)
    (root / "description.md").write_text(
        "# Spooky text\n\nPredict the label of each row.\n\n## Evaluation\n\nMetric: accuracy\n"
    )
    (pub / "description.md").write_text((root / "description.md").read_text())
    train = pd.DataFrame(
        {
            "id": [f"tr{i}" for i in range(40)],
            "x": rng.normal(size=40),
            "label": rng.choice(["EAP", "HPL", "MWS"], 40),
        }
    )
    test_ids = [f"te{i}" for i in range(20)]
    train.to_csv(pub / "train.csv", index=False)
    pd.DataFrame({"id": test_ids, "x": rng.normal(size=20)}).to_csv(pub / "test.csv", index=False)
    pd.DataFrame({"id": test_ids, "label": "EAP"}).to_csv(
        pub / "sample_submission.csv", index=False
    )
    ans = root / answers_name
    ans.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"id": test_ids, "label": ["EAP", "HPL", "MWS", "EAP"] * 5, "x": 0.0}).to_csv(
        ans, index=False
    )
    # MLE-bench's leaderboard.csv: Kaggle columns, one score per team
    pd.DataFrame(
        {
            "teamId": range(10),
            "teamName": [f"t{i}" for i in range(10)],
            "submissionDate": "2020-01-01",
            "score": [0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.45, 0.4, 0.3],
        }
    ).to_csv(root / "leaderboard.csv", index=False)
    return root


@pytest.mark.parametrize("answers_name", ["prepared/private/test.csv", "answers.csv"])
def test_grade_mlebench_folder(tmp_path: Path, answers_name: str) -> None:
    root = _mlebench_folder(tmp_path / "spooky", answers_name)
    ans = pd.read_csv(root / answers_name)
    sub = tmp_path / "sub.csv"
    ans[["id", "label"]].to_csv(sub, index=False)
    r = grade_submission(root, sub)
    assert r.valid_submission and r.score == 1.0 and r.metric == "accuracy"
    assert (r.rank, r.participants, r.medal) == (1, 11, "gold")
    assert r.difficulty_level is not None  # computed from the board when task.json has none
    half = ans[["id", "label"]].assign(label=["EAP"] * 20)
    half.to_csv(sub, index=False)
    r = grade_submission(root, sub)
    assert (
        r.score == pytest.approx(0.5) and r.rank == 7 and r.beats_pct == pytest.approx(30.0)
    )  # 0.5 ties t6: only strictly better count
    ans[["id"]].assign(label="Poe").to_csv(sub, index=False)
    assert (
        "not classes of the training target, first: 'Poe' at id te0; expected one of 'EAP', 'HPL', 'MWS'"
        in (grade_submission(root, sub).invalid_reason or "")
    )


def test_grade_multi_target_mcrmse(tmp_path: Path) -> None:
    root = tmp_path / "essays"
    (root / "input").mkdir(parents=True)
    (root / "private").mkdir()
    ids = [f"e{i}" for i in range(6)]
    pd.DataFrame({"id": ids, "text": "t", "cohesion": 3.0, "syntax": 3.0}).to_csv(
        root / "input" / "train.csv", index=False
    )
    pd.DataFrame({"id": ids, "cohesion": 3.0, "syntax": 3.0}).to_csv(
        root / "input" / "sample_submission.csv", index=False
    )
    truth = pd.DataFrame(
        {"id": ids, "cohesion": [2.0, 3, 4, 2, 3, 4], "syntax": [1.0, 2, 3, 4, 5, 3]}
    )
    truth.to_csv(root / "private" / "answers.csv", index=False)
    (root / "task.json").write_text(
        json.dumps(
            {
                "task_type": "regression",
                "goal_description": "Score essays on two measures.",
                "metric": {"metric_name": "MCRMSE"},
                "target_col": ["cohesion", "syntax"],
                "data_information": {"data_type": "Text", "train": {"data_location": "train.csv"}},
            }
        )
    )
    sub = tmp_path / "s.csv"
    pred = truth.assign(cohesion=truth.cohesion + 1.0, syntax=truth.syntax - 2.0)
    pred.to_csv(sub, index=False)
    r = grade_submission(root, sub)
    assert (
        r.valid_submission
        and r.direction == "minimize"
        and r.score == pytest.approx((1.0 + 2.0) / 2)
    )
    assert r.rank is None and r.medal == "none"  # no leaderboard: graded, not ranked
