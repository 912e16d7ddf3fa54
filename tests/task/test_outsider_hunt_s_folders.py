"""Task folders written by other authors (hunt S, session 35): a task.json saying which way its
metric is better beside ``"metric": "..."`` (``"greaterIsBetter": false``), and one whose
direction contradicts its metric."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sklearn.datasets import load_diabetes

from mlestar_jupyter.task import TaskFormatError, load_task


def _diabetes(root: Path, spec: dict[str, Any]) -> Path:
    """Diabetes progression in ``data/`` (train/test, no sample), and the author's task.json."""
    frame = load_diabetes(as_frame=True).frame.rename(columns={"target": "progression"})
    frame.insert(0, "pid", range(len(frame)))
    (root / "data").mkdir(parents=True)
    frame.iloc[:350].to_csv(root / "data" / "train.csv", index=False)
    frame.iloc[350:].drop(columns="progression").to_csv(root / "data" / "test.csv", index=False)
    spec = {**spec, "target": "progression", "id_column": "pid"}
    (root / "task.json").write_text(json.dumps(spec))
    return root


@pytest.mark.parametrize(
    ("fields", "key"),
    [
        ({"metric": "rmse", "greater_is_better": False}, "greater_is_better"),
        ({"metric": "MAE", "greaterIsBetter": False}, "greater_is_better"),
        ({"metric": "mae", "lower_is_better": True}, "lower_is_better"),
        (
            {
                "evaluation": "Submissions are evaluated on Mean Absolute Error",
                "higher_is_better": "false",
            },
            "higher_is_better",
        ),
    ],
)
def test_a_direction_beside_the_metric_is_read(
    tmp_path: Path, fields: dict[str, Any], key: str
) -> None:
    """Before: "task.json: fields not read: greater_is_better" (only a metric object's own was
    read); now it is the metric's direction, agreeing with it."""
    task = load_task(_diabetes(tmp_path, fields))
    assert task.direction == "minimize"
    assert any(f"read '{key}' as the metric's direction (minimize)" in n for n in task.notices)
    assert not any("not read" in n for n in task.notices), task.notices


@pytest.mark.parametrize(
    "fields",
    [
        {"metric": "r2", "greaterIsBetter": False},  # before: read as r2, maximized (unread)
        {"metric": {"name": "mae", "direction": "maximize"}},  # before: MAE maximized
    ],
)
def test_a_direction_that_contradicts_the_metric_is_refused(
    tmp_path: Path, fields: dict[str, Any]
) -> None:
    """A run maximizing MAE keeps its worst candidates: the task is refused saying why."""
    with pytest.raises(TaskFormatError, match="-is-better, but the task file says"):
        load_task(_diabetes(tmp_path, fields))


def test_a_negated_scikit_learn_scorer_higher_is_better_grades_the_error_lower(
    tmp_path: Path,
) -> None:
    """``{"name": "neg_mean_absolute_error", "greater_is_better": true}`` is scikit-learn's
    negated MAE; before, the run graded MAE itself and maximized it (kept the worst model)."""
    spec = {"metric": {"name": "neg_mean_absolute_error", "greater_is_better": True}}
    task = load_task(_diabetes(tmp_path, spec))
    assert (task.metric_name, task.direction) == ("mae", "minimize")
    assert any("negated mae" in n for n in task.notices)
